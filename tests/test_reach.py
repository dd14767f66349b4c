"""Reach probabilities and coalition weights: OpenSpiel's published uniform values, and the
compiled implementations against slow but obviously correct references kept here."""

import numpy as np
import pytest

from teamleduc.baselines import baseline
from teamleduc.config import get_config
from teamleduc.files.model import Submission
from teamleduc.infosets import infoset_tables
from teamleduc.payoffs import chance_utility
from teamleduc.reach import coalition_weights, seat_reach, team_reach
from teamleduc.tree import build_tree

# OpenSpiel 1.x, expected_game_score.policy_value with UniformRandomPolicy (computed with
# `benchmarks/bench_crosscheck.py` when open-spiel is installed).
OPENSPIEL_UNIFORM = {
    "kuhn": [0.125, -0.125],
    "leduc": [-0.078125, 0.078125],
    "kuhn-3p": [0.234375, -0.046875, -0.1875],
    "leduc-3p": [-0.15861304012345673, -0.01909722222222221, 0.17771026234567908],
}


# --------------------------------------------------------------------------- references


def reference_team_reach(tree, seats, probs, strategies) -> np.ndarray:
    """(Z, R**len(seats)) ``sum_j p_j prod_i R_i^j[z, x_i]`` by numpy broadcasting of
    :func:`seat_reach` at the terminals (``strategies``: seat -> (K, n, 3))."""
    tabs = infoset_tables(tree)
    term = tree.terminals
    R = tree.config.num_ranks
    out = np.zeros((len(term),) + (R,) * len(seats))
    for j, p in enumerate(np.asarray(probs, dtype=np.float64)):
        acc = np.full((len(term),) + (1,) * len(seats), p)
        for axis, s in enumerate(seats):
            shape = [len(term)] + [1] * len(seats)
            shape[1 + axis] = R
            acc = acc * seat_reach(tree, tabs[s], strategies[s][j])[term].reshape(shape)
        out += acc
    return out.reshape(len(term), -1)


def reference_weights(tree, coalition, fixed) -> np.ndarray:
    """:func:`coalition_weights` as one einsum over the (Z, R**S) chance x utility array."""
    config = tree.config
    S, R = config.num_seats, config.num_ranks
    Z = len(tree.terminals)
    w = chance_utility(tree, coalition).reshape((Z,) + (R,) * S)
    letters = "abcdefghijklmnop"
    operands, subs = [w], "z" + letters[:S]
    for seats, reach in fixed:
        operands.append(np.asarray(reach).reshape((Z,) + (R,) * len(seats)))
        subs += ",z" + "".join(letters[s] for s in seats)
    out = "z" + "".join(letters[s] for s in coalition)
    return np.einsum(f"{subs}->{out}", *operands, optimize=True).reshape(Z, -1)


def random_strategies(tree, seats, num_signals, rng) -> dict:
    tabs = infoset_tables(tree)
    out = {}
    for s in seats:
        x = rng.random((num_signals, tabs[s].size, 3)) * tabs[s].legal
        out[s] = x / x.sum(axis=2, keepdims=True)
    return out


# --------------------------------------------------------------------------- anchors


def uniform_values(name):
    """Every seat's value of the uniform profile, from the library's reach and weights."""
    c = get_config(name)
    tree = build_tree(c)
    sub = baseline("uniform", c)
    reach = {s: team_reach(tree, sub, (s,)) for s in range(c.num_seats)}
    out = []
    for s in range(c.num_seats):
        W = coalition_weights(tree, (s,), [((o,), reach[o]) for o in range(c.num_seats) if o != s])
        out.append(float((W * reach[s]).sum()))
    return out


@pytest.mark.parametrize("name", sorted(OPENSPIEL_UNIFORM))
def test_uniform_values_equal_openspiel(name):
    assert uniform_values(name) == pytest.approx(OPENSPIEL_UNIFORM[name], abs=1e-12)


# --------------------------------------------------------------------------- reach


def test_seat_reach_is_product_along_path():
    tree = build_tree(get_config("small-team-leduc"))
    tab = infoset_tables(tree)[2]
    rng = np.random.default_rng(3)
    strat = rng.random((tab.size, 3)) * tab.legal
    strat /= strat.sum(axis=1, keepdims=True)
    R = seat_reach(tree, tab, strat)
    for node in rng.choice(tree.num_nodes, 50, replace=False):
        for r in range(3):
            p = 1.0
            path = tree.path(int(node))
            for a, b in zip(path, path[1:]):
                if tree.kind[a] == 0 and tree.actor[a] == 2:
                    p *= strat[tab.id_of[a, r], tree.action[b]]
            assert R[node, r] == pytest.approx(p, abs=1e-15)


def test_team_reach_is_linear_in_signals():
    tree = build_tree(get_config("tiny-team"))
    rng = np.random.default_rng(4)
    strats = random_strategies(tree, (0, 2), 3, rng)
    p = np.array([0.2, 0.5, 0.3])
    both = team_reach(tree, Submission(np.arange(3), p, (0, 2), strats), (0, 2))
    parts = sum(
        team_reach(
            tree, Submission([0], [p[j]], (0, 2), {s: strats[s][j : j + 1] for s in (0, 2)}), (0, 2)
        )
        for j in range(3)
    )
    assert np.allclose(both, parts, atol=1e-15)


@pytest.mark.parametrize("name", ["small-team-leduc", "tiny-team-3p", "leduc-3p"])
def test_team_reach_equals_reference(name):
    config = get_config(name)
    tree = build_tree(config)
    strats = random_strategies(tree, range(config.num_seats), 3, np.random.default_rng(51))
    probs = np.array([0.5, 0.2, 0.3])
    sub = Submission(np.arange(3), probs, tuple(range(config.num_seats)), strats)
    for team in config.teams:
        np.testing.assert_allclose(
            team_reach(tree, sub, team),
            reference_team_reach(tree, team, probs, strats),
            rtol=0,
            atol=1e-15,
        )


def test_team_reach_is_the_same_bits_on_any_number_of_threads():
    """The signals' member reaches are computed on threads and added up in signal order: the
    same bits on 1 to 5 threads, with more signals than threads and signals of weight 0."""
    config = get_config("small-team-leduc")
    tree = build_tree(config)
    strats = random_strategies(tree, (0, 2), 9, np.random.default_rng(8))
    probs = np.random.default_rng(9).dirichlet(np.ones(9))
    probs[[2, 5]] = 0.0
    probs /= probs.sum()
    sub = Submission(np.arange(9), probs, (0, 2), strats)
    one = team_reach(tree, sub, (0, 2), threads=1)
    np.testing.assert_allclose(
        one, reference_team_reach(tree, (0, 2), probs, strats), rtol=0, atol=1e-15
    )
    for threads in (2, 3, 5):
        np.testing.assert_array_equal(team_reach(tree, sub, (0, 2), threads=threads), one)
    np.testing.assert_array_equal(
        team_reach(tree, sub, (2, 0), threads=3), team_reach(tree, sub, (2, 0), threads=1)
    )
    # a strategy of the wrong shape raises from a thread as it does here
    bad = Submission(
        np.arange(3), [0.2, 0.3, 0.5], (0, 2), {0: np.ones((3, 5, 3)), 2: strats[2][:3]}
    )
    with pytest.raises(ValueError, match=r"strategy of seat 1 has shape \(5, 3\), expected"):
        team_reach(tree, bad, (0, 2), threads=3)


def test_team_reach_in_parts_is_the_same_bits_as_at_once():
    """Signals given in consecutive parts and added to one ``out`` sum to the bits of one call
    over all of them (what :func:`teamleduc.solver.export.guaranteed_value` relies on); an
    ``out`` of another shape or type is refused."""
    from types import SimpleNamespace

    config = get_config("small-team-leduc")
    tree = build_tree(config)
    strats = random_strategies(tree, (0, 2), 7, np.random.default_rng(3))
    probs = np.random.default_rng(4).dirichlet(np.ones(7))
    whole = team_reach(tree, Submission(np.arange(7), probs, (0, 2), strats), (0, 2))
    for cut in ([3], [1, 2, 6], [5]):
        out = np.zeros_like(whole)
        for lo, hi in zip([0, *cut], [*cut, 7]):
            part = SimpleNamespace(
                probs=probs[lo:hi], strategies={s: strats[s][lo:hi] for s in (0, 2)}
            )
            assert team_reach(tree, part, (0, 2), threads=2, out=out) is out
        np.testing.assert_array_equal(out, whole)
    for bad in (np.zeros((3, 9)), np.zeros(whole.shape, np.float32), np.zeros(whole.T.shape).T):
        with pytest.raises(ValueError, match="out must be C-contiguous float64"):
            team_reach(tree, Submission(np.arange(7), probs, (0, 2), strats), (0, 2), out=bad)


def test_guaranteed_value_is_that_of_the_whole_mixture():
    """The solver's exact bound of a mixture, summed a few signals at a time, equals the other
    team's exact best response to the reach of the whole mixture at once, to the last bit."""
    from teamleduc.dag import best_values
    from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer
    from teamleduc.solver.export import guaranteed_value
    from teamleduc.solver.stratify import stratified_mixture

    rm = RegretMinimizer(get_config("small-team-leduc"), VARIANTS["dcfr"])
    rm.iterate(20)
    g = rm.game
    for team in (0, 1):
        mix = stratified_mixture(g, team, rm.average_sigma(team), 9)
        built = [item.strategies() for item in mix.items]
        seats = g.dags[team].seats
        whole = Submission(
            np.arange(len(built)),
            np.asarray(mix.weights, dtype=np.float64),
            seats,
            {s: np.stack([b[s] for b in built]) for s in seats},
        )
        T = team_reach(g.tree, whole, seats, threads=1)
        v = best_values(g, 1 - team, T, g.dags[1 - team].new_values())
        assert guaranteed_value(g, mix) == (-v if team == 0 else v)


def test_team_reach_threads_only_on_big_trees(monkeypatch):
    """Below THREADED_NODES (or with one signal) the passes run here, in order; THREADS, set
    by grading's workers, is the default count on big trees."""
    from teamleduc import reach

    used = []
    real = reach.in_order

    def spy(items, read, parse, threads=None):
        used.append(threads)
        return real(items, read, parse, threads)

    monkeypatch.setattr(reach, "in_order", spy)
    tree = build_tree(get_config("small-team-leduc"))
    strats = random_strategies(tree, (0, 2), 4, np.random.default_rng(3))
    sub = Submission(np.arange(4), [0.1, 0.2, 0.3, 0.4], (0, 2), strats)
    team_reach(tree, sub, (0, 2))
    assert used == [1]  # a small tree
    monkeypatch.setattr(reach, "THREADED_NODES", 1)
    monkeypatch.setattr(reach, "THREADS", 3)
    team_reach(tree, sub, (0, 2))
    team_reach(tree, sub, (0, 2), threads=9)  # no more threads than signals
    assert used == [1, 3, 4]


# --------------------------------------------------------------------------- weights

WEIGHT_CASES = [  # (preset, coalition, fixed groups): 2, 3 and 4 seats, teams of one and two
    ("kuhn", (0,), [(1,)]),
    ("leduc", (1,), [(0,)]),
    ("kuhn-100", (1,), [(0,)]),
    ("kuhn-3p", (1,), [(0,), (2,)]),
    ("leduc-3p", (2,), [(1,), (0,)]),
    ("tiny-team-3p", (0, 2), [(1,)]),
    ("tiny-team-3p", (1,), [(2, 0)]),
    ("tiny-team", (0, 2), [(1, 3)]),
    ("tiny-team", (3, 1), [(0, 2)]),
    ("tiny-team-leduc", (1, 3), [(0,), (2,)]),
    ("small-team-leduc", (0, 2), [(1, 3)]),
    ("small-team-leduc", (1, 3), [(0, 2)]),
    ("team-leduc-2025", (1, 3), [(0, 2)]),
]


@pytest.mark.parametrize("name, coalition, groups", WEIGHT_CASES)
def test_coalition_weights_equal_reference(name, coalition, groups):
    config = get_config(name)
    tree = build_tree(config)
    rng = np.random.default_rng(1)
    R, Z = config.num_ranks, len(tree.terminals)
    fixed = [(g, rng.random((Z, R ** len(g)))) for g in groups]
    np.testing.assert_allclose(
        coalition_weights(tree, coalition, fixed),
        reference_weights(tree, coalition, fixed),
        rtol=0,
        atol=1e-12,
    )


def test_coalition_weights_need_every_seat():
    tree = build_tree(get_config("kuhn"))
    with pytest.raises(ValueError, match="cover every seat"):
        coalition_weights(tree, (0,), [])
    with pytest.raises(ValueError, match="columns"):
        coalition_weights(tree, (0,), [((1,), np.ones((5, 2)))])
