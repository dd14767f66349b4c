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


def test_a_bad_setting_ends_the_benchmark_in_one_line(monkeypatch):
    monkeypatch.setenv("TEAMLEDUC_BENCH_GAMMAS", "2,nan")
    with pytest.raises(SystemExit, match="TEAMLEDUC_BENCH_GAMMAS"):
        bench.main()
