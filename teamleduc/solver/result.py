"""What a solver run returns and writes: :class:`SolveResult`, its status codes, and
:func:`write_outputs` (the submission, ``solve-report.json`` and ``convergence.png``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..config import GameConfig
from ..submission import write_submission
from .report import PLOT_NAME, plot_convergence, write_report

#: status codes of :class:`SolveResult`
TARGET_REACHED, TIME_LIMIT, ITERATION_LIMIT, INTERRUPTED, SOLVED = 0, 1, 2, 3, 4
STATUS_MESSAGES = {
    TARGET_REACHED: "the exported submission reached the target gap",
    TIME_LIMIT: "time limit reached",
    ITERATION_LIMIT: "iteration limit reached",
    INTERRUPTED: "interrupted (Ctrl-C): best strategies so far exported",
    SOLVED: "solved exactly: no best response improves on the restricted game",
}


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
    signals : signals of the merged meta-strategy; ``team_signals`` each team's mixture size.
    history : every exact measurement of the run (``Measurement.what`` says of what).
    submission : the exported full submission (not in :meth:`to_dict`).
    peak_memory : peak resident memory of the process in bytes.
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

    @property
    def gap(self) -> float:
        return self.upper - self.lower

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
            f"  exported submission: {count(self.signals, 'signal')} "
            f"(team A {self.team_signals[0]}, team B {self.team_signals[1]}), "
            f"exact saddle-point gap {self.gap:.3e} "
            f"(measured by {self.verified_by})",
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
            "export_seconds": round(self.export_seconds, 3),
            "peak_memory_bytes": self.peak_memory,
            "peak_memory_gib": round(self.peak_memory / 2**30, 3),
            "gap_measured_by": self.verified_by,
            "history": [m.to_dict() for m in self.history],
        }


def _jsonable(obj):
    """Infinite floats as strings ("inf", "-inf"): strict JSON has no Infinity."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isinf(obj):
        return "inf" if obj > 0 else "-inf"
    return obj


def write_outputs(result: SolveResult, out: str | Path, config: GameConfig) -> None:
    """``submission/``, ``solve-report.json`` and ``convergence.png`` in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_submission(result.submission, out / "submission", overwrite=True, config=config)
    write_report(result, out)
    plot_convergence(
        result.history,
        out / PLOT_NAME,
        title=f"{result.preset}: {result.method}, exact saddle-point gap",
        target_gap=result.parameters.get("target_gap"),
    )
