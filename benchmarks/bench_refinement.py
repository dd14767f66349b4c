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
* ``member reach``: the free member's reach at the terminals (``_member_reach_terminals``);
* ``reach, every node``: a member's reach at every node (``_member_reach``): the fixed
  member's at a block's start and the checks' chunked float64 reach of the free member;
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

The traffic of each part, as the roofline counts it (``bench_roofline``; issue 33 asks for the
refinement iteration's): the wrappers add up, per call, the bytes of the arrays the call
touches (read, and again if written), from the arrays it is handed; per iteration it is the
same difference of two blocks as the seconds. Against a STREAM triad measured just before
each thread count's blocks, each part prints its GB/s, their share of the triad and its time
over that floor. The per-member kernels walk their index arrays once per signal (the tree's,
or the free member's own nodes and frontiers, with a per-thread scratch of own-node values):
these count once in ``MB r+w``, as if every signal after the first found them in the cache;
``walked K times`` prints the traffic and floor if every signal read them from memory (this
machine has 32 MiB of L3; the truth lies between). The exact checks' best response counts
its weights, the max DP's index arrays and its values.

Environment: ``TEAMLEDUC_BENCH_PRESETS`` (default ``team-leduc-2025,team-leduc``),
``TEAMLEDUC_BENCH_THREADS`` (default ``1,2``), ``TEAMLEDUC_BENCH_SIGNALS`` (K, default 100),
``TEAMLEDUC_BENCH_ITERS`` (default 21, at least 2), ``TEAMLEDUC_BENCH_TRIAD_MIB`` (MiB per
triad array, default 256).
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

from .bench_roofline import (
    Access,
    cfr_arrays,
    flow_arrays,
    max_dp_arrays,
    triad_gbs,
    triad_mib,
    weights_arrays,
)
from .settings import pool_threads, positive_ints, preset_names, setting

#: DCFR iterations before the export (its averages no longer uniform)
SETTLE = 10
#: the parts timed, by the name the refiner's module calls them
PARTS = {
    "_member_pass": "member pass",
    "_member_reach_terminals": "member reach",
    "_member_reach": "reach, every node",
    "_member_values": "member values",
    "_pair_reach": "pair reach",
    "cfr_update": "other cfr_update",
    "flows": "other flows",
    "best_values": "check best response",
    "_block_average": "check average",
}


def _r(**arrays) -> list[Access]:
    return [Access(n, a.nbytes) for n, a in arrays.items()]


def _rw(**arrays) -> list[Access]:
    return [Access(n, a.nbytes, True, True) for n, a in arrays.items()]


def _w(**arrays) -> list[Access]:
    return [Access(n, a.nbytes, False, True) for n, a in arrays.items()]


def _frontier(own, legal, tptr, tz, optr, om) -> list[Access]:
    """The lists of a member's own nodes and frontiers (:mod:`teamleduc.solver.member_frontier`)
    that the free member's kernels walk for every signal."""
    return _r(own=own, legal=legal, tptr=tptr, tz=tz, optr=optr, om=om)


def _member_pass_arrays(
    own, legal, tptr, tz, optr, om, cv, sigma, reg, scratch, root, pos_f, neg_f, live
):  # fmt: skip
    """(arrays walked once per signal, the others) of :func:`_member_pass`: one thread's
    scratch of own-node values is written and read by every signal; ``live`` is read at the
    own nodes only."""
    walked = _frontier(own, legal, tptr, tz, optr, om)
    walked.append(Access("scratch", scratch[0].nbytes, True, True))
    live_read = Access("live at own nodes", live.shape[0] * own.shape[0])
    return walked, [*_r(cv=cv), live_read, *_rw(sigma=sigma, reg=reg), *_w(root=root)]


def _member_reach_arrays(parent, action, kind, actor, seat, id_of, sigma, out):
    """(walked once per signal, the others) of :func:`_member_reach` (every node)."""
    walked = _r(parent=parent, action=action, kind=kind, actor=actor, id_of=id_of)
    return walked, [*_r(sigma=sigma), *_w(out=out)]


def _member_reach_terminals_arrays(own, legal, tptr, tz, optr, om, sigma, out, cum, wj, scratch):
    """(walked once per signal, the others) of :func:`_member_reach_terminals`."""
    walked = _frontier(own, legal, tptr, tz, optr, om)
    walked.append(Access("scratch", scratch[0].nbytes, True, True))
    rest = [*_r(sigma=sigma), *_w(out=out), *(_rw(cum=cum) if wj.size else [])]
    return walked, rest


def _pair_reach_arrays(p, rfix, rfree, term, free_second, out, clear=True):
    """Of :func:`_pair_reach`: the free member's reach is read at the terminals only."""
    K, Z, R = rfix.shape
    gathered = Access("rfree at terminals", K * Z * R * rfree.itemsize)
    return [], [*_r(p=p, rfix=rfix, term=term), gathered, *_rw(out=out)]


def _best_values_arrays(game, team, reach_other, V):
    """Of :func:`teamleduc.dag.best_values`: the weights, then the max DP over every value."""
    dp = max_dp_arrays(game.dags[team], weights_arrays(game, team, reach_other)[-1])
    kept = [a for a in dp if not a.name.startswith(("V level", "choice"))]
    return [], [*weights_arrays(game, team, reach_other), *kept, *_rw(V=V)]


def _member_values_arrays(W, rfix, free_second, out):
    return [], [*_r(W=W, rfix=rfix), *_w(out=out)]


def _cfr_update_arrays(game, team, reach_other, V, reg, sigma, *_):
    return [], cfr_arrays(game, team, reach_other, V, reg, sigma)


def _flows_arrays(dag, sigma, F, *_):
    return [], flow_arrays(dag, sigma, F)


def _block_average_arrays(cum, fallback, out):
    return [], [*_r(cum=cum, fallback=fallback), *_w(out=out)]


def _weights_arrays(game, team, reach_other):
    return [], weights_arrays(game, team, reach_other)


#: per part name (as :data:`PARTS`, and ``weights``): (arrays walked per signal, the others)
#: from the call's arguments
TRAFFIC = {
    "_member_pass": _member_pass_arrays,
    "_member_reach": _member_reach_arrays,
    "_member_reach_terminals": _member_reach_terminals_arrays,
    "_member_values": _member_values_arrays,
    "_pair_reach": _pair_reach_arrays,
    "cfr_update": _cfr_update_arrays,
    "flows": _flows_arrays,
    "best_values": _best_values_arrays,
    "_block_average": _block_average_arrays,
    "weights": _weights_arrays,
}


def traffic(name: str, args) -> tuple[int, int]:
    """(bytes counted once, bytes more if every signal read the walked arrays from memory) of
    one call of ``name`` with ``args``."""
    walked, rest = TRAFFIC[name](*args)
    once = sum(a.traffic for a in walked + rest)
    per_signal = ("_member_pass", "_member_reach", "_member_reach_terminals")
    signals = args[6].shape[0] if name in per_signal else 1
    return once, (signals - 1) * sum(a.traffic for a in walked)


@contextlib.contextmanager
def timed_parts(seconds: dict, moved: dict | None = None):
    """Wrap the refiner module's kernels and passes (and :meth:`DagGame.weights`) so that each
    call adds its wall time to ``seconds[part]`` and, with ``moved``, its :func:`traffic` to
    ``moved[part]`` (a pair of bytes); the originals are put back on exit."""
    saved = {name: getattr(refiner, name) for name in PARTS}
    weights = DagGame.weights
    depth = [0]  # a call inside a timed call (best_values computes weights) counts for the outer

    def wrap(name, part, f):
        def timed(*args):
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return f(*args)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    seconds[part] += time.perf_counter() - t0
                    if moved is not None:
                        once, more = traffic(name, args)
                        moved[part] = (moved[part][0] + once, moved[part][1] + more)

        return timed

    for name, part in PARTS.items():
        setattr(refiner, name, wrap(name, part, saved[name]))
    DagGame.weights = wrap("weights", "weights", weights)
    try:
        yield
    finally:
        for name, f in saved.items():
            setattr(refiner, name, f)
        DagGame.weights = weights


def block_parts(refined: refiner._TeamRefiner, iters: int) -> tuple[float, dict, dict]:
    """Wall seconds of one block of ``iters`` iterations (member 1 free), of its parts and
    their traffic (:func:`timed_parts`)."""
    seconds: dict = defaultdict(float)
    moved: dict = defaultdict(lambda: (0, 0))
    with timed_parts(seconds, moved):
        t0 = time.perf_counter()
        refined.block(1, deadline=float("inf"), max_iters=iters)
        total = time.perf_counter() - t0
    return total, dict(seconds), dict(moved)


def per_iteration(refined, iters: int) -> tuple[float, dict, dict]:
    """Seconds of one iteration, of each of its parts and their traffic: the block of
    ``iters`` iterations less the block of one, over ``iters - 1``."""
    one, parts_one, moved_one = block_parts(refined, 1)
    many, parts_many, moved_many = block_parts(refined, iters)
    names_ = set(parts_one) | set(parts_many)
    parts = {p: (parts_many.get(p, 0.0) - parts_one.get(p, 0.0)) / (iters - 1) for p in names_}
    moved = {
        p: tuple(
            (a - b) / (iters - 1)
            for a, b in zip(moved_many.get(p, (0, 0)), moved_one.get(p, (0, 0)), strict=True)
        )
        for p in names_
    }
    return (many - one) / (iters - 1), parts, moved


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


def report(threads: int, seconds: float, parts: dict, moved: dict, triad: float) -> None:
    """Print one thread count's seconds per iteration, its parts and their traffic against
    the triad's ``triad`` GB/s."""
    names_ = list(dict.fromkeys(PARTS.values()))  # in order, once each
    cut = names_.index("other flows") + 1
    order = names_[:cut] + ["weights"] + names_[cut:]
    rest = seconds - sum(parts.get(p, 0.0) for p in order)
    print(
        f" {threads} thread{'s' if threads > 1 else ''}: {seconds:.4f} s per iteration "
        f"({1 / seconds:.2f} /s), exact checks included; triad {triad:.1f} GB/s"
    )
    print(
        f"    {'part':<22} {'seconds':>9} {'share':>7} {'MB r+w':>9} {'GB/s':>6} "
        f"{'of triad':>9} {'time/floor':>11}"
    )
    for p in order + ["rest"]:
        s = rest if p == "rest" else parts.get(p, 0.0)
        line = f"    {p:<22} {s:9.4f} {100 * s / seconds:6.1f}%"
        once = moved.get(p, (0.0, 0.0))[0]
        if once > 0 and s > 0:
            gbs = once / s / 1e9
            ratio = s * triad * 1e9 / once
            line += f" {once / 1e6:9.1f} {gbs:6.1f} {gbs / triad:8.0%} {ratio:10.1f}x"
        print(line)
    if rest < 0:
        print("    (rest below 0: the machine's speed drifted between the two blocks)")
    once = sum(v[0] for v in moved.values())
    more = sum(v[1] for v in moved.values())
    floor = once / (triad * 1e9)
    print(
        f"    in all: {once / 1e6:.1f} MB, {once / seconds / 1e9:.1f} GB/s achieved, floor "
        f"{floor:.4f} s, time/floor {seconds / floor:.1f}x"
    )
    walked = [p for p in order if moved.get(p, (0, 0))[1] > 0]
    if walked:
        floor_all = (once + more) / (triad * 1e9)
        print(
            f"    with the index arrays walked K times in {', '.join(walked)}: "
            f"{(once + more) / 1e6:.1f} MB, floor {floor_all:.4f} s, "
            f"time/floor {seconds / floor_all:.1f}x"
        )


def main() -> None:
    presets = preset_names("TEAMLEDUC_BENCH_PRESETS", "team-leduc-2025,team-leduc", True)
    signals = setting("TEAMLEDUC_BENCH_SIGNALS", "100", lambda r: positive_ints(r)[0])
    iters = setting("TEAMLEDUC_BENCH_ITERS", "21", lambda r: positive_ints(r)[0])
    if iters < 2:
        raise SystemExit(f"TEAMLEDUC_BENCH_ITERS: {iters} is not valid (at least 2)")
    threads = pool_threads("TEAMLEDUC_BENCH_THREADS", "1,2")
    mib = triad_mib()
    print(
        f"one refiner block of {iters} iterations less one of 1, per iteration; {signals} "
        f"signals, fixed equal weights, exact check every {refiner.CHECK_EVERY} iterations; "
        f"triad a = b + s*c on 3 x {mib} MiB float64, best of 5\n"
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
            triad, _ = triad_gbs(mib * 2**20 // 8, 5)
            seconds, parts, moved = per_iteration(refined, iters)
            report(n, seconds, parts, moved, triad)
        print(flush=True)


if __name__ == "__main__":
    main()
