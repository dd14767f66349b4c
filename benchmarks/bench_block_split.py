"""How a short refinement would best split its iterations into blocks (one member each).

Why: a team's refinement alternates its members in blocks of at most
:data:`teamleduc.solver.team_refinement.BLOCK_ITERS` iterations. In a 300 s team-leduc
solve a team has about 75 s, which holds fewer than two such blocks: the first block takes
all of it and the second member is not refined. Would two blocks of half the iterations do
better? This benchmark compares splits of the same number of iterations (``NxI``: N blocks
of I iterations, members alternating, each block kept only if it improves the exact bound)
from one start: the solver's DCFR (``dcfr``, as ``solve`` runs it) for a fixed number of
iterations, then one team's average as stratified signals with equal weights. Counted in
iterations, not seconds, so the bounds do not depend on the machine's load: each line prints
the team's exact bound after each block (higher is better for team A, lower for team B).
What it found (whether a split pays depends on the start and the team, so ``solve`` does
not split): docs/history/solver.md.

Environment: ``BENCH_BLOCK_SPLIT_PRESET`` (default team-leduc),
``BENCH_BLOCK_SPLIT_DCFR`` iterations before the export (default 150; a 300 s solve makes
150 to 310 on 2 cores, depending on the day), ``BENCH_BLOCK_SPLIT_TEAMS`` (default ``0``; ``0,1`` both),
``BENCH_BLOCK_SPLIT_SIGNALS`` (default 100, what ``solve`` refines per team on team-leduc
and team-leduc-2025), ``BENCH_BLOCK_SPLIT_SPLITS`` (default
``1x90,2x45,1x120,2x60,1x180,2x90``), ``BENCH_BLOCK_SPLIT_FIXED=1`` keeps the weights fixed
(the CSV follower; default free, the leader), ``BENCH_BLOCK_SPLIT_WARM`` the blocks' warm
starts to compare (comma-separated, positive; default the solver's
:data:`~teamleduc.solver.team_refinement.WARM_ITERS`), ``BENCH_BLOCK_SPLIT_FIRST`` the members
(0, 1: the team's first or second seat) to free in the first block, each compared (default
the solver's :data:`~teamleduc.solver.team_refinement.FIRST_FREE` of the team). About 10 minutes with the defaults on
team-leduc on 2 cores, under a minute on team-leduc-2025.
"""

from __future__ import annotations

import time

from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.regret_algorithm import RegretAlgorithm
from teamleduc.solver.team_refinement import FIRST_FREE, WARM_ITERS, refine_team

from .settings import positive_int, positive_list, setting, team_preset


def _splits(raw: str) -> list[tuple[int, int]]:
    """``NxI,...``: N blocks of I iterations, both positive."""
    out = []
    for part in raw.split(","):
        n, i = (int(v) for v in part.strip().split("x"))
        if n < 1 or i < 1:
            raise ValueError
        out.append((n, i))
    if not out:
        raise ValueError
    return out


def _teams(raw: str) -> list[int]:
    teams = [int(v) for v in raw.split(",")]
    if not teams or any(t not in (0, 1) for t in teams):
        raise ValueError
    return teams


def _members(raw: str) -> list[int] | None:
    """``""``: the solver's own first member of each team; else members 0 and/or 1."""
    if raw == "":
        return None
    members = [int(v) for v in raw.split(",")]
    if any(m not in (0, 1) for m in members):
        raise ValueError
    return members


def _flag(raw: str) -> bool:
    if raw not in ("0", "1"):
        raise ValueError
    return raw == "1"


def main() -> None:
    config = team_preset("BENCH_BLOCK_SPLIT_PRESET", "team-leduc")
    iterations = setting("BENCH_BLOCK_SPLIT_DCFR", "150", positive_int)
    teams = setting("BENCH_BLOCK_SPLIT_TEAMS", "0", _teams)
    signals = setting("BENCH_BLOCK_SPLIT_SIGNALS", "100", positive_int)
    splits = setting("BENCH_BLOCK_SPLIT_SPLITS", "1x90,2x45,1x120,2x60,1x180,2x90", _splits)
    fixed = setting("BENCH_BLOCK_SPLIT_FIXED", "0", _flag)
    warms = setting("BENCH_BLOCK_SPLIT_WARM", f"{WARM_ITERS:g}", positive_list)
    firsts = setting("BENCH_BLOCK_SPLIT_FIRST", "", _members)
    alg = RegretAlgorithm(config, "dcfr")
    t0 = time.perf_counter()
    alg.rm.iterate(iterations)
    m = alg.rm.measure()
    print(
        f"{config.name}: {iterations} dcfr iterations in {time.perf_counter() - t0:.1f} s, "
        f"averages' exact bounds [{m.lower:+.5f}, {m.upper:+.5f}]; {signals} stratified "
        f"signals per team, {'fixed' if fixed else 'free'} weights",
        flush=True,
    )
    for team in teams:
        mixture = alg.stratified(team, signals)
        start = guaranteed_value(alg.game, mixture)
        opponent = alg.refine_opponents()[team]
        print(f"team {'AB'[team]}: start {start:+.5f}", flush=True)
        for warm, first, (blocks, block_iters) in (
            (w, f, sp) for w in warms for f in (firsts or [FIRST_FREE[team]]) for sp in splits
        ):
            bounds = []
            t0 = time.perf_counter()
            bound, _ = refine_team(
                alg.game,
                mixture,
                start,
                signals=signals,
                time_limit=float("inf"),
                blocks=blocks,
                block_iters=block_iters,
                fixed_weights=fixed,
                opponent=opponent,
                progress=lambda _team, _block, b: bounds.append(b),
                warm=warm,
                first=first,
            )
            print(
                f"  {blocks} x {block_iters:<4d} warm {warm:<5g} first {first} bound {bound:+.5f}   "
                "after each block "
                + " ".join(f"{b:+.5f}" for b in bounds)
                + f"   ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
