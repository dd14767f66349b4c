"""Chance probabilities and payoffs (teamleduc.payoffs) against card counts and hands worked out
by hand."""

from __future__ import annotations

import itertools
from collections import Counter
from math import perm

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.payoffs import (
    chance_utility,
    deal_community_probabilities,
    deal_probabilities,
    deal_rank_index,
    deals,
    payoff_groups,
    showdown_shares,
    utilities_at,
)
from teamleduc.rules import CALL, FOLD, RAISE
from teamleduc.tree import CHANCE, TERMINAL, build_tree

J, Q, K = 0, 1, 2
CHAR = {"c": CALL, "r": RAISE, "f": FOLD}


def node_at(tree, history: str) -> int:
    """The node reached by ``history``: round-1 actions, then ``/X/`` with the community rank
    X (J, Q or K) and the round-2 actions, e.g. ``"rffc/J/crrc"``."""
    parts = history.split("/")
    node = 0
    for k, actions in enumerate(parts[::2]):
        if k == 1:
            assert tree.kind[node] == CHANCE
            node = int(tree.children[node, 3 + "JQK".index(parts[1])])
        for a in actions:
            node = int(tree.children[node, CHAR[a]])
            assert node >= 0, history
    return node


def card_counts(config, with_community: bool) -> Counter:
    """How many ordered deals of actual cards (suits told apart) give each tuple of ranks."""
    deck = [r for r in range(config.num_ranks) for _ in range(config.suits)]
    n = config.num_seats + with_community
    return Counter(tuple(deck[i] for i in p) for p in itertools.permutations(range(len(deck)), n))


@pytest.mark.parametrize("preset", ["kuhn", "leduc", "tiny-team-leduc", "team-leduc"])
def test_deal_probabilities_are_card_counts(preset):
    config = get_config(preset)
    counts = card_counts(config, with_community=False)
    total = perm(config.num_cards, config.num_seats)
    assert sum(counts.values()) == total
    x = deals(config)
    assert x.shape == (config.num_ranks**config.num_seats, config.num_seats)
    expected = np.array([counts.get(tuple(row), 0) for row in x.tolist()]) / total
    p = deal_probabilities(config)
    assert np.array_equal(p, expected)
    assert abs(p.sum() - 1.0) < 1e-15


def test_deal_probabilities_by_hand():
    leduc = deal_probabilities(get_config("leduc"))
    assert deals(get_config("leduc"))[1].tolist() == [J, Q]  # C order, seat 1 most significant
    assert leduc[1] == pytest.approx(2 * 2 / (6 * 5), abs=0)  # P(J, Q)
    assert leduc[0] == pytest.approx(2 * 1 / (6 * 5), abs=0)  # P(J, J)
    kuhn = deal_probabilities(get_config("kuhn"))
    assert kuhn.tolist() == [0, 1 / 6, 1 / 6, 1 / 6, 0, 1 / 6, 1 / 6, 1 / 6, 0]
    team = get_config("team-leduc")
    p = deal_probabilities(team)
    index = {tuple(r): d for d, r in enumerate(deals(team).tolist())}
    assert p[index[J, Q, Q, K]] == pytest.approx(2 * 2 * 1 * 2 / 360, rel=1e-15)
    assert p[index[K, K, J, J]] == pytest.approx(2 * 1 * 2 * 1 / 360, rel=1e-15)
    assert p[index[J, J, J, Q]] == 0  # only two jacks


@pytest.mark.parametrize("preset", ["leduc", "tiny-team-leduc", "team-leduc"])
def test_community_probabilities_given_a_deal(preset):
    config = get_config(preset)
    counts = card_counts(config, with_community=True)
    total = perm(config.num_cards, config.num_seats + 1)
    joint = deal_community_probabilities(config)
    x = deals(config).tolist()
    expected = (
        np.array([[counts.get((*row, y), 0) for y in range(config.num_ranks)] for row in x]) / total
    )
    np.testing.assert_allclose(joint, expected, rtol=1e-14, atol=0)
    np.testing.assert_allclose(joint.sum(axis=1), deal_probabilities(config), rtol=1e-14)


def test_community_probabilities_by_hand():
    joint = deal_community_probabilities(get_config("leduc"))
    d = J * 3 + Q
    # after J and Q are dealt, 4 cards are left: one J, one Q, two K
    assert joint[d].tolist() == pytest.approx([4 / 30 * 1 / 4, 4 / 30 * 1 / 4, 4 / 30 * 2 / 4])
    d = K * 3 + K
    assert joint[d].tolist() == pytest.approx([2 / 30 * 2 / 4, 2 / 30 * 2 / 4, 0.0])


def test_deal_rank_index():
    config = get_config("team-leduc")
    x = deals(config)
    idx = deal_rank_index(config, (3, 0))
    assert np.array_equal(idx, x[:, 3] * 3 + x[:, 0])
    assert np.array_equal(deal_rank_index(config, range(4)), np.arange(81))


def test_showdown_shares_two_players():
    config = get_config("leduc")
    both = np.array([True, True])

    def share(x, community, seats):
        return showdown_shares(config, both, community, seats)[x[0] * 3 + x[1]]

    assert share((J, Q), K, (0,)) == 0.0 and share((J, Q), K, (1,)) == 1.0
    assert share((J, K), J, (0,)) == 1.0  # the pair of jacks beats the king
    assert share((Q, Q), K, (0,)) == 0.5 and share((Q, Q), K, (1,)) == 0.5  # tie: split
    # seat 2 folded: seat 1 takes the whole pot whatever the cards
    folded = showdown_shares(config, np.array([True, False]), -1, (0,))
    assert folded.tolist() == [1.0] * 9


def test_showdown_shares_of_a_team():
    config = get_config("team-leduc")
    index = {tuple(r): d for d, r in enumerate(deals(config).tolist())}
    all_in = np.ones(4, bool)
    team_a = showdown_shares(config, all_in, Q, (0, 2))
    team_b = showdown_shares(config, all_in, Q, (1, 3))
    assert team_a[index[K, J, K, J]] == 1.0  # both members tie on top
    assert showdown_shares(config, all_in, Q, (0,))[index[K, J, K, J]] == 0.5
    assert team_a[index[K, K, J, J]] == 0.5  # seat 1 and seat 2 tie
    assert team_a[index[K, K, Q, J]] == 1.0  # seat 3 pairs the queen
    np.testing.assert_array_equal(team_a + team_b, 1.0)
    # three-way tie among the active seats of tiny-team-leduc (three suits)
    tiny = get_config("tiny-team-leduc")
    d = int(np.flatnonzero((deals(tiny) == (1, 1, 1, 0)).all(axis=1))[0])
    active = np.array([True, True, True, False])
    assert showdown_shares(tiny, active, 0, (0, 2))[d] == pytest.approx(2 / 3)
    assert showdown_shares(tiny, active, 0, (1,))[d] == pytest.approx(1 / 3)
    assert showdown_shares(tiny, np.ones(4, bool), 0, (3,))[d] == 1.0  # seat 4's pair


def test_utilities_at_the_handout_sample_hand():
    tree = build_tree(get_config("team-leduc"))
    node = node_at(tree, "rffc/J/crrc")
    assert tree.kind[node] == TERMINAL and tree.community[node] == J
    assert tree.contrib[node].tolist() == [11, 1, 1, 11]
    u = utilities_at(tree, node, (J, Q, Q, K), community=J)
    assert u.tolist() == [13, -1, -1, -11]
    # the same hand in the payoff tables of team A: utility 12, P(deal, community) = 1/90
    g = payoff_groups(tree, (0, 2))
    z = int(np.searchsorted(tree.terminals, node))
    d = ((J * 3 + Q) * 3 + Q) * 3 + K
    k = g.key[z]
    assert g.share[k, d] * g.pot[z] - g.paid[z] == 12
    assert g.weight[k, d] == pytest.approx((2 * 2 * 1 * 2) / 360 * 1 / 2, rel=1e-15)
    with pytest.raises(ValueError, match="is not terminal"):
        utilities_at(tree, node_at(tree, "rffc"), (J, Q, Q, K))


def test_utilities_at_leduc_hands():
    tree = build_tree(get_config("leduc"))
    node = node_at(tree, "rc/J/rrc")  # 3 each after round 1, then 4 + 4: 11 each
    assert tree.contrib[node].tolist() == [11, 11]
    assert utilities_at(tree, node, (J, K), community=J).tolist() == [11, -11]
    assert utilities_at(tree, node, (J, K), community=Q).tolist() == [-11, 11]
    assert utilities_at(tree, node, (Q, Q), community=K).tolist() == [0, 0]
    fold = node_at(tree, "crrf")  # seat 2 raises to 3, seat 1 to 5, seat 2 folds
    assert tree.contrib[fold].tolist() == [5, 3]
    # the folder loses what it put in, whatever the cards
    assert utilities_at(tree, fold, (J, K)).tolist() == [3, -3]


def test_chance_utility_by_hand_on_kuhn():
    config = get_config("kuhn")
    tree = build_tree(config)
    u = chance_utility(tree, (0,))
    assert u.shape == (len(tree.terminals), 9)
    x = deals(config).tolist()
    z = int(np.searchsorted(tree.terminals, node_at(tree, "cc")))
    expected = [0.0 if a == b else (1 / 6 if a > b else -1 / 6) for a, b in x]
    assert u[z].tolist() == pytest.approx(expected, abs=1e-15)
    z = int(np.searchsorted(tree.terminals, node_at(tree, "rf")))
    assert u[z].tolist() == pytest.approx([0.0 if a == b else 1 / 6 for a, b in x], abs=1e-15)
    z = int(np.searchsorted(tree.terminals, node_at(tree, "crc")))
    expected = [0.0 if a == b else (2 / 6 if a > b else -2 / 6) for a, b in x]
    assert u[z].tolist() == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("preset", "sides"),
    [("kuhn", ((0,), (1,))), ("leduc", ((0,), (1,))), ("tiny-team-leduc", ((0, 2), (1, 3)))],
)
def test_chance_utility_is_zero_sum(preset, sides):
    tree = build_tree(get_config(preset))
    a, b = (chance_utility(tree, s) for s in sides)
    np.testing.assert_allclose(a + b, 0.0, atol=1e-15)
    assert np.abs(a).max() > 0.01  # not zero-sum because it is all zero
    # each seat's utilities add up to its side's
    if len(sides[0]) == 2:
        one = chance_utility(tree, (0,)) + chance_utility(tree, (2,))
        np.testing.assert_allclose(one, a, atol=1e-15)


def _dense_payoffs(game):
    """The whole (Z, XA, XB) chance-payoff tensor of a two-team game, team A's ranks first."""
    config, tree = game.config, game.tree
    a, b = (tuple(sorted(t)) for t in config.teams)
    R, S, Z = config.num_ranks, config.num_seats, len(tree.terminals)
    cu = chance_utility(tree, a).reshape((Z,) + (R,) * S)
    cu = cu.transpose([0] + [1 + s for s in a] + [1 + s for s in b])
    return np.ascontiguousarray(cu).reshape(Z, R ** len(a), R ** len(b))


@pytest.mark.parametrize(
    "preset", ["leduc", "tiny-team", "tiny-team-3p", "tiny-team-leduc", "small-team-leduc"]
)
def test_the_solver_payoff_table_holds_every_terminal_bit_for_bit(preset):
    from teamleduc.dag import dag_game

    game = dag_game(get_config(preset))
    dense = _dense_payoffs(game)
    assert game.C_index.shape == (len(game.tree.terminals),)
    assert np.array_equal(game.C_table[game.C_index].view(np.uint64), dense.view(np.uint64))
    flat = game.C_table.reshape(len(game.C_table), -1).view(np.uint64)
    assert len(np.unique(flat, axis=0)) == len(flat) < len(dense)  # each matrix once
    # numbered in order of first terminal, every entry used
    firsts = np.unique(game.C_index, return_index=True)[1]
    assert np.array_equal(np.sort(firsts), firsts) and len(firsts) == len(flat)


@pytest.mark.parametrize("preset", ["tiny-team-leduc", "small-team-leduc"])
def test_weights_from_the_payoff_table_are_the_sums_over_the_whole_tensor(preset):
    from teamleduc.dag import dag_game

    game = dag_game(get_config(preset))
    dense = _dense_payoffs(game)
    rng = np.random.default_rng(3)
    Z, XA, XB = dense.shape
    for team, X_other in ((0, XB), (1, XA)):
        T = rng.random((Z, X_other)) * (rng.random((Z, 1)) < 0.7)  # some terminals unreached
        want = (
            np.einsum("zab,zb->za", dense, T) if team == 0 else -np.einsum("zab,za->zb", dense, T)
        )
        np.testing.assert_allclose(game.weights(team, T), want, rtol=1e-12, atol=1e-15)
        with pytest.raises(ValueError, match="reach_other has shape"):
            game.weights(team, T[:, :-1])
