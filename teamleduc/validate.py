"""Validation of a submission: every problem, located, in one report.

:func:`validate_submission` reads a submission in any format (CSV folder or zip, a 2025 team
zip, a folder of team zips; see :mod:`teamleduc.files.format2025`) without keeping its arrays, and
returns a :class:`ValidationReport`: errors (the submission is invalid) and warnings (accepted
deviations and files nothing uses), each a :class:`~teamleduc.files.findings.Finding` naming the file,
the line and, for strategy lines, the information set. At most
:data:`~teamleduc.files.findings.DEFAULT_CAP` lines are listed per file, plus a count of the rest.

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

from .arguments import check_count, check_path
from .config import GameConfig, get_config, require_config
from .files.findings import DEFAULT_CAP, Finding
from .files.reading import checked_seats, read_path
from .infosets import infoset_tables
from .names import display_name, display_width, pad
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
    cap : lines listed per file, an int >= 0 (the rest are counted).

    Never raises for a bad submission (its problems are the report);
    :class:`~teamleduc.files.findings.SubmissionNotFoundError` (a FileNotFoundError) if
    ``path`` does not exist; ArgumentTypeError / ArgumentValueError for a bad argument (seats
    that are not whole teams, a ``cap`` that is not an int >= 0).
    """
    check_path(path)
    config = get_config(config)
    cap = check_count(cap, "cap")
    return _validate(path, config, checked_seats(config, seats), cap)


def _validate(
    path: str | os.PathLike[str], config: GameConfig, seats: Iterable[int] | None, cap: int
) -> ValidationReport:
    """:func:`validate_submission` of a resolved game."""
    check_path(path)
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


def _listing(path: str | os.PathLike[str]) -> list[os.DirEntry] | None:
    """The entries of folder ``path`` that are not hidden, or None if it is not a readable
    folder (nothing is opened but the folder)."""
    try:
        if not os.path.isdir(path):
            return None
        with os.scandir(path) as it:
            return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return None


def _is_dir(entry: os.DirEntry) -> bool:
    """A folder, or a link to one (a link's target is checked when it is read)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_dangling(entry: os.DirEntry) -> bool:
    """A symbolic link whose target is missing, or a loop of links: listed as an entry of a
    class folder (one invalid row), never skipped without a word."""
    try:
        return entry.is_symlink() and not os.path.exists(entry.path)
    except (OSError, ValueError):
        return False


def _is_entry(entry: os.DirEntry) -> bool:
    """An entry of a class folder: a folder, a ``.zip`` or a broken or looping link."""
    return _is_dir(entry) or entry.name.lower().endswith(".zip") or _is_dangling(entry)


def _holds_submission_files(entries: list[os.DirEntry]) -> bool:
    names = {e.name for e in entries if not _is_dir(e)}
    return "meta-strategy.csv" in names or any(
        n.startswith("strategy") or re.fullmatch(r"team\d+\.zip", n) for n in names
    )


def is_class_folder(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is a folder of submissions (each a folder or a ``.zip``) rather than a
    submission: it holds no submission file (``meta-strategy.csv``, ``strategy*``, team zips)
    and at least one folder or zip, and it is not a submission whose files sit in its one top
    folder (a folder holding only ``submission/``, which holds ``meta-strategy.csv``).
    Unreadable folders are not class folders (reading them as a submission says why)."""
    entries = _listing(path)
    if not entries or _holds_submission_files(entries):
        return False
    if len(entries) == 1 and _is_dir(entries[0]):
        inner = _listing(entries[0].path)
        if inner and _holds_submission_files(inner):
            return False  # one submission in its top folder
    return any(_is_entry(e) for e in entries)


def class_entries(path: str | os.PathLike[str]) -> list[Path]:
    """The submissions of a class folder (its sub-folders and ``.zip`` files, by name; a
    ``.zip`` name that is a pipe or a device, and any broken or looping symbolic link, is
    listed too, and reported as invalid when read)."""
    return [Path(path, e.name) for e in _listing(path) or [] if _is_entry(e)]


def expand_classes(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """``paths`` with each class folder replaced by its entries (one level: an entry is
    always one submission, whatever it holds)."""
    out: list[Path] = []
    for p in paths:
        out += class_entries(p) if is_class_folder(p) else [Path(p)]
    return out


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
        """(name, verdict, seats, signals, first problem) per submission, as data (the
        folder or file name exactly; :meth:`__str__` shows it escaped)."""
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
        # names and problems as the terminal shows them (control characters escaped: a folder
        # name cannot move the cursor or break the table), padded by the columns they take
        rows = [(display_name(r[0]), *r[1:4], display_name(r[4])) for r in self.rows()]
        widths = [max(len(header[k]), *(display_width(r[k]) for r in rows)) for k in range(4)]
        lines = []
        for r in [header, *rows]:
            problem = r[4] if len(r[4]) <= 110 else r[4][:107] + "..."
            lines.append(
                f"{pad(r[0], widths[0])}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
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
    config: GameConfig,
    seats: Iterable[int] | None = None,
    cap: int = DEFAULT_CAP,
    *,
    expand: bool = True,
) -> ValidationBatch:
    """Validate every submission of ``paths``, a class folder standing for its entries
    (:func:`expand_classes`; ``expand=False`` when the paths are entries already); one
    :class:`ValidationReport` each, in order. One bad entry (missing, a broken or looping
    link, unreadable) is one invalid report; the others are still validated. ValueError if
    ``seats`` are not whole teams."""
    from .files.model import whole_teams

    require_config(config)
    cap = check_count(cap, "cap")
    if seats is not None:
        seats = whole_teams(config, seats)
    entries = expand_classes(paths) if expand else [Path(p) for p in paths]
    return ValidationBatch(config.name, tuple(_report(p, config, seats, cap) for p in entries))


def _report(path: Path, config: GameConfig, seats, cap: int) -> ValidationReport:
    """:func:`validate_submission`, with a path that cannot be read as an invalid report."""
    try:
        return _validate(path, config, seats, cap)
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            link = " (a broken or looping symbolic link)" if os.path.lexists(path) else ""
            message = f"no such file or folder{link}"
        else:
            message = f"cannot read: {e.strerror or e}"
        return ValidationReport(
            path=str(path),
            preset=config.name,
            format="unknown",
            seats=tuple(seats or ()),
            num_signals=0,
            files_checked=0,
            infosets_per_seat=tuple(t.size for t in infoset_tables(build_tree(config))),
            errors=(Finding(path.name or str(path), None, None, message),),
            warnings=(),
        )
