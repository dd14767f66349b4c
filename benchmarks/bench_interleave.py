"""Solve for the export, not after it: interleaved refinement against today's split (issue 22).

Why: a run today solves for half its time and then refines the export for the other half
against a regret minimiser restarted from the solver's last state. In the interleaved design
the K-signal mixtures are the iterate from early on: after a short warm-up, rounds alternate
DCFR (which goes on improving the averages) with one refinement block per team whose
opponent restarts from DCFR's *current* state (:class:`teamleduc.solver.team_refinement.
TeamRefinement`); each round a fresh stratification of the newer average replaces a team's
refined mixture if its exact bound is better. Both designs get the same wall-clock time and
the preset's own signal budget (:mod:`teamleduc.solver.budget`): K signals per team for the
2025 team zips, halves of K (K_A + K_B - 1 = K merged) for a CSV submission.

Environment: ``BENCH_INTERLEAVE_PRESET`` (default team-leduc-2025), ``BENCH_INTERLEAVE_SECONDS``
(comma-separated totals, default ``55``: what a 60 s run has after building and writing;
the issue's long runs: ``55,295`` on team-leduc-2025 and, with ``BENCH_INTERLEAVE_PRESET=
team-leduc``, ``290,1780``),
``BENCH_INTERLEAVE_SIGNALS`` per team (default 100), ``BENCH_INTERLEAVE_WARMUP`` share of the
time solved before the first round (default 0.25), ``BENCH_INTERLEAVE_ROUND`` seconds of DCFR
and of refinement per team in a round (default ``4,8``). Exact gaps (both teams' exact best
responses).
"""

from __future__ import annotations

import time

from teamleduc.solver import refine, team_refinement
from teamleduc.solver.budget import native_format, per_team
from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.regret_algorithm import RegretAlgorithm

from .settings import positive_list, setting, team_preset


def _share(raw: str) -> float:
    v = float(raw)
    if not 0 < v < 1:
        raise ValueError
    return v


def _signals(raw: str) -> int:
    k = int(raw)
    if not 1 <= k <= 100:
        raise ValueError
    return k


def split(config, seconds: float, signals: int):
    """Today's design: DCFR for half the time, then each team's stratified signals refined
    for a quarter each. Returns (gap, lower, upper, dcfr iterations)."""
    t0 = time.perf_counter()
    each = per_team(native_format(config))
    alg = RegretAlgorithm(config, "dcfr")
    while time.perf_counter() - t0 < seconds / 2:
        alg.rm.iterate(1)
    ex = refine.halves_export(alg.game, alg.stratified, signals, per_team=each)
    left = seconds - (time.perf_counter() - t0)
    res = refine.refine_export(
        alg.game,
        ex,
        max_signals=signals,
        time_limit=max(left, 0.0),
        opponents=alg.refine_opponents(),
        keep_sizes=True,
        per_team=each,
    )
    return res.gap, res.lower, res.upper, alg.rm.t


def interleaved(config, seconds: float, signals: int, warmup: float, dcfr_s: float, refine_s):
    """The interleaved design (module docstring). Returns (gap, lower, upper, dcfr
    iterations, rounds)."""
    t0 = time.perf_counter()
    end = t0 + seconds
    alg = RegretAlgorithm(config, "dcfr")
    game, rm = alg.game, alg.rm
    sizes = refine.team_sizes(signals, per_team(native_format(config)))
    while time.perf_counter() - t0 < warmup * seconds:
        rm.iterate(1)
    runs = [None, None]
    rounds = 0
    while True:
        for team in (0, 1):
            fresh = alg.stratified(team, sizes[team])
            bound = guaranteed_value(game, fresh)
            run = runs[team]
            if run is None or team_refinement._better(team)(bound, run.best[0]):
                runs[team] = team_refinement.TeamRefinement(game, fresh, bound, signals=sizes[team])
        left = end - time.perf_counter()
        if left <= 0:
            break
        # the last round refines to the end; the others leave time for DCFR
        last = left < 2 * (dcfr_s + 2 * refine_s)
        for team in (0, 1):
            other = 1 - team
            stop = (
                time.perf_counter() + (end - time.perf_counter()) / (2 - team)
                if last
                else time.perf_counter() + refine_s
            )
            runs[team].step(stop, opponent=(rm.reg[other], rm.sigma[other]))
        rounds += 1
        if last:
            break
        t = time.perf_counter()
        while time.perf_counter() - t < dcfr_s:
            rm.iterate(1)
    lower, upper = runs[0].best[0], runs[1].best[0]
    return upper - lower, lower, upper, rm.t, rounds


def main() -> None:
    config = team_preset("BENCH_INTERLEAVE_PRESET", "team-leduc-2025")
    preset = config.name
    totals = setting("BENCH_INTERLEAVE_SECONDS", "55", positive_list)
    signals = setting("BENCH_INTERLEAVE_SIGNALS", "100", _signals)
    warmup = setting("BENCH_INTERLEAVE_WARMUP", "0.25", _share)
    rnd = setting("BENCH_INTERLEAVE_ROUND", "4,8", positive_list)
    if len(rnd) != 2:
        raise SystemExit("BENCH_INTERLEAVE_ROUND: give two numbers (DCFR, refinement seconds)")
    print(
        f"{preset}: {signals} signals ({native_format(config)}), exact gaps; interleaved: warm-up "
        f"{warmup:g} of the time, rounds of {rnd[0]:g} s dcfr + {rnd[1]:g} s per team",
        flush=True,
    )
    for seconds in totals:
        gap, lo, up, it = split(config, seconds, signals)
        print(
            f"  {seconds:6.0f} s  split (half solve, half refine): gap {gap:.5f} "
            f"[{lo:+.5f}, {up:+.5f}], {it} dcfr iterations",
            flush=True,
        )
        gap, lo, up, it, rounds = interleaved(config, seconds, signals, warmup, *rnd)
        print(
            f"  {seconds:6.0f} s  interleaved:                 gap {gap:.5f} "
            f"[{lo:+.5f}, {up:+.5f}], {it} dcfr iterations, {rounds} rounds",
            flush=True,
        )


if __name__ == "__main__":
    main()
