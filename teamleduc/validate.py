"""Validation of a submission: every problem, located, in one report.

:func:`validate_submission` reads a submission in any format (CSV folder or zip, a 2025 team
zip, a folder of team zips; see :mod:`teamleduc.formats2025`) without keeping its arrays, and
returns a :class:`ValidationReport`: errors (the submission is invalid) and warnings (accepted
deviations and files nothing uses), each a :class:`~teamleduc.files.safeio.Finding` naming the file,
the line and, for strategy lines, the information set. At most
:data:`~teamleduc.files.safeio.DEFAULT_CAP` lines are listed per file, plus a count of the rest.

The checks (issue 3, spec section 3):

- ``meta-strategy.csv``: lines ``j,p``; j a unique non-negative integer; p finite in [0, 1];
  the p sum to 1 within 1e-6;
- every listed signal has a strategy file for every required seat;
- each strategy file has exactly one line per information set of its seat, three finite
  decimals in [0, 1] per line summing to 1 within 1e-6, and 0 on every illegal action;
- files no signal uses are warned about.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .config import GameConfig, get_config
from .files.reading import read_path
from .files.safeio import DEFAULT_CAP, Finding
from .infosets import infoset_tables
from .tree import build_tree

_FORMAT_WORDS = {
    "csv": "CSV submission",
    "npy2025": "2025 team submission (.npy)",
    "teams2025": "2025 team zips",
    "unknown": "unreadable submission",
}


@dataclass(frozen=True)
class ValidationReport:
    """The outcome of :func:`validate_submission`.

    ``ok`` is True when there are no errors (warnings allowed). ``seats`` are 0-based.
    """

    path: str
    preset: str
    format: str
    seats: tuple[int, ...]
    num_signals: int
    files_checked: int
    infosets_per_seat: tuple[int, ...]
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def summary(self) -> str:
        """One line: verdict, what was checked, counts."""
        seats = ",".join(str(s + 1) for s in self.seats) or "none"
        sizes = sorted({self.infosets_per_seat[s] for s in self.seats}) if self.seats else []
        size = "/".join(f"{n:,}" for n in sizes)
        e, w = len(self.errors), len(self.warnings)
        return (
            f"{'VALID' if self.ok else 'INVALID'}: {self.path}: "
            f"{_FORMAT_WORDS.get(self.format, self.format)}, preset {self.preset}, seats {seats}, "
            f"{self.num_signals} signal{'s' if self.num_signals != 1 else ''}, "
            f"{self.files_checked} strategy file{'s' if self.files_checked != 1 else ''} checked"
            + (f" ({size} information sets each)" if size else "")
            + f"; {e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}"
        )

    def __str__(self) -> str:
        lines = [f"error: {f}" for f in self.errors] + [f"warning: {f}" for f in self.warnings]
        return "\n".join(lines + [self.summary])

    def to_dict(self) -> dict:
        from . import __version__

        return {
            "version": __version__,
            "preset": self.preset,
            "path": self.path,
            "format": self.format,
            "ok": self.ok,
            "seats": [s + 1 for s in self.seats],
            "signals": self.num_signals,
            "files_checked": self.files_checked,
            "infosets_per_seat": list(self.infosets_per_seat),
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
            "summary": self.summary,
        }


def validate_submission(
    path: str | os.PathLike[str],
    config: GameConfig | str = "team-leduc",
    seats: Iterable[int] | None = None,
    cap: int = DEFAULT_CAP,
) -> ValidationReport:
    """Check the submission at ``path`` for ``config``.

    Parameters
    ----------
    path : folder, ``.zip``, 2025 team zip or folder of team zips.
    config : a GameConfig or preset name.
    seats : 0-based seats whose files are required (whole teams); None takes every team that
        has at least one strategy file.
    cap : lines listed per file (the rest are counted).

    Never raises for a bad submission (its problems are the report); FileNotFoundError if
    ``path`` does not exist, ValueError if ``seats`` are not whole teams.
    """
    config = get_config(config)
    result = read_path(path, config, seats=seats, keep=False, cap=cap)
    sizes = tuple(t.size for t in infoset_tables(build_tree(config)))
    return ValidationReport(
        path=str(Path(path)),
        preset=config.name,
        format=result.format,
        seats=tuple(result.seats),
        num_signals=len(result.signals),
        files_checked=result.files_checked,
        infosets_per_seat=sizes,
        errors=tuple(result.errors),
        warnings=tuple(result.warnings),
    )


# --------------------------------------------------------------------------------------------
# A class: many submissions in one table
# --------------------------------------------------------------------------------------------


def is_class_folder(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is a folder of submissions (each a folder or a ``.zip``) rather than a
    submission: it holds no submission file (``meta-strategy.csv``, ``strategy*``, team zips)
    and at least one folder or zip."""
    path = Path(path)
    if not path.is_dir():
        return False
    entries = [p for p in path.iterdir() if not p.name.startswith(".")]
    names = {p.name for p in entries if p.is_file()}
    if "meta-strategy.csv" in names or any(
        n.startswith("strategy") or re.fullmatch(r"team\d+\.zip", n) for n in names
    ):
        return False
    return any(p.is_dir() or p.suffix.lower() == ".zip" for p in entries)


def class_entries(path: str | os.PathLike[str]) -> list[Path]:
    """The submissions of a class folder (its sub-folders and ``.zip`` files, by name)."""
    return sorted(
        (
            p
            for p in Path(path).iterdir()
            if not p.name.startswith(".") and (p.is_dir() or p.suffix.lower() == ".zip")
        ),
        key=lambda p: p.name,
    )


@dataclass(frozen=True)
class ValidationBatch:
    """The reports of several submissions (``teamleduc validate A B ...`` or a class folder);
    ``ok`` when every one is valid."""

    preset: str
    reports: tuple[ValidationReport, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.reports)

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """(name, verdict, seats, signals, first problem) per submission."""
        return [
            (
                Path(r.path).name,
                "VALID" if r.ok else "INVALID",
                ",".join(str(s + 1) for s in r.seats) or "-",
                str(r.num_signals),
                str(r.errors[0]) if r.errors else "",
            )
            for r in self.reports
        ]

    def __str__(self) -> str:
        header = ("name", "verdict", "seats", "signals", "first problem")
        rows = self.rows()
        widths = [max(len(header[k]), *(len(r[k]) for r in rows)) for k in range(4)]
        lines = []
        for r in [header, *rows]:
            problem = r[4] if len(r[4]) <= 110 else r[4][:107] + "..."
            lines.append(
                f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
                f"{r[3]:>{widths[3]}}  {problem}".rstrip()
            )
        bad = sum(not r.ok for r in self.reports)
        n = len(self.reports)
        lines.append(
            f"{n} submission{'s' * (n != 1)} (preset {self.preset}): {n - bad} valid, {bad} invalid"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        from . import __version__

        return {
            "version": __version__,
            "preset": self.preset,
            "ok": self.ok,
            "valid": sum(r.ok for r in self.reports),
            "invalid": sum(not r.ok for r in self.reports),
            "submissions": [
                {"name": row[0], "first_problem": row[4] or None} | r.to_dict()
                for row, r in zip(self.rows(), self.reports)
            ],
        }


def validate_many(
    paths: Iterable[str | os.PathLike[str]],
    config: GameConfig | str = "team-leduc",
    seats: Iterable[int] | None = None,
    cap: int = DEFAULT_CAP,
) -> ValidationBatch:
    """Validate every submission of ``paths``, a class folder standing for its entries
    (:func:`class_entries`); one :class:`ValidationReport` each, in order."""
    config = get_config(config)
    expanded: list[Path] = []
    for p in paths:
        expanded += class_entries(p) if is_class_folder(p) else [Path(p)]
    reports = tuple(validate_submission(p, config, seats, cap) for p in expanded)
    return ValidationBatch(config.name, reports)
