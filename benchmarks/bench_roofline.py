"""Roofline of the solver's iteration: how far each pass runs from the memory-bandwidth floor.

Why: one DCFR iteration streams both teams' float32 row arrays (regrets, strategies,
cumulative strategies) and float64 values and flows and does little arithmetic per byte, so
its floor is the bytes it must move divided by the machine's memory bandwidth. This benchmark
measures that bandwidth and each pass's distance from it.

What, per thread count (``numba.set_num_threads``), each from the same DCFR state:

* the bandwidth: a STREAM triad ``a[i] = b[i] + s * c[i]`` (numba, parallel) on three float64
  arrays, best of the repeats after a warm-up, measured just before the passes it is compared
  with; counted 24 bytes per element (STREAM's convention), also shown with the
  write-allocate read of ``a`` (32 bytes per element);
* per preset: one DCFR iteration as the solver runs it (:mod:`teamleduc.solver.dag_cfr`),
  driven through :mod:`teamleduc.dag`: per team, :func:`~teamleduc.dag.cfr_update` against
  the other team's reach, then :func:`~teamleduc.dag.flows` adding to the average;
* one exact team best response as :func:`teamleduc.best_response.best_response_to_weights`
  runs it on the team's DAG: the weights ``W`` (:meth:`~teamleduc.dag.DagGame.weights`), the
  max DP (:func:`~teamleduc.dag.max_dp_levels`) and the argmax walk
  (:func:`~teamleduc.dag.extract_pure`), team B against team A's current DCFR reach;
* one refinement iteration's other-team part: that team's ``cfr_update`` and its ``flows``
  (no average), and the refined team's weights ``W``, from this state. The whole iteration,
  part by part with each part's traffic against a triad of its own run (the per-member
  kernels included), is ``python -m benchmarks refinement``, which drives the refiner.

Traffic model: every array a pass touches counts once at its full size as read if the kernel
reads it and once more as written if it writes it (a read-modify-write counts twice), like
STREAM's count: the traffic of a pass that streams each of its arrays once, with no
write-allocate and perfect reuse of everything that is re-read. Rows the kernels skip (beliefs
no team strategy reaches in ``cfr_update``, beliefs of zero flow in ``flows``) are counted
anyway; the share of rows visited is printed with the floor of the visited rows only (the
values and flows are read and written at every belief all the same), and so are the shares of
the counted bytes that are float32 row arrays, float64 values and flows, payoffs and reaches,
and index arrays. The floor is counted bytes / triad bandwidth; ``time/floor`` is how many
times slower than that the pass runs. On small presets part of the arrays stays in the
last-level cache, which the triad's arrays do not: there a pass may beat the floor. Timings
are the best of the repeats after a warm-up call (numba compiling or loading excluded).

Balance, per preset (a model, not a timing, so it covers thread counts this machine lacks): how
evenly the regret pass's level loops split among 2, 4, 8 and 16 threads, in the runs of equal
modelled work the passes use (:func:`teamleduc.dag.structure.level_shares`: a node's cost is
its prescription rows plus 20, a terminal's 0) and in numba's default split of equal node
counts, which they used before (each level's costly team nodes sit together, so some
threads got most of the work). Per level the slowest thread's load sets the time; the
efficiency printed is the sum of the levels' mean loads over the sum of their slowest loads
(1.00: every thread busy until the level ends). The DCFR iteration is also timed in the
splits the passes use (the flow pass's runs have equal counts of non-terminal nodes: it skips
the rows no flow reaches) against equal node counts and against rows + 20 in every pass
(alternating, best of the repeats): the same kernels, handed other cuts.

Environment: ``TEAMLEDUC_BENCH_PRESETS`` (default ``team-leduc-2025,team-leduc``),
``TEAMLEDUC_BENCH_THREADS`` (default ``1,2``; counts above numba's thread pool are skipped),
``TEAMLEDUC_BENCH_REPEATS`` (best of, default 5), ``TEAMLEDUC_BENCH_TRIAD_MIB`` (MiB per
triad array, default 256), ``TEAMLEDUC_BENCH_VERBOSE=1`` lists each pass's arrays.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit, prange

from teamleduc.config import get_config
from teamleduc.dag import (
    ROW_DTYPE,
    DagGame,
    TeamDag,
    cfr_update,
    dag_game,
    extract_pure,
    flows,
    max_dp_levels,
    passes,
    sweep,
)
from teamleduc.dag.structure import NODE_COST, level_shares, node_costs, team_index

from .settings import pool_threads, positive_ints, preset_names, setting

#: DCFR's discount factors and average weight at an iteration well into a run (t = 100;
#: alpha 1.5, beta 0, gamma 2): they change the arithmetic, not the arrays touched
_T = 100
POS_F, NEG_F, AVG_WEIGHT = _T**1.5 / (_T**1.5 + 1), 0.5, float(_T) ** 2
#: DCFR iterations run before anything is timed, so that the strategies are not uniform
SETTLE_ITERATIONS = 3


# --------------------------------------------------------------------------- bandwidth


@njit(cache=True, parallel=True)
def _triad(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


def triad_gbs(n: int, repeats: int) -> tuple[float, float]:
    """STREAM triad on three float64 arrays of ``n`` elements at numba's current thread
    count, best of ``repeats`` after a warm-up: (GB/s at 24 bytes per element, GB/s at 32 with
    the write-allocate read of the destination)."""
    a, b, c = np.zeros(n), np.full(n, 1.0), np.full(n, 2.0)
    _triad(a, b, c, 3.0)  # compiled or loaded; pages of ``a`` touched
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        _triad(a, b, c, 3.0)
        best = min(best, time.perf_counter() - t0)
    return 24 * n / best / 1e9, 32 * n / best / 1e9


# --------------------------------------------------------------------------- traffic


#: the arrays of the shares printed under each table (the rest: index arrays and scratch)
GROUPS = {
    "float32 rows": {"reg", "sigma", "cum"},
    "float64 values/flows": {"V", "F", "V level a", "V level b"},
    "payoffs and reaches": {"C", "C index", "W", "reach other", "reach out"},
}


@dataclass(frozen=True)
class Access:
    """One array a pass touches: its size and whether the pass reads and writes it."""

    name: str
    nbytes: int
    read: bool = True
    written: bool = False

    @property
    def group(self) -> str:
        """What the array is, for the share of the traffic (:data:`GROUPS`)."""
        return next((g for g, names in GROUPS.items() if self.name in names), "index and other")

    @property
    def traffic(self) -> int:
        return self.nbytes * (int(self.read) + int(self.written))


@dataclass
class Pass:
    """A timed call and the arrays it touches; ``best`` is its best time so far."""

    name: str
    run: Callable[[], object]
    arrays: list[Access]
    best: float = math.inf
    visited: float | None = None  # share of the row arrays' rows the kernel visits

    @property
    def bytes(self) -> int:
        return sum(a.traffic for a in self.arrays)

    @property
    def visited_bytes(self) -> float:
        """:attr:`bytes` with the row arrays' traffic scaled by the share of rows visited."""
        rows = sum(a.traffic for a in self.arrays if a.group == "float32 rows")
        share = 1.0 if self.visited is None else self.visited
        return self.bytes - (1.0 - share) * rows


def _reads(prefix: str, owner, names: str) -> list[Access]:
    """Read-only accesses of the arrays ``owner.NAME`` for each of the space-separated names."""
    return [Access(f"{prefix}.{n}", getattr(owner, n).nbytes) for n in names.split()]


def _rw(name: str, a: np.ndarray) -> Access:
    return Access(name, a.nbytes, True, True)


def _sweep_reads(dag: TeamDag, always: bool) -> list[Access]:
    """The level order of the parallel passes (the max DP takes it in both variants)."""
    return _reads("sweep", sweep(dag.tree), "order bounds") if always or _parallel(dag) else []


def _parallel(dag: TeamDag) -> bool:
    return sweep(dag.tree).parallel


def _scratch(dag: TeamDag) -> list[Access]:
    """The per-thread scratch rows of ``cfr_update``."""
    n = numba.get_num_threads()
    return [
        Access("scratch util", n * max(dag.max_rows, 1) * 8, True, True),
        Access("scratch w", n * max(dag.num_deals, 1) * 8, True, True),
    ]


def cfr_arrays(
    game: DagGame, team: int, reach_other: np.ndarray, V: np.ndarray, reg, sigma
) -> list[Access]:
    """The arrays :func:`teamleduc.dag.cfr_update` of ``team`` touches (DCFR: no
    ``last``): leaf weights from ``C`` and the other team's reach, values ``V`` written by
    every node and read by its parent, regrets and strategy read and rewritten."""
    dag = game.dags[team]
    return [
        *_sweep_reads(dag, False),
        *_reads("tree", dag.tree, "kind children"),
        *_reads(
            "dag",
            dag,
            "child_pad member table row0 tab_offsets tab_start tab_child_pad possible "
            "cx_ptr cx_idx",
        ),
        *_reads("tree", dag.tree, "terminals"),
        *_payoff_reads(game),
        Access("reach other", reach_other.nbytes),
        _rw("V", V),
        _rw("reg", reg),
        _rw("sigma", sigma),
        *_scratch(dag),
    ]


def flow_arrays(dag: TeamDag, sigma, F: np.ndarray, cum=None) -> list[Access]:
    """The arrays :func:`teamleduc.dag.flows` touches: flows ``F`` read at a node and written
    to its children, the strategy read, the terminal reach written, and with ``cum`` the
    average strategy read and rewritten."""
    Z = len(dag.tree.terminals)
    return [
        *_sweep_reads(dag, False),
        *_reads("tree", dag.tree, "kind children"),
        *_reads(
            "dag",
            dag,
            "child_pad member table row0 tab_offsets tab_start tab_child_pad cx_ptr cx_idx",
        ),
        *_reads("tree", dag.tree, "terminals"),
        Access("sigma", sigma.nbytes),
        _rw("F", F),
        Access("reach out", Z * dag.num_deals * 8, True, True),
        *([_rw("cum", cum)] if cum is not None else []),
    ]


def _payoff_reads(game: DagGame) -> list[Access]:
    """The payoffs ``C``: their table of distinct matrices read once (it stays in cache) and
    every terminal's row of it."""
    return [Access("C", game.C_table.nbytes), Access("C index", game.C_index.nbytes)]


def weights_arrays(game: DagGame, team: int, reach_other: np.ndarray) -> list[Access]:
    """The arrays :meth:`teamleduc.dag.DagGame.weights` touches: ``C``, the other team's
    reach, the team's ``W`` written."""
    Z = len(game.C_index)
    return [
        *_payoff_reads(game),
        Access("reach other", reach_other.nbytes),
        Access("W", Z * game.C_table.shape[1 + team] * 8, False, True),
    ]


def max_dp_arrays(dag: TeamDag, W: np.ndarray) -> list[Access]:
    """The arrays :func:`teamleduc.dag.max_dp_levels` touches: the weights, the index
    arrays, two level buffers of values and the recorded choice (no row arrays)."""
    sw = sweep(dag.tree)
    level = (sw.width + 1) * (dag.num_beliefs + 1) * 8
    n_team = int(np.count_nonzero(dag.member >= 0))
    return [
        *_sweep_reads(dag, True),
        *_reads("tree", dag.tree, "kind children"),
        *_reads("dag", dag, "child_pad member table tab_offsets tab_child_pad cx_ptr cx_idx"),
        *_reads("sweep", sw, "term_index pos"),
        Access("team_index", team_index(dag).nbytes),
        Access("W", W.nbytes),
        Access("V level a", level, True, True),
        Access("V level b", level, True, True),
        Access("choice", n_team * dag.num_beliefs * 4, False, True),
    ]


def argmax_arrays(dag: TeamDag, choice: np.ndarray, chosen: int) -> list[Access]:
    """The arrays :func:`teamleduc.dag.extract_pure` touches when it follows a recorded
    ``choice``: the index arrays, its (N, B) reached marks, the ``chosen`` rows and the
    members' actions written."""
    N = dag.tree.num_nodes
    actions = sum(int(a.size) for a in dag.legal_first)  # int8, one per information set
    return [
        *_reads("tree", dag.tree, "kind children"),
        *_reads(
            "dag", dag, "member table row0 tab_offsets tab_start tab_child tab_assign id_of roots"
        ),
        Access("team_index", team_index(dag).nbytes),
        Access("choice", choice.nbytes),
        Access("reached", N * dag.num_beliefs, True, True),
        Access("chosen rows", chosen * 8, False, True),
        Access("actions", actions, False, True),
    ]


# --------------------------------------------------------------------------- the state


@dataclass
class DcfrState:
    """Both teams' DCFR arrays, laid out as :class:`teamleduc.solver.dag_cfr.RegretMinimizer`
    lays them out (DCFR: no predictive ``last``)."""

    game: DagGame
    reg: list = field(default_factory=list)
    cum: list = field(default_factory=list)
    sigma: list = field(default_factory=list)
    V: list = field(default_factory=list)
    F: list = field(default_factory=list)
    reach: list = field(default_factory=list)

    @classmethod
    def start(cls, game: DagGame) -> DcfrState:
        s = cls(game)
        for d in game.dags:
            s.reg.append(np.zeros(d.num_rows, ROW_DTYPE))
            s.cum.append(np.zeros(d.num_rows, ROW_DTYPE))
            s.sigma.append(d.uniform_sigma())
            s.V.append(d.new_values())
            s.F.append(d.new_values())
        for k, d in enumerate(game.dags):
            s.reach.append(flows(d, s.sigma[k], s.F[k]))
        return s

    def update(self, k: int) -> None:
        cfr_update(
            self.game,
            k,
            self.reach[1 - k],
            self.V[k],
            self.reg[k],
            self.sigma[k],
            _NO_LAST,
            POS_F,
            NEG_F,
            False,
        )

    def flow(self, k: int) -> None:
        self.reach[k] = flows(self.game.dags[k], self.sigma[k], self.F[k], self.cum[k], AVG_WEIGHT)

    def iterate(self) -> None:
        for k in (0, 1):
            self.update(k)
            self.flow(k)

    def _in_place(self) -> list[np.ndarray]:
        """The arrays an iteration overwrites in place (the reaches it replaces)."""
        return [*self.reg, *self.cum, *self.sigma, *self.V, *self.F]

    def snapshot(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Copies of every array an iteration changes, for :meth:`restore`."""
        return [a.copy() for a in self._in_place()], [r.copy() for r in self.reach]

    def restore(self, saved: tuple[list[np.ndarray], list[np.ndarray]]) -> None:
        """Back to the state of :meth:`snapshot` (the arrays overwritten in place, the
        reaches, which :meth:`flow` replaces, replaced by copies)."""
        arrays, reach = saved
        for a, b in zip(self._in_place(), arrays, strict=True):
            np.copyto(a, b)
        self.reach = [r.copy() for r in reach]


_NO_LAST = np.zeros(0, ROW_DTYPE)
TEAMS = "AB"


def _rows_per_belief(dag: TeamDag) -> np.ndarray:
    """(team nodes, B) number of rows of each (team node, belief)."""
    offsets = dag.tab_offsets[dag.table[dag.member >= 0]]
    return np.diff(offsets, axis=1)


def visited_share(dag: TeamDag, mask: np.ndarray) -> float:
    """Share of the DAG's rows at the (node, belief) pairs where ``mask`` (N, B) holds."""
    rows = _rows_per_belief(dag)
    return float((rows * mask[dag.member >= 0]).sum() / max(dag.num_rows, 1))


def flow_share(dag: TeamDag, F: np.ndarray) -> float:
    """Share of the rows at beliefs of non-zero flow in ``F``: the rows :func:`flows` visits
    (the last flow stands for the next one)."""
    return visited_share(dag, F[: dag.tree.num_nodes, : dag.num_beliefs] != 0.0)


def dcfr_passes(state: DcfrState) -> list[Pass]:
    """The four passes of one alternating DCFR iteration, in the solver's order."""
    g, out = state.game, []
    for k, d in enumerate(g.dags):
        out.append(
            Pass(
                f"cfr_update {TEAMS[k]}",
                lambda k=k: state.update(k),
                cfr_arrays(g, k, state.reach[1 - k], state.V[k], state.reg[k], state.sigma[k]),
                visited=visited_share(d, d.possible),
            )
        )
        out.append(
            Pass(
                f"flows + average {TEAMS[k]}",
                lambda k=k: state.flow(k),
                flow_arrays(d, state.sigma[k], state.F[k], state.cum[k]),
                visited=flow_share(d, state.F[k]),
            )
        )
    return out


def best_response_passes(state: DcfrState, team: int = 1) -> list[Pass]:
    """Weights, max DP and argmax walk of ``team``'s exact best response to the other
    team's current reach."""
    g, d = state.game, state.game.dags[team]
    reach = state.reach[1 - team]
    W = g.weights(team, reach)
    _, choice = max_dp_levels(d, W)
    chosen = extract_pure(d, choice=choice).rows.size
    name = TEAMS[team]
    return [
        Pass(f"weights W {name}", lambda: g.weights(team, reach), weights_arrays(g, team, reach)),
        Pass(f"max DP {name}", lambda: max_dp_levels(d, W), max_dp_arrays(d, W)),
        Pass(
            f"argmax walk {name}",
            lambda: extract_pure(d, choice=choice),
            argmax_arrays(d, choice, chosen),
        ),
    ]


def refinement_passes(state: DcfrState, team: int = 0) -> list[Pass]:
    """The other-team part of one refinement iteration of ``team``: the other team's
    ``cfr_update`` against ``team``'s reach and its ``flows`` without an average (on copies of
    the DCFR state's regrets and strategy, as the refiner takes them), then ``team``'s
    weights against that flow."""
    g, o = state.game, 1 - team
    od = g.dags[o]
    reg, sigma = state.reg[o].copy(), state.sigma[o].copy()
    V, F = od.new_values(), od.new_values()
    reach = state.reach[team]
    oreach = flows(od, sigma, F)

    def update():
        cfr_update(g, o, reach, V, reg, sigma, _NO_LAST, POS_F, NEG_F, False)

    return [
        Pass(
            f"cfr_update {TEAMS[o]}",
            update,
            cfr_arrays(g, o, reach, V, reg, sigma),
            visited=visited_share(od, od.possible),
        ),
        Pass(
            f"flows {TEAMS[o]}",
            lambda: flows(od, sigma, F),
            flow_arrays(od, sigma, F),
            visited=flow_share(od, F),
        ),
        Pass(
            f"weights W {TEAMS[team]}",
            lambda: g.weights(team, oreach),
            weights_arrays(g, team, oreach),
        ),
    ]


# --------------------------------------------------------------------------- timing


def time_passes(passes: list[Pass], repeats: int) -> float:
    """Run the passes in order ``repeats`` times after one warm-up round; each pass keeps
    its best time, and the best round's total is returned."""
    for p in passes:
        p.run()
    best = math.inf
    for _ in range(repeats):
        total = 0.0
        for p in passes:
            t0 = time.perf_counter()
            p.run()
            dt = time.perf_counter() - t0
            p.best = min(p.best, dt)
            total += dt
        best = min(best, total)
    return best


def count_shares(dag: TeamDag, threads: int) -> np.ndarray:
    """Cuts like :func:`~teamleduc.dag.structure.level_shares`' but of equal node counts per
    thread: numba's default split of a level's ``prange``, which the passes used before."""
    return count_cuts(sweep(dag.tree).bounds, threads)


def count_cuts(bounds: np.ndarray, threads: int) -> np.ndarray:
    """Each level ``bounds[l]:bounds[l + 1]`` cut into ``threads`` runs of equal node counts
    (up to one)."""
    lo, hi = bounds[:-1], bounds[1:]
    return lo[:, None] + ((hi - lo)[:, None] * np.arange(threads + 1)[None, :]) // threads


#: the splits of the level loops the DCFR iteration is timed with: name -> the cuts of a
#: pass (``dag``, the pass: "regret" or "flow"); "used" is what the passes use
SPLITS = {
    "equal node counts (before)": lambda dag, work: count_shares(dag, numba.get_num_threads()),
    "equal rows + 20 in every pass": lambda dag, work: level_shares(dag, numba.get_num_threads()),
    "used": None,
}


@contextlib.contextmanager
def split(name: str):
    """The passes run on the cuts of ``SPLITS[name]`` while the ``with`` block runs."""
    saved = passes._shares
    if SPLITS[name] is not None:
        passes._shares = lambda dag, work: SPLITS[name](dag, work)
    try:
        yield
    finally:
        passes._shares = saved


def split_costs(state: DcfrState, repeats: int) -> dict[str, float]:
    """Best seconds of one DCFR iteration with each of :data:`SPLITS`, every one from the
    same state (restored before each), the splits' order turning each round: an iteration
    changes the state (the strategies grow sparser and the flow pass visits fewer rows), so
    timing the splits one after another favoured the last (up to 16 % on 1 thread, where the
    splits are the same)."""
    names = list(SPLITS)
    best = dict.fromkeys(names, math.inf)
    saved = state.snapshot()

    def once(name: str) -> float:
        state.restore(saved)
        with split(name):
            t0 = time.perf_counter()
            state.iterate()
            return time.perf_counter() - t0

    for name in names:
        once(name)
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            best[name] = min(best[name], once(name))
    state.restore(saved)
    return best


def report(title: str, passes: list[Pass], seconds: float, triad: float, verbose: bool) -> None:
    """The table of one operation: per pass and in all, at the triad's ``triad`` GB/s."""
    print(f"  {title}")
    print(
        f"    {'pass':<20} {'MB r+w':>9} {'seconds':>9} {'GB/s':>7} {'of triad':>9} {'time/floor':>11}"
    )
    for p in passes:
        gbs = p.bytes / p.best / 1e9
        floor = p.bytes / (triad * 1e9)
        print(
            f"    {p.name:<20} {p.bytes / 1e6:9.1f} {p.best:9.4f} {gbs:7.1f} "
            f"{gbs / triad:8.0%} {p.best / floor:10.1f}x"
        )
        if verbose:
            for a in p.arrays:
                rw = ("r" if a.read else "") + ("w" if a.written else "")
                print(f"      {a.name:<22} {a.nbytes / 1e6:10.3f} MB  {rw}")
    total = sum(p.bytes for p in passes)
    floor = total / (triad * 1e9)
    print(
        f"    in all: {1 / seconds:.2f} /s ({seconds:.4f} s), {total / 1e6:.1f} MB, "
        f"{total / seconds / 1e9:.1f} GB/s achieved, floor {floor:.4f} s, "
        f"time/floor {seconds / floor:.1f}x"
    )
    by_group: dict[str, int] = {}
    for a in (a for p in passes for a in p.arrays):
        by_group[a.group] = by_group.get(a.group, 0) + a.traffic
    order = [*GROUPS, "index and other"]
    print(
        "    bytes: " + ", ".join(f"{g} {by_group[g] / total:.0%}" for g in order if g in by_group)
    )
    shares = [f"{p.name} {p.visited:.0%}" for p in passes if p.visited is not None]
    if shares:
        visited = sum(p.visited_bytes for p in passes)
        floor = visited / (triad * 1e9)
        print(f"    rows visited: {', '.join(shares)}")
        print(
            f"    counting the visited rows only: {visited / 1e6:.1f} MB, floor {floor:.4f} s, "
            f"time/floor {seconds / floor:.1f}x"
        )


def balance(costs: np.ndarray, cuts: np.ndarray) -> float:
    """Sum of the levels' mean thread loads over the sum of their slowest loads: ``costs``
    one entry per node in level order, ``cuts`` (L, threads + 1) each level's runs (as
    :func:`level_shares`); a level of no cost counts nothing."""
    total = np.concatenate([[0.0], np.cumsum(costs)])
    loads = total[cuts[:, 1:]] - total[cuts[:, :-1]]
    return float(loads.sum() / (cuts.shape[1] - 1) / loads.max(axis=1).sum())


def balance_table(dag: TeamDag, counts=(2, 4, 8, 16)) -> None:
    print(
        f"  balance of the regret pass's levels (model: rows + {NODE_COST:.0f} per node; "
        f"{len(sweep(dag.tree).bounds) - 1} levels)"
    )
    print("    threads  runs of equal work (used)  equal node counts (before)")
    costs = node_costs(dag)[sweep(dag.tree).order]
    for n in counts:
        print(
            f"    {n:7d}  {balance(costs, level_shares(dag, n)):25.2f}"
            f"  {balance(costs, count_shares(dag, n)):26.2f}"
        )


def preset_roofline(preset: str, threads: list[int], repeats: int, triad_n: int, verbose: bool):
    """Build ``preset``'s DCFR state, then per thread count: the triad, measured just before
    the passes it is compared with (the machine's load may change between blocks), and the
    three operations."""
    t0 = time.perf_counter()
    game = dag_game(get_config(preset))
    state = DcfrState.start(game)
    for _ in range(SETTLE_ITERATIONS):
        state.iterate()
    d = game.dags
    print(
        f"{preset}: {game.tree.num_nodes:,} public nodes, {d[0].num_rows:,} + "
        f"{d[1].num_rows:,} rows, {d[0].num_beliefs} + {d[1].num_beliefs} beliefs "
        f"(built and {SETTLE_ITERATIONS} DCFR iterations in {time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
    balance_table(game.dags[0])
    # every thread count from the same state: an iteration changes it (the strategies grow
    # sparser and the flow pass visits fewer rows), which favoured the counts timed last
    saved = state.snapshot()
    for n in threads:
        state.restore(saved)
        numba.set_num_threads(n)
        triad, allocate = triad_gbs(triad_n, repeats)
        print(
            f" {n} thread{'s' if n > 1 else ''}: triad {triad:.1f} GB/s "
            f"({allocate:.1f} GB/s counting write-allocate)",
            flush=True,
        )
        passes = dcfr_passes(state)
        report("DCFR iteration", passes, time_passes(passes, repeats), triad, verbose)
        costs = split_costs(state, repeats)
        used = costs.pop("used")
        others = ", ".join(f"{k} {v:.4f} s ({v / used:.2f}x)" for k, v in costs.items())
        print(f"    levels split as used: {used:.4f} s; {others}", flush=True)
        passes = best_response_passes(state)
        report("exact team best response", passes, time_passes(passes, repeats), triad, verbose)
        passes = refinement_passes(state)
        report(
            "refinement iteration, other-team part (the whole iteration: python -m "
            "benchmarks refinement)",
            passes,
            time_passes(passes, repeats),
            triad,
            verbose,
        )
        print(flush=True)


def triad_mib() -> int:
    """MiB per triad array, ``TEAMLEDUC_BENCH_TRIAD_MIB`` (default 256): the setting of every
    benchmark that measures the bandwidth beside its passes."""
    return setting("TEAMLEDUC_BENCH_TRIAD_MIB", "256", lambda r: positive_ints(r)[0])


def main() -> None:
    presets = preset_names("TEAMLEDUC_BENCH_PRESETS", "team-leduc-2025,team-leduc")
    repeats = setting("TEAMLEDUC_BENCH_REPEATS", "5", lambda r: positive_ints(r)[0])
    mib = triad_mib()
    verbose = os.environ.get("TEAMLEDUC_BENCH_VERBOSE", "0") == "1"
    threads = pool_threads("TEAMLEDUC_BENCH_THREADS", "1,2")
    print(
        f"triad: a = b + s*c on 3 x {mib} MiB float64; every timing: best of {repeats} "
        "after a warm-up\n"
    )
    for name in presets:
        preset_roofline(name, threads, repeats, mib * 2**20 // 8, verbose)
