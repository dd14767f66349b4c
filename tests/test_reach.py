"""Reach probabilities and coalition weights against OpenSpiel's published uniform values."""

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.infosets import infoset_tables
from teamleduc.reach import coalition_weights, seat_reach, team_terminal_reach
from teamleduc.tree import build_tree

# OpenSpiel 1.x, expected_game_score.policy_value with UniformRandomPolicy (computed with
# `benchmarks/bench_crosscheck.py` when open-spiel is installed).
OPENSPIEL_UNIFORM = {
    "kuhn": [0.125, -0.125],
    "leduc": [-0.078125, 0.078125],
    "kuhn-3p": [0.234375, -0.046875, -0.1875],
    "leduc-3p": [-0.15861304012345673, -0.01909722222222221, 0.17771026234567908],
}


def uniform_values(name):
    c = get_config(name)
    tree = build_tree(c)
    tabs = infoset_tables(tree)
    reach = {s: team_terminal_reach(tree, tabs, [s], [1.0], {s: tabs[s].uniform_strategy()[None]})
             for s in range(c.num_seats)}
    out = []
    for s in range(c.num_seats):
        W = coalition_weights(tree, (s,), [((o,), reach[o]) for o in range(c.num_seats) if o != s])
        out.append(float((W * reach[s]).sum()))
    return out


@pytest.mark.parametrize("name", sorted(OPENSPIEL_UNIFORM))
def test_uniform_values_equal_openspiel(name):
    assert uniform_values(name) == pytest.approx(OPENSPIEL_UNIFORM[name], abs=1e-12)


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
    tabs = infoset_tables(tree)
    rng = np.random.default_rng(4)
    strats = {}
    for s in (0, 2):
        x = rng.random((3, tabs[s].size, 3)) * tabs[s].legal
        strats[s] = x / x.sum(axis=2, keepdims=True)
    p = np.array([0.2, 0.5, 0.3])
    both = team_terminal_reach(tree, tabs, (0, 2), p, strats)
    parts = sum(team_terminal_reach(tree, tabs, (0, 2), [p[j]], {s: strats[s][j:j + 1] for s in (0, 2)})
                for j in range(3))
    assert np.allclose(both, parts, atol=1e-15)


def test_coalition_weights_need_every_seat():
    tree = build_tree(get_config("kuhn"))
    with pytest.raises(ValueError, match="cover every seat"):
        coalition_weights(tree, (0,), [])
