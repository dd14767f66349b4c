"""Where a refinement iteration's time goes: one refiner block, part by part, per thread count.

Why: the refinement takes half of ``make run``'s time limit (team-leduc, 300 s), and issue 33
asks for its rate at each thread count. The roofline benchmark (``bench_roofline``) times only
the other team's part of an iteration; this one times the whole iteration as the refiner runs
it, split into its parts.

What, per preset: :data:`SETTLE` DCFR iterations (:class:`teamleduc.solver.dag_cfr.RegretMinimizer`),
team A's average exported as K stratified signals with fixed equal weights (as the CSV export
refines them), then, per thread count, two blocks of the refiner
(:class:`teamleduc.solver.team_refinement._TeamRefiner`, member 1 free): one of 1 iteration and
one of ``ITERS``. Each block has the same fixed costs (its start, its last exact check), so
their difference over ``ITERS - 1`` is the cost of one iteration with its share of the exact
checks (one every :data:`teamleduc.solver.team_refinement.CHECK_EVERY` iterations). The
refiner's kernels and the passes it calls are timed by wrapping their names in its module for
the two blocks:

* ``member pass``: the free member's regret pass (``_member_pass``);
* ``member reach``: the members' reach (``_member_reach``; the checks' chunked float64 reach
  included);
* ``member values``: the free member's terminal values (``_member_values``);
* ``pair reach``: the team's terminal reach (``_pair_reach``);
* ``other cfr_update`` / ``other flows``: the other team's regret pass and flow on its DAG, and
  ``weights``: the refined team's weights against that flow;
* ``check best response``: the exact checks' best responses (``best_values``, with the
  weights it computes);
* ``check average``: the checks' average strategies (``_block_average``);
* ``rest``: everything else (numpy in the loop, the block's bookkeeping). Being a difference
  of two blocks' leftovers, it can come out slightly below zero when the machine's speed
  drifts between the blocks; the other parts are differences too, but much larger.

A call made inside a timed call counts for the outer one only, so the parts add up to at most
the block's time. The wrappers cost a few microseconds a call. Timings vary with the machine's load: compare the
parts of one run.

Environment: ``TEAMLEDUC_BENCH_PRESETS`` (default ``team-leduc-2025,team-leduc``),
``TEAMLEDUC_BENCH_THREADS`` (default ``1,2``), ``TEAMLEDUC_BENCH_SIGNALS`` (K, default 100),
``TEAMLEDUC_BENCH_ITERS`` (default 21, at least 2).
Reproduce: ``python -m benchmarks refinement``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import defaultdict

import numba

from teamleduc.config import get_config
from teamleduc.dag import DagGame
from teamleduc.solver import team_refinement as refiner
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr
from teamleduc.solver.stratify import stratified_mixture

from .settings import pool_threads, positive_ints, preset_names, setting

#: DCFR iterations before the export (its averages no longer uniform)
SETTLE = 10
#: the parts timed, by the name the refiner's module calls them
PARTS = {
    "_member_pass": "member pass",
    "_member_reach": "member reach",
    "_member_values": "member values",
    "_pair_reach": "pair reach",
    "cfr_update": "other cfr_update",
    "flows": "other flows",
    "best_values": "check best response",
    "_block_average": "check average",
}


@contextlib.contextmanager
def timed_parts(seconds: dict):
    """Wrap the refiner module's kernels and passes (and :meth:`DagGame.weights`) so that each
    call adds its wall time to ``seconds[part]``; the originals are put back on exit."""
    saved = {name: getattr(refiner, name) for name in PARTS}
    weights = DagGame.weights
    depth = [0]  # a call inside a timed call (best_values computes weights) counts for the outer

    def wrap(part, f):
        def timed(*args, **kwargs):
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    seconds[part] += time.perf_counter() - t0

        return timed

    for name, part in PARTS.items():
        setattr(refiner, name, wrap(part, saved[name]))
    DagGame.weights = wrap("weights", weights)
    try:
        yield
    finally:
        for name, f in saved.items():
            setattr(refiner, name, f)
        DagGame.weights = weights


def block_parts(refined: refiner._TeamRefiner, iters: int) -> tuple[float, dict]:
    """Wall seconds of one block of ``iters`` iterations (member 1 free) and of its parts."""
    seconds: dict = defaultdict(float)
    with timed_parts(seconds):
        t0 = time.perf_counter()
        refined.block(1, deadline=float("inf"), max_iters=iters)
        total = time.perf_counter() - t0
    return total, dict(seconds)


def per_iteration(refined, iters: int) -> tuple[float, dict]:
    """Seconds of one iteration and of each of its parts: the block of ``iters`` iterations
    less the block of one, over ``iters - 1``."""
    one, parts_one = block_parts(refined, 1)
    many, parts_many = block_parts(refined, iters)
    names_ = set(parts_one) | set(parts_many)
    parts = {p: (parts_many.get(p, 0.0) - parts_one.get(p, 0.0)) / (iters - 1) for p in names_}
    return (many - one) / (iters - 1), parts


def start(preset: str, signals: int):
    """The game and a refiner of team A's K stratified signals after :data:`SETTLE` DCFR
    iterations."""
    rm = RegretMinimizer(get_config(preset), dcfr())
    rm.iterate(SETTLE)
    game = rm.game
    mix = stratified_mixture(game, 0, rm.average_sigma(0), signals)
    rm.release_scratch()
    # the refiner as the solver builds it; its bound is not used (no step() runs)
    run = refiner.TeamRefinement(game, mix, math.nan, signals=signals, fixed_weights=True)
    return game, run.refiner


def report(threads: int, seconds: float, parts: dict) -> None:
    """Print one thread count's seconds per iteration and its parts."""
    order = list(PARTS.values())[:6] + ["weights"] + list(PARTS.values())[6:]
    rest = seconds - sum(parts.get(p, 0.0) for p in order)
    print(
        f" {threads} thread{'s' if threads > 1 else ''}: {seconds:.4f} s per iteration "
        f"({1 / seconds:.2f} /s), exact checks included"
    )
    for p in order + ["rest"]:
        s = rest if p == "rest" else parts.get(p, 0.0)
        print(f"    {p:<22} {s:9.4f} s  {100 * s / seconds:5.1f} %")
    if rest < 0:
        print("    (rest below 0: the machine's speed drifted between the two blocks)")


def main() -> None:
    presets = preset_names("TEAMLEDUC_BENCH_PRESETS", "team-leduc-2025,team-leduc", True)
    signals = setting("TEAMLEDUC_BENCH_SIGNALS", "100", lambda r: positive_ints(r)[0])
    iters = setting("TEAMLEDUC_BENCH_ITERS", "21", lambda r: positive_ints(r)[0])
    if iters < 2:
        raise SystemExit(f"TEAMLEDUC_BENCH_ITERS: {iters} is not valid (at least 2)")
    threads = pool_threads("TEAMLEDUC_BENCH_THREADS", "1,2")
    print(
        f"one refiner block of {iters} iterations less one of 1, per iteration; {signals} "
        f"signals, fixed equal weights, exact check every {refiner.CHECK_EVERY} iterations\n"
    )
    for name in presets:
        t0 = time.perf_counter()
        game, refined = start(name, signals)
        block_parts(refined, 1)  # numba loads (or compiles) the kernels: not timed
        print(
            f"{name}: {game.tree.num_nodes:,} public nodes, {refined.K} signals "
            f"(set up in {time.perf_counter() - t0:.1f} s)",
            flush=True,
        )
        for n in threads:
            numba.set_num_threads(n)
            seconds, parts = per_iteration(refined, iters)
            report(n, seconds, parts)
        print(flush=True)


if __name__ == "__main__":
    main()
