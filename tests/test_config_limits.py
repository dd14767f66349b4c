"""The limits get_config puts on a game: chips that fit the tree's int32 contributions (the
largest pot at most MAX_POT = 2**30) and betting sequences that the recursive tree walks can
follow (at most MAX_DEPTH actions from the root). Each is refused by name; right at the limit
the numbers are exact and correctly signed."""

import sys

import numpy as np
import pytest

import teamleduc.api as tl
from teamleduc.config import MAX_COMMUNITY_RANKS, MAX_DEPTH, MAX_POT, PRESETS, get_config
from teamleduc.errors import ArgumentValueError
from teamleduc.payoffs import chance_utility, utilities_at
from teamleduc.tree import TERMINAL, _round_template, build_tree


def test_the_limits_are_what_the_messages_say():
    assert MAX_POT == 2**30 and MAX_DEPTH == 200 and MAX_COMMUNITY_RANKS == 127


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_well_inside_the_limits(name):
    c = PRESETS[name]
    assert c.num_seats * c._max_contribution() <= 1000
    assert c._max_depth() <= 50


# -- chips: int32 contributions --------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {"ante": 2**31 - 1},  # the audit's silently wrong +2147483648.0
        {"ante": 2**31 - 2},
        {"ante": 2**31},  # was OverflowError in tree.py
        {"ante": 10**30},
        {"raise_sizes": (10**30,)},
        {"ante": MAX_POT // 2},  # one above the largest
    ],
)
def test_chips_beyond_int32_are_refused_by_name(overrides):
    with pytest.raises(ArgumentValueError) as info:
        get_config("kuhn", **overrides)
    message = str(info.value)
    assert "ante=" in message and "raise_sizes=" in message
    assert "MAX_POT = 2**30 = 1,073,741,824" in message
    if "ante" in overrides:  # (2**30 / 2 seats) - 1 raise of 1
        assert "ante may be at most 536,870,911" in message


def test_the_largest_ante_gives_the_exact_value():
    """kuhn, ante 2**29 - 1: the aggressive seat 1 with J bets 1, always-call calls with Q and
    wins the showdown; seat 1 loses ante + 1 = 2**29 chips, exactly and negative."""
    ante = MAX_POT // 2 - 1
    c = get_config("kuhn", ante=ante)
    tree = build_tree(c)
    assert int(tree.contrib.max()) == ante + 1 == 2**29
    assert int(tree.pot.max()) == MAX_POT
    assert tl.evaluate("aggressive", "always-call", c, cards="J,Q").value == -(2**29)
    assert tl.evaluate("aggressive", "always-call", c, cards="K,Q").value == 2**29
    assert tl.evaluate("always-call", "always-call", c, cards="Q,J").value == ante


def test_the_largest_pot_of_a_team_game_is_exact():
    """tiny-team-leduc (4 seats, raises 1 and 2, cap 1): each seat puts in at most ante + 3, so
    the largest ante is 2**28 - 3; at the pot of 2**30 every utility is an exact integer."""
    ante = MAX_POT // 4 - 3
    c = get_config("tiny-team-leduc", ante=ante)
    with pytest.raises(ArgumentValueError, match=r"ante may be at most 268,435,453"):
        get_config("tiny-team-leduc", ante=ante + 1)
    tree = build_tree(c)
    assert int(tree.contrib.max()) == ante + 3
    node = int(np.argmax(tree.pot))
    assert tree.kind[node] == TERMINAL and int(tree.pot[node]) == MAX_POT
    assert tree.active[node].all()
    u = utilities_at(tree, node, (1, 0, 0, 0), community=1)  # seat 1's pair of K wins alone
    assert u.tolist() == [3 * (ante + 3), -(ante + 3), -(ante + 3), -(ante + 3)]
    u = utilities_at(tree, node, (1, 0, 1, 0), community=1)  # seats 1 and 3 split
    assert u.tolist() == [ante + 3, -(ante + 3), ante + 3, -(ante + 3)]
    cu = chance_utility(tree, (0, 2))
    assert np.isfinite(cu).all() and np.abs(cu).max() <= MAX_POT


def test_blinds_count_toward_the_pot():
    with pytest.raises(ArgumentValueError, match=r"blinds=\(1, 536870912\).*MAX_POT"):
        get_config("rlcard-leduc", blinds=(1, 2**29))


def test_a_stack_bounds_the_contributions():
    """With a stack no seat puts in more than it: a huge stack under a small cap is fine, a
    stack itself above the limit is refused naming it."""
    c = get_config("leduc-stack50", raise_rule="cap", max_raises=2, stack=10**12)
    assert c._max_contribution() == 1 + 2 * 2 + 2 * 4
    with pytest.raises(ArgumentValueError, match=r"stack=1000000000: .*MAX_POT"):
        get_config(
            "leduc-stack50", raise_rule="cap", max_raises=2, stack=10**9, raise_sizes=(10**9,) * 2
        )


# -- depth: the recursive tree walks ---------------------------------------------------------


def test_max_raises_beyond_the_depth_limit_is_refused_by_name():
    for value in (1000, 10**9, 199):  # 1000 was a RecursionError in build_tree
        with pytest.raises(ArgumentValueError) as info:
            get_config("kuhn", max_raises=value)
        message = str(info.value)
        assert f"max_raises={value}" in message and "max_raises may be at most 198" in message
        assert "limit is 200" in message
    with pytest.raises(ArgumentValueError, match="max_raises may be at most 97"):
        get_config("leduc", max_raises=98)  # two rounds and the community card


def test_the_deepest_allowed_tree_builds_with_room_on_the_stack():
    """kuhn with max_raises 198: its longest line is exactly MAX_DEPTH actions, and it builds
    even when the caller already used most of Python's default recursion limit."""
    c = get_config("kuhn", max_raises=198)
    assert c._max_depth() == MAX_DEPTH
    build_tree.cache_clear()
    _round_template.cache_clear()  # the round is built (recursively) again, down there

    def deep(n):
        return build_tree(c) if n == 0 else deep(n - 1)

    used = len(__import__("inspect").stack(0))
    limit = sys.getrecursionlimit()
    tree = deep(max(0, min(limit, 1000) - used - MAX_DEPTH - 100))  # ~700 frames in use
    assert int(tree.depth.max()) == MAX_DEPTH
    assert tree.num_nodes == 6 * 198 + 3  # kuhn: 6 nodes per raise of the cap, plus 3


def test_other_causes_of_deep_betting_are_refused_by_name():
    with pytest.raises(ArgumentValueError, match=r"num_seats=60 with the once-per-player"):
        get_config(
            "team-leduc",
            num_seats=60,
            ranks=tuple(str(k) for k in range(31)),
            teams=(tuple(range(60)),),
        )
    with pytest.raises(ArgumentValueError, match=r"stack=10000 with raise_sizes=\(2, 4\)"):
        get_config("leduc-stack50", stack=10**4)  # no cap: the stack ends the betting


def test_community_ranks_fit_the_tree():
    ranks = tuple(str(k) for k in range(MAX_COMMUNITY_RANKS + 1))
    with pytest.raises(ArgumentValueError, match=r"ranks: 128 ranks with a community card"):
        get_config("leduc", ranks=ranks, suits=1)
    assert get_config("kuhn", ranks=ranks).num_ranks == 128  # no community card: no limit here


def test_the_node_count_is_the_built_trees_and_a_huge_tree_is_refused_unbuilt():
    """count_nodes counts a game's public tree without building it: equal to the built tree
    on every preset and on variants of each rule (raise caps, stacks, blinds and the dealt
    small blind, three seats); a game above MAX_TREE_NODES is refused naming its count, in
    well under a second, where building it would take gigabytes."""
    import time

    from teamleduc.tree import MAX_TREE_NODES, count_nodes

    variants = [get_config(name) for name in PRESETS if name != "team-leduc"]
    variants += [
        get_config("kuhn-3p", max_raises=3),
        get_config("leduc", max_raises=4),
        get_config("tiny-team-leduc", max_raises=2),
        get_config("leduc-stack50", stack=30),
        get_config("rlcard-leduc", max_raises=3),
        get_config("leduc-3p", max_raises=3),
    ]
    for config in variants:
        assert count_nodes(config) == build_tree(config).num_nodes, config.name
    assert count_nodes(get_config("team-leduc")) == 448_532  # the docs' figure
    huge = get_config("kuhn-3p", max_raises=20)
    started = time.process_time()
    assert count_nodes(huge) == 31_457_074 > MAX_TREE_NODES
    with pytest.raises(ArgumentValueError, match=r"kuhn-3p: its public tree has 31,457,074 nodes"):
        build_tree(huge)
    assert time.process_time() - started < 30  # counted, not built (about 0.4 s)
