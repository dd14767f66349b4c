"""Which preset a submission is for, found from what it holds, so ``--preset`` is rarely needed.

Every preset has its own number of information sets per seat (``teamleduc info``), and a
strategy file has one line (or ``.npy`` row) per information set of its seat. So the line
counts of a submission's strategy files (one file per seat: the first signal's) name the
presets it can be for (:func:`fit_presets`). When several presets fit, two clues decide: a
``solve-report.json`` beside the submission (``solve --out`` writes one next to
``submission/``) names its preset, and the 2025 formats (``.npy`` strategies, team zips)
belong to ``team-leduc-2025``. Otherwise the choice is refused with the list of presets that
fit (:func:`choose_preset`).

Several submissions (``evaluate A B``, ``grade``) are one game: the preset that fits the most
of them wins; a tie is refused with what each one fits. Submissions whose files fit no preset
(broken ones) do not vote, and when nothing votes the preset follows the format
(``team-leduc-2025`` for the 2025 formats, else ``team-leduc``), so validation still reports
their problems.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import DEFAULT_PRESET, GameConfig, get_config
from ..errors import TeamLeducError
from ..infosets import preset_sizes
from .findings import SubmissionError
from .format2025 import _npy_header
from .reading import detect_format
from .safeio import csv_limit, npy_limit, open_container

PRESET_2025 = "team-leduc-2025"
REPORT_NAME = "solve-report.json"
_STRATEGY = re.compile(r"strategy(\d{1,18})-player(\d{1,3})\.(csv|npy)")
_TEAM_ZIP = re.compile(r"team\d+\.zip")


@dataclass(frozen=True)
class PresetFit:
    """What a submission's files say about its preset.

    ``counts`` maps each 0-based seat with a strategy file to the lines (rows) of its first
    signal's file; ``fits`` are the presets whose seats have exactly those counts (when none
    fits every seat: those fitting the most seats, ``partial``); ``report`` is the preset named
    by a ``solve-report.json`` beside it.
    """

    path: str
    format: str
    counts: dict[int, int] = field(default_factory=dict)
    fits: tuple[str, ...] = ()
    partial: bool = False
    report: str | None = None

    def describe_counts(self) -> str:
        return ", ".join(f"seat {s + 1}: {n:,} lines" for s, n in sorted(self.counts.items()))


def _csv_lines(data: bytes) -> int:
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    first = data[: data.find(b"\n")] if b"\n" in data else data
    if first.startswith(b",") or re.search(rb"[A-DF-Za-df-z_]", first):
        lines -= 1  # a header row (pandas' default): the information sets are the other lines
    return lines


def _counts_in(container, counts: dict[int, int]) -> None:
    """First signal's line count per seat of an open container, into ``counts``."""
    first: dict[int, tuple[int, str]] = {}
    for name in container.names():
        m = _STRATEGY.fullmatch(name)
        if m:
            signal, seat = int(m.group(1)), int(m.group(2)) - 1
            if seat not in first or signal < first[seat][0]:
                first[seat] = (signal, name)
    largest = max(max(sizes) for sizes in preset_sizes().values())
    for seat, (_, name) in first.items():
        try:
            if name.endswith(".npy"):
                header = _npy_header(container.read(name, npy_limit(2 * largest)))
                if not isinstance(header, str) and len(header[0]) == 2:
                    counts[seat] = int(header[0][0])
            else:
                counts[seat] = _csv_lines(container.read(name, csv_limit(2 * largest)))
        except SubmissionError:
            continue


def _report_preset(path: Path) -> str | None:
    for folder in (path, path.parent) if path.is_dir() else (path.parent,):
        report = folder / REPORT_NAME
        try:
            if report.is_file() and report.stat().st_size < 2**26:
                preset = json.loads(report.read_text(encoding="utf-8")).get("preset")
                if isinstance(preset, str) and preset in preset_sizes():
                    return preset
        except (OSError, ValueError, AttributeError):
            continue
    return None


def fit_presets(path: str | os.PathLike[str]) -> PresetFit:
    """The presets the submission at ``path`` can be for (see :class:`PresetFit`). Never
    raises for a bad submission: what cannot be read says nothing (empty ``fits``)."""
    path = Path(path)
    try:
        fmt = detect_format(path)
    except (SubmissionError, OSError):
        return PresetFit(str(path), "unknown")
    counts: dict[int, int] = {}
    try:
        with open_container(path) as c:
            if fmt == "teams2025":
                for name in c.names():
                    if _TEAM_ZIP.fullmatch(name):
                        try:
                            with open_container(c.members[name].ref, label=name) as inner:
                                _counts_in(inner, counts)
                        except SubmissionError:
                            continue
            else:
                _counts_in(c, counts)
    except (SubmissionError, OSError):
        pass
    report = _report_preset(path)
    if not counts:
        return PresetFit(str(path), fmt, counts, report=report)
    score = {
        name: sum(seat < len(sizes) and sizes[seat] == n for seat, n in counts.items())
        for name, sizes in preset_sizes().items()
        if max(counts) < len(sizes)
    }
    best = max(score.values(), default=0)
    fits = tuple(name for name, k in score.items() if k == best and k > 0)
    # the seats with files must be whole teams of the preset (a kuhn-3p submission's three
    # seats of 16 lines are not whole teams of tiny-team), unless no fitting preset has them
    whole = tuple(n for n in fits if _whole_teams(get_config(n), set(counts)))
    return PresetFit(
        str(path), fmt, counts, whole or fits, partial=best < len(counts), report=report
    )


def _whole_teams(config: GameConfig, seats: set[int]) -> bool:
    return all(set(t) <= seats or not set(t) & seats for t in config.teams)


def _narrow(names: Iterable[str], fits: list[PresetFit]) -> list[str]:
    """Break a tie with the clues: a solve report, then the 2025 formats."""
    names = list(names)
    reports = {f.report for f in fits if f.report is not None}
    if len(reports) == 1 and reports <= set(names):
        return list(reports)
    if PRESET_2025 in names and any(f.format in ("npy2025", "teams2025") for f in fits):
        return [PRESET_2025]
    return names


def choose_preset(
    paths: Iterable[str | os.PathLike[str]], default: str | None = None
) -> GameConfig:
    """The preset of the submissions at ``paths`` (existing paths only; baseline names and
    objects are left out by the caller). TeamLeducError when it is ambiguous, naming the
    presets that fit; ``default`` (else the format's) when nothing can be told."""
    fits = [fit_presets(p) for p in paths]
    voters = [f for f in fits if f.fits]
    if not voters:
        reports = {f.report for f in fits if f.report}
        if len(reports) == 1:
            return get_config(reports.pop())
        if default is None:
            is_2025 = any(f.format in ("npy2025", "teams2025") for f in fits)
            default = PRESET_2025 if is_2025 else DEFAULT_PRESET
        return get_config(default)
    votes: dict[str, int] = {}
    for f in voters:
        for name in f.fits:
            votes[name] = votes.get(name, 0) + 1
    top = max(votes.values())
    best = _narrow([n for n, v in votes.items() if v == top], voters)
    if len(best) == 1:
        return get_config(best[0])
    if len(voters) == 1:
        f = voters[0]
        raise TeamLeducError(
            f"cannot tell the preset of {f.path}: its files ({f.describe_counts()}) fit "
            f"{', '.join(best)}; pass --preset with one of them"
        )
    each = "; ".join(f"{f.path}: {', '.join(f.fits)}" for f in voters)
    raise TeamLeducError(
        f"cannot tell the preset: the submissions fit different presets ({each}); "
        f"pass --preset with one of {', '.join(best)}"
    )
