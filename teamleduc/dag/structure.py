"""A team's belief DAG laid out as flat arrays on the public tree, and both teams' game.

A team's strategy space is the team belief DAG of Zhang, Farina and Sandholm (ICML 2023),
restricted to games whose actions are all public: a DAG node is a pair (public node h,
belief b), a belief being the sets of ranks each member may still hold given what the team's
own play has revealed (:mod:`teamleduc.dag.beliefs`, whose tables this module lays out).
At a node where a team member acts, the team picks a *prescription* (one row of
``prescription_table``: an action for every rank of the acting member's set) and the belief
moves to the preimage of the action taken; at any other node (opponent, chance, terminal) the
belief is passed unchanged to every child. A team's correlated terminal reach is
``T[z, x] = sum_b F[z, b] contains[b, x]`` for the flow ``F`` of its DAG strategy, and its
value against the other team's reach ``T'`` is ``sum_z sum_x W[z, x] T[z, x]`` with
``W[z, xA] = sum_xB C[z, xA, xB] T'[z, xB]`` for team A (``-sum_xA C T'`` for team B), ``C``
being chance probability x team A's utility (:func:`teamleduc.payoffs.chance_utility`). ``C``
is kept as its distinct matrices, ``C[z] = C_table[C_index[z]]`` (:func:`distinct_payoffs`).

Layout, for one team with B beliefs and X = R**m team deals (m members):

====================  ================  =====================================================
``member``            (N,) int8         position of the acting member in the team, else -1
``table``             (N,) int16        prescription table of the node (team nodes), else -1
``row0``              (N,) int64        first row of the node in the *row arrays*, else -1
``tab_offsets``       (T, B + 1) int64  rows of belief b of table t: ``tab_offsets[t, b]`` to
                                        ``tab_offsets[t, b + 1]`` in the table arrays
``tab_start``         (T,) int64        first row of table t in the table arrays
``tab_child``         (P, 3) int32      belief reached through c, r, f (-1: not reached)
``tab_assign``        (P, R) int8       action of each rank under the row (-1 outside the set)
``cx_ptr, cx_idx``    CSR of contains   team deals x of belief b: ``cx_idx[cx_ptr[b]:cx_ptr[b+1]]``
row arrays            (num_rows,) f4    one entry per (team node, row of its table): index
                                        ``row0[h] + (table row - tab_start[t])``
``child_pad``         (N, 3) int32      ``children[:, :3]`` with -1 replaced by the dummy node N
``tab_child_pad``     (P, 3) int32      ``tab_child`` with -1 replaced by the dummy belief B
``V``, ``F``          (N+1, B+1) f8     values / flows per (public node, belief); row N and
                                        column B are dummies (V keeps them at 0) so that the
                                        inner loops need no branch for a missing child
====================  ================  =====================================================

Row arrays (regrets, strategies, cumulative strategies) are float32: they are the bulk of the
memory traffic, and every value, flow and payoff is accumulated in float64.

:class:`Sweep` is the traversal order the passes of :mod:`teamleduc.dag.passes` share: the
tree level by level, in parallel on trees of at least :data:`PARALLEL_MIN_NODES` nodes, each
thread taking one run of consecutive nodes of a level of about equal work
(:func:`level_shares`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..config import GameConfig
from ..decimal_kernels import distinct_rows, in_order_of_first
from ..infosets import infoset_tables
from ..payoffs import chance_utility_rows, payoff_groups
from ..tree import DECISION, TERMINAL, PublicTree, build_tree
from .beliefs import TeamBeliefs, legal_code, prescription_table, team_beliefs
from .kernels import _reachable, _uniform_rows, _weights

#: trees with at least this many nodes use the parallel (level by level) passes
PARALLEL_MIN_NODES = 20_000
#: dtype of the row arrays (regrets, strategies, cumulative strategies)
ROW_DTYPE = np.float32


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True, eq=False)
class TeamDag:
    """One team's belief DAG on the public tree (see the module docstring for the layout)."""

    tree: PublicTree
    team: int
    seats: tuple[int, ...]
    beliefs: TeamBeliefs
    num_beliefs: int
    num_deals: int
    contains: np.ndarray
    cx_ptr: np.ndarray
    cx_idx: np.ndarray
    roots: np.ndarray
    member: np.ndarray
    table: np.ndarray
    row0: np.ndarray
    num_rows: int
    tab_offsets: np.ndarray
    tab_start: np.ndarray
    tab_child: np.ndarray
    tab_assign: np.ndarray
    max_rows: int
    id_of: np.ndarray  # (m, N, R) information-set id of each member at (node, rank)
    legal_first: tuple  # per member (n,) int8: first legal action of every infoset
    child_pad: np.ndarray  # (N, 3) int32 children through c, r, f; N where there is none
    tab_child_pad: np.ndarray  # (P, 3) int32 tab_child with -1 replaced by B

    @property
    def num_members(self) -> int:
        return len(self.seats)

    @functools.cached_property
    def possible(self) -> np.ndarray:
        """(N, B) bool: reachable by some strategy of the team (computed on first use: the
        best response of :mod:`teamleduc.best_response_dp` values every belief and never needs it)."""
        tree = self.tree
        return _reachable(
            tree.kind,
            tree.children,
            self.member,
            self.table,
            self.tab_offsets,
            self.tab_child,
            self.roots,
            self.num_beliefs,
        )

    def uniform_sigma(self) -> np.ndarray:
        """(num_rows,) uniform behavioural strategy over the rows of every DAG decision node."""
        sigma = np.empty(self.num_rows, ROW_DTYPE)
        _uniform_rows(self.member, self.table, self.row0, self.tab_offsets, self.tab_start, sigma)
        return sigma

    def root_value(self, V: np.ndarray) -> float:
        return float(V[0, self.roots].sum())

    def new_values(self) -> np.ndarray:
        """A zeroed (N + 1, B + 1) array for values or flows (last row/column: dummies)."""
        return np.zeros((self.tree.num_nodes + 1, self.num_beliefs + 1))


@dataclass(frozen=True, eq=False)
class Sweep:
    """Traversal data shared by both teams."""

    order: np.ndarray  # (N,) int32 node ids level by level
    bounds: np.ndarray  # (L + 1,) int64 level boundaries in ``order``
    term_index: np.ndarray  # (N,) int32 row of each terminal in ``tree.terminals``, else -1
    large: bool  # at least PARALLEL_MIN_NODES nodes: the passes run level by level in parallel
    ident: np.ndarray  # (N + 1,) int32 0..N: rows of the nodes in a full (N + 1, .) array
    pos: np.ndarray  # (N + 1,) int32 position of each node in its level; N -> ``width``
    width: int  # nodes in the widest level

    @property
    def parallel(self) -> bool:
        """Whether the passes over this tree run in parallel: if it is :attr:`large`, unless
        :func:`passes_in_parallel` says otherwise for the time being."""
        return self.large if _PARALLEL_OVERRIDE is None else _PARALLEL_OVERRIDE


#: set by :func:`passes_in_parallel` alone
_PARALLEL_OVERRIDE: bool | None = None


@contextlib.contextmanager
def passes_in_parallel(parallel: bool):
    """Run the passes over every tree serially or in parallel while the ``with`` block runs
    (the warm-up compiles both kinds of kernel on one tiny game)."""
    global _PARALLEL_OVERRIDE
    before, _PARALLEL_OVERRIDE = _PARALLEL_OVERRIDE, bool(parallel)
    try:
        yield
    finally:
        _PARALLEL_OVERRIDE = before


@functools.lru_cache(maxsize=4)
def sweep(tree: PublicTree) -> Sweep:
    """The level-by-level traversal of ``tree`` (cached)."""
    levels = tree.levels
    N = tree.num_nodes
    order = np.concatenate(levels).astype(np.int32)
    bounds = np.concatenate([[0], np.cumsum([len(lv) for lv in levels])]).astype(np.int64)
    term_index = np.full(N, -1, np.int32)
    term_index[tree.terminals] = np.arange(len(tree.terminals), dtype=np.int32)
    width = int(np.diff(bounds).max())
    pos = np.empty(N + 1, np.int32)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        pos[order[lo:hi]] = np.arange(hi - lo, dtype=np.int32)
    pos[N] = width
    return Sweep(
        order,
        bounds,
        term_index,
        N >= PARALLEL_MIN_NODES,
        np.arange(N + 1, dtype=np.int32),
        pos,
        width,
    )


#: modelled work of a node in a level loop besides its prescription rows (its children's
#: values summed or passed on): the model of :func:`level_shares`
NODE_COST = 20.0


#: the passes whose level loops :func:`level_shares` splits, each with its own cost model
WORKS = ("regret", "flow", "max")


def node_costs(dag: TeamDag, work: str = "regret") -> np.ndarray:
    """(N,) modelled work of each node in the level loop of ``dag``'s pass ``work``.

    * ``"regret"`` (the regret pass): a team node costs its prescription rows plus
      :data:`NODE_COST`, any other decision or chance node :data:`NODE_COST` (it sums its
      children's values), a terminal 0 (the terminals have a loop of their own);
    * ``"flow"`` (the flow pass): it skips the beliefs and rows that no flow reaches, most of
      them once the strategies are sparse, and writes every child's flows at every node: each
      non-terminal node costs 1, a terminal 0 (a loop of its own);
    * ``"max"`` (the max DP): as ``"regret"``, but the terminals are valued inside the level
      loop, each summing its weights over every belief: the team's deal entries plus B."""
    if work not in WORKS:
        raise ValueError(f"work must be one of {', '.join(WORKS)}, got {work!r}")
    tree = dag.tree
    terminal = tree.kind == TERMINAL
    if work == "flow":
        return np.where(terminal, 0.0, 1.0)
    acts = (dag.member >= 0) & ~terminal
    rows = np.zeros(tree.num_nodes)
    size = dag.tab_offsets[:, -1] - dag.tab_offsets[:, 0]
    rows[acts] = size[dag.table[acts]]
    leaf = float(dag.cx_ptr[-1] + dag.num_beliefs) if work == "max" else 0.0
    return np.where(terminal, leaf, rows + NODE_COST)


def work_cuts(costs: np.ndarray, bounds: np.ndarray, threads: int) -> np.ndarray:
    """(L, threads + 1) int64 cuts of each level ``bounds[l]:bounds[l + 1]`` of ``costs``
    (one entry per node, in level order) into ``threads`` runs of consecutive entries of about
    equal total cost: a run ends at the first entry where the level's running total reaches
    its share, so no run exceeds its share by more than one node's cost."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    total = np.concatenate([[0.0], np.cumsum(costs, dtype=np.float64)])
    lo, hi = np.asarray(bounds[:-1], np.int64), np.asarray(bounds[1:], np.int64)
    frac = np.arange(threads + 1) / threads
    targets = total[lo][:, None] + (total[hi] - total[lo])[:, None] * frac[None, :]
    cuts = np.searchsorted(total, targets, side="left").astype(np.int64)
    cuts = np.clip(cuts, lo[:, None], hi[:, None])
    cuts[:, 0], cuts[:, -1] = lo, hi
    return np.maximum.accumulate(cuts, axis=1)


@functools.lru_cache(maxsize=24)
def level_shares(dag: TeamDag, threads: int, work: str = "regret") -> np.ndarray:
    """(L, threads + 1) int64: each level of :func:`sweep`'s ``order`` cut into ``threads``
    runs of consecutive nodes of about equal modelled work in the pass ``work``
    (:func:`node_costs`, :func:`work_cuts`), run ``s`` of level ``l`` being
    ``order[cuts[l, s]:cuts[l, s + 1]]``.

    Why: numba's default schedule gives each thread an equal number of a level's nodes, but a
    level's costly team nodes sit together, so at 16 threads a third to a half of the
    threads' time was modelled idle (``python -m benchmarks roofline``); runs of equal work
    keep each thread's reads consecutive (interleaving the nodes cost a tenth more on 2
    threads) and cost nothing to schedule (numba's dynamic chunks cost a fifth more). Which
    thread runs a node changes no bit: a node's work depends on nothing else done in its
    level."""
    sw = sweep(dag.tree)
    return work_cuts(node_costs(dag, work)[sw.order], sw.bounds, threads)


def team_dag(tree: PublicTree, team: int) -> TeamDag:
    """The belief DAG of team ``team`` (index into ``config.teams``), cached per tree."""
    return _team_dag(tree, tuple(sorted(tree.config.teams[team])), team)


def seats_dag(tree: PublicTree, seats: Iterable[int]) -> TeamDag:
    """The belief DAG of any one or two seats (``team`` = their index in ``config.teams``, or
    -1 if they are not a team of the game), cached per tree."""
    seats = tuple(sorted(int(s) for s in seats))
    teams = [tuple(sorted(t)) for t in tree.config.teams]
    return _team_dag(tree, seats, teams.index(seats) if seats in teams else -1)


@functools.lru_cache(maxsize=8)
def _team_dag(tree: PublicTree, seats: tuple[int, ...], team: int) -> TeamDag:
    config = tree.config
    if len(seats) > 2:
        raise ValueError(f"teams of more than two seats are not supported ({seats})")
    beliefs = team_beliefs(tree, seats)
    B = int(beliefs.num_beliefs)
    R = config.num_ranks
    N = tree.num_nodes

    member = np.full(N, -1, np.int8)
    team_nodes = np.flatnonzero((tree.kind == DECISION) & np.isin(tree.actor, seats))
    member[team_nodes] = np.searchsorted(np.array(seats), tree.actor[team_nodes])

    # one table per (member, legal pattern)
    code = legal_code(tree.legal)
    key = member.astype(np.int64) * 8 + code
    keys = np.unique(key[team_nodes])
    tables = []
    for k in keys.tolist():
        m, c = divmod(k, 8)
        tables.append(prescription_table(beliefs, m, (bool(c & 1), bool(c & 2), bool(c & 4))))
    sizes = np.array([len(t.belief) for t in tables], np.int64)
    tab_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    tab_offsets = np.stack([np.asarray(t.offsets, np.int64) + s for t, s in zip(tables, tab_start)])
    tab_child = np.ascontiguousarray(
        np.concatenate([np.asarray(t.child, np.int32) for t in tables])
    )
    tab_assign = np.ascontiguousarray(
        np.concatenate([np.asarray(t.assign, np.int8) for t in tables])
    )
    max_rows = int(max(np.diff(np.asarray(t.offsets)).max() for t in tables))

    table = np.full(N, -1, np.int16)
    table[team_nodes] = np.searchsorted(keys, key[team_nodes])
    row0 = np.full(N, -1, np.int64)
    block = sizes[table[team_nodes]]
    row0[team_nodes] = np.concatenate([[0], np.cumsum(block)[:-1]])

    contains = np.ascontiguousarray(beliefs.contains, dtype=np.float64)
    nz = contains != 0
    cx_ptr = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(np.int64)
    cx_idx = np.nonzero(nz)[1].astype(np.int32)

    roots = np.asarray(beliefs.roots, np.int64)
    tabs = infoset_tables(tree)
    return TeamDag(
        tree=tree,
        team=team,
        seats=seats,
        beliefs=beliefs,
        num_beliefs=B,
        num_deals=R ** len(seats),
        contains=contains,
        cx_ptr=cx_ptr,
        cx_idx=cx_idx,
        roots=roots,
        member=member,
        table=table,
        row0=row0,
        num_rows=int(block.sum()),
        tab_offsets=tab_offsets,
        tab_start=tab_start,
        tab_child=tab_child,
        tab_assign=tab_assign,
        max_rows=max_rows,
        id_of=np.stack([tabs[s].id_of for s in seats]).astype(np.int32, copy=False),
        legal_first=tuple(np.argmax(tabs[s].legal, axis=1).astype(np.int8) for s in seats),
        child_pad=np.ascontiguousarray(
            np.where(tree.children[:, :3] >= 0, tree.children[:, :3], N).astype(np.int32)
        ),
        tab_child_pad=np.ascontiguousarray(np.where(tab_child >= 0, tab_child, B).astype(np.int32)),
    )


@dataclass(frozen=True, eq=False)
class DagGame:
    """Both teams' DAGs and the chance-payoff tensor ``C[z, xA, xB]`` (team A's utility) as
    its distinct matrices: ``C[z] = C_table[C_index[z]]``, bit for bit."""

    tree: PublicTree
    dags: tuple[TeamDag, TeamDag]
    C_table: np.ndarray  # (U, XA, XB) float64, each matrix once, in order of first terminal
    C_index: np.ndarray  # (Z,) int32 row of C_table of each terminal

    @property
    def config(self) -> GameConfig:
        return self.tree.config

    def weights(self, team: int, reach_other: np.ndarray) -> np.ndarray:
        """(Z, X_team) ``W`` of ``team`` against the other team's reach (Z, X_other)."""
        Z = len(self.C_index)
        T = np.ascontiguousarray(reach_other, dtype=np.float64)
        if T.shape != (Z, self.C_table.shape[2 - team]):
            raise ValueError(
                f"reach_other has shape {T.shape}, expected ({Z}, {self.C_table.shape[2 - team]})"
            )
        out = np.empty((Z, self.C_table.shape[1 + team]))
        _weights(self.C_table, self.C_index, T, team, out)
        return out

    def value(self, reach_a: np.ndarray, reach_b: np.ndarray) -> float:
        """Team A's exact expected utility for the two teams' terminal reaches."""
        return float(np.sum(self.weights(0, reach_b) * reach_a))


@functools.lru_cache(maxsize=4)
def dag_game(config: GameConfig) -> DagGame:
    """Both teams' DAGs of a two-team game (cached per configuration)."""
    if len(config.teams) != 2:
        raise ValueError(
            f"preset {config.name} has {len(config.teams)} teams; the solver "
            "needs exactly two (TMECor between team A and team B)"
        )
    tree = build_tree(config)
    a, b = (tuple(sorted(t)) for t in config.teams)
    table, index = distinct_payoffs(tree, a, b)
    return DagGame(tree, (team_dag(tree, 0), team_dag(tree, 1)), table, index)


def distinct_payoffs(tree: PublicTree, a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(C_table, C_index)``: the chance-payoff tensor ``C`` (Z, R**|a|, R**|b|) of team
    ``a``'s utility against team ``b`` as ``C[z] = C_table[C_index[z]]``, each distinct matrix
    once, in order of its first terminal. The matrices are the rows of
    :func:`teamleduc.payoffs.chance_utility` of one terminal per distinct (payoff group, pot,
    chips paid by ``a``), the same formula on the same numbers (the same bits as the whole
    ``C``), then those equal bit for bit merged. On team-leduc 1,991 matrices (1.3 MB, which stays in cache) for
    250,915 terminals; the whole ``C`` (163 MB, which every regret and weights pass streamed)
    is never built."""
    g = payoff_groups(tree, a)
    R, S = tree.config.num_ranks, tree.config.num_seats
    triple = np.stack([g.key.astype(np.float64), g.pot, g.paid], axis=1)  # exact integers
    first, index = distinct_rows(triple)
    cu = chance_utility_rows(g, first).reshape((len(first),) + (R,) * S)
    cu = cu.transpose([0] + [1 + s for s in a] + [1 + s for s in b])
    rows = np.ascontiguousarray(cu).reshape(len(first), R ** len(a), R ** len(b))
    bits = rows.reshape(len(first), -1).view(np.uint64)
    same, merged = in_order_of_first(
        *np.unique(bits, axis=0, return_index=True, return_inverse=True)[1:]
    )
    return rows[same], merged[index].astype(np.int32)


@functools.lru_cache(maxsize=8)
def team_nodes(dag: TeamDag) -> np.ndarray:
    """(n,) int32 the public nodes where a member of the team acts, ascending."""
    return np.flatnonzero(dag.member >= 0).astype(np.int32)


@functools.lru_cache(maxsize=8)
def team_index(dag: TeamDag) -> np.ndarray:
    """(N,) int32 position of each team node among the team nodes (-1 elsewhere)."""
    out = np.full(dag.tree.num_nodes, -1, np.int32)
    nodes = team_nodes(dag)
    out[nodes] = np.arange(len(nodes), dtype=np.int32)
    return out
