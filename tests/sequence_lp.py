"""An independent sequence-form LP for two-player presets (for tests only).

Built from :mod:`tests.simulator` and explicit cards, sharing nothing with the toolkit's tree,
payoffs or :mod:`teamleduc.solver.sequence_form`: every complete action history of the
simulator is replayed for every ordered deal of actual cards (and community card), each equally
likely (deals of equal ranks merged); information sets are keyed by (seat, own rank, community rank if shown, actions so
far), sequences by (information set, action). The LP is the textbook one (von Stengel 1996):

    max_{x, q} q_0   s.t.  F^T q <= A^T x,  E x = e,  x >= 0.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from . import simulator


def _card_deals(config):
    """``[(private ranks, community rank or None, probability)]``: every ordered deal of actual
    cards is equally likely; deals with the same ranks are merged (their counts add up)."""
    deck = [r for r in range(len(config.ranks)) for _ in range(config.suits)]
    n = config.num_seats + (1 if config.num_rounds == 2 else 0)
    counts = Counter(
        tuple(deck[i] for i in combo) for combo in itertools.permutations(range(len(deck)), n)
    )
    total = sum(counts.values())
    return [
        (list(r[: config.num_seats]), r[-1] if config.num_rounds == 2 else None, c / total)
        for r, c in counts.items()
    ]


def game_value(config) -> float:
    """Seat 1's value of a two-player preset, by the sequence-form LP."""
    histories = simulator.all_histories(config)
    seq_ids = [{(): 0}, {(): 0}]  # per seat: sequence key -> column; () is the empty sequence
    infosets = [{}, {}]  # per seat: infoset key -> (parent sequence, [action sequences])
    entries = {}

    def sequence(seat, info, parent, action):
        key = (info, action)
        ids = seq_ids[seat]
        if key not in ids:
            ids[key] = len(ids)
        rec = infosets[seat].setdefault(info, (parent, set()))
        rec[1].add(ids[key])
        return ids[key]

    deals = _card_deals(config)
    for hist, final in histories:
        reached_round_2 = final["round"] == 1
        for cards, community, weight in deals:
            shown = community if reached_round_2 else None
            last = [0, 0]
            past = []
            for rnd, seat, a in hist:
                seen = community if rnd == 1 else None
                info = (cards[seat], seen, tuple(past))
                last[seat] = sequence(seat, info, last[seat], a)
                past.append((rnd, a))
            u = simulator.utilities(config, final, cards, shown)
            key = (last[0], last[1])
            entries[key] = entries.get(key, 0.0) + weight * u[0]

    n0, n1 = len(seq_ids[0]), len(seq_ids[1])
    keys = list(entries)
    A = sp.csr_matrix(
        ([entries[k] for k in keys], ([k[0] for k in keys], [k[1] for k in keys])),
        shape=(n0, n1),
    )

    def constraint_matrix(seat, n):
        rows, cols, vals = [0], [0], [1.0]
        for r, (parent, children) in enumerate(infosets[seat].values(), 1):
            for c in children:
                rows.append(r)
                cols.append(c)
                vals.append(1.0)
            rows.append(r)
            cols.append(parent)
            vals.append(-1.0)
        return sp.csr_matrix((vals, (rows, cols)), shape=(1 + len(infosets[seat]), n))

    E, F = constraint_matrix(0, n0), constraint_matrix(1, n1)
    k = F.shape[0]
    e = np.zeros(E.shape[0])
    e[0] = 1.0
    objective = np.zeros(n0 + k)
    objective[n0] = -1.0  # maximise q_0 (f = unit vector)
    res = linprog(
        objective,
        A_ub=sp.hstack([-A.T, F.T]).tocsc(),
        b_ub=np.zeros(n1),
        A_eq=sp.hstack([E, sp.csr_matrix((E.shape[0], k))]).tocsc(),
        b_eq=e,
        bounds=[(0, None)] * n0 + [(None, None)] * k,
        method="highs",
    )
    assert res.status == 0, res.message
    return float(-res.fun)
