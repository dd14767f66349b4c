"""The compiled regret and flow passes against a plain-Python reference of the same maths.

The reference below walks the belief DAG node by node with numpy on each row block, written
from the layout's definition (:mod:`teamleduc.dag.structure`) and not from the kernels: leaf
values from the team's weights ``W`` (``DagGame.weights``), values under the current strategy,
the DCFR (or predictive) regret update with regret matching, then the flows of the new strategy,
the average's increment and the terminal reach. Both kernels (serial, and level by level in
parallel, forced on these small trees) must give the same arrays, on strategies with zero-reach
subtrees (the other team plays a pure strategy) and with positive reach everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.dag import cfr_update, flows
from teamleduc.dag.structure import ROW_DTYPE, dag_game, passes_in_parallel

POS_F, NEG_F = 0.8, 0.5


def reference_update(game, team, T, reg, sigma, last, predictive):
    """(V, reg, sigma, last) after one regret update of ``team`` against the reach ``T``."""
    dag = game.dags[team]
    tree = dag.tree
    N, B = tree.num_nodes, dag.num_beliefs
    reg, sigma, last = reg.copy(), sigma.copy(), last.copy()
    W = game.weights(team, T)
    V = np.zeros((N + 1, B + 1))
    V[tree.terminals, :B] = W @ dag.contains.T  # a belief's value: the sum over its deals
    for h in range(N - 1, -1, -1):
        if tree.kind[h] == 2:
            continue
        if dag.member[h] < 0:
            V[h, :B] = sum(V[c, :B] for c in tree.children[h] if c >= 0)
        else:
            t = dag.table[h]
            base = dag.row0[h] - dag.tab_start[t]
            for b in range(B):
                if not dag.possible[h, b]:
                    continue
                lo, hi = dag.tab_offsets[t, b], dag.tab_offsets[t, b + 1]
                rows = base + np.arange(lo, hi)
                c, tc = dag.child_pad[h], dag.tab_child_pad[lo:hi]
                u = V[c[0], tc[:, 0]] + V[c[1], tc[:, 1]] + V[c[2], tc[:, 2]]
                ev = float(sigma[rows].astype(np.float64) @ u)
                V[h, b] = ev
                inst = u - ev
                x = reg[rows].astype(np.float64) + inst
                reg[rows] = (x * np.where(x > 0, POS_F, NEG_F)).astype(ROW_DTYPE)
                q = reg[rows].astype(np.float64)
                if predictive:
                    last[rows] = inst.astype(ROW_DTYPE)
                    q = q + last[rows].astype(np.float64)
                q = np.maximum(q, 0.0)
                total = q.sum()
                sigma[rows] = q / total if total > 0 else 1.0 / len(rows)
    return V, reg, sigma, last


def reference_flows(dag, sigma, cum, weight):
    """(F, terminal reach, cum + weight x row flows) of the behavioural strategy ``sigma``."""
    tree = dag.tree
    N, B = tree.num_nodes, dag.num_beliefs
    cum = cum.copy()
    F = np.zeros((N + 1, B + 1))
    F[0, dag.roots] = 1.0
    for h in range(N):  # children have larger ids than their parent
        if tree.kind[h] == 2:
            continue
        if dag.member[h] < 0:
            for c in tree.children[h]:
                if c >= 0:
                    F[c, :B] = F[h, :B]
            continue
        t = dag.table[h]
        base = dag.row0[h] - dag.tab_start[t]
        for b in range(B):
            if F[h, b] == 0.0:
                continue
            lo, hi = dag.tab_offsets[t, b], dag.tab_offsets[t, b + 1]
            e = F[h, b] * sigma[base + lo : base + hi].astype(np.float64)
            cum[base + lo : base + hi] += (weight * e).astype(ROW_DTYPE)
            for a in range(3):
                to = dag.tab_child[lo:hi, a]
                np.add.at(F[dag.child_pad[h, a]], to[to >= 0], e[to >= 0])
    reach = F[tree.terminals, :B] @ dag.contains  # a deal's reach: its beliefs' flows
    return F, reach, cum


def row_blocks(dag) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): the row range of every (team node, belief) that has rows."""
    lo, hi = [], []
    for h in np.flatnonzero((dag.member >= 0) & (dag.tree.kind != 2)):
        t = dag.table[h]
        base = dag.row0[h] - dag.tab_start[t]
        off = dag.tab_offsets[t]
        has = off[1:] > off[:-1]
        lo.append(base + off[:-1][has])
        hi.append(base + off[1:][has])
    return np.concatenate(lo), np.concatenate(hi)


def decided_rows(dag, reg, last, predictive) -> np.ndarray:
    """The rows whose matched strategy the regrets decide: every row but those of a
    (node, belief) whose largest positive regret is rounding noise (below 1e-10, where the
    values are of order 1). There, which row gets 1e-17 more depends on the order of the
    sums (the kernels may fuse a multiply-add), and the strategy with it."""
    q = reg.astype(np.float64) + (last.astype(np.float64) if predictive else 0.0)
    keep = np.ones(dag.num_rows, bool)
    for lo, hi in zip(*row_blocks(dag), strict=True):
        if q[lo:hi].max() < 1e-10:
            keep[lo:hi] = False
    return keep


def pure_rows(dag) -> np.ndarray:
    """A pure DAG strategy: the first row of every (team node, belief)."""
    sigma = np.zeros(dag.num_rows, ROW_DTYPE)
    for h in np.flatnonzero(dag.member >= 0):
        if dag.tree.kind[h] == 2:
            continue
        t = dag.table[h]
        base = dag.row0[h] - dag.tab_start[t]
        for b in range(dag.num_beliefs):
            if dag.tab_offsets[t, b + 1] > dag.tab_offsets[t, b]:
                sigma[base + dag.tab_offsets[t, b]] = 1.0
    return sigma


def iterated_state(game, iterations, predictive):
    """Regrets, strategies and averages after ``iterations`` alternating updates."""
    state = []
    for d in game.dags:
        state.append(
            {
                "reg": np.zeros(d.num_rows, ROW_DTYPE),
                "last": np.zeros(d.num_rows, ROW_DTYPE),
                "sigma": d.uniform_sigma(),
                "cum": np.zeros(d.num_rows, ROW_DTYPE),
            }
        )
    reach = [flows(d, state[k]["sigma"], d.new_values()) for k, d in enumerate(game.dags)]
    for it in range(iterations):
        for k, d in enumerate(game.dags):
            s = state[k]
            cfr_update(
                game, k, reach[1 - k], d.new_values(), s["reg"], s["sigma"], s["last"],
                POS_F, NEG_F, predictive,
            )  # fmt: skip
            reach[k] = flows(d, s["sigma"], d.new_values(), s["cum"], float(it + 1))
    return state, reach


CASES = [
    ("tiny-team-leduc", False, False),
    ("tiny-team-leduc", False, True),
    ("tiny-team-leduc", True, False),
    ("tiny-team-leduc", True, True),
    ("small-team-leduc", False, False),  # 9 x 9 joint ranks: the leaves' own loops
    ("small-team-leduc", False, True),
]


@pytest.mark.parametrize(("preset", "predictive", "parallel"), CASES)
def test_passes_equal_the_reference(preset, predictive, parallel):
    game = dag_game(get_config(preset))
    with passes_in_parallel(parallel):
        state, reach = iterated_state(game, 4, predictive)
        for team in (0, 1):
            dag, other = game.dags[team], game.dags[1 - team]
            s = state[team]
            pure_reach = flows(other, pure_rows(other), other.new_values())
            for T in (reach[1 - team], pure_reach):
                want = reference_update(game, team, T, s["reg"], s["sigma"], s["last"], predictive)
                reg, sigma, last = s["reg"].copy(), s["sigma"].copy(), s["last"].copy()
                V = dag.new_values()
                value = cfr_update(game, team, T, V, reg, sigma, last, POS_F, NEG_F, predictive)
                N, B = dag.tree.num_nodes, dag.num_beliefs
                np.testing.assert_allclose(V[:N, :B], want[0][:N, :B], rtol=1e-12, atol=1e-15)
                assert value == pytest.approx(dag.root_value(want[0]), rel=1e-12, abs=1e-15)
                np.testing.assert_allclose(reg, want[1], rtol=1e-6, atol=1e-9)
                keep = decided_rows(dag, want[1], want[3], predictive)
                assert keep.mean() > 0.5
                np.testing.assert_allclose(sigma[keep], want[2][keep], rtol=1e-6, atol=1e-7)
                lo, _ = row_blocks(dag)  # every strategy sums to one, decided or not
                np.testing.assert_allclose(np.add.reduceat(sigma, lo), 1.0, rtol=1e-6)
                if predictive:
                    np.testing.assert_allclose(last, want[3], rtol=1e-6, atol=1e-9)

                F = dag.new_values()
                cum = s["cum"].copy()
                got_reach = flows(dag, sigma, F, cum, 7.0)
                F_ref, reach_ref, cum_ref = reference_flows(dag, sigma, s["cum"], 7.0)
                np.testing.assert_allclose(F[:N, :B], F_ref[:N, :B], rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(got_reach, reach_ref, rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(cum, cum_ref, rtol=1e-6, atol=1e-9)
            # the pure opponent leaves subtrees the team's values are all zero in (the
            # kernel's skipped gathers), and the iterated one reaches more of them
            zero = ~(V[:N, :B] != 0).any(axis=1)
            assert zero.any() and not zero.all()
