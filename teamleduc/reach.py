"""Reach probabilities on the public tree, and the weights that make a coalition's value linear.

* ``seat_reach(tree, table, strategy)[node, r]`` is the product of seat i's action probabilities
  along the path to ``node`` when it holds rank r (1 where it has not acted yet): one compiled
  pre-order pass (``parent[i] < i``) per seat and strategy.
* A team's correlated reach at the terminals (:func:`team_reach`) is
  ``T[z, x] = sum_j p_j prod_{i in team} R_i^j[z, x_i]``: linear in the number of signals,
  never their product.
* Against fixed other seats, a coalition's expected utility is linear in its own reach,
  ``sum_z sum_x W[z, x] T[z, x]``, with ``W`` (:func:`coalition_weights`, the ``W_B`` of the
  design notes, "Exact evaluation") folding chance, payoffs and the others' reach together.
  The evaluator, the grader and the best responses all use this one ``W``.

Kernels are compiled with numba and sum in a fixed sequential order, so every value is
bit-for-bit reproducible (the grader promises byte-identical files). :func:`team_reach`
computes its signals' member reaches on a few Python threads (the kernels release the GIL)
and adds them up here in signal order: the same bits on any number of threads, and no
numba thread pool (grading's forked workers call it).
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from numba import njit

from .errors import TeamLeducError
from .files.threads import in_order, threads_to_use
from .infosets import InfosetTable, infoset_tables
from .payoffs import deal_rank_index, payoff_groups
from .tree import DECISION, PublicTree

__all__ = ["coalition_weights", "kernel_array", "seat_reach", "seat_terminal_reach", "team_reach"]


def kernel_array(a) -> np.ndarray:
    """C-contiguous, writeable float64 (the one array type the compiled kernels are cached for)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    return a if a.flags.writeable else a.copy()


# --------------------------------------------------------------------------- seat reach


@functools.lru_cache(maxsize=8)
def _seat_edges(tree: PublicTree, seat: int):
    """``(parent, edge, base, action)``: the tree's ``parent``; ``edge`` (N,) index of the seat's
    action entering each node (-1 if none); per edge the parent's first information-set id
    (ids of (node, rank) are that + rank) and the action."""
    table = infoset_tables(tree)[seat]
    par = tree.parent
    p = np.maximum(par, 0)
    child = np.flatnonzero((par >= 0) & (tree.actor[p] == seat) & (tree.kind[p] == DECISION))
    edge = np.full(tree.num_nodes, -1, np.int64)
    edge[child] = np.arange(len(child))
    return (
        par.astype(np.int64),
        edge,
        table.id_of[par[child], 0].astype(np.int64),
        tree.action[child].astype(np.int64),
    )


@njit(cache=True, nogil=True)
def _reach_kernel(parent, edge, base, action, strategy, reach):
    # Pre-order (parent[i] < i): one pass; edge[i] >= 0 when the seat's action enters node i.
    num_nodes, R = reach.shape
    for r in range(R):
        reach[0, r] = 1.0
    for i in range(1, num_nodes):
        p = parent[i]
        e = edge[i]
        if e >= 0:
            for r in range(R):
                reach[i, r] = reach[p, r] * strategy[base[e] + r, action[e]]
        else:
            for r in range(R):
                reach[i, r] = reach[p, r]


@njit(cache=True, nogil=True)
def _rows(a, index, out):
    for i in range(index.shape[0]):
        for r in range(a.shape[1]):
            out[i, r] = a[index[i], r]
    return out


def _fill_reach(tree: PublicTree, seat: int, strategy, reach: np.ndarray) -> np.ndarray:
    size = infoset_tables(tree)[seat].size
    strategy = kernel_array(strategy)
    if strategy.shape != (size, 3):
        raise ValueError(
            f"strategy of seat {seat + 1} has shape {strategy.shape}, expected ({size}, 3)"
        )
    _reach_kernel(*_seat_edges(tree, seat), strategy, reach)
    return reach


def seat_reach(tree: PublicTree, table: InfosetTable, strategy: np.ndarray) -> np.ndarray:
    """(N, R) reach of seat ``table.seat`` playing ``strategy`` ((n, 3), columns c, r, f).

    ``table`` is the seat's table of this tree (``infoset_tables(tree)[seat]``)."""
    return _fill_reach(
        tree, table.seat, strategy, np.empty((tree.num_nodes, tree.config.num_ranks))
    )


def seat_terminal_reach(
    tree: PublicTree, seat: int, strategy: np.ndarray, work=None, out=None
) -> np.ndarray:
    """(Z, R) reach of ``seat`` at every terminal when it plays ``strategy`` ((n, 3), c r f).

    ``work``: optional (N, R) float64 scratch array, reused across calls to save allocations;
    ``out``: optional (Z, R) float64 C-contiguous array the result is written to."""
    R = tree.config.num_ranks
    if work is None:
        work = np.empty((tree.num_nodes, R))
    if out is None:
        out = np.empty((len(tree.terminals), R))
    return _rows(_fill_reach(tree, seat, strategy, work), _terminals(tree), out)


@functools.lru_cache(maxsize=8)
def _terminals(tree: PublicTree) -> np.ndarray:
    return tree.terminals.astype(np.int64)


# --------------------------------------------------------------------------- team reach


def team_reach(
    tree: PublicTree,
    submission,
    seats,
    threads: int | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """(Z, R**len(seats)) correlated reach of the team ``seats`` played by ``submission``.

    ``T[z, x] = sum_j p_j prod_{i in seats} R_i^j[z, x_i]`` with x the members' ranks as one
    C-order index in the order of ``seats``; ``submission`` has ``probs`` (K,) and
    ``strategies`` {seat: (K, n, 3)}. Cost: one tree pass per seat and signal, on ``threads``
    threads (default: :data:`THREADS` if set, else :func:`teamleduc.files.threads.threads_to_use`,
    on trees of at least :data:`THREADED_NODES` nodes; one thread on smaller ones), the
    signals added up in their order (the same bits on any number of threads). With ``out``
    (float64 of that shape) the signals are added to it and it is returned: the signals of
    one mixture given in consecutive parts then sum to the same bits as given at once.
    """
    seats = tuple(int(s) for s in seats)
    missing = [s for s in seats if s not in submission.strategies]
    if missing:
        raise TeamLeducError(
            f"the submission has no strategy for seat(s) {','.join(str(s + 1) for s in missing)} "
            f"(it plays seats {','.join(str(s + 1) for s in sorted(submission.strategies))})"
        )
    R = tree.config.num_ranks
    Z = len(tree.terminals)
    shape = (Z, R ** len(seats))
    if out is None:
        out = np.zeros(shape)
    elif out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"team_reach: out must be C-contiguous float64 {shape}")
    digits = np.indices((R,) * len(seats)).reshape(len(seats), -1).T.copy()  # (R**k, k)
    probs = np.asarray(submission.probs, dtype=np.float64).tolist()
    local = threading.local()  # each thread's (N, R) scratch for the tree pass

    def members(_, j: int) -> np.ndarray:
        work = getattr(local, "work", None)
        if work is None:
            work = local.work = np.empty((tree.num_nodes, R))
        member = np.empty((len(seats), Z, R))
        for m, s in enumerate(seats):
            seat_terminal_reach(tree, s, submission.strategies[s][j], work, member[m])
        return member

    signals = [(j,) for j, p in enumerate(probs) if p != 0.0]
    if threads is None:
        threads = THREADS if THREADS is not None else threads_to_use()
        if tree.num_nodes < THREADED_NODES:
            threads = 1  # a pass takes less than handing it to a thread
    threads = max(1, min(threads, len(signals)))
    for s in seats:  # the cached tables, built here once rather than by every thread
        _seat_edges(tree, s)
    _terminals(tree)
    for (j,), member in in_order(signals, lambda j: _NOTHING, members, threads):
        _accumulate_team(out, probs[j], member, digits)
    return out


#: what :func:`team_reach` hands its threads besides a signal's index: nothing to read
_NOTHING = np.empty(0)
#: :func:`team_reach` uses threads (unless told how many) on trees of this many nodes or more:
#: team-leduc-2025's (34,832 nodes) 100 signals took 0.074 s on 2 threads against 0.096 s on
#: 1, but small-team-leduc's passes (2,264 nodes, about 50 us each) were slower on threads
THREADED_NODES = 20_000
#: threads for :func:`team_reach`'s passes, if set; None: :func:`threads_to_use`. Grading's
#: loading workers set their share of the CPUs (:mod:`teamleduc.grade.workers`)
THREADS: int | None = None


@njit(cache=True, nogil=True)
def _accumulate_team(out, p, member, digits):
    # out[z, x] += p * prod_m member[m, z, digits[x, m]]; digits[x] = ranks of the C-order index x
    k, Z, R = member.shape
    if k == 2:  # the common case, written out (x = x0 * R + x1)
        for z in range(Z):
            for a in range(R):
                pa = p * member[0, z, a]
                for b in range(R):
                    out[z, a * R + b] += pa * member[1, z, b]
        return
    for z in range(Z):
        for x in range(out.shape[1]):
            prod = p
            for m in range(k):
                prod *= member[m, z, digits[x, m]]
            out[z, x] += prod


# --------------------------------------------------------------------------- coalition weights


@functools.lru_cache(maxsize=8)
def _coalition_tables(tree: PublicTree, coalition: tuple[int, ...]):
    """:func:`teamleduc.payoffs.payoff_groups` of ``coalition`` with the deal axis regrouped as
    (coalition ranks c, other seats' ranks o, seats ascending): ``(key, pot, paid, ws (K, nC, nO),
    w (K, nC, nO), others)``."""
    config = tree.config
    others = tuple(s for s in range(config.num_seats) if s not in coalition)
    g = payoff_groups(tree, coalition)
    layout = np.empty(
        (config.num_ranks ** len(coalition), config.num_ranks ** len(others)), np.int64
    )
    layout[deal_rank_index(config, coalition), deal_rank_index(config, others)] = np.arange(
        g.ws.shape[1]
    )
    return (
        g.key,
        g.pot,
        g.paid,
        np.ascontiguousarray(g.ws[:, layout]),
        np.ascontiguousarray(g.weight[:, layout]),
        others,
    )


@njit(cache=True)
def _weights_kernel(key, pot, paid, ws, w, F, gidx):
    # out[z, c] = sum_o (pot_z ws[k, c, o] - paid_z w[k, c, o]) * prod_g F[z, gidx[g, o]], k = key[z],
    # o ascending (the deal order). Without rows in gidx the factor is F[z, o] itself: one fixed
    # group with its columns in o order (the common case, written out so that it vectorises).
    Z, nC, nO, G = key.shape[0], ws.shape[1], ws.shape[2], gidx.shape[0]
    out = np.empty((Z, nC))
    for z in range(Z):
        k = key[z]
        for c in range(nC):
            s = 0.0
            if G == 0:
                for o in range(nO):
                    s += (pot[z] * ws[k, c, o] - paid[z] * w[k, c, o]) * F[z, o]
            else:
                for o in range(nO):
                    v = pot[z] * ws[k, c, o] - paid[z] * w[k, c, o]
                    for g in range(G):
                        v *= F[z, gidx[g, o]]
                    s += v
            out[z, c] = s
    return out


def coalition_weights(tree: PublicTree, coalition, fixed) -> np.ndarray:
    """(Z, R**len(coalition)) weights W that make the coalition's value linear in its own reach.

    ``W[z, x_C] = sum over the other seats' ranks of P(deal, community) u_C(z, deal)
    * prod_groups reach_group[z, x_group]`` so that the coalition's expected utility is
    ``sum_z sum_xC W[z, xC] * reach_C[z, xC]`` (the ``W_B`` of the design notes). Computed from
    the few payoff groups of terminals, never from the (Z, R**S) chance array.

    Parameters
    ----------
    coalition : 0-based seats whose total utility counts, in the order of W's rank axes.
    fixed : list of ``(seats, reach)`` with ``reach`` (Z, R**len(seats)) for every group of
        seats outside the coalition (e.g. the other team's correlated reach).
    """
    config = tree.config
    R = config.num_ranks
    coalition = tuple(int(s) for s in coalition)
    covered = sorted(list(coalition) + [int(s) for seats, _ in fixed for s in seats])
    if covered != list(range(config.num_seats)):
        raise ValueError(
            f"coalition {coalition} and fixed groups must cover every seat exactly once"
        )
    key, pot, paid, ws, w, others = _coalition_tables(tree, coalition)
    Z = len(key)
    o_of_deal = deal_rank_index(config, others)
    cols, gidx, at = [], [], 0
    for seats, reach in fixed:
        reach = np.asarray(reach, dtype=np.float64).reshape(Z, -1)
        if reach.shape[1] != R ** len(seats):
            raise ValueError(
                f"reach of seats {seats} has {reach.shape[1]} columns, expected {R ** len(seats)}"
            )
        cols.append(reach)
        column = np.empty(ws.shape[2], np.int64)  # F's column of the group's ranks, per o
        column[o_of_deal] = deal_rank_index(config, seats) + at
        gidx.append(column)
        at += reach.shape[1]
    if not cols:  # the coalition is every seat
        F, gidx = np.ones((Z, 1)), np.zeros((0, 1), np.int64)
    elif len(cols) == 1:  # one group: F[z, o] directly, its columns put in o order
        order = gidx[0]
        F = cols[0] if (order == np.arange(len(order))).all() else cols[0][:, order]
        gidx = np.zeros((0, len(order)), np.int64)
    else:
        F, gidx = np.concatenate(cols, axis=1), np.array(gidx, np.int64)
    return _weights_kernel(key, pot, paid, ws, w, kernel_array(F), gidx)


def _warmup() -> None:
    """Compile the kernels on tiny games (one fixed group, and several)."""
    from .baselines import baseline
    from .config import get_config
    from .tree import build_tree

    for name in ("tiny-team", "kuhn-3p"):
        config = get_config(name)
        tree = build_tree(config)
        sub = baseline("uniform", config)
        teams = [tuple(t) for t in config.teams]
        seat_reach(tree, infoset_tables(tree)[0], sub.strategies[0][0])
        coalition_weights(tree, teams[0], [(t, team_reach(tree, sub, t)) for t in teams[1:]])
