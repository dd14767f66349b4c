"""What a solve run takes over from the run it resumes, and what an aborted run leaves.

:func:`previous_export` gives a resumed run the submission its predecessor wrote, so that
resuming never ends with a worse export; :func:`keep_checkpoint` makes an aborted run's
latest checkpoint its output folder's content.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..files.reading import load_submission
from ..outputs import link_or_copy, remove
from .checkpoint import CHECKPOINT_NAME, progress_of
from .export import ExportResult
from .measurement import Measurement
from .mixtures import ProductStrategy, TeamMixture
from .report import PLOT_NAME, REPORT_NAME
from .result import CSV_DIR, SUBMISSION_DIR


def resumed_folder(resume: str | Path | None) -> Path | None:
    """The run folder of ``resume`` (a folder or its checkpoint file), None for none."""
    folder = None if resume is None else Path(resume)
    if folder is not None and folder.suffix == ".npz":
        folder = folder.parent
    return folder


def keep_checkpoint(stage: Path, resumed: Path | None) -> tuple[int, float] | None:
    """After an abort, make the run's latest checkpoint in ``stage`` its output: anything
    else there (half written) goes, and the submission, report and plot of the run it
    resumed come along (linked), since the checkpoint's history includes that export and
    the next ``--resume`` starts from it. Returns the checkpoint's (iterations, seconds), or
    None if the run saved none (then ``out_dir`` stays untouched)."""
    checkpoint = stage / CHECKPOINT_NAME
    if not checkpoint.is_file():
        return None
    for path in stage.iterdir():
        if path.name != CHECKPOINT_NAME:
            remove(path)
    if resumed is not None and resumed.is_dir():
        for name in (SUBMISSION_DIR, CSV_DIR, REPORT_NAME, PLOT_NAME):
            if (resumed / name).exists():
                link_or_copy(resumed / name, stage / name)
    return progress_of(checkpoint)


def previous_export(resume, config) -> tuple[ExportResult, Measurement] | None:
    """The submission a resumed run had exported (``<run>/submission``), as a stand-in export
    result with the bounds its own ``solve-report.json`` gives, so that resuming never ends
    with a worse export; None if there is none. (Not the checkpoint's last export: a run
    aborted after a checkpoint may have measured an export that it never wrote.)"""
    folder = Path(resume)
    folder = folder.parent if folder.is_file() else folder
    if not (folder / SUBMISSION_DIR).is_dir() or not (folder / REPORT_NAME).is_file():
        return None
    try:
        report = json.loads((folder / REPORT_NAME).read_text())
        last = Measurement(
            int(report["iterations"]),
            float(report["seconds"]),
            float(report["value_lower"]),
            float(report["value_upper"]),
            "export",
        )
        sub = load_submission(folder / SUBMISSION_DIR, config)
    except Exception:
        return None
    mixtures = tuple(_mixture_of(sub, config, t) for t in (0, 1))
    ex = ExportResult(
        mixtures=mixtures,
        lower=last.lower,
        upper=last.upper,
        rounds=0,
        columns=(0, 0),
        seconds=0.0,
        submission=sub,
    )
    return ex, last


def _mixture_of(sub, config, team: int) -> TeamMixture:
    """A team's marginal mixture in a merged submission (signals with equal strategies merged
    only by probability; used for reporting sizes)."""
    seats = tuple(sorted(config.teams[team]))
    keys: dict[bytes, int] = {}
    weights, items = [], []
    for k, p in enumerate(sub.probs):
        probs = {s: sub.strategies[s][k] for s in seats}
        item = ProductStrategy(seats, probs)
        key = item.key()
        if key in keys:
            weights[keys[key]] += p
        else:
            keys[key] = len(items)
            items.append(item)
            weights.append(p)
    return TeamMixture(team, seats, np.array(weights), tuple(items))
