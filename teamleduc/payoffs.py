"""Exact chance probabilities and payoffs on the public tree.

A **deal** is the tuple of private ranks ``x = (x_1, ..., x_S)``; deals are indexed in C order
of the shape ``(R,) * S`` (seat 1 most significant), ``D = R**S`` of them. Suits only change the
probabilities, which are exact ratios of card counts (suits marginalised):

    P(x)      = prod_r suits!/(suits - c_r(x))!  /  (C!/(C - S)!)     (c_r = copies of r dealt)
    P(y | x)  = (suits - c_y(x)) / (C - S)                              (community rank y)

With a dealt small blind (``rlcard-leduc``) every probability is also multiplied by the
probability of the root's blind outcome on the terminal's path
(:attr:`teamleduc.tree.PublicTree.blind_probability`, 1 / S).

``chance_utility(tree, seats)[z, d]`` is P(deal d, community of z) times the total utility of
``seats`` at terminal z: the only place where cards meet the tree. Every exact evaluation is a
contraction of this array with reach probabilities. It depends on the deal only through the
terminal's active seats and community rank, so it is stored as a few small tables per group of
terminals (:func:`payoff_groups`), which the compiled evaluators read directly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from math import perm

import numpy as np
from numba import njit

from .config import GameConfig
from .tree import TERMINAL, PublicTree


@functools.lru_cache(maxsize=16)
def deals(config: GameConfig) -> np.ndarray:
    """(D, S) int array: the private ranks of every deal, in deal-index order."""
    S, R = config.num_seats, config.num_ranks
    grid = np.indices((R,) * S).reshape(S, -1).T
    return np.ascontiguousarray(grid.astype(np.int16))


@functools.lru_cache(maxsize=16)
def deal_probabilities(config: GameConfig) -> np.ndarray:
    """(D,) exact probability of each deal of private ranks (zero where the deck runs out)."""
    x = deals(config)
    counts = np.stack([(x == r).sum(axis=1) for r in range(config.num_ranks)], axis=1)
    ways = np.ones(len(x))
    for c in range(1, config.num_seats + 1):
        ways *= np.where(counts >= c, config.suits - (c - 1), 1).prod(axis=1)
    ways = np.where((counts <= config.suits).all(axis=1), ways, 0.0)
    return ways / perm(config.num_cards, config.num_seats)


@functools.lru_cache(maxsize=16)
def deal_community_probabilities(config: GameConfig) -> np.ndarray:
    """(D, R) exact joint probability of each deal and community rank (games with one)."""
    x = deals(config)
    counts = np.stack([(x == r).sum(axis=1) for r in range(config.num_ranks)], axis=1)
    left = config.num_cards - config.num_seats
    return deal_probabilities(config)[:, None] * (config.suits - counts) / left


def deal_rank_index(config: GameConfig, seats) -> np.ndarray:
    """(D,) int64 C-order index of the ranks of ``seats`` (in that order) within every deal."""
    x = deals(config).astype(np.int64)
    idx = np.zeros(len(x), np.int64)
    for s in seats:
        idx = idx * config.num_ranks + x[:, s]
    return idx


def showdown_shares(
    config: GameConfig, active: np.ndarray, community: int, seats: tuple[int, ...]
) -> np.ndarray:
    """(D,) share of the pot won by ``seats`` at a showdown among ``active`` seats.

    Hand strength: a rank that pairs the community card beats every unpaired rank; otherwise
    the higher rank wins; ties split the pot evenly.
    """
    x = deals(config).astype(np.int32)
    strength = x + np.where(x == community, config.num_ranks, 0)
    strength = np.where(np.asarray(active, bool)[None, :], strength, -1)
    best = strength.max(axis=1, keepdims=True)
    winners = strength == best
    return winners[:, list(seats)].sum(axis=1) / winners.sum(axis=1)


@dataclass(frozen=True, eq=False)
class PayoffGroups:
    """Payoffs of every terminal for ``seats``, stored per group of terminals.

    A terminal's payoffs depend on the deal only through its active seats and its community
    rank: a few dozen (active set, community) groups (49 for team-leduc), one small table each,
    instead of a (Z, D) array. For terminal ``z`` in group ``k = key[z]`` and deal ``d``:

        u(z, d)        = share[k, d] * pot[z] - paid[z]         (total utility of ``seats``)
        P(d, y_z)      = weight[k, d]                           (y_z: the community of z, if any)
        P(d, y_z) u    = pot[z] * ws[k, d] - paid[z] * weight[k, d],   ws = weight * share

    Attributes (read-only arrays)
    -----------------------------
    seats : the 0-based seats whose total utility counts.
    key : (Z,) int64 group of each terminal (row z belongs to ``tree.terminals[z]``).
    pot : (Z,) chips in the pot; paid : (Z,) chips put in by ``seats``.
    share : (K, D) share of the pot won by ``seats`` (1 or 0 where every other seat folded).
    weight : (K, D) P(deal[, community]); ws : (K, D) ``weight * share``.
    """

    seats: tuple[int, ...]
    key: np.ndarray
    pot: np.ndarray
    paid: np.ndarray
    share: np.ndarray
    weight: np.ndarray
    ws: np.ndarray


@functools.lru_cache(maxsize=8)
def payoff_groups(tree: PublicTree, seats: tuple[int, ...]) -> PayoffGroups:
    """The :class:`PayoffGroups` of ``seats`` (0-based) on ``tree``, cached per tree."""
    config = tree.config
    S, R = config.num_seats, config.num_ranks
    seats = tuple(int(s) for s in seats)
    term = tree.terminals
    bits = tree.active[term].astype(np.int64) @ (1 << np.arange(S, dtype=np.int64))
    code = bits * (R + 1) + tree.community[term].astype(np.int64) + 1
    if config.dealt_blind:  # groups per small-blind seat too: its probability is in the weight
        code = code + (tree.blind[term].astype(np.int64) + 1) * ((R + 1) << S)
    uniq, key = np.unique(code, return_inverse=True)
    share = np.empty((len(uniq), len(deals(config))))
    weight = np.empty_like(share)
    joint = deal_community_probabilities(config) if config.has_community else None
    for k, c in enumerate(uniq.tolist()):
        active = np.array([(c // (R + 1)) >> s & 1 for s in range(S)], bool)
        y = c % (R + 1) - 1
        share[k] = showdown_shares(config, active, y, seats)
        weight[k] = deal_probabilities(config) if y < 0 else joint[:, y]
        if config.dealt_blind:
            weight[k] /= S
    contrib = tree.contrib[term].astype(np.float64)
    groups = PayoffGroups(
        seats=seats,
        key=key.astype(np.int64).ravel(),
        pot=contrib.sum(axis=1),
        paid=contrib[:, list(seats)].sum(axis=1),
        share=share,
        weight=weight,
        ws=weight * share,
    )
    for a in (groups.key, groups.pot, groups.paid, groups.share, groups.weight, groups.ws):
        a.setflags(write=False)
    return groups


def chance_utility(tree: PublicTree, seats) -> np.ndarray:
    """(Z, D) float64: chance probability x total utility of ``seats`` at every terminal.

    Row z belongs to ``tree.terminals[z]``. Utility = chips received - chips put in. Expanded
    from :func:`payoff_groups` as ``(share * pot - paid) * weight`` (162 MB for team-leduc:
    the evaluators and the solver never build it, the tests' references and the two-player
    LP do).
    """
    g = payoff_groups(tree, tuple(int(s) for s in seats))
    return _expand(g.key, g.pot, g.paid, g.share, g.weight)


@njit(cache=True)
def _expand(key, pot, paid, share, weight):
    Z, D = key.shape[0], share.shape[1]
    out = np.empty((Z, D))
    for z in range(Z):
        k = key[z]
        for d in range(D):
            out[z, d] = (share[k, d] * pot[z] - paid[z]) * weight[k, d]
    return out


def utilities_at(tree: PublicTree, node: int, cards, community: int = -1) -> np.ndarray:
    """(S,) utility of every seat at terminal ``node`` for private ranks ``cards``."""
    if tree.kind[node] != TERMINAL:
        raise ValueError(f"node {node} is not terminal")
    config = tree.config
    contrib = tree.contrib[node].astype(np.float64)
    active = tree.active[node]
    strength = np.array([c + (config.num_ranks if c == community else 0) for c in cards])
    strength = np.where(active, strength, -1)
    winners = strength == strength.max()
    return winners / winners.sum() * contrib.sum() - contrib


def chance_utility_rows(groups: PayoffGroups, z: np.ndarray) -> np.ndarray:
    """(len(z), D) the rows ``z`` of :func:`chance_utility` from its ``groups``: the same
    formula on the same numbers, so the same bits, without the other rows."""
    z = np.asarray(z, dtype=np.int64)
    return _expand(groups.key[z], groups.pot[z], groups.paid[z], groups.share, groups.weight)


def _warmup() -> None:
    """Compile :func:`chance_utility`'s kernel on a tiny game."""
    from .config import get_config
    from .tree import build_tree

    chance_utility(build_tree(get_config("tiny-team")), (0, 2))
