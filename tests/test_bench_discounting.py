"""DCFR's averaging exponent: the solver's dcfr weighs iteration t by t**3, the cfr:N baselines
and the agents keep the published t**2, and the discounting benchmark
(benchmarks/bench_discounting.py) prints the exact gaps of each exponent."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_discounting as bench
from teamleduc.agents.cfr import _discounting
from teamleduc.config import get_config
from teamleduc.solver.cfr_baseline import solver_average
from teamleduc.solver.dag_cfr import SOLVER_DCFR_GAMMA, VARIANTS, RegretMinimizer, dcfr
from teamleduc.solver.stratify import stratified_mixture


def test_the_solver_averages_with_t_cubed_and_the_published_variants_with_t_squared():
    assert SOLVER_DCFR_GAMMA == 3.0
    assert VARIANTS["dcfr"] == dcfr(gamma=3.0)
    assert VARIANTS["dcfr"].weight(4) == 64.0
    assert dcfr().weight(4) == 16.0  # Brown and Sandholm's recommended (1.5, 0, 2)
    assert _discounting("dcfr") == dcfr()  # the agents study reproduces the original
    assert _discounting("cfr+") == VARIANTS["cfr+"]


def test_the_cfr_baseline_is_published_dcfr():
    """``cfr:N`` is DCFR with t**2 averages, as its documentation and earlier gradings say."""
    config = get_config("kuhn")
    base = solver_average(config, 7)

    def one_signal(discounting):
        rm = RegretMinimizer(config, discounting)
        rm.iterate(7)
        out = {}
        for team, (seat,) in enumerate(config.teams):
            mix = stratified_mixture(rm.game, team, rm.average_sigma(team), 1)
            out[seat] = np.asarray(mix.items[0].probs[seat], dtype=np.float64)
        return out

    published, tuned = one_signal(dcfr()), one_signal(VARIANTS["dcfr"])
    for seat, probs in base.items():
        assert np.array_equal(probs, published[seat])
    assert any(not np.allclose(base[s], tuned[s]) for s in base)  # the two do differ


def test_the_benchmark_prints_the_exact_gaps_of_each_exponent():
    counts = (5, 12)
    lines = bench.table("tiny-team-leduc", [2.0, 3.0], counts)
    assert lines[0].startswith("tiny-team-leduc: exact gap of DCFR's averages after 5, 12")
    for gamma, line in zip((2.0, 3.0), lines[1:], strict=True):
        rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr(gamma=gamma))
        expected = []
        for n in counts:
            rm.iterate(n - rm.iterations)
            expected.append(rm.measure().gap)
        cells = [tok for tok in line.split()[2:] if not tok.startswith("(")]
        printed = [float(tok) for tok in cells[: len(counts)]]
        assert printed == pytest.approx(expected, rel=1e-3)  # printed to 4 digits
    assert lines[2].endswith("<- the solver's") and not lines[1].endswith("<- the solver's")
    assert "x)" in lines[2] and "x)" not in lines[1]  # ratios against gamma 2


@pytest.mark.parametrize("value", ["2,nan", "1000", "-1", "x"])
def test_a_bad_exponent_ends_the_benchmark_in_one_line(monkeypatch, value):
    monkeypatch.setenv("TEAMLEDUC_BENCH_PRESETS", "tiny-team-leduc")
    monkeypatch.setenv("TEAMLEDUC_BENCH_GAMMAS", value)
    with pytest.raises(SystemExit, match="TEAMLEDUC_BENCH_GAMMAS"):
        bench.main()


@pytest.mark.parametrize("value", ["leduc-3p", "no-such-game", ","])
def test_a_preset_without_two_teams_ends_the_benchmark_in_one_line(monkeypatch, value):
    monkeypatch.setenv("TEAMLEDUC_BENCH_PRESETS", value)
    with pytest.raises(SystemExit, match="TEAMLEDUC_BENCH_PRESETS"):
        bench.main()


def test_a_checkpoint_of_t_squared_averages_resumes_with_their_weight_rescaled():
    """A checkpoint from before 0.4.7 (no ``gamma``: averages of t**2) loaded into the solver's
    dcfr (t**3): the cumulative strategies are scaled by sum s**3 / sum s**2, so the average is
    unchanged and the next iteration weighs against the whole history as t**3 would."""
    config = get_config("tiny-team-leduc")
    old = RegretMinimizer(config, dcfr())
    old.iterate(20)
    state = {k: np.array(v, copy=True) for k, v in old.state().items()}
    assert float(state["gamma"]) == 2.0  # what checkpoint.load gives a file without it
    new = RegretMinimizer(config, VARIANTS["dcfr"])
    new.load_state(state)
    scale = sum(s**3 for s in range(1, 21)) / sum(s**2 for s in range(1, 21))  # 44100 / 2870
    for k in (0, 1):
        np.testing.assert_allclose(new.cum[k], old.cum[k] * np.float32(scale), rtol=1e-6)
        np.testing.assert_allclose(new.average_sigma(k), old.average_sigma(k), atol=1e-6)
    same = RegretMinimizer(config, VARIANTS["dcfr"])
    same.iterate(3)
    again = RegretMinimizer(config, VARIANTS["dcfr"])
    again.load_state(same.state())  # the same exponent: bit for bit
    for k in (0, 1):
        assert np.array_equal(again.cum[k], same.cum[k])


def test_check_state_refuses_an_exponent_outside_its_range(tmp_path):
    from teamleduc.solver.checkpoint import CheckpointError, check_state

    rm = RegretMinimizer(get_config("tiny-team-leduc"), VARIANTS["dcfr"])
    rm.iterate(2)
    state = dict(rm.state())
    check_state(tmp_path, state, rm.state())
    state["gamma"] = np.array(100.0)
    with pytest.raises(CheckpointError, match="averaging exponent 100.0"):
        check_state(tmp_path, state, rm.state())
