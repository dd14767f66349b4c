"""Refined export against the signal cap, at equal refinement time (issue 6).

Why: the solver's averages reach team-leduc-2025's target gap (1e-3) in 60 s, its exported
submissions do not. This benchmark separates the cap on signals from the optimiser: one
set of DCFR averages is exported as :func:`teamleduc.solver.refine.halves` of each cap
(stratified signals with free weights) and refined for the same number of seconds per cap;
only the cap differs. Caps above 100 are not valid submissions; they measure what the
cap costs. Every gap printed is exact (both teams' exact best responses).

Environment: ``BENCH_CAP_PRESET`` (default team-leduc-2025), ``BENCH_CAP_SOLVE`` seconds of
DCFR (default 25, what ``teamleduc solve --time-limit 60`` solves), ``BENCH_CAP_REFINE``
seconds of refinement per cap (default 120), ``BENCH_CAPS`` (default ``30,100,400``).
About 7 minutes with the defaults.
"""

from __future__ import annotations

from teamleduc.solver import refine

from .settings import dcfr_for, positive_seconds, setting, team_preset


def _caps(raw: str) -> list[int]:
    caps = [int(c) for c in raw.split(",")]
    if min(caps) < 2:
        raise ValueError
    return caps


def main() -> None:
    config = team_preset("BENCH_CAP_PRESET", "team-leduc-2025")
    preset = config.name
    solve_s = setting("BENCH_CAP_SOLVE", "25", positive_seconds)
    refine_s = setting("BENCH_CAP_REFINE", "120", positive_seconds)
    caps = setting("BENCH_CAPS", "30,100,400", _caps)
    alg, elapsed, m = dcfr_for(config, solve_s)
    rm, game = alg.rm, alg.game
    print(
        f"{preset}: dcfr {rm.t} iterations in {elapsed:.1f} s, averages' "
        f"exact gap {m.gap:.3e}; refinement {refine_s:g} s per cap",
        flush=True,
    )
    print(
        f"  {'cap':>5} {'signals':>9} {'start gap':>10} {'refined gap':>12} "
        f"{'blocks':>7} {'team A':>10} {'team B':>10}",
        flush=True,
    )
    for cap in caps:
        ex = refine.halves_export(game, alg.stratified, cap)
        blocks = []
        # refine_team copies the solver's arrays: every cap starts from the same state
        res = refine.refine_export(
            game,
            ex,
            max_signals=cap,
            time_limit=refine_s,
            opponents=alg.refine_opponents(),
            keep_sizes=True,
            progress=lambda lo, up: blocks.append((lo, up)),
        )
        ka, kb = (mx.size for mx in res.mixtures)
        print(
            f"  {cap:5d} {f'{ka}+{kb}':>9} {ex.gap:10.4f} {res.gap:12.5f} {len(blocks):7d} "
            f"{res.lower:+10.5f} {res.upper:+10.5f}",
            flush=True,
        )
