"""Each edition's signal budget, at equal refinement time (issue 22).

Why: the 2025 edition submits one zip per team, each with its own meta-strategy, so each team
may use the whole cap with its own weights; the spec's CSV submission has one meta-strategy
for both teams (K_A + K_B - 1 merged signals). This benchmark refines one set of DCFR
averages in every budget for the same time and prints the exact gaps:

* ``csv halves``: today's CSV export, :func:`teamleduc.solver.refine.halves` (50 + 51 free
  weights, 100 merged signals);
* ``teams K+K``: each team its own K stratified signals with free weights (2025 team zips);
* ``csv shared, X leads``: 100 merged signals on one shared weight vector. Team X refines
  its 100 signals with free weights first; the other team's average is then stratified on
  X's weights (:func:`teamleduc.solver.stratify.stratified_mixture` with ``weights``) and
  refined with those weights fixed, so both teams' cumulative distributions coincide and
  merge into at most 100 signals. (A team's cut points a subset of the other's is the
  special case in which the follower plays alike on neighbouring signals.)

Every gap is exact (both teams' exact best responses on their belief DAGs).

Environment: ``BENCH_BUDGET_PRESET`` (default team-leduc-2025), ``BENCH_BUDGET_SOLVE``
seconds of DCFR (default 25, what ``teamleduc solve --time-limit 60`` solves),
``BENCH_BUDGET_REFINE`` seconds of refinement per variant, both teams together (default
30, the 60 s run's share), ``BENCH_BUDGET_TEAM_K`` signals per team of the team-zip variants
(default ``50,100``). About 3.5 minutes with the defaults.
"""

from __future__ import annotations

import time

import numpy as np

from teamleduc.solver import refine
from teamleduc.solver.common import TeamMixture
from teamleduc.solver.export import ExportResult, fits, guaranteed_value, merge_submission
from teamleduc.solver.stratify import stratified_mixture

from .settings import dcfr_for, positive_seconds, setting, team_preset


def _sizes(raw: str) -> list[int]:
    sizes = [int(k) for k in raw.split(",")]
    if not all(1 <= k <= 100 for k in sizes):
        raise ValueError
    return sizes


def shared_weights(alg, leader: int, signals: int, seconds: float) -> ExportResult:
    """The leader refines ``signals`` signals with free weights for half of ``seconds``; the
    follower's average is stratified on the leader's weights and refined with them fixed."""
    game = alg.game
    opponents = alg.refine_opponents()
    start = alg.stratified(leader, signals)
    bound, lead = refine.refine_team(
        game,
        start,
        guaranteed_value(game, start),
        signals=signals,
        time_limit=seconds / 2,
        opponent=opponents[leader],
    )
    # heaviest first, the order in which refine_team keeps signals: the follower's weights
    # then stay in the leader's order and both cumulative distributions coincide
    order = np.argsort(-lead.weights, kind="stable")
    lead = TeamMixture(leader, lead.seats, lead.weights[order], tuple(lead.items[j] for j in order))
    follower = 1 - leader
    fstart = stratified_mixture(
        game, follower, alg.rm.average_sigma(follower), lead.size, weights=lead.weights
    )
    fbound, follow = refine.refine_team(
        game,
        fstart,
        guaranteed_value(game, fstart),
        signals=lead.size,
        time_limit=seconds / 2,
        fixed_weights=True,
        opponent=opponents[follower],
    )
    mix = (lead, follow) if leader == 0 else (follow, lead)
    lower, upper = (bound, fbound) if leader == 0 else (fbound, bound)
    assert fits(mix[0].weights, mix[1].weights, signals)
    return ExportResult(mix, lower, upper, 0, (0, 0), seconds, merge_submission(game, mix))


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
        res = shared_weights(alg, leader, 100, refine_s)
        row(f"csv shared, {'AB'[leader]} leads", float("nan"), res, time.perf_counter() - t)


if __name__ == "__main__":
    main()
