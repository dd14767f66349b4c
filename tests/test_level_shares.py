"""The runs of equal work the parallel passes hand to their threads
(:func:`teamleduc.dag.structure.level_shares`): cuts that cover every level once, loads within
one node of the mean, and the same bits whatever the cuts (which thread runs a node changes
nothing)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.dag import best_values, cfr_update, flows, max_dp_levels, passes
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
        # the max DP values its terminals inside the level loop: every deal of every belief
        best = node_costs(dag, "max")
        assert (best[tree.kind != 2] == costs[tree.kind != 2]).all()
        entries = sum(len(np.flatnonzero(dag.contains[b])) for b in range(dag.num_beliefs))
        assert (best[tree.kind == 2] == entries + dag.num_beliefs).all()
    with pytest.raises(ValueError, match="work must be one of regret, flow, max, got 'rows'"):
        node_costs(game.dags[0], "rows")


def test_the_flow_pass_counts_non_terminal_nodes(small):
    """The flow pass's model: every non-terminal node alike, so its runs hold equal numbers
    of them (up to one)."""
    tree = small.tree
    for dag in small.dags:
        costs = node_costs(dag, "flow")
        assert (costs == (tree.kind != 2)).all()
        sw = sweep(tree)
        inner = np.concatenate([[0], np.cumsum(tree.kind[sw.order] != 2)])
        cuts = level_shares(dag, 4, "flow")
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
    def cuts(dag, work):
        sw = sweep(dag.tree)
        if kind == "one":
            return np.stack([sw.bounds[:-1], sw.bounds[1:]], axis=1)
        if kind == "counts":
            lo, hi = sw.bounds[:-1], sw.bounds[1:]
            return lo[:, None] + ((hi - lo)[:, None] * np.arange(6)[None, :]) // 5
        return level_shares(dag, 7, "flow" if work != "flow" else "regret")  # another model

    return cuts


def _passes(game, state, reach, predictive):
    """Every output of the regret, flow and max-DP passes of both teams from ``state``."""
    out = []
    for team in (0, 1):
        dag, s = game.dags[team], state[team]
        reg, sigma, last = s["reg"].copy(), s["sigma"].copy(), s["last"].copy()
        V = dag.new_values()
        value = cfr_update(
            game, team, reach[1 - team], V, reg, sigma, last, POS_F, NEG_F, predictive
        )
        F, cum = dag.new_values(), s["cum"].copy()
        terminal = flows(dag, sigma, F, cum, 3.0)
        best = dag.new_values()
        best_value = best_values(game, team, reach[1 - team], best)
        roots, choice = max_dp_levels(dag, game.weights(team, reach[1 - team]), parallel=True)
        # no thread writes the dummy node's row of F: a missing child's flows go to the
        # thread's own spare row (threads writing one shared row had waited on each other)
        assert not F[game.tree.num_nodes].any()
        out += [value, V, reg, sigma, last, F, cum, terminal, best_value, best]
        out += [roots, choice]
    return out


@pytest.mark.parametrize("predictive", [False, True])
def test_the_same_bits_whatever_the_cuts(small, predictive, monkeypatch):
    """The regret, flow and max-DP passes give the same bits with the cuts of 1 and of 2
    threads, one run per level, five runs of equal node counts and seven runs of another
    pass's model."""
    threads = numba.get_num_threads()
    with passes_in_parallel(True):
        state, reach = iterated_state(small, 3, predictive)
        results = []
        try:
            for n in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
                numba.set_num_threads(n)
                results.append(_passes(small, state, reach, predictive))
        finally:
            numba.set_num_threads(threads)
        for kind in ("one", "counts", "seven"):
            monkeypatch.setattr(passes, "_shares", _other_cuts(kind))
            results.append(_passes(small, state, reach, predictive))
            monkeypatch.undo()
    assert len(results) >= 4
    for other in results[1:]:
        for i, (x, y) in enumerate(zip(results[0], other, strict=True)):
            np.testing.assert_array_equal(x, y, err_msg=f"output {i}")
