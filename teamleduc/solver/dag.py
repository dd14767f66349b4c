"""Both teams' belief DAGs laid out as flat arrays, and the compiled passes over them.

A team's strategy space is the team belief DAG of Zhang, Farina and Sandholm (ICML 2023),
restricted to games whose actions are all public: a DAG node is a pair (public node h,
belief b), a belief being the sets of ranks each member may still hold given what the team's
own play has revealed (see :mod:`teamleduc.belief`, whose tables this module consumes).
At a node where a team member acts, the team picks a *prescription* (one row of
``prescription_table``: an action for every rank of the acting member's set) and the belief
moves to the preimage of the action taken; at any other node (opponent, chance, terminal) the
belief is passed unchanged to every child. A team's correlated terminal reach is
``T[z, x] = sum_b F[z, b] contains[b, x]`` for the flow ``F`` of its DAG strategy, and its
value against the other team's reach ``T'`` is ``sum_z sum_x W[z, x] T[z, x]`` with
``W[z, xA] = sum_xB C[z, xA, xB] T'[z, xB]`` for team A (``-sum_xA C T'`` for team B), ``C``
being chance probability x team A's utility (:func:`teamleduc.payoffs.chance_utility`).

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

The passes are compiled with numba (``cache=True``). On large trees they run level by level,
nodes of one level in parallel (a node writes only its own row of ``V`` or its children's rows
of ``F``); small trees use serial passes in node order (children have larger ids), the max DP
level by level.

* :func:`cfr_update` - leaf values from the other team's reach, values under the current
  strategy, and the regret update with regret matching, in one bottom-up pass;
* :func:`best_values` - the exact best-response DP (max over rows) into a full ``V``;
  :func:`max_dp_levels` runs the same kernel on two level buffers (``(widest level + 1, B + 1)``
  each, the node's row given by its position in its level) and records the maximising row per
  (team node, belief) instead: the exact team best response of :mod:`teamleduc.belief`, which
  needs no full ``V``;
* :func:`flows` - flow and terminal reach of a behavioural DAG strategy, optionally adding the
  flow of every row to a cumulative (average) strategy;
* :func:`extract_pure` - a pure team strategy (one row per reached DAG node), by best
  response (from ``V`` or a recorded choice) or by a given row score, as an action per
  information set of every member.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from ..infosets import infoset_tables
from ..payoffs import chance_utility_cached
from ..tree import DECISION, PublicTree, build_tree

#: trees with at least this many nodes use the parallel (level by level) passes
PARALLEL_MIN_NODES = 20_000
#: dtype of the row arrays (regrets, strategies, cumulative strategies)
ROW_DTYPE = np.float32
_FAST = {"nsz", "arcp", "contract", "reassoc"}  # fastmath without assuming finite values


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True, eq=False)
class TeamDag:
    """One team's belief DAG on the public tree (see the module docstring for the layout)."""

    tree: PublicTree
    team: int
    seats: tuple[int, ...]
    beliefs: object
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
        best response of :mod:`teamleduc.belief` values every belief and never needs it)."""
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
    parallel: bool
    ident: np.ndarray  # (N + 1,) int32 0..N: rows of the nodes in a full (N + 1, .) array
    pos: np.ndarray  # (N + 1,) int32 position of each node in its level; N -> ``width``
    width: int  # nodes in the widest level


@functools.lru_cache(maxsize=4)
def sweep(tree: PublicTree) -> Sweep:
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


def team_dag(tree: PublicTree, team: int) -> TeamDag:
    """The belief DAG of team ``team`` (index into ``config.teams``), cached per tree."""
    return _team_dag(tree, tuple(sorted(tree.config.teams[team])), team)


def seats_dag(tree: PublicTree, seats) -> TeamDag:
    """The belief DAG of any one or two seats (``team`` = their index in ``config.teams``, or
    -1 if they are not a team of the game), cached per tree."""
    seats = tuple(sorted(int(s) for s in seats))
    teams = [tuple(sorted(t)) for t in tree.config.teams]
    return _team_dag(tree, seats, teams.index(seats) if seats in teams else -1)


@functools.lru_cache(maxsize=8)
def _team_dag(tree: PublicTree, seats: tuple[int, ...], team: int) -> TeamDag:
    from .. import belief

    config = tree.config
    if len(seats) > 2:
        raise ValueError(f"teams of more than two seats are not supported ({seats})")
    beliefs = belief.team_beliefs(tree, seats)
    B = int(beliefs.num_beliefs)
    R = config.num_ranks
    N = tree.num_nodes

    member = np.full(N, -1, np.int8)
    team_nodes = np.flatnonzero((tree.kind == DECISION) & np.isin(tree.actor, seats))
    member[team_nodes] = np.searchsorted(np.array(seats), tree.actor[team_nodes])

    # one table per (member, legal pattern)
    code = belief.legal_code(tree.legal)
    key = member.astype(np.int64) * 8 + code
    keys = np.unique(key[team_nodes])
    tables = []
    for k in keys.tolist():
        m, c = divmod(k, 8)
        tables.append(
            belief.prescription_table(beliefs, m, (bool(c & 1), bool(c & 2), bool(c & 4)))
        )
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
    """Both teams' DAGs and the chance-payoff tensor ``C[z, xA, xB]`` (team A's utility)."""

    tree: PublicTree
    dags: tuple[TeamDag, TeamDag]
    C: np.ndarray  # (Z, XA, XB) float64

    @property
    def config(self):
        return self.tree.config

    def weights(self, team: int, reach_other: np.ndarray) -> np.ndarray:
        """(Z, X_team) ``W`` of ``team`` against the other team's reach (Z, X_other)."""
        out = np.empty((self.C.shape[0], self.C.shape[1 + team]))
        _weights(self.C, np.ascontiguousarray(reach_other, dtype=np.float64), team, out)
        return out

    def value(self, reach_a: np.ndarray, reach_b: np.ndarray) -> float:
        """Team A's exact expected utility for the two teams' terminal reaches."""
        return float(np.sum(self.weights(0, reach_b) * reach_a))


@functools.lru_cache(maxsize=4)
def dag_game(config) -> DagGame:
    """Both teams' DAGs of a two-team game (cached per configuration)."""
    if len(config.teams) != 2:
        raise ValueError(
            f"preset {config.name} has {len(config.teams)} teams; the solver "
            "needs exactly two (TMECor between team A and team B)"
        )
    tree = build_tree(config)
    a, b = (tuple(sorted(t)) for t in config.teams)
    R, S = config.num_ranks, config.num_seats
    Z = len(tree.terminals)
    cu = chance_utility_cached(tree, a).reshape((Z,) + (R,) * S)
    C = np.ascontiguousarray(cu.transpose([0] + [1 + s for s in a] + [1 + s for s in b]))
    return DagGame(
        tree, (team_dag(tree, 0), team_dag(tree, 1)), C.reshape(Z, R ** len(a), R ** len(b))
    )


def _scratch(dag: TeamDag) -> tuple[np.ndarray, np.ndarray]:
    n = numba.get_num_threads()
    return np.empty((n, max(dag.max_rows, 1))), np.empty((n, max(dag.num_deals, 1)))


# --------------------------------------------------------------------------- kernels


@njit(cache=True, inline="always")
def _u(i):
    """``i`` as an unsigned index (the caller knows it is >= 0): numba skips the wraparound
    check of negative indices, which measured a third of the time of the inner loops."""
    return np.uint64(i)


@njit(cache=True)
def _uniform_rows(member, table, row0, tab_offsets, tab_start, sigma):
    B = tab_offsets.shape[1] - 1
    for h in range(member.shape[0]):
        if member[h] < 0:
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            lo = tab_offsets[t, b]
            hi = tab_offsets[t, b + 1]
            for r in range(lo, hi):
                sigma[base + r] = 1.0 / (hi - lo)


@njit(cache=True, parallel=True)
def _weights(C, T, team, out):
    Z, XA, XB = C.shape
    for z in prange(Z):
        if team == 0:
            for a in range(XA):
                s = 0.0
                for b in range(XB):
                    s += C[z, a, b] * T[z, b]
                out[z, a] = s
        else:
            for b in range(XB):
                out[z, b] = 0.0
            for a in range(XA):
                t = T[z, a]
                if t != 0.0:
                    for b in range(XB):
                        out[z, b] -= C[z, a, b] * t


@njit(cache=True, inline="always")
def _leaf(h, z, team, C, T, cx_ptr, cx_idx, V, w, B):
    """V[h, b] = sum_{x in b} W[z, x], W from the other team's reach T."""
    XA = C.shape[1]
    XB = C.shape[2]
    if team == 0:
        for a in range(XA):
            s = 0.0
            for b in range(XB):
                s += C[z, a, b] * T[z, b]
            w[a] = s
    else:
        for b in range(XB):
            w[b] = 0.0
        for a in range(XA):
            t = T[z, a]
            if t != 0.0:
                for b in range(XB):
                    w[b] -= C[z, a, b] * t
    _belief_sums(w, cx_ptr, cx_idx, V, h, B)


@njit(cache=True, inline="always")
def _belief_sums(w, cx_ptr, cx_idx, V, row, B):
    """V[row, b] = sum_{x in b} w[x]: leaf values from the team's weights w (X,)."""
    Vr = V[_u(row)]
    for bel in range(B):
        s = 0.0
        for k in range(_u(cx_ptr[bel]), _u(cx_ptr[bel + 1])):
            s += w[_u(cx_idx[k])]
        Vr[bel] = s


@njit(cache=True, inline="always")
def _sum_children(h, children, V, B):
    Vh = V[_u(h)]
    for b in range(B):
        Vh[b] = 0.0
    for a in range(children.shape[1]):
        c = children[h, a]
        if c >= 0:
            Vc = V[_u(c)]
            for b in range(B):
                Vh[b] += Vc[b]


@njit(cache=True, inline="always", fastmath=_FAST)
def _cfr_node(
    h,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    term_index,
    team,
    C,
    T,
    cx_ptr,
    cx_idx,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    w,
    B,
):
    if kind[h] == 2:
        _leaf(h, term_index[h], team, C, T, cx_ptr, cx_idx, V, w, B)
        return
    t = table[h]
    # unsigned indices throughout: numba checks every signed index for wraparound, which
    # cost a third of this loop (team-leduc: 0.20 s against 0.13 s per team pass)
    V0 = V[_u(children[h, 0])]  # padded: the dummy node N (all-zero values) if missing
    V1 = V[_u(children[h, 1])]
    V2 = V[_u(children[h, 2])]
    Vh = V[_u(h)]
    ph = possible[_u(h)]
    for b in range(B):
        if not ph[b]:
            Vh[b] = 0.0
            continue
        lo = _u(tab_offsets[t, b])
        n = _u(tab_offsets[t, b + 1]) - lo
        first = _u(row0[h] + tab_offsets[t, b] - tab_start[t])
        ev = 0.0
        for j in range(n):
            r = lo + j
            # padded: the dummy belief B (value 0) where no rank plays the action
            u = V0[_u(tab_child[r, 0])] + V1[_u(tab_child[r, 1])] + V2[_u(tab_child[r, 2])]
            util[j] = u
            ev += sigma[first + j] * u
        Vh[b] = ev
        total = 0.0
        for j in range(n):
            i = first + j
            inst = util[j] - ev
            x = reg[i] + inst
            x = x * (pos_f if x > 0.0 else neg_f)
            reg[i] = x
            if predictive:
                last[i] = inst
                x += inst
            q = max(x, 0.0)
            util[j] = q
            total += q
        if total > 0.0:
            inv = 1.0 / total
            for j in range(n):
                sigma[first + j] = util[j] * inv
        else:
            inv = 1.0 / n
            for j in range(n):
                sigma[first + j] = inv


@njit(cache=True, parallel=True)
def _cfr_par(
    order,
    bounds,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    term_index,
    team,
    C,
    T,
    cx_ptr,
    cx_idx,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    w,
    B,
    child_all,
):
    for lev in range(bounds.shape[0] - 2, -1, -1):
        for i in prange(bounds[lev], bounds[lev + 1]):
            th = numba.get_thread_id()
            h = order[i]
            if member[h] < 0 and kind[h] != 2:
                _sum_children(h, child_all, V, B)
            else:
                _cfr_node(
                    h,
                    kind,
                    children,
                    member,
                    table,
                    row0,
                    tab_offsets,
                    tab_start,
                    tab_child,
                    possible,
                    term_index,
                    team,
                    C,
                    T,
                    cx_ptr,
                    cx_idx,
                    V,
                    reg,
                    sigma,
                    last,
                    pos_f,
                    neg_f,
                    predictive,
                    util[th],
                    w[th],
                    B,
                )


@njit(cache=True)
def _cfr_ser(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    term_index,
    team,
    C,
    T,
    cx_ptr,
    cx_idx,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    w,
    B,
    child_all,
):
    for h in range(kind.shape[0] - 1, -1, -1):
        if member[h] < 0 and kind[h] != 2:
            _sum_children(h, child_all, V, B)
        else:
            _cfr_node(
                h,
                kind,
                children,
                member,
                table,
                row0,
                tab_offsets,
                tab_start,
                tab_child,
                possible,
                term_index,
                team,
                C,
                T,
                cx_ptr,
                cx_idx,
                V,
                reg,
                sigma,
                last,
                pos_f,
                neg_f,
                predictive,
                util[0],
                w[0],
                B,
            )


@njit(cache=True, inline="always")
def _max_node(
    h,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Vin,
    Vout,
    choice,
    team_index,
    B,
    child_all,
):
    """One node of the max DP: children's values are read from ``Vin[slot[c]]``, the node's
    written to ``Vout[slot[h]]`` (both the full (N + 1, B + 1) array, or two level buffers).
    ``prune`` leaves 0 where the belief is not ``possible``; a non-empty ``choice`` records
    the maximising table row at team nodes."""
    row = slot[h]
    if kind[h] == 2:
        _belief_sums(W[term_index[h]], cx_ptr, cx_idx, Vout, row, B)
        return
    if member[h] < 0:
        for b in range(B):
            Vout[row, b] = 0.0
        for a in range(child_all.shape[1]):
            c = child_all[h, a]
            if c >= 0:
                rc = slot[c]
                for b in range(B):
                    Vout[row, b] += Vin[rc, b]
        return
    t = table[h]
    V0 = Vin[_u(slot[children[h, 0]])]  # padded: the dummy node N (zero values) if missing
    V1 = Vin[_u(slot[children[h, 1]])]
    V2 = Vin[_u(slot[children[h, 2]])]
    Vh = Vout[_u(row)]
    record = choice.shape[0] > 0
    d = team_index[h] if record else 0
    for b in range(B):
        if prune and not possible[h, b]:
            Vh[b] = 0.0
            continue
        best = -np.inf
        arg = -1
        for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
            ru = _u(r)
            u = V0[_u(tab_child[ru, 0])] + V1[_u(tab_child[ru, 1])] + V2[_u(tab_child[ru, 2])]
            if u > best:
                best = u
                arg = r
        Vh[b] = best
        if record:
            choice[d, b] = arg


@njit(cache=True, parallel=True)
def _max_par(
    order,
    bounds,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Va,
    Vb,
    choice,
    team_index,
    B,
    child_all,
):
    """Level by level from the leaves, nodes of a level in parallel; even levels write ``Va``
    and read ``Vb``, odd levels the reverse (pass the same array twice for a full ``V``)."""
    for lev in range(bounds.shape[0] - 2, -1, -1):
        Vout, Vin = (Va, Vb) if lev % 2 == 0 else (Vb, Va)
        for i in prange(bounds[lev], bounds[lev + 1]):
            _max_node(
                order[i],
                kind,
                children,
                member,
                table,
                tab_offsets,
                tab_child,
                possible,
                prune,
                term_index,
                W,
                cx_ptr,
                cx_idx,
                slot,
                Vin,
                Vout,
                choice,
                team_index,
                B,
                child_all,
            )


@njit(cache=True)
def _max_ser(
    order,
    bounds,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Va,
    Vb,
    choice,
    team_index,
    B,
    child_all,
):
    """:func:`_max_par` without threads, for small trees."""
    for lev in range(bounds.shape[0] - 2, -1, -1):
        Vout, Vin = (Va, Vb) if lev % 2 == 0 else (Vb, Va)
        for i in range(bounds[lev], bounds[lev + 1]):
            _max_node(
                order[i],
                kind,
                children,
                member,
                table,
                tab_offsets,
                tab_child,
                possible,
                prune,
                term_index,
                W,
                cx_ptr,
                cx_idx,
                slot,
                Vin,
                Vout,
                choice,
                team_index,
                B,
                child_all,
            )


@njit(cache=True, inline="always", fastmath=_FAST)
def _flow_node(
    h,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    term_index,
    cx_ptr,
    cx_idx,
    sigma,
    F,
    Tout,
    cum,
    wt,
    accumulate,
    B,
    child_all,
):
    if kind[h] == 2:
        z = term_index[h]
        for x in range(Tout.shape[1]):
            Tout[z, x] = 0.0
        for b in range(B):
            f = F[h, b]
            if f != 0.0:
                for k in range(cx_ptr[b], cx_ptr[b + 1]):
                    Tout[z, cx_idx[k]] += f
        return
    if member[h] < 0:
        for a in range(child_all.shape[1]):
            c = child_all[h, a]
            if c >= 0:
                for b in range(B):
                    F[c, b] = F[h, b]
        return
    t = table[h]
    F0 = F[_u(children[h, 0])]  # padded: writes to the dummy row/column are never read
    F1 = F[_u(children[h, 1])]
    F2 = F[_u(children[h, 2])]
    Fh = F[_u(h)]
    for b in range(B):
        F0[b] = 0.0
        F1[b] = 0.0
        F2[b] = 0.0
    for b in range(B):
        f = Fh[b]
        if f == 0.0:
            continue
        lo = _u(tab_offsets[t, b])
        n = _u(tab_offsets[t, b + 1]) - lo
        first = _u(row0[h] + tab_offsets[t, b] - tab_start[t])
        for j in range(n):
            e = f * sigma[first + j]
            if e == 0.0:
                continue
            if accumulate:
                cum[first + j] += wt * e
            r = lo + j
            F0[_u(tab_child[r, 0])] += e
            F1[_u(tab_child[r, 1])] += e
            F2[_u(tab_child[r, 2])] += e


@njit(cache=True, parallel=True)
def _flows_par(
    order,
    bounds,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    term_index,
    cx_ptr,
    cx_idx,
    sigma,
    F,
    Tout,
    cum,
    wt,
    accumulate,
    B,
    child_all,
):
    for lev in range(bounds.shape[0] - 1):
        for i in prange(bounds[lev], bounds[lev + 1]):
            _flow_node(
                order[i],
                kind,
                children,
                member,
                table,
                row0,
                tab_offsets,
                tab_start,
                tab_child,
                term_index,
                cx_ptr,
                cx_idx,
                sigma,
                F,
                Tout,
                cum,
                wt,
                accumulate,
                B,
                child_all,
            )


@njit(cache=True)
def _flows_ser(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    term_index,
    cx_ptr,
    cx_idx,
    sigma,
    F,
    Tout,
    cum,
    wt,
    accumulate,
    B,
    child_all,
):
    for h in range(kind.shape[0]):
        _flow_node(
            h,
            kind,
            children,
            member,
            table,
            row0,
            tab_offsets,
            tab_start,
            tab_child,
            term_index,
            cx_ptr,
            cx_idx,
            sigma,
            F,
            Tout,
            cum,
            wt,
            accumulate,
            B,
            child_all,
        )


@njit(cache=True, parallel=True)
def _normalize(nodes, table, row0, tab_offsets, tab_start, cum, out):
    B = tab_offsets.shape[1] - 1
    for i in prange(nodes.shape[0]):
        h = nodes[i]
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            lo = tab_offsets[t, b]
            hi = tab_offsets[t, b + 1]
            s = 0.0
            for r in range(lo, hi):
                s += cum[base + r]
            if s > 0.0:
                for r in range(lo, hi):
                    out[base + r] = cum[base + r] / s
            else:
                for r in range(lo, hi):
                    out[base + r] = 1.0 / (hi - lo)


@njit(cache=True, inline="always")
def _root_reach(N, B, roots):
    """(N, B) bool with only the root beliefs at the root node marked."""
    reached = np.zeros((N, B), np.bool_)
    for b in roots:
        reached[0, b] = True
    return reached


@njit(cache=True, inline="always")
def _pass_down(h, children, reached, B):
    """At a node where the team does not act, every child keeps the node's beliefs."""
    for a in range(children.shape[1]):
        c = children[h, a]
        if c >= 0:
            for b in range(B):
                reached[c, b] = reached[h, b]


@njit(cache=True, inline="always")
def _reach_row(h, r, children, tab_child, reached):
    """Mark the (child, belief) pairs that table row ``r`` leads to from team node ``h``."""
    for a in range(3):
        cb = tab_child[r, a]
        if cb >= 0:
            reached[children[h, a], cb] = True


@njit(cache=True)
def _reachable(kind, children, member, table, tab_offsets, tab_child, roots, B):
    """(N, B) bool: the (node, belief) pairs some strategy of the team reaches (children
    have larger ids than their parent)."""
    N = kind.shape[0]
    out = _root_reach(N, B, roots)
    for h in range(N):
        if kind[h] == 2:
            continue
        if member[h] < 0:
            _pass_down(h, children, out, B)
            continue
        t = table[h]
        for b in range(B):
            if out[h, b]:
                for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                    _reach_row(h, r, children, tab_child, out)
    return out


#: how :func:`_extract` picks a row: best value in V, largest score, or a recorded choice
_BY_VALUES, _BY_SCORE, _BY_CHOICE = 0, 1, 2


@njit(cache=True)
def _extract(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    tab_assign,
    id_of,
    roots,
    V,
    score,
    choice,
    team_index,
    mode,
    actions0,
    actions1,
    chosen,
):
    """Walk down from the roots choosing one row per reached (node, belief): the row with the
    best continuation value in ``V``, the largest ``score``, or the row ``choice`` recorded by
    the max DP (``mode``). Writes the members' actions and the chosen row indices; returns how
    many rows were chosen."""
    N, B = kind.shape[0], tab_offsets.shape[1] - 1
    R = tab_assign.shape[1]
    reached = _root_reach(N, B, roots)
    n = 0
    for h in range(N):
        if kind[h] == 2:
            continue
        if member[h] < 0:
            _pass_down(h, children, reached, B)
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        m = member[h]
        for b in range(B):
            if not reached[h, b]:
                continue
            arg = tab_offsets[t, b]
            if mode == _BY_CHOICE:
                arg = choice[team_index[h], b]
            else:
                best = -np.inf
                for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                    if mode == _BY_VALUES:
                        u = 0.0
                        for a in range(3):
                            cb = tab_child[r, a]
                            if cb >= 0:
                                u += V[children[h, a], cb]
                    else:
                        u = score[base + r]
                    if u > best:
                        best = u
                        arg = r
            chosen[n] = base + arg
            n += 1
            for x in range(R):
                act = tab_assign[arg, x]
                if act >= 0:
                    i = id_of[m, h, x]
                    if m == 0:
                        actions0[i] = act
                    else:
                        actions1[i] = act
            _reach_row(h, arg, children, tab_child, reached)
    return n


@njit(cache=True)
def _pure_seat_reach(parent, action, actor, kind, id_of, seat, acts, out):
    N, R = out.shape
    for x in range(R):
        out[0, x] = 1
    for h in range(1, N):
        p = parent[h]
        if kind[p] == 0 and actor[p] == seat:
            a = action[h]
            for x in range(R):
                out[h, x] = out[p, x] if acts[id_of[p, x]] == a else 0
        else:
            for x in range(R):
                out[h, x] = out[p, x]


# --------------------------------------------------------------------------- Python API

_EMPTY_F4 = np.zeros(0, ROW_DTYPE)


def _check_rows(dag: TeamDag, *arrays) -> None:
    for a in arrays:
        if a.dtype != ROW_DTYPE or a.shape != (dag.num_rows,):
            raise ValueError(
                f"row array must be {np.dtype(ROW_DTYPE).name} of shape "
                f"({dag.num_rows},), got {a.dtype} {a.shape}"
            )


def _check_values(dag: TeamDag, V: np.ndarray) -> None:
    if V.shape != (dag.tree.num_nodes + 1, dag.num_beliefs + 1) or V.dtype != np.float64:
        raise ValueError(
            f"values/flows must be float64 of shape (N + 1, B + 1) = "
            f"{(dag.tree.num_nodes + 1, dag.num_beliefs + 1)} (TeamDag.new_values()), "
            f"got {V.dtype} {V.shape}"
        )


def cfr_update(
    game: DagGame,
    team: int,
    reach_other: np.ndarray,
    V: np.ndarray,
    reg,
    sigma,
    last,
    pos_f: float,
    neg_f: float,
    predictive: bool,
) -> float:
    """One regret update of ``team`` against the other team's terminal reach; returns the
    value of the current strategy (before the update). ``last`` may be empty unless
    ``predictive``."""
    dag = game.dags[team]
    tree = dag.tree
    _check_rows(dag, reg, sigma)
    if predictive:
        _check_rows(dag, last)
    sw = sweep(tree)
    util, w = _scratch(dag)
    T = np.ascontiguousarray(reach_other, dtype=np.float64)
    _check_values(dag, V)
    args = (
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child_pad,
        dag.possible,
        sw.term_index,
        team,
        game.C,
        T,
        dag.cx_ptr,
        dag.cx_idx,
        V,
        reg,
        sigma,
        last if predictive else _EMPTY_F4,
        float(pos_f),
        float(neg_f),
        bool(predictive),
        util,
        w,
        dag.num_beliefs,
        tree.children,
    )
    if sw.parallel:
        _cfr_par(sw.order, sw.bounds, *args)
    else:
        _cfr_ser(*args)
    return dag.root_value(V)


@functools.lru_cache(maxsize=8)
def _team_nodes(dag: TeamDag) -> np.ndarray:
    return np.flatnonzero(dag.member >= 0).astype(np.int32)


@functools.lru_cache(maxsize=8)
def _team_index(dag: TeamDag) -> np.ndarray:
    """(N,) int32 position of each team node among the team nodes (-1 elsewhere)."""
    out = np.full(dag.tree.num_nodes, -1, np.int32)
    nodes = _team_nodes(dag)
    out[nodes] = np.arange(len(nodes), dtype=np.int32)
    return out


_NO_CHOICE = np.zeros((0, 0), np.int32)
_NO_POSSIBLE = np.zeros((0, 0), np.bool_)


def _max_dp(
    dag: TeamDag,
    W: np.ndarray,
    slot: np.ndarray,
    Va: np.ndarray,
    Vb: np.ndarray,
    prune: bool,
    choice: np.ndarray,
    parallel: bool,
) -> None:
    """Run the max DP kernel against the weights W (Z, X)."""
    tree = dag.tree
    sw = sweep(tree)
    W = np.ascontiguousarray(W, dtype=np.float64)
    if W.shape != (len(tree.terminals), dag.num_deals):
        raise ValueError(
            f"W has shape {W.shape}, expected ({len(tree.terminals)}, {dag.num_deals})"
        )
    kernel = _max_par if parallel else _max_ser
    kernel(
        sw.order,
        sw.bounds,
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.tab_offsets,
        dag.tab_child_pad,
        dag.possible if prune else _NO_POSSIBLE,
        bool(prune),
        sw.term_index,
        W,
        dag.cx_ptr,
        dag.cx_idx,
        slot,
        Va,
        Vb,
        choice,
        _team_index(dag),
        dag.num_beliefs,
        tree.children,
    )


def best_values(game: DagGame, team: int, reach_other: np.ndarray, V: np.ndarray) -> float:
    """Fill ``V`` with the exact best-response DP of ``team`` against the other team's
    terminal reach; returns the best-response value. Beliefs the team cannot reach keep 0."""
    dag = game.dags[team]
    _check_values(dag, V)
    sw = sweep(dag.tree)
    _max_dp(dag, game.weights(team, reach_other), sw.ident, V, V, True, _NO_CHOICE, sw.parallel)
    return dag.root_value(V)


def max_dp_levels(
    dag: TeamDag, W: np.ndarray, parallel: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The max DP against the team's weights W (Z, X) keeping only two levels of values:
    ``(root_values (B,), choice)``, ``choice`` (team nodes, B) int32 the maximising table row
    of every (team node, belief) for :func:`extract_pure`. Every belief is valued (no
    pruning), so ``root_values[b]`` is the best value from belief b.

    Serial by default: one best response is a single short pass, for which threads measured
    no faster on team-leduc (2 CPUs) and loading the threaded kernel costs cold time."""
    sw = sweep(dag.tree)
    shape = (sw.width + 1, dag.num_beliefs + 1)  # last row and column: zero dummies
    Va, Vb = np.zeros(shape), np.zeros(shape)
    choice = np.full((len(_team_nodes(dag)), dag.num_beliefs), -1, np.int32)
    _max_dp(dag, W, sw.pos, Va, Vb, False, choice, parallel)
    return Va[sw.pos[0], : dag.num_beliefs].copy(), choice


def flows(
    dag: TeamDag,
    sigma: np.ndarray,
    F: np.ndarray,
    cum: np.ndarray | None = None,
    weight: float = 0.0,
) -> np.ndarray:
    """Fill ``F`` (N, B) with the flow of the behavioural DAG strategy ``sigma``; with ``cum``
    add ``weight`` x (flow of every row) to it. Returns the terminal reach (Z, X) float64."""
    tree = dag.tree
    _check_rows(dag, sigma)
    acc = cum is not None
    if acc:
        _check_rows(dag, cum)
    _check_values(dag, F)
    F[0, :] = 0.0
    F[0, dag.roots] = 1.0
    sw = sweep(tree)
    Tout = np.zeros((len(tree.terminals), dag.num_deals))
    args = (
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child_pad,
        sw.term_index,
        dag.cx_ptr,
        dag.cx_idx,
        sigma,
        F,
        Tout,
        cum if acc else _EMPTY_F4,
        float(weight),
        acc,
        dag.num_beliefs,
        tree.children,
    )
    if sw.parallel:
        _flows_par(sw.order, sw.bounds, *args)
    else:
        _flows_ser(*args)
    return Tout


def normalize(dag: TeamDag, cum: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Behavioural strategy from cumulative row weights (uniform where they are all zero)."""
    out = np.empty(dag.num_rows, ROW_DTYPE) if out is None else out
    _normalize(_team_nodes(dag), dag.table, dag.row0, dag.tab_offsets, dag.tab_start, cum, out)
    return out


@dataclass(frozen=True, eq=False)
class PureTeamStrategy:
    """A pure joint strategy of one team: an action per information set of every member.

    ``actions[k]`` is (n_seat,) int8 for ``seats[k]``; information sets the strategy never
    reaches play their first legal action. ``rows`` are the DAG rows it uses."""

    seats: tuple[int, ...]
    actions: tuple[np.ndarray, ...]
    rows: np.ndarray

    def key(self) -> bytes:
        return b"".join(a.tobytes() for a in self.actions)

    def strategies(self) -> dict[int, np.ndarray]:
        """{seat: (n, 3) point masses}."""
        out = {}
        for s, a in zip(self.seats, self.actions):
            p = np.zeros((a.shape[0], 3))
            p[np.arange(a.shape[0]), a] = 1.0
            out[s] = p
        return out


_EMPTY_F8 = np.zeros(0)


def extract_pure(
    dag: TeamDag,
    V: np.ndarray | None = None,
    score: np.ndarray | None = None,
    choice: np.ndarray | None = None,
) -> PureTeamStrategy:
    """The pure team strategy picking, at every DAG node it reaches, the row with the best
    continuation value in ``V`` (as filled by :func:`best_values`), the largest ``score``, or
    the row recorded in ``choice`` (from :func:`max_dp_levels`)."""
    tree = dag.tree
    if choice is not None:
        mode = _BY_CHOICE
        if choice.dtype != np.int32 or choice.shape != (len(_team_nodes(dag)), dag.num_beliefs):
            raise ValueError(
                f"choice must be int32 of shape (team nodes, B) = "
                f"{(len(_team_nodes(dag)), dag.num_beliefs)}, got {choice.dtype} {choice.shape}"
            )
    elif score is not None:
        mode = _BY_SCORE
    elif V is not None:
        mode = _BY_VALUES
    else:
        raise ValueError("give V (best-response values), a row score or a recorded choice")
    Vw = V if mode == _BY_VALUES else np.zeros((tree.num_nodes + 1, 1))
    tabs = infoset_tables(tree)
    acts = [np.full(tabs[s].size, -1, np.int8) for s in dag.seats]
    a1 = acts[1] if len(acts) > 1 else np.zeros(0, np.int8)
    chosen = np.empty(tree.num_nodes * len(dag.roots), np.int64)
    n = _extract(
        tree.kind,
        tree.children,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child,
        dag.tab_assign,
        dag.id_of,
        dag.roots,
        Vw,
        _EMPTY_F8 if mode != _BY_SCORE else np.asarray(score),
        _NO_CHOICE if mode != _BY_CHOICE else choice,
        _team_index(dag),
        mode,
        acts[0],
        a1,
        chosen,
    )
    for k, a in enumerate(acts):
        unset = a < 0
        a[unset] = dag.legal_first[k][unset]
    return PureTeamStrategy(dag.seats, tuple(acts), chosen[:n].copy())


def best_response_pure(
    game: DagGame, team: int, reach_other: np.ndarray, V: np.ndarray
) -> tuple[float, PureTeamStrategy]:
    """Exact team best response to the other team's reach: its value and a pure joint
    strategy (``V`` is scratch of shape (N, B))."""
    value = best_values(game, team, reach_other, V)
    return value, extract_pure(game.dags[team], V=V)


def pure_reach(dag: TeamDag, pure: PureTeamStrategy) -> np.ndarray:
    """(Z, X) uint8 terminal reach (0 or 1) of a pure team strategy."""
    tree = dag.tree
    R = tree.config.num_ranks
    Z = len(tree.terminals)
    out = np.ones((Z,) + (1,) * dag.num_members, np.uint8)
    for k, (s, acts) in enumerate(zip(pure.seats, pure.actions)):
        r = np.empty((tree.num_nodes, R), np.uint8)
        _pure_seat_reach(tree.parent, tree.action, tree.actor, tree.kind, dag.id_of[k], s, acts, r)
        shape = [Z] + [1] * dag.num_members
        shape[1 + k] = R
        out = out * r[tree.terminals].reshape(shape)
    return np.ascontiguousarray(out.reshape(Z, -1))


def product_reach(dag: TeamDag, strategies: dict) -> np.ndarray:
    """(Z, X) float64 terminal reach of a product of the members' behavioural strategies."""
    from ..reach import seat_reach

    tree = dag.tree
    tabs = infoset_tables(tree)
    Z = len(tree.terminals)
    out = np.ones((Z,) + (1,) * dag.num_members)
    for k, s in enumerate(dag.seats):
        r = seat_reach(tree, tabs[s], strategies[s])[tree.terminals]
        shape = [Z] + [1] * dag.num_members
        shape[1 + k] = tree.config.num_ranks
        out = out * r.reshape(shape)
    return np.ascontiguousarray(out.reshape(Z, -1))


def _warmup() -> None:
    """Compile the kernels (serial and parallel) on a tiny game."""
    from ..config import get_config

    game = dag_game(get_config("tiny-team"))
    for parallel in (False, True):
        object.__setattr__(sweep(game.tree), "parallel", parallel)
        try:
            for k, d in enumerate(game.dags):
                reg = np.zeros(d.num_rows, ROW_DTYPE)
                sigma = d.uniform_sigma()
                V = d.new_values()
                F = d.new_values()
                other = game.dags[1 - k]
                T = flows(other, other.uniform_sigma(), other.new_values())
                cfr_update(game, k, T, V, reg, sigma, reg.copy(), 1.0, 0.0, True)
                flows(d, sigma, F, reg.copy(), 1.0)
                best_response_pure(game, k, T, V)
                normalize(d, sigma)
        finally:
            object.__setattr__(
                sweep(game.tree), "parallel", game.tree.num_nodes >= PARALLEL_MIN_NODES
            )


@njit(cache=True, parallel=True)
def _marginals(
    kind, member, table, row0, tab_offsets, tab_start, tab_assign, id_of, sigma, F, num0, num1
):
    N, B = kind.shape[0], tab_offsets.shape[1] - 1
    R = tab_assign.shape[1]
    for h in prange(N):  # a node writes only its own information sets
        m = member[h]
        if m < 0:
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            f = F[h, b]
            if f == 0.0:
                continue
            for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                e = f * sigma[base + r]
                if e == 0.0:
                    continue
                for x in range(R):
                    a = tab_assign[r, x]
                    if a >= 0:
                        i = id_of[m, h, x]
                        if m == 0:
                            num0[i, a] += e
                        else:
                            num1[i, a] += e


def marginals(dag: TeamDag, sigma: np.ndarray, F: np.ndarray) -> dict[int, np.ndarray]:
    """Each member's behavioural marginal of the DAG strategy ``sigma`` (flow ``F`` filled by
    :func:`flows` for the same ``sigma``): ``{seat: (n, 3)}``, uniform over the legal actions
    where the strategy never reaches. For a team of one this is exactly the strategy; for two
    members the product of the marginals forgets the correlation."""
    tabs = infoset_tables(dag.tree)
    nums = [np.zeros((tabs[s].size, 3)) for s in dag.seats]
    n1 = nums[1] if len(nums) > 1 else np.zeros((0, 3))
    _marginals(
        dag.tree.kind,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_assign,
        dag.id_of,
        sigma,
        F,
        nums[0],
        n1,
    )
    out = {}
    for s, num in zip(dag.seats, nums):
        den = num.sum(axis=1, keepdims=True)
        uniform = tabs[s].uniform_strategy()
        out[s] = np.where(den > 0, num / np.where(den > 0, den, 1.0), uniform)
    return out
