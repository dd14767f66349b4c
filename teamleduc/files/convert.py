"""Converting a submission between the spec's CSV files and the 2025 team zips, losslessly.

:func:`convert` reads the source in any format (fully checked first: nothing is written
from an invalid source) and writes the target. Two team zips whose meta-strategies are
identical share it; otherwise the two are merged with
:func:`teamleduc.files.model.merge_team_mixtures`. Converting back gives identical arrays.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import GameConfig
from ..errors import TeamLeducError
from ..outputs import check_target, lies_within
from .findings import Finding, SubmissionError
from .format2025 import team_zip_name, write_submission_2025, write_team_zip
from .reading import read_path
from .writing import write_submission

#: file formats :func:`convert` writes
TARGETS = ("csv", "npy2025")


@dataclass(frozen=True)
class ConvertResult:
    """What :func:`convert` did."""

    source: str
    source_format: str
    destination: str
    target_format: str
    preset: str
    seats: tuple[int, ...]
    num_signals: int
    written: tuple[str, ...]
    warnings: tuple[Finding, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        seats = ",".join(str(s + 1) for s in self.seats)
        return (
            f"converted {self.source} ({self.source_format}) to {self.destination} "
            f"({self.target_format}): preset {self.preset}, seats {seats}, "
            f"{self.num_signals} signal{'s' if self.num_signals != 1 else ''}; wrote "
            + ", ".join(self.written)
        )

    def to_dict(self) -> dict:
        from .. import __version__

        return {
            "version": __version__,
            "preset": self.preset,
            "source": self.source,
            "source_format": self.source_format,
            "destination": self.destination,
            "target_format": self.target_format,
            "seats": [s + 1 for s in self.seats],
            "signals": self.num_signals,
            "written": list(self.written),
            "warnings": [w.to_dict() for w in self.warnings],
        }


def check_outside_source(dst: str | os.PathLike[str], src: str | os.PathLike[str]) -> None:
    """TeamLeducError (exit 2) if ``dst`` lies inside the source folder ``src``: the source
    would then hold the converted copy (a CSV submission with a folder beside its files is
    refused by every reader). ``dst`` equal to ``src`` is left to
    :func:`teamleduc.outputs.check_target` (refused as holding the input)."""
    if not os.path.isdir(src) or not lies_within(dst, src):
        return
    if Path(os.path.abspath(dst)) == Path(os.path.abspath(src)):
        return
    from ..arguments import excerpt

    raise TeamLeducError(
        f"{excerpt(os.fspath(dst))}: refused: it lies inside the source {excerpt(os.fspath(src))}, "
        "which would then hold the copy; give a DST outside the source"
    )


def convert(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    to: str,
    config: GameConfig,
    seats: Iterable[int] | None = None,
    *,
    overwrite: bool = False,
) -> ConvertResult:
    """Convert the submission ``src`` (any format) to ``to``: ``"csv"`` writes one CSV
    submission (a folder, or a zip if ``dst`` ends in ``.zip``); ``"npy2025"`` writes the
    folder ``dst`` holding one zip per team played, or, if ``dst`` ends in ``.zip`` and ``src``
    plays one team, that team's zip.

    The source is fully checked first; if it is invalid, SubmissionError lists every problem
    and nothing is written. The target follows :func:`teamleduc.outputs.check_target`: an
    existing non-empty ``dst`` is refused unless ``overwrite``, and never replaced if it is or
    holds ``src`` or the current folder. Lossless: converting back gives identical arrays.
    """
    if to not in TARGETS:
        raise ValueError(f"unknown target format {to!r}; use one of {', '.join(TARGETS)}")
    check_outside_source(dst, src)
    check_target(dst, overwrite, inputs=[src])  # before the (long) reading
    result = read_path(src, config, seats=seats, keep=True)
    if result.errors:
        n = len(result.errors)
        raise SubmissionError(
            f"{src} is not a valid submission ({n} problem{'s' if n != 1 else ''}); "
            f"nothing was written",
            findings=result.errors,
        )
    sub = result.submission
    if to == "csv":
        written = [write_submission(sub, dst, overwrite=overwrite, config=config, inputs=[src])]
    elif Path(dst).suffix.lower() == ".zip":  # one team zip
        teams = [t for t in config.teams if set(t) <= set(sub.seats)]
        if len(teams) != 1:
            raise TeamLeducError(
                f"{dst}: a .zip holds one team, and {src} plays {len(teams)}; "
                f"give a folder to hold " + " and ".join(map(team_zip_name, teams))
            )
        written = [write_team_zip(sub, dst, config, teams[0], overwrite=overwrite, inputs=[src])]
    else:
        written = write_submission_2025(sub, dst, config, overwrite=overwrite, inputs=[src])
    return ConvertResult(
        source=str(src),
        source_format=result.format,
        destination=str(dst),
        target_format=to,
        preset=config.name,
        seats=sub.seats,
        num_signals=sub.num_signals,
        written=tuple(str(p) for p in written),
        warnings=tuple(result.warnings),
    )
