"""The runs of equal work the parallel passes hand to their threads
(:func:`teamleduc.dag.structure.level_shares`): cuts that cover every level once, loads within
one node of the mean, and the same bits whatever the cuts (which thread runs a node changes
nothing)."""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.dag import best_values, cfr_update, flows, passes
from teamleduc.dag.structure import (
    dag_game,
    level_shares,
    node_costs,
    passes_in_parallel,
    sweep,
    work_cuts,
)

from .test_dag_passes_reference import NEG_F, POS_F, iterated_state


@pytest.fixture(scope="module")
def small():
    return dag_game(get_config("small-team-leduc"))


@pytest.mark.parametrize("threads", [1, 2, 3, 16, 200])
def test_cuts_cover_each_level_in_runs_of_about_equal_work(small, threads):
    for dag in small.dags:
        sw = sweep(dag.tree)
        cuts = level_shares(dag, threads)
        assert cuts.shape == (len(sw.bounds) - 1, threads + 1) and cuts.dtype == np.int64
        assert (cuts[:, 0] == sw.bounds[:-1]).all() and (cuts[:, -1] == sw.bounds[1:]).all()
        assert (np.diff(cuts, axis=1) >= 0).all()
        costs = node_costs(dag)[sw.order]
        total = np.concatenate([[0.0], np.cumsum(costs)])
        loads = total[cuts[:, 1:]] - total[cuts[:, :-1]]
        for lev, (lo, hi) in enumerate(zip(sw.bounds[:-1], sw.bounds[1:], strict=True)):
            share = (total[hi] - total[lo]) / threads
            biggest = costs[lo:hi].max(initial=0.0)
            assert loads[lev].max() <= share + biggest + 1e-9
            assert loads[lev].sum() == pytest.approx(total[hi] - total[lo])


def test_node_costs_are_rows_plus_a_constant():
    game = dag_game(get_config("tiny-team-leduc"))
    tree = game.tree
    for dag in game.dags:
        costs = node_costs(dag)
        assert (costs[tree.kind == 2] == 0).all()
        others = (tree.kind != 2) & (dag.member < 0)
        assert (costs[others] == 20.0).all()
        team = (tree.kind != 2) & (dag.member >= 0)
        assert costs[team].sum() == dag.num_rows + 20.0 * team.sum()


def test_the_flow_pass_counts_non_terminal_nodes(small):
    """The flow pass's model: every non-terminal node alike, so its runs hold equal numbers
    of them (up to one)."""
    tree = small.tree
    for dag in small.dags:
        costs = node_costs(dag, flow=True)
        assert (costs == (tree.kind != 2)).all()
        sw = sweep(tree)
        inner = np.concatenate([[0], np.cumsum(tree.kind[sw.order] != 2)])
        cuts = level_shares(dag, 4, flow=True)
        counts = inner[cuts[:, 1:]] - inner[cuts[:, :-1]]
        assert (counts.max(axis=1) - counts.min(axis=1) <= 1).all()
        assert not np.array_equal(cuts, level_shares(dag, 4))  # the regret pass's differ


def test_work_cuts_by_hand():
    costs = np.array([1.0, 1, 1, 1, 4, 4, 4, 4, 5, 0, 0])
    cuts = work_cuts(costs, np.array([0, 8, 11]), 2)
    assert cuts.tolist() == [[0, 6, 8], [8, 9, 11]]  # 12 + 8; 5 + 0
    assert work_cuts(costs, np.array([0, 8, 11]), 1).tolist() == [[0, 8], [8, 11]]
    # an empty level, and a level of no cost: every run but the last is empty
    empty = work_cuts(np.zeros(3), np.array([0, 0, 3]), 4)
    assert empty.tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 0, 3]]
    with pytest.raises(ValueError, match="threads must be at least 1"):
        work_cuts(costs, np.array([0, 11]), 0)


def _other_cuts(kind: str):
    def cuts(dag, flow=False):
        sw = sweep(dag.tree)
        if kind == "one":
            return np.stack([sw.bounds[:-1], sw.bounds[1:]], axis=1)
        if kind == "counts":
            lo, hi = sw.bounds[:-1], sw.bounds[1:]
            return lo[:, None] + ((hi - lo)[:, None] * np.arange(6)[None, :]) // 5
        return level_shares(dag, 7, not flow)  # the other pass's model

    return cuts


@pytest.mark.parametrize("predictive", [False, True])
def test_the_same_bits_whatever_the_cuts(small, predictive, monkeypatch):
    """The regret, flow and max-DP passes give the same bits with one run per level, five runs
    of equal node counts, seven runs of equal work and the cuts of the threads numba has."""
    with passes_in_parallel(True):
        state, reach = iterated_state(small, 3, predictive)
        results = []
        for kind in ("now", "one", "counts", "seven"):
            if kind != "now":
                monkeypatch.setattr(passes, "_shares", _other_cuts(kind))
            got = []
            for team in (0, 1):
                dag, s = small.dags[team], state[team]
                reg, sigma, last = s["reg"].copy(), s["sigma"].copy(), s["last"].copy()
                V = dag.new_values()
                value = cfr_update(
                    small, team, reach[1 - team], V, reg, sigma, last, POS_F, NEG_F, predictive
                )
                F, cum = dag.new_values(), s["cum"].copy()
                out = flows(dag, sigma, F, cum, 3.0)
                best = dag.new_values()
                bv = best_values(small, team, reach[1 - team], best)
                got.append((value, V, reg, sigma, last, F, cum, out, bv, best))
            results.append(got)
            monkeypatch.undo()
    names = ("value", "V", "reg", "sigma", "last", "F", "cum", "reach", "best value", "best V")
    N = small.tree.num_nodes
    for other in results[1:]:
        for team, (a, b) in enumerate(zip(results[0], other, strict=True)):
            for name, x, y in zip(names, a, b, strict=True):
                if name in ("V", "F", "best V"):  # the dummy node and belief: scratch
                    x, y = (
                        x[:N, : small.dags[team].num_beliefs],
                        y[:N, : small.dags[team].num_beliefs],
                    )
                np.testing.assert_array_equal(x, y, err_msg=f"team {team}: {name}")
