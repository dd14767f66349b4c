"""DCFR's averaging exponent: the averages' exact gap at equal iterations for t**gamma weights.

Why: the solver's ``dcfr`` weighs iteration t by t**3 in its average strategies
(:data:`teamleduc.solver.dag_cfr.SOLVER_DCFR_GAMMA`), not the t**2 that Brown and Sandholm
recommend. This benchmark is the evidence: DCFR (alpha 1.5, beta 0) on each preset with each
gamma, the average strategies' exact saddle-point gap (:meth:`RegretMinimizer.measure`, both
teams' exact best responses) after the same iteration counts.

The gaps depend on the iteration counts only, not on the machine or its load: any run
reproduces them to the last digit (the seconds are the only timings). ``make run``'s
5-minute solve makes about 140 iterations on team-leduc on a 2-core machine, a 60-second
team-leduc-2025 solve about 800 on a quiet one (the solver's table on the figures page); the
300-second team-leduc-2025 solves (about 5,000) are beyond the counts measured here.

Environment: ``TEAMLEDUC_BENCH_PRESETS`` (default ``leduc,small-team-leduc,team-leduc-2025,
team-leduc``), ``TEAMLEDUC_BENCH_GAMMAS`` (default ``2,3,4``). Iteration counts per preset:
:data:`ITERATIONS` (other presets: 100, 500, 2,000). About 14 minutes on 2 cores, most of it
team-leduc. Reproduce: ``python -m benchmarks discounting``.
"""

from __future__ import annotations

import time

from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import SOLVER_DCFR_GAMMA, RegretMinimizer, dcfr

from .settings import names, setting

#: the largest averaging exponent the benchmark accepts (t**8 stays far from float32's range)
MAX_GAMMA = 8.0

#: the iteration counts after which each preset's averages are measured
ITERATIONS = {
    "leduc": (500, 2000, 8000),
    "small-team-leduc": (100, 500, 2000),
    "team-leduc-2025": (200, 700, 1500),
    "team-leduc": (50, 100, 140),
}
_OTHER = (100, 500, 2000)


def gaps(preset: str, gamma: float, counts) -> tuple[list[float], float]:
    """The averages' exact gaps of DCFR(1.5, 0, ``gamma``) after each of ``counts`` iterations,
    and the seconds it took."""
    rm = RegretMinimizer(get_config(preset), dcfr(gamma=gamma))
    t0, done, out = time.perf_counter(), 0, []
    for n in counts:
        rm.iterate(n - done)
        done = n
        out.append(rm.measure().gap)
    return out, time.perf_counter() - t0


def table(preset: str, gammas, counts) -> list[str]:
    """One preset's lines: a gap per gamma and count, and each gap against gamma 2's."""
    rows = {g: gaps(preset, g, counts) for g in gammas}
    base = rows.get(2.0)
    lines = [
        f"{preset}: exact gap of DCFR's averages after "
        + ", ".join(f"{n:,}" for n in counts)
        + " iterations"
        + (" (against gamma 2)" if base else "")
    ]
    for g, (values, seconds) in rows.items():
        cells = []
        for i, v in enumerate(values):
            cell = f"{v:.4g}"
            if base and g != 2.0:
                cell += f" ({v / base[0][i]:.2f}x)"
            cells.append(f"{cell:>18}")
        mark = "  <- the solver's" if g == SOLVER_DCFR_GAMMA else ""
        lines.append(f"  gamma {g:g}  " + "".join(cells) + f"   {seconds:6.1f} s{mark}")
    return lines


def _gammas(raw: str) -> list[float]:
    values = [float(v) for v in raw.split(",")]
    if not values or not all(0 <= v <= MAX_GAMMA for v in values):
        raise ValueError
    return values


def _presets(raw: str) -> list[str]:
    """Presets of two teams (the regret minimiser's games)."""
    presets = names(raw)
    for preset in presets:
        if len(get_config(preset).teams) != 2:
            raise ValueError
    return presets


def main() -> None:
    presets = setting(
        "TEAMLEDUC_BENCH_PRESETS", "leduc,small-team-leduc,team-leduc-2025,team-leduc", _presets
    )
    gammas = setting("TEAMLEDUC_BENCH_GAMMAS", "2,3,4", _gammas)
    print("DCFR (alpha 1.5, beta 0), averages weighing iteration t by t**gamma\n")
    for preset in presets:
        for line in table(preset, gammas, ITERATIONS.get(preset, _OTHER)):
            print(line, flush=True)
        print()


if __name__ == "__main__":
    main()
