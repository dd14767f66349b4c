"""Reading whatever a path holds: the format detected from the file names, then checked.

A submission is a folder or ``.zip`` of the spec's CSV files, or one of the 2025 formats: a
team zip (``.npy`` strategies), a folder of ``.npy`` files, or a folder holding the team zips.
:func:`detect_format` tells them apart, :func:`read_path` checks (and loads) any of them into
one :class:`~teamleduc.files.model.ReadResult` (two team zips are combined into one
submission), and :func:`load_submission` is the strict form that raises on any problem. This
module sits above both formats, so each of them depends only on the model.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..arguments import check_path, check_seats
from ..config import GameConfig, get_config
from ..errors import ArgumentValueError
from .container import UNUSED_SHOWN, read_container
from .csv_format import CSV_FORMAT
from .findings import DEFAULT_CAP, Finding, SubmissionError, more_findings
from .format2025 import NPY_FORMAT, team_zip_name
from .model import ReadResult, Submission, combine_teams, whole_teams
from .safeio import META_NAME, open_container

_TEAM_ZIP = re.compile(r"team\d+\.zip")


def detect_format(path: str | os.PathLike[str]) -> str:
    """``"csv"``, ``"npy2025"`` (one team zip, or a folder of .npy files) or ``"teams2025"``
    (a folder holding team zips), from the file names. SubmissionError if unreadable."""
    with open_container(path) as c:
        names = c.names()
        kind = c.kind
    if META_NAME in names and any(n.endswith(".csv") and n.startswith("strategy") for n in names):
        return "csv"
    if any(re.fullmatch(r"strategy\d+-player\d+\.npy", n) for n in names):
        return "npy2025"
    if kind == "folder" and META_NAME not in names and any(_TEAM_ZIP.fullmatch(n) for n in names):
        return "teams2025"
    return "csv"


def _read_team_zips(
    path: Path, config: GameConfig, seats: tuple[int, ...] | None, keep: bool, cap: int
) -> ReadResult:
    out = ReadResult(format="teams2025")
    with open_container(path) as folder:
        out.warnings += folder.warnings
        names = set(folder.members)
        present = [t for t in config.teams if team_zip_name(t) in names]
        teams = present if seats is None else [t for t in config.teams if set(t) <= set(seats)]
        parts = []
        for team in teams:
            name = team_zip_name(team)
            if name not in names:
                out.errors.append(
                    Finding(
                        folder.display(name),
                        None,
                        None,
                        f"missing: the zip of team {','.join(str(s + 1) for s in team)}",
                    )
                )
                continue
            try:
                with open_container(folder.members[name].ref, label=name) as c:
                    r = read_container(c, config, NPY_FORMAT, seats=team, keep=keep, cap=cap)
            except SubmissionError as e:
                out.errors.append(e.finding)
                continue
            out.errors += r.errors
            out.warnings += r.warnings
            out.files_checked += r.files_checked
            out.signals = tuple(sorted(set(out.signals) | set(r.signals)))
            parts.append(r)
        unused = sorted(names - {team_zip_name(t) for t in teams})
        for name in unused[:UNUSED_SHOWN]:
            out.warnings.append(
                Finding(
                    folder.display(name), None, None, "not read: not one of the team zips checked"
                )
            )
        if len(unused) > UNUSED_SHOWN:
            out.warnings.append(
                more_findings(None, len(unused) - UNUSED_SHOWN, UNUSED_SHOWN, "unused files")
            )
    out.seats = tuple(sorted(s for t in teams for s in t))
    if not teams:
        out.errors.append(
            Finding(
                None,
                None,
                None,
                "no team zips (" + ", ".join(team_zip_name(t) for t in config.teams) + ")",
            )
        )
    if keep and not out.errors and parts:
        sub = parts[0].submission
        for r in parts[1:]:
            sub = combine_teams(sub, r.submission)
        out.submission = sub
        out.signals = tuple(sub.signals.tolist())
    return out


def read_path(
    path: str | os.PathLike[str],
    config: GameConfig,
    seats: Iterable[int] | None = None,
    keep: bool = True,
    cap: int = DEFAULT_CAP,
) -> ReadResult:
    """Check (and with ``keep`` load) a submission in any format, detected from its files.

    Problems of the submission become findings; FileNotFoundError if ``path`` does not exist.
    """
    if seats is not None:
        seats = whole_teams(config, seats)
    path = Path(path)
    try:
        fmt = detect_format(path)
    except SubmissionError as e:
        return ReadResult(format="unknown", seats=seats or (), errors=[e.finding])
    if fmt == "teams2025":
        return _read_team_zips(path, config, seats, keep, cap)
    try:
        with open_container(path) as c:
            result = read_container(
                c,
                config,
                NPY_FORMAT if fmt == "npy2025" else CSV_FORMAT,
                seats=seats,
                keep=keep,
                cap=cap,
            )
            if META_NAME not in c.members and any(_TEAM_ZIP.fullmatch(n) for n in c.members):
                result.errors.append(
                    Finding(
                        path.name,
                        None,
                        None,
                        "this archive holds team zips: "
                        "unzip it and pass the folder that holds them",
                    )
                )
            return result
    except SubmissionError as e:
        return ReadResult(format=fmt, seats=seats or (), errors=[e.finding])


def checked_seats(config: GameConfig, seats: object, what: str = "seats") -> tuple | None:
    """The seats a caller of the Python API requires, checked (:func:`check_seats`: 0-based
    ints, none twice) and sorted; whole teams, or ArgumentValueError saying the teams in the
    same 0-based numbering. None stays None (every team with files)."""
    if seats is None:
        return None
    chosen = tuple(sorted(check_seats(seats, config.num_seats, what)))
    teams = " and ".join(str(tuple(t)) for t in config.teams)
    if not chosen:
        raise ArgumentValueError(
            f"{what}: no seat given; give whole teams ({teams} in {config.name}, numbered "
            "from 0), or None for every team with files"
        )
    for team in config.teams:
        inside = set(team) & set(chosen)
        if inside and inside != set(team):
            raise ArgumentValueError(
                f"{what} {chosen} do not form whole teams (the teams of {config.name} are "
                f"{teams}, numbered from 0)"
            )
    return chosen


def load_submission(
    path: str | os.PathLike[str],
    config: GameConfig | str = "team-leduc",
    seats: Iterable[int] | None = None,
) -> Submission:
    """Load and check a submission: a folder or ``.zip`` of CSV files, or (detected by its
    files) the 2025 format: one team zip, or a folder holding the team zips.

    ``seats`` (0-based, whole teams) are required; None takes every team with files.
    Raises :class:`SubmissionError` listing every problem if the submission is invalid
    (use :func:`teamleduc.validate.validate_submission` for the full report and warnings),
    :class:`~teamleduc.files.findings.SubmissionNotFoundError` (a FileNotFoundError) if
    ``path`` does not exist, ArgumentTypeError / ArgumentValueError for a bad argument.
    """
    check_path(path)
    config = get_config(config)
    result = read_path(path, config, seats=checked_seats(config, seats), keep=True)
    if result.errors:
        first = result.errors[0]
        more = f" (and {len(result.errors) - 1} more problems)" if len(result.errors) > 1 else ""
        raise SubmissionError(
            first.message + more,
            file=first.file,
            line=first.line,
            infoset=first.infoset,
            findings=result.errors,
        )
    return result.submission
