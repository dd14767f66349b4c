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
