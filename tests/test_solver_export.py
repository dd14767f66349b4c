"""The LP export of the solver (:mod:`teamleduc.solver.export`): the correlation kept, the
newest candidates used.
"""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.best_response import exploitability
from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import dcfr

from .solving import GUARD_SECONDS


def test_export_keeps_the_correlation():
    """Averaging members' marginals into one behaviour profile loses value; the export does not."""
    from teamleduc.dag import flows, marginals
    from teamleduc.solver.candidates import Candidates
    from teamleduc.solver.dag_cfr import RegretMinimizer
    from teamleduc.solver.export import export, merge_submission
    from teamleduc.solver.mixtures import ProductStrategy, TeamMixture

    config = get_config("tiny-team-leduc")
    rm = RegretMinimizer(config, dcfr())
    cand = Candidates()
    for _ in range(20):
        rm.iterate(100)
        rm.measure(0.0, cand)
    avg = rm.measure()
    rm.add_export_candidates(cand)
    ex = export(rm.game, cand, time_limit=30)
    assert ex.gap <= 1e-9
    v = ex.lower
    # the decorrelated profile: each member's average marginal, one signal
    mixtures = []
    for team, dag in enumerate(rm.game.dags):
        sig = rm.average_sigma(team)
        flows(dag, sig, rm.F[team])
        mixtures.append(
            TeamMixture(
                team,
                dag.seats,
                np.array([1.0]),
                (ProductStrategy(dag.seats, marginals(dag, sig, rm.F[team])),),
            )
        )
    flat = exploitability(config, merge_submission(rm.game, mixtures))
    assert avg.lower - 1e-9 <= v <= avg.upper + 1e-9
    assert flat.worst_case_a < v - 0.02  # team A loses more than 2 cents per hand
    assert flat.gap > 100 * avg.gap


def test_export_starts_from_the_newest_average_only():
    """Candidates drawn from five averages of one run (30 to 2,400 iterations): the export
    uses the newest batch alone and is exact. With every batch it loaded all of them (about
    400 per team) and, in 60 s, exported 1.2e-3 (here 6e-4, with 596 and 605 columns); after
    a long run with a target, ``solve`` on this game ended at 4.5e-3 although a 2 s run is
    exact."""
    from teamleduc.solver.candidates import Candidates
    from teamleduc.solver.dag_cfr import RegretMinimizer
    from teamleduc.solver.export import export

    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    cand = Candidates()
    for t in (30, 120, 480, 1200, 2400):
        rm.iterate(t - rm.t)
        rm.measure(0.0, cand)
        rm.add_export_candidates(cand)
    assert cand.batch == 5
    newest = [len(cand.newest(team)) for team in (0, 1)]
    assert all(0 < n < len(items) / 2 for n, items in zip(newest, cand.items))
    ex = export(rm.game, cand, time_limit=GUARD_SECONDS, target_gap=1e-9)
    assert ex.gap <= 1e-9
    assert ex.lower == pytest.approx(0.1319361388, abs=1e-9)
    # the restricted games held the newest candidates and the generated columns only
    assert all(c <= n + ex.rounds + 1 for c, n in zip(ex.columns, newest))
