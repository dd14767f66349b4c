"""Exact chance probabilities and payoffs on the public tree.

A **deal** is the tuple of private ranks ``x = (x_1, ..., x_S)``; deals are indexed in C order
of the shape ``(R,) * S`` (seat 1 most significant), ``D = R**S`` of them. Suits only change the
probabilities, which are exact ratios of card counts (suits marginalised):

    P(x)      = prod_r suits!/(suits - c_r(x))!  /  (C!/(C - S)!)     (c_r = copies of r dealt)
    P(y | x)  = (suits - c_y(x)) / (C - S)                              (community rank y)

``chance_utility(tree, seats)[z, d]`` is P(deal d, community of z) times the total utility of
``seats`` at terminal z: the only place where cards meet the tree. Every exact evaluation is a
contraction of this array with reach probabilities.
"""

from __future__ import annotations

import functools
from math import perm

import numpy as np

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


def showdown_shares(config: GameConfig, active: np.ndarray, community: int,
                    seats: tuple[int, ...]) -> np.ndarray:
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


def chance_utility(tree: PublicTree, seats) -> np.ndarray:
    """(Z, D) float64: chance probability x total utility of ``seats`` at every terminal.

    Row z belongs to ``tree.terminals[z]``. Utility = chips received - chips put in.
    """
    config = tree.config
    seats = tuple(int(s) for s in seats)
    term = tree.terminals
    contrib = tree.contrib[term].astype(np.float64)
    active = tree.active[term]
    pot = contrib.sum(axis=1)
    community = tree.community[term].astype(np.int64)
    paid = contrib[:, list(seats)].sum(axis=1)

    share = np.zeros((len(term), len(deals(config))))
    folded = active.sum(axis=1) == 1
    share[folded] = active[folded][:, list(seats)].sum(axis=1, keepdims=True)
    showdown = np.flatnonzero(~folded)
    if len(showdown):
        bits = active[showdown].astype(np.int64) @ (1 << np.arange(config.num_seats))
        key = bits * (config.num_ranks + 1) + (community[showdown] + 1)
        uniq, inverse = np.unique(key, return_inverse=True)
        for u, k in enumerate(uniq):
            mask = np.array([(int(k) // (config.num_ranks + 1)) >> s & 1 for s in range(config.num_seats)], bool)
            table = showdown_shares(config, mask, int(k) % (config.num_ranks + 1) - 1, seats)
            share[showdown[inverse == u]] = table
    utility = share * pot[:, None] - paid[:, None]

    weight = np.empty_like(utility)
    no_card = community < 0
    weight[no_card] = deal_probabilities(config)[None, :]
    if (~no_card).any():
        joint = deal_community_probabilities(config)            # (D, R)
        weight[~no_card] = joint.T[community[~no_card]]
    return utility * weight


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


@functools.lru_cache(maxsize=4)
def chance_utility_cached(tree: PublicTree, seats: tuple[int, ...]) -> np.ndarray:
    """:func:`chance_utility`, cached per (tree, seats) and read-only (it is large for team-leduc)."""
    out = chance_utility(tree, seats)
    out.setflags(write=False)
    return out
