"""How many signals per team the 2025 team zips refine: the rule's calibration and its effect.

Why: :func:`teamleduc.solver.refine.refined_team_signals` picks the largest K per team whose
block of refinement fits each team's share of the time. Its cost model
(:func:`teamleduc.solver.refine.iteration_seconds`) was set under load; a run scales it by
the speed it measures on its own DCFR iterations, against
``refine._DCFR_SECONDS_PER_ROW``. This benchmark prints

* the calibration: seconds per DCFR iteration (and per DAG row), and per refinement
  iteration with 50 and 100 signals, against the size-based estimate; the ratio of the two
  gives the DCFR speed at which the estimate holds;
* end to end: ``solve(preset, time_limit=T, out_dir=...)`` with the rule scaled by the
  measured speed against the rule from the sizes alone, alternating, exact gaps of the
  written team zips.

Environment: ``BENCH_SIGNAL_RULE_PRESET`` (default team-leduc-2025),
``BENCH_SIGNAL_RULE_SECONDS`` (default 60), ``BENCH_SIGNAL_RULE_RUNS`` pairs (default 1; the
docs' table: 3). About 2.5 minutes per pair with the defaults.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

from teamleduc.solver import refine, solve, team_refinement
from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.regret_algorithm import RegretAlgorithm

from .settings import positive_int, positive_seconds, setting, team_preset


def calibrate(config) -> None:
    """Seconds per DCFR iteration and per refinement iteration (K = 50, 100)."""
    alg = RegretAlgorithm(config, "dcfr")
    game = alg.game
    alg.rm.iterate(5)
    t0 = time.perf_counter()
    alg.rm.iterate(40)
    dcfr = (time.perf_counter() - t0) / 40
    rows = max(d.num_rows for d in game.dags)
    print(f"  dcfr: {dcfr:.4f} s per iteration, {dcfr / rows:.3e} s per DAG row ({rows:,} rows)")
    ratios = []
    for k in (50, 100):
        mixture = alg.stratified(0, k)
        team = team_refinement.TeamRefinement(
            game,
            mixture,
            guaranteed_value(game, mixture),
            signals=k,
            opponent=alg.refine_opponents()[0],
            block_iters=10**6,
        )
        times = []
        for iterations in (20, 80):
            t0 = time.perf_counter()
            team.step(math.inf, max_iters=iterations)
            times.append(time.perf_counter() - t0)
        per = (times[1] - times[0]) / 60
        model = refine.iteration_seconds(game, k)
        ratios.append(per / model)
        print(
            f"  refinement, {k} signals: {per:.4f} s per iteration; estimate from the sizes "
            f"{model:.4f} s (ratio {per / model:.2f})"
        )
    ratio = sum(ratios) / len(ratios)
    print(
        f"  the estimate holds where dcfr takes {dcfr / rows / ratio:.2e} s per row "
        f"(refine._DCFR_SECONDS_PER_ROW = {refine._DCFR_SECONDS_PER_ROW:.2e})",
        flush=True,
    )


def end_to_end(preset, seconds: float, runs: int) -> None:
    """The rule scaled by the measured speed against the sizes-only rule, alternating."""
    import teamleduc.solver.steps as steps

    scaled = refine.refined_team_signals

    def sizes_only(game, max_signals, refine_seconds, dcfr_seconds=None):
        return scaled(game, max_signals, refine_seconds)

    rules = (("scaled by the measured speed", scaled), ("from the sizes alone", sizes_only))
    try:
        with tempfile.TemporaryDirectory(prefix="teamleduc-bench-rule-") as tmp:
            for run in range(runs):
                for name, rule in rules:
                    steps.refined_team_signals = rule
                    out = Path(tmp) / f"{run}-{len(name)}"
                    r = solve(preset, time_limit=seconds, out_dir=out, handle_sigint=False)
                    print(
                        f"  run {run + 1}, {name}: exact gap {r.gap:.4f}, signals "
                        f"{r.team_signals[0]} + {r.team_signals[1]}, {r.iterations} dcfr "
                        "iterations",
                        flush=True,
                    )
    finally:
        steps.refined_team_signals = scaled


def main() -> None:
    config = team_preset("BENCH_SIGNAL_RULE_PRESET", "team-leduc-2025")
    seconds = setting("BENCH_SIGNAL_RULE_SECONDS", "60", positive_seconds)
    runs = setting("BENCH_SIGNAL_RULE_RUNS", "1", positive_int)
    print(
        f"{config.name}: calibration of the signals-per-team rule, then {runs} pair(s) of "
        f"{seconds:g} s runs"
    )
    calibrate(config)
    end_to_end(config, seconds, runs)
