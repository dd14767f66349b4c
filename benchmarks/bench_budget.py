"""Each edition's signal budget, at equal refinement time (issue 22).

Why: the 2025 edition submits one zip per team, each with its own meta-strategy, so each team
may use the whole cap with its own weights; the spec's CSV submission has one meta-strategy
for both teams (K_A + K_B - 1 merged signals). This benchmark refines one set of DCFR
averages in every budget for the same time and prints the exact gaps:

* ``csv halves``: today's CSV export, :func:`teamleduc.solver.refine.halves` (50 + 51 free
  weights, 100 merged signals);
* ``teams K+K``: each team its own K stratified signals with free weights (2025 team zips);
* ``csv shared, X leads``: 100 merged signals on one shared weight vector
  (:func:`teamleduc.solver.refine.shared_weights`, the solver's CSV export with X = A).
  Team X refines its 100 signals with free weights first; the other team's average is
  stratified on X's weights and refined with those weights fixed, so both teams'
  cumulative distributions coincide and merge into at most 100 signals. (A team's cut
  points a subset of the other's is the special case in which the follower plays alike on
  neighbouring signals.)

Every gap is exact (both teams' exact best responses on their belief DAGs).

Environment: ``BENCH_BUDGET_PRESET`` (default team-leduc-2025), ``BENCH_BUDGET_SOLVE``
seconds of DCFR (default 25, what ``teamleduc solve --time-limit 60`` solves),
``BENCH_BUDGET_REFINE`` seconds of refinement per variant, both teams together (default
30, the 60 s run's share), ``BENCH_BUDGET_TEAM_K`` signals per team of the team-zip variants
(default ``50,100``). About 3.5 minutes with the defaults.
"""

from __future__ import annotations

import time

from teamleduc.solver import refine

from .settings import dcfr_for, positive_seconds, setting, team_preset


def _sizes(raw: str) -> list[int]:
    sizes = [int(k) for k in raw.split(",")]
    if not all(1 <= k <= 100 for k in sizes):
        raise ValueError
    return sizes


def main() -> None:
    config = team_preset("BENCH_BUDGET_PRESET", "team-leduc-2025")
    preset = config.name
    solve_s = setting("BENCH_BUDGET_SOLVE", "25", positive_seconds)
    refine_s = setting("BENCH_BUDGET_REFINE", "30", positive_seconds)
    team_k = setting("BENCH_BUDGET_TEAM_K", "50,100", _sizes)
    alg, elapsed, m = dcfr_for(config, solve_s)
    rm, game = alg.rm, alg.game
    print(
        f"{preset}: dcfr {rm.t} iterations in {elapsed:.1f} s, averages' "
        f"exact gap {m.gap:.3e}; refinement {refine_s:g} s per variant (both teams)",
        flush=True,
    )
    print(
        f"  {'budget':<22} {'signals':>9} {'merged':>7} {'start gap':>10} {'refined gap':>12} "
        f"{'team A':>10} {'team B':>10} {'seconds':>8}",
        flush=True,
    )

    def row(name, start, res, seconds):
        ka, kb = (mx.size for mx in res.mixtures)
        print(
            f"  {name:<22} {f'{ka}+{kb}':>9} {res.signals:7d} {start:10.4f} {res.gap:12.5f} "
            f"{res.lower:+10.5f} {res.upper:+10.5f} {seconds:8.1f}",
            flush=True,
        )

    variants = [("csv halves 50+51", 100, False)]
    variants += [(f"teams {k}+{k}", k, True) for k in team_k]
    for name, cap, each in variants:
        t = time.perf_counter()
        ex = refine.halves_export(game, alg.stratified, cap, per_team=each)
        # refine_team copies the solver's arrays: every variant starts from the same state
        res = refine.refine_export(
            game,
            ex,
            max_signals=cap,
            time_limit=refine_s,
            opponents=alg.refine_opponents(),
            keep_sizes=True,
            per_team=each,
        )
        row(name, ex.gap, res, time.perf_counter() - t)
    for leader in (0, 1):
        t = time.perf_counter()
        ex = refine.stratified_export(game, alg.stratified, 100)
        res = refine.shared_weights(
            game,
            ex,
            max_signals=100,
            time_limit=refine_s,
            restart=alg.stratified,
            leader=leader,
            opponents=alg.refine_opponents(),
        )
        row(f"csv shared, {'AB'[leader]} leads", ex.gap, res, time.perf_counter() - t)


if __name__ == "__main__":
    main()
