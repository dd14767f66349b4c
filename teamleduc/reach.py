"""Reach probabilities on the public tree, vectorised by depth.

``seat_reach(tree, table, strategy)[node, r]`` is the product of seat i's action probabilities
along the path to ``node`` when it holds rank r (1 where it has not acted yet). A team's
correlated reach at the terminals is ``sum_j p_j prod_{i in team} R_i^j[z, x_i]``: linear in the
number of signals, never their product.
"""

from __future__ import annotations

import numpy as np

from .infosets import InfosetTable
from .tree import PublicTree


def edge_factors(tree: PublicTree, table: InfosetTable, strategy: np.ndarray) -> np.ndarray:
    """(N, R) probability that the seat takes each node's incoming action (1 off its turns)."""
    strategy = np.asarray(strategy, dtype=np.float64)
    if strategy.shape != (table.size, 3):
        raise ValueError(f"strategy of seat {table.seat + 1} has shape {strategy.shape}, "
                         f"expected ({table.size}, 3)")
    R = tree.config.num_ranks
    factors = np.ones((tree.num_nodes, R))
    par = tree.parent
    child = np.flatnonzero((par >= 0) & (tree.actor[np.maximum(par, 0)] == table.seat)
                           & (tree.kind[np.maximum(par, 0)] == 0))
    ids = table.id_of[par[child]]                              # (m, R)
    factors[child] = strategy[ids, tree.action[child][:, None]]
    return factors


def cumulative_by_depth(tree: PublicTree, factors: np.ndarray) -> np.ndarray:
    """Products of ``factors`` (N, ...) along every root path: one numpy step per depth."""
    out = np.array(factors, dtype=np.float64, copy=True)
    for level in tree.levels[1:]:
        out[level] *= out[tree.parent[level]]
    return out


def seat_reach(tree: PublicTree, table: InfosetTable, strategy: np.ndarray) -> np.ndarray:
    """(N, R) reach of one seat playing ``strategy`` ((n, 3), columns c, r, f)."""
    return cumulative_by_depth(tree, edge_factors(tree, table, strategy))


def team_terminal_reach(tree: PublicTree, tables, seats, probs, strategies) -> np.ndarray:
    """(Z, R**len(seats)) correlated reach of a team at the terminals.

    Parameters
    ----------
    seats : the team's 0-based seats, in the order of the output's rank axes.
    probs : (K,) signal probabilities.
    strategies : mapping seat -> (K, n_seat, 3) behavioural strategy per signal.
    """
    term = tree.terminals
    R = tree.config.num_ranks
    out = np.zeros((len(term),) + (R,) * len(seats))
    for j, p in enumerate(np.asarray(probs, dtype=np.float64)):
        if p == 0:
            continue
        acc = np.full((len(term),) + (1,) * len(seats), p)
        for axis, s in enumerate(seats):
            r = seat_reach(tree, tables[s], strategies[s][j])[term]
            shape = [len(term)] + [1] * len(seats)
            shape[1 + axis] = R
            acc = acc * r.reshape(shape)
        out += acc
    return out.reshape(len(term), -1)


def coalition_weights(tree: PublicTree, coalition, fixed) -> np.ndarray:
    """(Z, R**len(coalition)) weights W that make the coalition's value linear in its own reach.

    ``W[z, x_C] = sum over the other seats' ranks of P(deal, community) u_C(z, deal)
    * prod_groups reach_group[z, x_group]`` so that the coalition's expected utility is
    ``sum_z sum_xC W[z, xC] * reach_C[z, xC]`` (the ``W_B`` of the design notes).

    Parameters
    ----------
    coalition : 0-based seats whose total utility counts, in the order of W's rank axes.
    fixed : list of ``(seats, reach)`` with ``reach`` (Z, R**len(seats)) for every group of
        seats outside the coalition (e.g. the other team's correlated reach).
    """
    from .payoffs import chance_utility_cached

    config = tree.config
    S, R = config.num_seats, config.num_ranks
    coalition = tuple(int(s) for s in coalition)
    covered = sorted(list(coalition) + [int(s) for seats, _ in fixed for s in seats])
    if covered != list(range(S)):
        raise ValueError(f"coalition {coalition} and fixed groups must cover every seat exactly once")
    Z = len(tree.terminals)
    w = chance_utility_cached(tree, coalition).reshape((Z,) + (R,) * S)
    letters = "abcdefghijklmnop"
    operands, subs = [w], "z" + letters[:S]
    for seats, reach in fixed:
        operands.append(np.asarray(reach).reshape((Z,) + (R,) * len(seats)))
        subs += ",z" + "".join(letters[s] for s in seats)
    out = "z" + "".join(letters[s] for s in coalition)
    return np.einsum(f"{subs}->{out}", *operands, optimize=True).reshape(Z, -1)
