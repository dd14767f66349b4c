"""The roofline benchmark's byte counts (benchmarks/bench_roofline.py) against the arrays'
sizes worked out here from the DAG's dimensions and the layout's dtypes, and its triad on a
small array. Nothing is timed."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from benchmarks import bench_roofline as roof
from teamleduc.config import get_config
from teamleduc.dag import dag_game
from teamleduc.dag.structure import level_shares, node_costs, sweep, work_cuts


@pytest.fixture(scope="module")
def state():
    s = roof.DcfrState.start(dag_game(get_config("tiny-team-leduc")))
    s.iterate()
    return s


def _dims(game, k):
    d = game.dags[k]
    N, B = game.tree.num_nodes, d.num_beliefs
    return {
        "N": N,
        "B": B,
        "rows": d.num_rows,
        "Z": len(game.tree.terminals),
        "X": d.num_deals,
        "tables": d.tab_start.size,
        "P": d.tab_child.shape[0],
        "nnz": int(np.count_nonzero(d.contains)),
        "children": game.tree.children.shape[1],
    }


def _index_bytes(n):
    """kind, children, child_pad, member, table, row0, tab_offsets, tab_start, tab_child_pad,
    cx_ptr, cx_idx, terminals: the index arrays both cfr_update and flows read."""
    N, B = n["N"], n["B"]
    return (
        N  # kind int8
        + N * n["children"] * 4  # children int32
        + N * 3 * 4  # child_pad int32
        + N  # member int8
        + N * 2  # table int16
        + N * 8  # row0 int64
        + n["tables"] * (B + 1) * 8  # tab_offsets int64
        + n["tables"] * 8  # tab_start int64
        + n["P"] * 3 * 4  # tab_child_pad int32
        + (B + 1) * 8  # cx_ptr int64
        + n["nnz"] * 4  # cx_idx int32
        + n["Z"] * 4  # terminals int32
    )


def test_dcfr_passes_count_the_arrays_they_touch(state):
    game = state.game
    assert not roof.sweep(game.tree).parallel  # serial passes: no level order to read
    passes = roof.dcfr_passes(state)
    assert [p.name for p in passes] == [
        "cfr_update A",
        "flows + average A",
        "cfr_update B",
        "flows + average B",
    ]
    threads = numba.get_num_threads()
    for k in (0, 1):
        n, o = _dims(game, k), _dims(game, 1 - k)
        d = game.dags[k]
        rows = n["rows"] * 4  # float32
        values = (n["N"] + 1) * (n["B"] + 1) * 8  # float64 with the dummy row and column
        scratch = threads * (d.max_rows + n["X"]) * 8
        cfr = (
            _index_bytes(n)
            + n["N"] * n["B"]  # possible, bool
            + game.C_table.nbytes  # the payoffs' distinct matrices, read once
            + n["Z"] * 4  # and each terminal's entry of them, int32
            + n["Z"] * o["X"] * 8  # the other team's reach
            + 2 * values  # V written, read by the parents
            + 2 * rows  # regrets read and rewritten
            + 2 * rows  # strategy read and rewritten
            + 2 * scratch
        )
        flow = (
            _index_bytes(n)
            + rows  # strategy read
            + 2 * values  # F
            + 2 * n["Z"] * n["X"] * 8  # terminal reach out
            + 2 * rows  # average read and rewritten
        )
        assert passes[2 * k].bytes == cfr
        assert passes[2 * k + 1].bytes == flow
        for p in passes[2 * k : 2 * k + 2]:
            by_name = {a.name: a for a in p.arrays}
            assert by_name["sigma"].nbytes == rows
            assert by_name["F" if "flows" in p.name else "V"].traffic == 2 * values
        assert {a.name for a in passes[2 * k].arrays if a.written} >= {"V", "reg", "sigma"}
        assert 0.9 < passes[2 * k].visited <= 1.0


def test_best_response_and_refinement_count_their_arrays(state):
    game = state.game
    n, o = _dims(game, 1), _dims(game, 0)
    weights, max_dp, walk = roof.best_response_passes(state, team=1)
    payoffs = game.C_table.nbytes + n["Z"] * 4  # the distinct matrices and each terminal's entry
    assert weights.bytes == payoffs + n["Z"] * o["X"] * 8 + n["Z"] * n["X"] * 8
    sw = roof.sweep(game.tree)
    level = (sw.width + 1) * (n["B"] + 1) * 8
    team_nodes = int(np.count_nonzero(game.dags[1].member >= 0))
    by_name = {a.name: a for a in max_dp.arrays}
    assert by_name["V level a"].traffic == by_name["V level b"].traffic == 2 * level
    assert by_name["choice"].traffic == team_nodes * n["B"] * 4
    assert by_name["W"].traffic == n["Z"] * n["X"] * 8
    assert "sigma" not in by_name and "reg" not in by_name  # no row arrays in the max DP
    assert "sweep.order" in by_name  # the max DP walks the levels in both variants
    assert walk.bytes > 0
    refine = roof.refinement_passes(state, team=0)
    assert [p.name for p in refine] == ["cfr_update B", "flows B", "weights W A"]
    assert refine[0].bytes == roof.dcfr_passes(state)[2].bytes
    assert "cum" not in {a.name for a in refine[1].arrays}


def test_visited_share_counts_rows():
    d = dag_game(get_config("tiny-team-leduc")).dags[0]
    everywhere = np.ones((d.tree.num_nodes, d.num_beliefs), bool)
    assert roof.visited_share(d, everywhere) == 1.0
    assert roof.visited_share(d, ~everywhere) == 0.0


def test_triad_measures_a_finite_positive_bandwidth():
    gbs, allocate = roof.triad_gbs(1 << 16, 2)
    assert math.isfinite(gbs) and gbs > 0
    assert allocate == pytest.approx(gbs * 32 / 24)


def test_arrays_fall_in_their_groups():
    assert roof.Access("reg", 4).group == "float32 rows"
    assert roof.Access("F", 8).group == "float64 values/flows"
    assert roof.Access("C", 8).group == "payoffs and reaches"
    assert roof.Access("C index", 4).group == "payoffs and reaches"
    assert roof.Access("dag.row0", 8).group == "index and other"


def test_visited_bytes_scale_the_rows_only(state):
    cfr, flow = roof.dcfr_passes(state)[:2]
    rows = 4 * state.game.dags[0].num_rows
    assert 0.0 < flow.visited < 1.0  # zero-flow beliefs are skipped
    assert flow.visited_bytes == pytest.approx(flow.bytes - (1 - flow.visited) * 3 * rows)
    assert cfr.visited_bytes == pytest.approx(cfr.bytes - (1 - cfr.visited) * 4 * rows)


def test_balance_of_node_counts_and_of_equal_work():
    """Hand-computed: a level of four cheap nodes then four costly ones, on 2 threads."""
    costs = np.array([1.0, 1, 1, 1, 4, 4, 4, 4])
    bounds = np.array([0, 8])
    assert roof.count_cuts(bounds, 2).tolist() == [[0, 4, 8]]
    assert roof.balance(costs, roof.count_cuts(bounds, 2)) == pytest.approx(10 / 16)  # 4, 16
    cuts = work_cuts(costs, bounds, 2)
    assert cuts.tolist() == [[0, 6, 8]]  # the running total reaches 10 at node 6: 12 and 8
    assert roof.balance(costs, cuts) == pytest.approx(10 / 12)
    # two levels add their mean and slowest loads; a level of no cost counts nothing
    costs = np.array([2.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0])
    bounds = np.array([0, 2, 4, 7])
    assert roof.balance(costs, roof.count_cuts(bounds, 2)) == pytest.approx((1 + 3) / (2 + 3))
    assert roof.balance(costs, work_cuts(costs, bounds, 2)) == pytest.approx((1 + 3) / (2 + 3))


def test_the_balance_table_models_the_passes_cuts(state, capsys):
    dag = state.game.dags[0]
    roof.balance_table(dag, counts=(1, 2, 4))
    lines = capsys.readouterr().out.splitlines()[2:]
    ones = [float(x) for x in lines[0].split()[1:]]
    assert ones == [1.0, 1.0]  # one thread is always busy
    costs = node_costs(dag)[sweep(dag.tree).order]
    for line, n in zip(lines, (1, 2, 4), strict=True):
        work, count = (float(x) for x in line.split()[1:])
        assert work == pytest.approx(roof.balance(costs, level_shares(dag, n)), abs=0.005)
        assert count == pytest.approx(roof.balance(costs, roof.count_shares(dag, n)), abs=0.005)
        assert work >= count - 0.005
