"""Exact equilibrium of a two-player zero-sum preset by the sequence-form linear programme.

Method (Koller, Megiddo and von Stengel, 1994; von Stengel, 1996). A seat's *sequences* are the
empty sequence and every (information set, legal action); a *realisation plan* ``x`` gives each
sequence the product of the seat's own probabilities along it, so ``E x = e`` (the empty
sequence has 1; at each information set the plan of its parent sequence splits over its
actions) and ``x >= 0``. Seat 1's expected utility is bilinear, ``x^T A y``, with

    A[s1, s2] = sum over terminals z and deals d whose last sequences are (s1, s2)
                of P(deal, community of z) * u_1(z, deal)

(:func:`teamleduc.payoffs.chance_utility`). Seat 1's max-min plan solves the LP

    max_{x, q}  e2^T q    s.t.   F^T q <= A^T x,   E x = e,   x >= 0

(``F y = f`` are seat 2's constraints, ``q`` free), whose optimum is the game value; seat 2's
plan solves the same LP with the roles swapped (utility ``-A^T``). Both are solved by HiGHS
(:func:`scipy.optimize.linprog`) on sparse matrices, and the plans become behavioural
strategies ``p(a | I) = x[I, a] / x[parent(I)]`` (uniform where the plan puts no mass). The
result's exact NashConv is then measured independently by
:func:`teamleduc.best_response.nash_conv`; it is zero up to HiGHS's tolerances (about 1e-9).

Where it applies: two seats, teams of one, and a payoff matrix that fits in memory: its
non-zeros are at most terminals x deals (kuhn-100: 5 x 10^4; leduc-stack50: 4.1 x 10^4).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..config import GameConfig, require_config
from ..errors import TeamLeducError
from ..infosets import InfosetTable, infoset_tables
from ..payoffs import chance_utility
from ..tree import DECISION, PublicTree, build_tree

__all__ = ["SequenceFormSolution", "solve_sequence_form", "MAX_SEQUENCES"]

#: a seat with more sequences than this is not solved by the LP (team-leduc is not 2-player
#: anyway; this guards user-made presets)
MAX_SEQUENCES = 2_000_000


@dataclass(frozen=True, eq=False)
class SequenceFormSolution:
    """An exact equilibrium of a two-player zero-sum game.

    value : seat 1's game value (chips per hand), the LP optimum.
    strategies : {seat: (n_seat, 3)} behavioural strategies (columns c, r, f).
    sequences : number of sequences per seat (empty sequence included).
    seconds : building and solving both LPs.
    """

    config: GameConfig
    value: float
    strategies: dict
    sequences: tuple[int, int]
    seconds: float

    def submission(self):
        """Both seats as a one-signal full submission."""
        from ..files.model import Submission

        return Submission(
            signals=np.zeros(1, np.int64),
            probs=np.ones(1),
            seats=(0, 1),
            strategies={s: a[None] for s, a in self.strategies.items()},
        )


@dataclass(frozen=True, eq=False)
class _Sequences:
    """Sequence numbering of one seat over its (possibly abstracted) information sets.

    An abstract information set is (decision node of the seat, bucket of its rank): with the
    identity bucketing these are the game's information sets, in the same order. ``legal``
    (n, 3) its legal actions; ``index[i, a]`` the sequence of (set i, action a) (-1 if
    illegal); ``parent[i]`` the sequence leading to set i; ``last[node, rank]`` the seat's last
    sequence on the way to ``node`` holding ``rank``; ``of_row[k]`` the abstract set of the
    game's information set k. Sequence 0 is the empty sequence."""

    count: int
    legal: np.ndarray
    index: np.ndarray
    parent: np.ndarray
    last: np.ndarray
    of_row: np.ndarray


def _sequences(tree: PublicTree, table: InfosetTable, bucket: np.ndarray) -> _Sequences:
    R = tree.config.num_ranks
    B = int(bucket.max()) + 1
    nodes = tree.decision_nodes(table.seat)
    position = np.full(tree.num_nodes, -1, np.int64)
    position[nodes] = np.arange(len(nodes))
    legal_sets = np.repeat(tree.legal[nodes], B, axis=0)  # set = position * B + bucket
    legal = np.argwhere(legal_sets)
    index = np.full((len(legal_sets), 3), -1, np.int64)
    index[legal[:, 0], legal[:, 1]] = 1 + np.arange(len(legal))
    last = np.zeros((tree.num_nodes, R), np.int64)
    for level in tree.levels[1:]:  # parents are one level up: vectorised per depth
        p = tree.parent[level]
        mine = (tree.kind[p] == DECISION) & (tree.actor[p] == table.seat)
        last[level] = last[p]
        h, hp = level[mine], p[mine]
        if len(h):
            sets = position[hp][:, None] * B + bucket[None, :]  # (k, R)
            last[h] = index[sets, tree.action[h].astype(np.int64)[:, None]]
    first_rank = np.array([int(np.flatnonzero(bucket == b)[0]) for b in range(B)])
    parent = last[np.repeat(nodes, B), np.tile(first_rank, len(nodes))]
    of_row = position[table.node] * B + bucket[table.rank]
    return _Sequences(1 + len(legal), legal_sets, index, parent, last, of_row)


def _constraints(seq: _Sequences) -> sp.csr_matrix:
    """(1 + n, count) rows: empty sequence = 1; per information set, its actions' plans sum
    to its parent sequence's plan."""
    n = len(seq.legal)
    rows, cols, vals = [0], [0], [1.0]
    legal = np.argwhere(seq.legal)
    rows += (1 + legal[:, 0]).tolist()
    cols += seq.index[legal[:, 0], legal[:, 1]].tolist()
    vals += [1.0] * len(legal)
    rows += (1 + np.arange(n)).tolist()
    cols += seq.parent.tolist()
    vals += [-1.0] * n
    return sp.csr_matrix((vals, (rows, cols)), shape=(1 + n, seq.count))


def _payoff_matrix(tree: PublicTree, seqs) -> sp.csr_matrix:
    """Seat 1's sparse payoff matrix over (sequence of seat 1, sequence of seat 2)."""
    R = tree.config.num_ranks
    cu = chance_utility(tree, (0,)).reshape(len(tree.terminals), R, R)
    z = tree.terminals
    s0 = seqs[0].last[z][:, :, None]  # (Z, R, 1)
    s1 = seqs[1].last[z][:, None, :]  # (Z, 1, R)
    keep = cu != 0.0
    rows = np.broadcast_to(s0, cu.shape)[keep]
    cols = np.broadcast_to(s1, cu.shape)[keep]
    m = sp.coo_matrix((cu[keep], (rows, cols)), shape=(seqs[0].count, seqs[1].count))
    return m.tocsr()  # duplicates summed


def _max_min(A: sp.csr_matrix, E: sp.csr_matrix, F: sp.csr_matrix) -> tuple[float, np.ndarray]:
    """max_x min_y x^T A y over the plan polytopes {E x = e} and {F y = f}: (value, x)."""
    n, m = A.shape
    k = F.shape[0]
    e = np.zeros(E.shape[0])
    e[0] = 1.0
    f = np.zeros(k)
    f[0] = 1.0
    res = linprog(
        np.r_[np.zeros(n), -f],
        A_ub=sp.hstack([-A.T, F.T]).tocsc(),
        b_ub=np.zeros(m),
        A_eq=sp.hstack([E, sp.csr_matrix((E.shape[0], k))]).tocsc(),
        b_eq=e,
        bounds=[(0, None)] * n + [(None, None)] * k,
        method="highs",
    )
    if res.status != 0:
        raise TeamLeducError(f"the sequence-form LP failed: {res.message}")
    return float(-res.fun), np.asarray(res.x[:n])


def _behaviour(plan: np.ndarray, seq: _Sequences) -> np.ndarray:
    """(n_game, 3) behavioural strategy of a realisation plan on the game's information sets
    (each plays its abstract set's strategy; uniform where the plan puts no mass)."""
    plan = np.maximum(plan, 0.0)
    mass = np.where(seq.index >= 0, plan[np.maximum(seq.index, 0)], 0.0)
    total = mass.sum(axis=1, keepdims=True)
    uniform = seq.legal / seq.legal.sum(axis=1, keepdims=True)
    abstract = np.where(total > 1e-15, mass / np.where(total > 0, total, 1.0), uniform)
    return abstract[seq.of_row]


def solve_sequence_form(config: GameConfig, buckets=None) -> SequenceFormSolution:
    """Solve a two-player zero-sum preset exactly (both seats' max-min strategies).

    ``buckets`` (optional, length ``num_ranks``, values 0..B-1, every value used): solve the
    *abstract* game in which each seat observes only the bucket of its rank, instead of the
    rank, and return its equilibrium lifted to the game (every rank plays its bucket's
    strategy). The chance probabilities of the abstract game are implied exactly: summing the
    game's payoff entries over the ranks of each bucket gives P(bucket pair) times the
    expected utility, within-bucket comparisons included (see :mod:`teamleduc.studies.abstraction`).
    ``value`` is then the abstract game's value.
    """
    t0 = time.perf_counter()
    require_config(config)
    if config.num_seats != 2 or any(len(t) != 1 for t in config.teams):
        raise TeamLeducError(
            f"{config.name}: the sequence-form LP is for two single players "
            f"({config.num_seats} seats, teams {config.to_dict()['teams']})"
        )
    R = config.num_ranks
    bucket = np.arange(R) if buckets is None else np.asarray(buckets, np.int64)
    if bucket.shape != (R,) or bucket.min() < 0 or len(np.unique(bucket)) != bucket.max() + 1:
        raise TeamLeducError(
            f"buckets: {R} values numbered 0..B-1 with every bucket used, got {bucket.tolist()}"
        )
    tree = build_tree(config)
    tables = infoset_tables(tree)
    seqs = [_sequences(tree, t, bucket) for t in tables]
    if max(s.count for s in seqs) > MAX_SEQUENCES:
        raise TeamLeducError(f"{config.name} is too large for the sequence-form LP")
    A = _payoff_matrix(tree, seqs)
    E, F = (_constraints(s) for s in seqs)
    value, x = _max_min(A, E, F)
    _, y = _max_min((-A.T).tocsr(), F, E)
    strategies = {0: _behaviour(x, seqs[0]), 1: _behaviour(y, seqs[1])}
    return SequenceFormSolution(
        config=config,
        value=value,
        strategies=strategies,
        sequences=(seqs[0].count, seqs[1].count),
        seconds=time.perf_counter() - t0,
    )
