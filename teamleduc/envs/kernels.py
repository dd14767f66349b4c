"""The compiled hand kernels: the batch simulator's and the Q-learner's, with what they share.

Both deal cards by a partial Fisher-Yates shuffle, draw a fixed seat's action from one flat
table of cumulative probabilities, and read a seat's payoff from the exact tables of
:func:`teamleduc.envs.simulate.payoff_tables`; those three steps are written once, here. The
kernels live in one file because numba's on-disk cache of a function is invalidated by a
change of its own file only: a helper edited in another module would leave stale callers.

The Q-learner's kernel, :func:`train_slice`, runs a bounded slice of episodes and returns, so
that Ctrl-C is never held off (Python runs its SIGINT handler only between two calls: one call
of a long training ignored Ctrl-C for minutes). The slices of one training give the results
of one uninterrupted run, bit for bit: the first slice seeds numba's generator
(:func:`seed_generator`), the later ones go on drawing from the same stream (numba keeps one
generator state per thread, shared by every compiled function, and nothing else draws from it
between two slices of one ``train``), and ``deck`` carries the dealing state across slices.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..tree import CHANCE, TERMINAL

__all__ = ["CHUNK", "play_hands", "seed_generator", "train_slice"]

#: hands per chunk of the simulator (each chunk reseeds numba's generator, so the same seed
#: gives the same hands whatever the number of threads)
CHUNK = 1 << 14


@njit(cache=True, inline="always")
def deal(deck, need):
    """Shuffle the first ``need`` cards of ``deck`` in place (partial Fisher-Yates: a uniform
    draw of ``need`` distinct cards, in order)."""
    n = deck.shape[0]
    for i in range(need):
        j = i + int(np.random.random() * (n - i))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp


@njit(cache=True, inline="always")
def draw_action(thresholds, row):
    """An action (0 c, 1 r, 2 f) drawn from row ``row`` of the cumulative table (p_c, p_c + p_r)."""
    u = np.random.random()
    if u < thresholds[row, 0]:
        return 0
    if u < thresholds[row, 1]:
        return 1
    return 2


@njit(cache=True, inline="always")
def deal_index(cards, num_ranks):
    """The deal's column of the payoff tables: the seats' ranks as digits in base ``num_ranks``."""
    d = 0
    for s in range(cards.shape[0]):
        d = d * num_ranks + cards[s]
    return d


@njit(cache=True, parallel=True)
def play_hands(
    n,
    seed,
    children,
    kind,
    actor,
    gid,
    thresholds,
    seat_base,
    seat_size,
    team_of,
    meta_cum,
    meta_len,
    num_cards,
    suits,
    num_seats,
    has_community,
    dealt_blind,
    zrow,
    group,
    pot,
    paid,
    share,
    cards_out,
    terminal_out,
    utilities_out,
):
    need = num_seats + (1 if has_community else 0)
    num_ranks = num_cards // suits
    T = meta_len.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        np.random.seed((seed * 1000003 + c * 7919) % 4294967296)
        lo = c * CHUNK
        m = min(n, lo + CHUNK) - lo
        deck = np.arange(num_cards)
        comm = np.empty(m, np.int64)
        signal = np.empty((m, T), np.int64)
        for h in range(m):
            deal(deck, need)
            for s in range(num_seats):
                cards_out[lo + h, s] = deck[s] // suits
            comm[h] = deck[num_seats] // suits if has_community else -1
            for t in range(T):
                u = np.random.random()
                k = 0
                while k < meta_len[t] - 1 and u >= meta_cum[t, k]:
                    k += 1
                signal[h, t] = k
        # one action of every live hand per pass: the hands' table look-ups are independent,
        # so their cache misses overlap (the walk is bound by memory latency, not arithmetic)
        node = np.zeros(m, np.int64)
        if dealt_blind:  # the root deals the small blind: one uniform seat per hand
            for h in range(m):
                node[h] = children[0, 3 + int(np.random.random() * num_seats)]
        live = np.arange(m)
        num_live = m
        while num_live > 0:
            w = 0
            for q in range(num_live):
                h = live[q]
                nd = node[h]
                if kind[nd] == CHANCE:  # round 2 starts: the hand's community card (the root's
                    # chance, a dealt small blind, was passed when the hand started)
                    nd = children[nd, 3 + comm[h]]
                s = actor[nd]
                row = (
                    seat_base[s]
                    + signal[h, team_of[s]] * seat_size[s]
                    + gid[nd, cards_out[lo + h, s]]
                )
                nd = children[nd, draw_action(thresholds, row)]
                node[h] = nd
                if kind[nd] != TERMINAL:
                    live[w] = h
                    w += 1
            num_live = w
        for h in range(m):
            nd = node[h]
            terminal_out[lo + h] = nd
            z = zrow[nd]
            d = deal_index(cards_out[lo + h], num_ranks)
            for s in range(num_seats):
                utilities_out[lo + h, s] = share[s, group[z], d] * pot[z] - paid[s, z]


@njit(cache=True)
def seed_generator(seed):
    """Seed numba's generator of this thread (the one :func:`train_slice` draws from)."""
    np.random.seed(seed)


@njit(cache=True)
def train_slice(
    n,
    start,
    learn_seats,
    deck,
    children,
    kind,
    actor,
    gid,
    thresholds,
    seat_base,
    Q,
    legal,
    q_base,
    alpha,
    gamma,
    epsilon,
    suits,
    num_seats,
    has_community,
    dealt_blind,
    zrow,
    group,
    pot,
    paid,
    share,
):
    """Episodes ``start .. start + n - 1`` of Q-learning (module docstring of
    :mod:`teamleduc.agents.qlearning`), updating ``Q`` in place and drawing from numba's
    generator as it is; ``deck`` (the cards, shuffled in place from one episode to the next)
    carries the dealing state from one slice to the next. Returns ``start + n``."""
    need = num_seats + (1 if has_community else 0)
    num_ranks = deck.shape[0] // suits
    cards = np.zeros(num_seats, np.int64)
    L = learn_seats.shape[0]
    for e in range(start, start + n):
        me = learn_seats[e % L]
        deal(deck, need)
        for s in range(num_seats):
            cards[s] = deck[s] // suits
        comm = deck[num_seats] // suits if has_community else -1
        node = 0
        if dealt_blind:  # the root deals the small blind: a uniform seat
            node = children[0, 3 + int(np.random.random() * num_seats)]
        prev = -1
        prev_a = 0
        while True:
            kd = kind[node]
            if kd == TERMINAL:
                z = zrow[node]
                reward = share[me, group[z], deal_index(cards, num_ranks)] * pot[z] - paid[me, z]
                if prev >= 0:
                    Q[prev, prev_a] += alpha * (reward - Q[prev, prev_a])
                break
            if kd == CHANCE:
                node = children[node, 3 + comm]
                continue
            s = actor[node]
            if s == me:
                row = q_base[me] + gid[node, cards[me]]
                best = -1
                for a in range(3):
                    if legal[row, a] and (best < 0 or Q[row, a] > Q[row, best]):
                        best = a
                if prev >= 0:
                    target = gamma * Q[row, best]
                    Q[prev, prev_a] += alpha * (target - Q[prev, prev_a])
                a = best
                if np.random.random() < epsilon:
                    k = 0
                    for b in range(3):
                        k += legal[row, b]
                    pick = int(np.random.random() * k)
                    for b in range(3):
                        if legal[row, b]:
                            if pick == 0:
                                a = b
                                break
                            pick -= 1
                prev = row
                prev_a = a
            else:
                a = draw_action(thresholds, seat_base[s] + gid[node, cards[s]])
            node = children[node, a]
    return start + n
