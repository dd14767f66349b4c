"""What a solver run returns and writes: :class:`SolveResult`, its status codes, and
:func:`write_outputs` (the submission, ``solve-report.json`` and ``convergence.png``)."""

from __future__ import annotations

import dataclasses
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..config import GameConfig
from ..files.format2025 import team_zip_name, write_team_zip
from ..files.writing import write_submission
from ..peak_memory import peak_resident_bytes
from .budget import CSV, TEAMS_2025
from .checkpoint import CHECKPOINT_NAME
from .export import team_submission
from .report import PLOT_NAME, plot_convergence, write_report

#: the submission's folder in a run's output folder; the merged CSV one beside team zips
SUBMISSION_DIR, CSV_DIR = "submission", "submission-csv"
#: status codes of :class:`SolveResult`
TARGET_REACHED, TIME_LIMIT, ITERATION_LIMIT, INTERRUPTED, SOLVED = 0, 1, 2, 3, 4
STATUS_MESSAGES = {
    TARGET_REACHED: "the exported submission reached the target gap",
    TIME_LIMIT: "time limit reached",
    ITERATION_LIMIT: "iteration limit reached",
    INTERRUPTED: "interrupted (Ctrl-C): best strategies so far exported",
    SOLVED: "solved exactly: no best response improves on the restricted game",
}


class CheckpointKept(KeyboardInterrupt):
    """Ctrl-C ended a run before it wrote a submission, and ``out_dir`` keeps the run's latest
    checkpoint (``checkpoint.npz``, after ``iterations`` iterations and ``seconds`` seconds),
    from which ``--resume`` continues and exports. A big game (:func:`.export.is_big`) stops
    this way at the first Ctrl-C: writing its submission would keep the user waiting for
    tens of seconds. A KeyboardInterrupt, so that code which does not know it sees a Ctrl-C."""

    def __init__(self, out_dir: str, iterations: int, seconds: float):
        super().__init__(out_dir)
        self.out_dir, self.iterations, self.seconds = out_dir, iterations, seconds

    @property
    def checkpoint(self) -> Path:
        return Path(self.out_dir) / CHECKPOINT_NAME


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Outcome of :func:`solve`.

    Attributes
    ----------
    status : 0 target gap reached, 1 time limit, 2 iteration limit, 3 interrupted, 4 solved
        exactly (see :data:`STATUS_MESSAGES`); ``message`` words it.
    lower, upper : exact bounds on the TMECor value (team A's chips) certified by the exported
        submission: ``lower`` = what its team-A half guarantees (against team B's exact best
        response), ``upper`` = team A's exact best-response value against its team-B half.
    gap : ``upper - lower``, the exported submission's saddle-point gap.
    iterations, seconds : algorithm iterations and wall-clock seconds over all sessions of the
        run (a resumed run adds up).
    signals : signals of the merged meta-strategy; ``team_signals`` each team's mixture size
        (its own meta-strategy's signals in 2025 team zips).
    export_format : ``"csv"`` (one merged submission) or ``"teams2025"`` (one zip per team,
        each with its own meta-strategy of at most ``max_signals`` signals); see
        :mod:`.budget`.
    mixtures : both teams' exported mixtures (what the team zips hold; not in
        :meth:`to_dict`).
    history : every exact measurement of the run (``Measurement.what`` says of what).
    submission : the exported full submission (not in :meth:`to_dict`); its arrays may be
        those of ``mixtures`` (no copy of a big game's signals): write into neither.
    peak_memory : peak resident memory of the process in bytes, since it started
        (:func:`teamleduc.peak_memory.peak_resident_bytes`), up to the writing of the
        submission when the run writes one (not the checkpoint written after it).
    """

    preset: str
    method: str
    parameters: dict
    status: int
    message: str
    iterations: int
    seconds: float
    lower: float
    upper: float
    signals: int
    team_signals: tuple[int, int]
    export_seconds: float
    history: tuple
    submission: object
    peak_memory: int
    verified_by: str
    out_dir: str | None = None
    export_format: str = CSV
    max_signals: int = 100
    mixtures: tuple | None = None

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    def files(self) -> list[str]:
        """What :func:`write_outputs` writes for the submission: ``submission`` (CSV files or,
        for ``"teams2025"``, the team zips) and ``submission-csv`` when the team zips' merged
        meta-strategy fits ``max_signals`` (then the CSV files play exactly the same)."""
        if self.export_format != TEAMS_2025:
            return [SUBMISSION_DIR]
        lossless = self.signals <= self.max_signals
        return [SUBMISSION_DIR] + ([CSV_DIR] if lossless else [])

    @property
    def success(self) -> bool:
        return self.status in (TARGET_REACHED, SOLVED)

    def __str__(self) -> str:
        def count(n, word):
            return f"{n} {word}" + ("" if n == 1 else "s")

        lines = [
            f"{self.preset}: {self.method}, {count(self.iterations, 'iteration')} in "
            f"{self.seconds:.1f} s ({self.message})",
            f"  TMECor value of team A in [{self.lower:+.9f}, {self.upper:+.9f}]",
            (
                f"  exported team zips: team A {count(self.team_signals[0], 'signal')}, "
                f"team B {count(self.team_signals[1], 'signal')} (merged: {self.signals}), "
                if self.export_format == TEAMS_2025
                else f"  exported submission: {count(self.signals, 'signal')} "
                f"(team A {self.team_signals[0]}, team B {self.team_signals[1]}), "
            )
            + f"exact saddle-point gap {self.gap:.3e} (measured by {self.verified_by})",
            f"  peak memory {self.peak_memory / 2**30:.2f} GiB",
        ]
        if self.out_dir:
            lines.append(f"  written to {self.out_dir}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "preset": self.preset,
            "version": __version__,
            "algorithm": self.method,
            "parameters": _jsonable(self.parameters),
            "status": self.status,
            "message": self.message,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "value_lower": self.lower,
            "value_upper": self.upper,
            "gap": self.gap,
            "signals": self.signals,
            "team_signals": list(self.team_signals),
            "export_format": self.export_format,
            "files": self.files(),
            "export_seconds": round(self.export_seconds, 3),
            "peak_memory_bytes": self.peak_memory,
            "peak_memory_gib": round(self.peak_memory / 2**30, 3),
            "gap_measured_by": self.verified_by,
            "history": [m.to_dict() for m in self.history],
        }


def _write_team_zips(result: SolveResult, folder: Path, config: GameConfig) -> None:
    """``team13.zip`` and ``team24.zip`` in ``folder`` (replaced), each team's own mixture."""
    from ..tree import build_tree

    if folder.exists() and not folder.is_dir():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    tree = build_tree(config)
    for mixture in result.mixtures:
        part = team_submission(tree, mixture)
        write_team_zip(part, folder / team_zip_name(part.seats), config, part.seats)


def _jsonable(obj):
    """Infinite floats as strings ("inf", "-inf"): strict JSON has no Infinity."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isinf(obj):
        return "inf" if obj > 0 else "-inf"
    return obj


def write_outputs(result: SolveResult, out: str | Path, config: GameConfig) -> SolveResult:
    """``submission/`` (CSV files, or the 2025 team zips and, when lossless,
    ``submission-csv/``), ``solve-report.json`` and ``convergence.png`` in ``out``. Returns
    ``result`` with its peak memory taken once the submission is written (the report's):
    writing a big game's submission can be the run's peak."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = result.files()
    if result.export_format == TEAMS_2025:
        _write_team_zips(result, out / SUBMISSION_DIR, config)
    else:
        write_submission(result.submission, out / SUBMISSION_DIR, overwrite=True, config=config)
    stale = out / CSV_DIR
    if CSV_DIR in files:
        write_submission(result.submission, stale, overwrite=True, config=config)
    elif stale.is_dir():  # from an earlier run into the same folder: it is not this export
        shutil.rmtree(stale)
    result = dataclasses.replace(result, peak_memory=max(result.peak_memory, peak_resident_bytes()))
    write_report(result, out)
    plot_convergence(
        result.history,
        out / PLOT_NAME,
        title=f"{result.preset}: {result.method}, exact saddle-point gap",
        target_gap=result.parameters.get("target_gap"),
    )
    return result
