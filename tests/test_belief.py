"""Team beliefs, prescription tables and the max DP against an independent brute force.

The brute force here shares nothing with :mod:`teamleduc.best_response_dp`: it enumerates, by recursion on
the public tree, every *reduced plan* of one seat (a choice at every decision node the seat can
still reach under its own earlier choices), turns each plan into a 0/1 reach vector over the
terminals, and maximises the bilinear team value over every joint pure strategy (one plan per
member and rank).
"""

import functools
import itertools

import numpy as np
import pytest

from teamleduc.best_response_dp import argmax_actions, leaf_values, max_dp
from teamleduc.config import get_config
from teamleduc.dag import best_values, dag_game, flows, prescription_table, seats_dag, team_beliefs
from teamleduc.files.model import Submission
from teamleduc.infosets import infoset_tables
from teamleduc.reach import team_reach
from teamleduc.tree import DECISION, TERMINAL, build_tree

# --------------------------------------------------------------------------- brute force


def seat_plans(tree, seat):
    """Every reduced pure plan of ``seat`` (same for every rank): list of {node: action}."""
    kind, actor, children = tree.kind, tree.actor, tree.children

    def rec(h):
        if kind[h] == TERMINAL:
            return [{}]
        kids = [int(c) for c in children[h] if c >= 0]
        if kind[h] == DECISION and actor[h] == seat:
            out = []
            for a in range(3):
                c = int(children[h, a])
                if c >= 0:
                    out += [{h: a, **p} for p in rec(c)]
            return out
        out = [{}]
        for c in kids:
            sub = rec(c)
            out = [{**p, **q} for p in out for q in sub]
        return out

    return rec(0)


def plan_reach(tree, seat, plans):
    """(n_plans, Z) 0/1: does the plan keep every own action on the path to terminal z."""
    term = tree.terminals
    paths = [tree.path(int(z)) for z in term]
    out = np.zeros((len(plans), len(term)))
    for i, plan in enumerate(plans):
        for k, path in enumerate(paths):
            ok = True
            for a, b in zip(path, path[1:]):
                if tree.kind[a] == DECISION and tree.actor[a] == seat:
                    if plan.get(a) != tree.action[b]:
                        ok = False
                        break
            out[i, k] = ok
    return out


@functools.cache
def plans_reach(name, seat):
    tree = build_tree(get_config(name))
    return plan_reach(tree, seat, seat_plans(tree, seat))


def brute_force_team_max(tree, seats, W, literal=False):
    """max over every joint pure strategy of ``sum_z sum_x W[z, x] T[z, x]``.

    A joint pure strategy is one reduced plan per (member, rank). One member: sum over ranks of
    the best plan. Two members with two ranks: plans a, b of member 1 (ranks 0, 1) and c, d of
    member 2; the value is ``F00[a,c] + F01[a,d] + F10[b,c] + F11[b,d]``. ``literal`` enumerates
    all four indices (numpy broadcasting over b, c, d); otherwise for each (a, b) the exact
    maximum over (c, d) is taken as ``max_c (F00[a,c] + F10[b,c]) + max_d (F01[a,d] + F11[b,d])``
    (the two terms share no variable), which is the same maximum, faster.
    """
    name = tree.config.name
    R = tree.config.num_ranks
    Z = len(tree.terminals)
    if len(seats) == 1:
        P = plans_reach(name, seats[0])  # (n, Z)
        return float(sum((P @ W[:, x]).max() for x in range(R)))
    assert R == 2, "enumeration written for two ranks"
    P1, P2 = plans_reach(name, seats[0]), plans_reach(name, seats[1])
    W3 = W.reshape(Z, R, R)
    # F[x1][x2][p, q]: value of the rank pair (x1, x2) with member 1 on plan p, member 2 on q
    F = [[(P1 * W3[:, x1, x2]) @ P2.T for x2 in range(R)] for x1 in range(R)]
    if not literal:
        c_part = (F[0][0][:, None, :] + F[1][0][None, :, :]).max(axis=2)  # (a, b)
        d_part = (F[0][1][:, None, :] + F[1][1][None, :, :]).max(axis=2)
        return float((c_part + d_part).max())
    best = -np.inf
    for a in range(P1.shape[0]):
        total = (
            F[0][0][a][None, :, None]
            + F[0][1][a][None, None, :]
            + F[1][0][:, :, None]
            + F[1][1][:, None, :]
        )
        best = max(best, float(total.max()))
    return best


def team_value(tree, seats, actions, W):
    """Exact value of a pure joint strategy {seat: (n,) action} under weights W."""
    strat = {s: np.eye(3)[actions[s]][None] for s in seats}
    T = team_reach(tree, Submission([0], [1.0], tuple(seats), strat), seats)
    return float((W * T).sum())


# --------------------------------------------------------------------------- beliefs


def test_team_of_two_layout():
    b = team_beliefs(get_config("team-leduc"), (2, 0))
    assert b.seats == (0, 2)
    assert b.num_beliefs == 49
    assert b.roots.tolist() == [48]
    assert b.masks[48].tolist() == [7, 7]
    for i, (s1, s2) in enumerate(b.masks.tolist()):
        assert i == (s1 - 1) * 7 + (s2 - 1) == b.index((s1, s2))
        for x1, x2 in itertools.product(range(3), repeat=2):
            assert b.contains[i, x1 * 3 + x2] == float(bool(s1 >> x1 & 1) and bool(s2 >> x2 & 1))
    assert b.describe(48) == "({J,Q,K},{J,Q,K})"
    assert team_beliefs(get_config("team-leduc"), (0, 2)) is b  # cached


def test_team_of_one_layout():
    b = team_beliefs(get_config("kuhn-100"), (1,))
    assert b.num_beliefs == 100
    assert b.roots.tolist() == list(range(100))
    assert (b.contains == np.eye(100)).all()
    assert b.masks[:, 0].tolist() == [1 << x for x in range(100)]


def test_rejects_bad_teams():
    with pytest.raises(ValueError):
        team_beliefs(get_config("team-leduc"), (0, 1, 2))
    with pytest.raises(ValueError):
        team_beliefs(get_config("kuhn-100"), (0, 1))
    with pytest.raises(ValueError):
        team_beliefs(get_config("kuhn"), (0, 5))


@pytest.mark.parametrize("legal", [(1, 1, 1), (1, 1, 0), (1, 0, 1), (1, 0, 0)])
@pytest.mark.parametrize("member", [0, 1])
def test_prescription_table_semantics(legal, member):
    b = team_beliefs(get_config("team-leduc"), (0, 2))
    t = prescription_table(b, member, legal)
    L = sum(legal)
    # rows: every map S_member -> legal actions, for every belief
    sizes = [L ** bin(int(m[member])).count("1") for m in b.masks]
    assert t.num_rows == sum(sizes)
    if legal == (1, 1, 1):
        assert t.num_rows == 441
    assert (np.diff(t.offsets) == sizes).all() and t.offsets[0] == 0
    assert (np.diff(t.belief) >= 0).all()
    assert (t.belief == np.repeat(np.arange(49), sizes)).all()
    seen = set()
    for p in range(t.num_rows):
        parent = b.masks[t.belief[p]]
        mine = int(parent[member])
        assign = t.assign[p]
        key = (int(t.belief[p]), tuple(assign.tolist()))
        assert key not in seen
        seen.add(key)
        for r in range(3):
            assert (assign[r] >= 0) == bool(mine >> r & 1)
            if assign[r] >= 0:
                assert legal[assign[r]]
        for a in range(3):
            pre = sum(1 << r for r in range(3) if assign[r] == a)
            if pre == 0:
                assert t.child[p, a] == -1
            else:
                child = b.masks[t.child[p, a]]
                assert child[member] == pre and child[1 - member] == parent[1 - member]


def test_team_of_one_prescriptions():
    b = team_beliefs(get_config("kuhn"), (0,))
    t = prescription_table(b, 0, (True, True, False))
    assert t.num_rows == 6
    for p in range(6):
        x = t.belief[p]
        a = t.assign[p, x]
        assert t.child[p].tolist() == [x if k == a else -1 for k in range(3)]


def test_dag_tables_cover_member_nodes():
    tree = build_tree(get_config("tiny-team-leduc"))
    b = team_beliefs(tree, (1, 3))
    dag = seats_dag(tree, (1, 3))
    mem = (tree.kind == DECISION) & np.isin(tree.actor, [1, 3])
    assert ((dag.member >= 0) == mem).all()
    for h in np.flatnonzero(mem)[:50]:
        t = prescription_table(b, dag.member[h], tree.legal[h])
        k = dag.table[h]
        lo = dag.tab_start[k]
        assert (dag.tab_child[lo : lo + t.num_rows] == t.child).all()
        assert (dag.tab_offsets[k] - lo == t.offsets).all()


def test_max_dp_is_the_solver_best_response():
    """max_dp (two level buffers, every belief) and the solver's best_values (full V, pruned
    to reachable beliefs) run one kernel: same value; the reachable beliefs are exactly where
    the uniform DAG strategy has flow."""
    game = dag_game(get_config("tiny-team-leduc"))
    tree = game.tree
    for team, d in enumerate(game.dags):
        other = game.dags[1 - team]
        T = flows(other, other.uniform_sigma(), other.new_values())
        V = d.new_values()
        v = best_values(game, team, T, V)
        dp = max_dp(tree, d.beliefs, game.weights(team, T))
        assert dp.value == pytest.approx(v, abs=1e-12)
        F = d.new_values()
        flows(d, d.uniform_sigma(), F)
        assert (d.possible == (F[:-1, :-1] > 0)).all()


def test_leaf_values():
    b = team_beliefs(get_config("tiny-team"), (0, 2))
    W = np.random.default_rng(0).normal(size=(5, 4))
    V = leaf_values(b, W)
    for i, (s1, s2) in enumerate(b.masks.tolist()):
        want = sum(
            W[:, x1 * 2 + x2] for x1 in range(2) for x2 in range(2) if s1 >> x1 & 1 and s2 >> x2 & 1
        )
        assert np.allclose(V[:, i], want)


# --------------------------------------------------------------------------- the max DP


@pytest.mark.parametrize(
    "name,seats",
    [
        ("tiny-team-3p", (0, 2)),
        ("tiny-team", (0, 2)),
        ("tiny-team", (1, 3)),
        ("tiny-team-3p", (1,)),
        ("kuhn", (0,)),
        ("kuhn", (1,)),
        ("kuhn-3p", (2,)),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_max_dp_equals_brute_force(name, seats, seed):
    """Random weights: the DP maximum is the maximum over every joint pure strategy, and the
    extracted strategy attains it."""
    tree = build_tree(get_config(name))
    R = tree.config.num_ranks
    W = np.random.default_rng(seed).normal(size=(len(tree.terminals), R ** len(seats)))
    b = team_beliefs(tree, seats)
    dp = max_dp(tree, b, W)
    want = brute_force_team_max(tree, seats, W)
    assert dp.value == pytest.approx(want, rel=1e-12, abs=1e-12)
    if name == "tiny-team" and seats == (0, 2) and seed == 0:
        assert brute_force_team_max(tree, seats, W, literal=True) == pytest.approx(want, abs=1e-12)
    acts = argmax_actions(tree, dp)
    assert team_value(tree, seats, acts, W) == pytest.approx(dp.value, rel=1e-12, abs=1e-12)


def test_argmax_actions_are_legal_everywhere():
    tree = build_tree(get_config("small-team-leduc"))
    tabs = infoset_tables(tree)
    b = team_beliefs(tree, (0, 2))
    W = np.random.default_rng(5).normal(size=(len(tree.terminals), 9))
    acts = argmax_actions(tree, max_dp(tree, b, W))
    for s in (0, 2):
        assert acts[s].shape == (tabs[s].size,)
        assert tabs[s].legal[np.arange(tabs[s].size), acts[s]].all()


def test_max_dp_is_at_least_every_random_pure_strategy():
    tree = build_tree(get_config("small-team-leduc"))
    tabs = infoset_tables(tree)
    b = team_beliefs(tree, (1, 3))
    rng = np.random.default_rng(9)
    W = rng.normal(size=(len(tree.terminals), 9))
    dp = max_dp(tree, b, W)
    assert team_value(tree, (1, 3), argmax_actions(tree, dp), W) == pytest.approx(
        dp.value, abs=1e-10
    )
    for _ in range(20):
        acts = {}
        for s in (1, 3):
            u = rng.random(tabs[s].legal.shape) * tabs[s].legal
            acts[s] = np.argmax(u, axis=1)
        assert team_value(tree, (1, 3), acts, W) <= dp.value + 1e-12


def test_root_values_of_all_beliefs_are_consistent():
    """V[root, b] for a sub-belief equals the DP with W zeroed outside that belief."""
    tree = build_tree(get_config("tiny-team"))
    b = team_beliefs(tree, (0, 2))
    W = np.random.default_rng(2).normal(size=(len(tree.terminals), 4))
    dp = max_dp(tree, b, W)
    for i in range(b.num_beliefs):
        masked = W * b.contains[i][None, :]
        assert dp.root_values[i] == pytest.approx(max_dp(tree, b, masked).value, abs=1e-12)
