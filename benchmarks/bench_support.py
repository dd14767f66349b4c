"""How many signals does an exact TMECor need? (issue 22)

Why: the 100-signal cap is what the big presets' exports miss by; this benchmark measures, on
the games whose TMECor is computed exactly, how large an equilibrium's support is against the
game's size, so that the growth can be extrapolated to team-leduc-2025 and team-leduc.

What, per preset:

1. the game's size: information sets of all seats, rows of each team's belief DAG;
2. an exact TMECor by column generation (:class:`teamleduc.solver.column_generation.
   DoubleOracle`), seeded with the columns a short DCFR run peels from its averages (the LP
   export's candidates), run until the restricted equilibrium's exact gap is at most 1e-9:
   its **basis** (the columns with positive weight in HiGHS's optimal basic solution) per
   team;
3. the smallest K at which K refined signals reach the exact value (exploitability of the
   team's mixture at most 5e-7, so both teams' within a gap of 1e-6): the K heaviest columns of
   the LP equilibrium, re-weighted and refined member by member with free weights
   (:func:`teamleduc.solver.team_refinement.refine_team`), K on a doubling grid and then bisected.
   Refinement is a local search, so this K is an upper bound on the smallest support of
   product signals; the exploitability at each K is printed (the curve).

Every value is exact (exact team best responses on the belief DAGs).

Environment: ``BENCH_SUPPORT_PRESETS`` (default ``tiny-team,tiny-team-leduc,small-team-leduc``),
``BENCH_SUPPORT_DCFR`` seconds of DCFR for the seed columns (default 60), ``BENCH_SUPPORT_LP``
seconds for the column generation (default 1800), ``BENCH_SUPPORT_REFINE`` seconds of
refinement per (team, K) (default 6). About 30 minutes with the defaults, nearly all of it
small-team-leduc's column generation (774 rounds, 1,462 s under load); the two tiny presets
alone (``BENCH_SUPPORT_PRESETS=tiny-team,tiny-team-leduc BENCH_SUPPORT_DCFR=5
BENCH_SUPPORT_REFINE=4``) take about 2 minutes. Results: ``docs/solver-support.md``.
"""

from __future__ import annotations

import time

import numpy as np

from teamleduc.config import get_config
from teamleduc.infosets import infoset_tables
from teamleduc.solver import team_refinement
from teamleduc.solver.candidates import Candidates
from teamleduc.solver.column_generation import DoubleOracle
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr
from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.mixtures import TeamMixture

from .settings import positive_seconds, setting

#: a team's mixture is "exact" when its exploitability is at most this (both: gap <= 1e-6)
EXACT = 5e-7
#: the column generation stops at this exact gap
LP_GAP = 1e-9


def _presets(raw: str) -> list:
    return [get_config(p.strip()) for p in raw.split(",") if p.strip()]


def exact_tmecor(config, dcfr_seconds: float, lp_seconds: float):
    """(double oracle at its end, seconds): seeded with a DCFR run's peeled columns."""
    t0 = time.perf_counter()
    rm = RegretMinimizer(config, dcfr())
    while time.perf_counter() - t0 < dcfr_seconds:
        rm.iterate(10)
    seeds = Candidates()
    rm.add_export_candidates(seeds, peel_count=200)
    do = DoubleOracle(config, initial=seeds)
    while time.perf_counter() - t0 < dcfr_seconds + lp_seconds:
        m = do.iterate()
        if m.gap <= LP_GAP or do.converged:
            break
    return do, time.perf_counter() - t0


def truncated(mix: TeamMixture, k: int) -> TeamMixture:
    """The ``k`` heaviest columns of ``mix``, re-weighted to sum to 1."""
    order = np.argsort(-mix.weights, kind="stable")[:k]
    w = mix.weights[order]
    return TeamMixture(mix.team, mix.seats, w / w.sum(), tuple(mix.items[j] for j in order))


def smallest_k(game, mix: TeamMixture, value: float, seconds: float):
    """(smallest K found whose refined mixture is within :data:`EXACT` of ``value``, the
    exploitability at every K tried)."""
    team = mix.team
    support = int((mix.weights > 0).sum())
    tried: dict[int, float] = {}

    def exploit(k: int) -> float:
        if k not in tried:
            start = truncated(mix, k)
            bound, _ = team_refinement.refine_team(
                game, start, guaranteed_value(game, start), signals=k, time_limit=seconds
            )
            tried[k] = value - bound if team == 0 else bound - value
        return tried[k]

    k, lo = 1, 0  # lo: largest K known to fail
    while k < support and exploit(k) > EXACT:
        lo, k = k, min(2 * k, support)
    hi = k if exploit(k) <= EXACT else None
    if hi is not None:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if exploit(mid) <= EXACT:
                hi = mid
            else:
                lo = mid
    return hi, tried


def main() -> None:
    presets = setting(
        "BENCH_SUPPORT_PRESETS", "tiny-team,tiny-team-leduc,small-team-leduc", _presets
    )
    dcfr_s = setting("BENCH_SUPPORT_DCFR", "60", positive_seconds)
    lp_s = setting("BENCH_SUPPORT_LP", "1800", positive_seconds)
    refine_s = setting("BENCH_SUPPORT_REFINE", "6", positive_seconds)
    print(
        f"exact TMECor support (column generation to gap {LP_GAP:g}, seeded by {dcfr_s:g} s of "
        f"dcfr) and the smallest K refined signals within {EXACT:g} of the value "
        f"({refine_s:g} s per team and K)",
        flush=True,
    )
    for config in presets:
        do, secs = exact_tmecor(config, dcfr_s, lp_s)
        game, m = do.game, do.last
        infosets = sum(t.size for t in infoset_tables(game.tree))
        rows = [d.num_rows for d in game.dags]
        sol = do.solution
        basis = (int((sol.lam > 0).sum()), int((sol.mu > 0).sum()))
        value = 0.5 * (m.lower + m.upper)
        print(
            f"{config.name}: {infosets} information sets, DAG rows {rows[0]} + {rows[1]}; "
            f"column generation {do.iterations} rounds in {secs:.1f} s, columns "
            f"{do.rg.shape[0]} + {do.rg.shape[1]}, exact gap {m.gap:.2e}, value {value:+.10f}, "
            f"LP basis (support) team A {basis[0]}, team B {basis[1]}",
            flush=True,
        )
        if m.gap > 1e-6:
            print("  not solved exactly within the time: no K measured", flush=True)
            continue
        mixes = (do.rg.sets[0].mixture(sol.lam), do.rg.sets[1].mixture(sol.mu))
        for team, mix in enumerate(mixes):
            if any(d.num_members != 2 for d in game.dags):
                break
            k, tried = smallest_k(game, mix, value, refine_s)
            curve = " ".join(f"{kk}:{e:.1e}" for kk, e in sorted(tried.items()))
            print(
                f"  team {'AB'[team]}: support {basis[team]}, smallest refined K "
                f"{k if k is not None else '>' + str(basis[team])}; exploitability by K {curve}",
                flush=True,
            )


if __name__ == "__main__":
    main()
