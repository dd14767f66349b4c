"""``solve-report.json`` and the convergence plot of a solver run.

The report records what was solved and how well: preset, algorithm (and its parameters),
iterations, seconds, the exact value bounds and saddle-point gap of the **exported**
submission, its number of signals, the peak resident memory of the process, the toolkit
version, and every measurement of the run (``history``: the average or restricted strategies
measured during the run, and each export). The plot shows the exact gap against time on a log
scale, one line for the strategies measured during the run and markers for the exports, the
target gap as a dashed line and the start of refinement as a dotted one.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..outputs import save_png, write_text_atomic

REPORT_NAME = "solve-report.json"
PLOT_NAME = "convergence.png"


def write_report(result, out_dir) -> Path:
    """Write ``result.to_dict()`` as ``solve-report.json`` in ``out_dir`` (atomically)."""
    path = Path(out_dir) / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(result.to_dict(), indent=2) + "\n")
    return path


def load_plotting() -> None:
    """Import matplotlib (Agg) now: about 1 s on a cold start, better spent before a run than
    after its Ctrl-C, which should end the command within 2 s."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def refinement_start(history) -> float | None:
    """Seconds of the first measurement under refinement (None if the run did not refine)."""
    times = [m.seconds for m in history if m.what == "refine"]
    return min(times) if times else None


def plot_convergence(history, path, title: str = "", target_gap: float | None = None) -> Path:
    """Exact saddle-point gap against seconds (log scale) for a list of Measurements, with
    the target gap (a dashed horizontal line, when given) and the start of refinement (a
    dotted vertical line, when the run refined its export)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    groups: dict[str, list] = {}
    for m in history:
        groups.setdefault(m.what, []).append(m)
    labels = {
        "average": "average strategies (exact gap)",
        "restricted": "restricted-game equilibrium (exact gap)",
        "export": "exported submission (exact gap)",
        "refine": "export under refinement (exact gap)",
    }
    for what, ms in groups.items():
        xs = [max(m.seconds, 1e-3) for m in ms]
        ys = [max(m.gap, 1e-16) for m in ms]
        if what == "export":
            ax.plot(xs, ys, "o", ms=6, label=labels.get(what, what), color="tab:red")
        else:
            ax.plot(xs, ys, "-", lw=1.5, label=labels.get(what, what))
    if target_gap is not None and target_gap > 0:
        ax.axhline(target_gap, ls="--", lw=1, color="tab:green", label=f"target gap {target_gap:g}")
    start = refinement_start(history)
    if start is not None:
        ax.axvline(
            max(start, 1e-3),
            ls=":",
            lw=1.2,
            color="tab:purple",
            label=f"refinement starts ({start:.3g} s)",
        )
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.set_xlabel("seconds")
    ax.set_ylabel("saddle-point gap (team-A chips)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_png(fig, path)
