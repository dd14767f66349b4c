"""The regret minimisers on the belief DAGs (:mod:`teamleduc.solver.dag_cfr`)."""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import cfr_plus, dcfr


@pytest.mark.parametrize("method", ["dcfr", "pcfr+"])
@pytest.mark.parametrize("preset", ["tiny-team", "tiny-team-leduc"])
def test_the_current_strategy_is_recomputed_from_the_regrets_bit_for_bit(method, preset):
    """Checkpoints keep regrets (and pcfr+'s last regrets), not the current strategy: the
    regret matching of a resumed run must give the solver's own strategy, every bit."""
    from teamleduc.dag import match_regrets
    from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer

    rm = RegretMinimizer(get_config(preset), VARIANTS[method])
    for _ in range(4):
        rm.iterate(7)
        for k, d in enumerate(rm.game.dags):
            pred = rm.discounting.predictive
            got = match_regrets(d, rm.reg[k], rm.last[k], pred)
            np.testing.assert_array_equal(got, rm.sigma[k])
            assert got.dtype == rm.sigma[k].dtype
    assert not np.array_equal(rm.sigma[0], rm.game.dags[0].uniform_sigma())
    assert "sigma0" not in rm.state()


def test_discounting_factors():
    assert cfr_plus().factors(7) == (1.0, 0.0)
    pos, neg = dcfr().factors(1)
    assert (pos, neg) == (0.5, 0.5)
    pos, neg = dcfr().factors(4)
    assert pos == pytest.approx(8 / 9) and neg == pytest.approx(0.5)
    assert dcfr().weight(3) == 9.0


@pytest.mark.parametrize("method", ["dcfr", "cfr+", "pcfr+"])
@pytest.mark.parametrize("preset", ["kuhn", "leduc", "tiny-team-leduc"])
def test_the_average_reach_is_the_reach_of_the_average_strategy(method, preset):
    """The measured average's terminal reach is the weighted mean of the iterates' reaches
    (kept in float64 as the run goes): the reach of the behavioural strategy of the
    cumulative strategy, to its float32 rounding; a valid reach (non-negative, each team's
    deal marginals summing to the chance probability of the deal at every public line)."""
    from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer

    rm = RegretMinimizer(get_config(preset), VARIANTS[method])
    np.testing.assert_array_equal(rm.average_reach(0), rm.reach[0])  # t = 0: the iterate
    weights = 0.0
    sums = [np.zeros_like(r) for r in rm.reach]
    for t in range(1, 41):
        rm.iterate(1)
        w = rm.discounting.weight(t)
        weights += w
        for k in (0, 1):
            sums[k] += w * rm.reach[k]  # the iterate's own reach, recomputed by the test
    assert rm.weight_sum == weights
    for k in (0, 1):
        got = rm.average_reach(k)
        np.testing.assert_allclose(got, sums[k] / weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got, rm._reach_of_cum(k), rtol=0, atol=2e-6)
        assert got.min() >= 0.0
    m = rm.measure()
    assert m.lower <= m.upper + 1e-12


def test_measure_uses_the_reach_sums_and_they_are_checkpointed():
    """``measure`` reads the average's reach from the reach sums, which the state keeps, so a
    resumed run measures the same bounds bit for bit; state without them (a checkpoint from
    before 0.4.8) rebuilds them from the cumulative strategy; sums that are not the reach of
    the cumulative strategy are refused."""
    from teamleduc.solver.dag_cfr import VARIANTS, RegretMinimizer

    config = get_config("tiny-team-leduc")
    rm = RegretMinimizer(config, VARIANTS["dcfr"])
    rm.iterate(30)
    state = {k: np.array(v, copy=True) for k, v in rm.state().items()}
    again = RegretMinimizer(config, VARIANTS["dcfr"])
    again.load_state(state)
    for k in (0, 1):
        np.testing.assert_array_equal(again.reach_sum[k], rm.reach_sum[k])
    rm.iterate(5)
    again.iterate(5)
    a, b = rm.measure(), again.measure()
    assert (a.lower, a.upper) == (b.lower, b.upper)
    old = RegretMinimizer(config, VARIANTS["dcfr"])
    old.load_state({k: v for k, v in state.items() if not k.startswith("rsum")})
    for k in (0, 1):
        w = old.weight_sum
        np.testing.assert_allclose(old.reach_sum[k] / w, state[f"rsum{k}"] / w, atol=2e-6)
    for bad in (state["rsum0"] * 1.5, state["rsum0"][::-1].copy()):
        with pytest.raises(ValueError, match="rsum0 .*not the reach of its cumulative"):
            RegretMinimizer(config, VARIANTS["dcfr"]).load_state({**state, "rsum0": bad})
    # both sums and the weight scaled alike keep the average but not the weight of t
    # iterations: the next iterations would outweigh (or not move) the history
    scaled = {**state, "wsum": state["wsum"] * 1e-200}
    scaled.update(rsum0=state["rsum0"] * 1e-200, rsum1=state["rsum1"] * 1e-200)
    with pytest.raises(ValueError, match="weight sum .* is not that of 30 iterations"):
        RegretMinimizer(config, VARIANTS["dcfr"]).load_state(scaled)


def test_power_sum_is_the_running_sum_and_its_formula_beyond():
    """The weight of t iterations: the running sum's own bits up to EXACT_POWER_SUM (a 0.4.7
    checkpoint resumes exactly), the Euler-Maclaurin formula beyond (1e-12 relative for the
    solver's exponents)."""
    from teamleduc.solver.dag_cfr import EXACT_POWER_SUM, power_sum

    for gamma in (1.0, 2.0, 3.0):
        running = 0.0
        for s in range(1, 1001):
            running += float(s) ** gamma
        assert power_sum(1000, gamma) == running
        t = EXACT_POWER_SUM + 1
        exact = sum(float(s) ** gamma for s in range(1, t + 1))
        assert power_sum(t, gamma) == pytest.approx(exact, rel=1e-11)
    assert power_sum(0, 3.0) == 0.0
    assert power_sum(10**12, 3.0) == pytest.approx(10**48 / 4, rel=1e-9)  # constant time
