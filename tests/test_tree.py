"""The public tree: published sizes, structural invariants on every preset, and agreement with
an independent step-by-step simulator."""

import numpy as np
import pytest

from teamleduc.config import PRESETS, get_config
from teamleduc.infosets import infoset_tables
from teamleduc.payoffs import (
    chance_utility,
    deal_community_probabilities,
    deal_probabilities,
    deals,
    payoff_groups,
    utilities_at,
)
from teamleduc.tree import CHANCE, DECISION, TERMINAL, build_tree

from . import simulator


@pytest.mark.parametrize(
    "name, per_seat",
    [
        ("team-leduc", 147_660),  # the spec (the handout's "about 148 thousand")
        ("team-leduc-2025", 11_565),  # the 2025 edition
        ("leduc", 144),  # 288 in all, as in seed 004
        ("kuhn", 6),
        ("kuhn-100", 200),  # 400 in all, as in seed 003
    ],
)
def test_information_set_counts(name, per_seat):
    tables = infoset_tables(build_tree(get_config(name)))
    assert [t.size for t in tables] == [per_seat] * len(tables)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_conformance(name):
    """Invariants every preset must satisfy (like pgx's api_test)."""
    config = PRESETS[name]
    tree = build_tree(config)
    N = tree.num_nodes
    assert tree.parent[0] == -1 and (tree.parent[1:] < np.arange(1, N)).all()  # pre-order
    assert (tree.depth[1:] == tree.depth[tree.parent[1:]] + 1).all()
    dec = tree.kind == DECISION
    assert (tree.actor[dec] >= 0).all() and (tree.actor[~dec] == -1).all()
    assert (tree.legal[dec].sum(axis=1) >= 2).all()  # call and at least one more
    assert tree.legal[dec, 0].all()  # call/check is always legal
    # fold legal exactly when facing a bet (always, under RLCard's fold rule)
    facing = tree.contrib[dec, :].max(axis=1) > tree.contrib[np.flatnonzero(dec), tree.actor[dec]]
    assert (tree.legal[dec, 2] == (facing | (config.fold_rule == "always"))).all()
    # the actor is active; contributions never decrease; active seats only shrink
    assert tree.active[np.flatnonzero(dec), tree.actor[dec]].all()
    par = tree.parent[1:]
    assert (tree.contrib[1:] >= tree.contrib[par]).all()
    assert (tree.active[1:] <= tree.active[par]).all()
    # children/parent agree; terminals have no children
    kids = tree.children[tree.children >= 0]
    assert len(kids) == N - 1 and (np.sort(kids) == np.arange(1, N)).all()
    assert (tree.children[tree.kind == TERMINAL] == -1).all()
    # every terminal: one active seat, or a completed final round with matched bets
    term = tree.terminals
    alone = tree.active[term].sum(axis=1) == 1
    last_round = tree.round[term] == config.num_rounds - 1
    assert (alone | last_round).all()
    for z in term[~alone]:
        bets = tree.contrib[z][tree.active[z]]
        assert (bets == bets.max()).all()
    # chance nodes deal each rank once; a dealt small blind is the root chance, one edge per seat
    ch = tree.kind == CHANCE
    if config.dealt_blind:
        S = config.num_seats
        assert ch[0] and (tree.children[0, 3 : 3 + S] >= 0).all()
        assert (tree.children[0, 3 + S :] == -1).all() and (tree.children[0, :3] == -1).all()
        assert (tree.blind[0] == -1) and (tree.blind[1:] >= 0).all()
        ch[0] = False
    if config.has_community:
        assert (tree.children[ch, 3 : 3 + config.num_ranks] >= 0).all()
    else:
        assert not ch.any()
    # exact deal probabilities sum to 1
    assert deal_probabilities(config).sum() == pytest.approx(1.0, abs=1e-12)
    if config.has_community:
        assert deal_community_probabilities(config).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "name", ["tiny-team", "tiny-team-leduc", "kuhn-3p", "leduc", "small-team-leduc"]
)
def test_every_terminal_matches_an_independent_simulator(name):
    """The simulator enumerates every public history; the tree must have exactly those
    terminals (per community card) with the same payoffs for every deal."""
    config = get_config(name)
    tree = build_tree(config)
    histories = simulator.all_histories(config)
    term_index = {int(z): i for i, z in enumerate(tree.terminals)}
    found = set()
    x = deals(config)
    util = {s: chance_utility(tree, (s,)) for s in range(config.num_seats)}
    pdeal = deal_probabilities(config)
    pjoint = deal_community_probabilities(config) if config.has_community else None
    rng = np.random.default_rng(0)
    for hist, final in histories:
        went_to_round2 = any(r == 1 for r, _, _ in hist)
        communities = range(config.num_ranks) if went_to_round2 else [None]
        for comm in communities:
            node = 0
            for _r, seat, a in hist:
                if tree.kind[node] == CHANCE:
                    node = int(tree.children[node, 3 + comm])
                assert tree.kind[node] == DECISION and tree.actor[node] == seat
                node = int(tree.children[node, "crf".index(a)])
                assert node > 0
            assert tree.kind[node] == TERMINAL
            found.add(node)
            z = term_index[node]
            for d in rng.choice(len(x), size=min(len(x), 12), replace=False):
                cards = [int(c) for c in x[d]]
                u = simulator.utilities(
                    config, {"bets": list(final["bets"]), "alive": set(final["alive"])}, cards, comm
                )
                w = pdeal[d] if comm is None else pjoint[d, comm]
                for s in range(config.num_seats):
                    assert util[s][z, d] == pytest.approx(w * u[s], abs=1e-12)
    assert found == set(int(z) for z in tree.terminals)


def test_zero_sum_payoffs():
    tree = build_tree(get_config("small-team-leduc"))
    total = sum(chance_utility(tree, (s,)) for s in range(4))
    assert np.abs(total).max() < 1e-12
    a, b = chance_utility(tree, (0, 2)), chance_utility(tree, (1, 3))
    assert np.abs(a + b).max() < 1e-12


def test_levels_cover_every_node_once():
    tree = build_tree(get_config("team-leduc-2025"))
    allnodes = np.concatenate(tree.levels)
    assert (np.sort(allnodes) == np.arange(tree.num_nodes)).all()


@pytest.mark.parametrize(
    "name",
    ["kuhn", "leduc-3p", "tiny-team-3p", "tiny-team-leduc", "small-team-leduc", "team-leduc-2025"],
)
def test_payoff_groups_give_chance_utility(name):
    """Both forms of P x u from the per-group tables agree, and agree with utilities_at."""
    config = get_config(name)
    tree = build_tree(config)
    seats = tuple(config.teams[0])
    g = payoff_groups(tree, seats)
    cu = chance_utility(tree, seats)
    folded = g.pot[:, None] * g.ws[g.key] - g.paid[:, None] * g.weight[g.key]
    np.testing.assert_allclose(folded, cu, rtol=0, atol=1e-15)
    x = deals(config)
    pdeal = deal_probabilities(config)
    pjoint = deal_community_probabilities(config) if config.has_community else None
    rng = np.random.default_rng(0)
    for z in rng.choice(len(tree.terminals), size=min(40, len(tree.terminals)), replace=False):
        node = int(tree.terminals[z])
        y = int(tree.community[node])
        for d in range(len(x)):
            u = utilities_at(tree, node, [int(c) for c in x[d]], y)[list(seats)].sum()
            w = pdeal[d] if y < 0 else pjoint[d, y]
            assert cu[z, d] == pytest.approx(w * u, rel=0, abs=1e-15)
