"""Stratified signals (:mod:`teamleduc.solver.stratify`): the signals share the average's flow
exactly, pure signals are exported exactly, one signal is the members' marginals, more signals
keep more of the correlation, and both teams' signals merge into K, not 2K - 1."""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.dag import flows, marginals, product_reach
from teamleduc.files.model import merge_team_mixtures
from teamleduc.infosets import infoset_tables
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr
from teamleduc.solver.export import guaranteed_value
from teamleduc.solver.stratify import private_nodes, stratified_counts, stratified_mixture


@pytest.fixture(scope="module")
def averaged():
    """tiny-team-leduc after 300 DCFR iterations, and both teams' average DAG strategies."""
    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(300)
    return rm.game, [rm.average_sigma(k) for k in (0, 1)]


def _mixture_reach(dag, mixture) -> np.ndarray:
    return sum(
        w * product_reach(dag, item.probs) for w, item in zip(mixture.weights, mixture.items)
    )


@pytest.mark.parametrize("signals", [1, 2, 7, 40])
def test_signals_share_the_average_flow_exactly(averaged, signals):
    game, sig = averaged
    for team, dag in enumerate(game.dags):
        _, reach = stratified_counts(game, team, sig[team], signals, round_share=np.inf)
        expected = flows(dag, sig[team], dag.new_values())
        np.testing.assert_allclose(reach, expected, atol=1e-6)  # float32 strategies


def test_pure_signals_are_exported_exactly(averaged):
    """Rounding every straddling signal makes every signal pure wherever the team-mate still
    acts below (elsewhere it mixes on its own, which a product of marginals also plays
    exactly), so the exported products are exactly the signals' play."""
    game, sig = averaged
    tabs = infoset_tables(game.tree)
    for team, dag in enumerate(game.dags):
        private = private_nodes(dag)
        assert private.any() and not private[dag.member >= 0].all()
        counts, reach = stratified_counts(game, team, sig[team], 9, round_share=0.0)
        for s, num in counts.items():  # one action per reached information set
            shared = ~private[tabs[s].node]
            assert ((num[:, shared] > 0).sum(axis=2) <= 1).all()
        mix = stratified_mixture(game, team, sig[team], 9, round_share=0.0)
        np.testing.assert_allclose(_mixture_reach(dag, mix), reach, atol=1e-12)
        assert np.abs(reach - flows(dag, sig[team], dag.new_values())).max() > 1e-6  # rounded


def test_one_signal_is_the_members_marginals(averaged):
    game, sig = averaged
    dag = game.dags[1]
    F = dag.new_values()
    flows(dag, sig[1], F)
    expected = marginals(dag, sig[1], F)
    mix = stratified_mixture(game, 1, sig[1], 1)
    assert mix.size == 1
    for s in dag.seats:
        np.testing.assert_allclose(mix.items[0].probs[s], expected[s], atol=1e-6)


def test_more_signals_keep_more_of_the_correlation(averaged):
    game, sig = averaged
    for team, sign in ((0, 1.0), (1, -1.0)):
        one = guaranteed_value(game, stratified_mixture(game, team, sig[team], 1))
        many = guaranteed_value(game, stratified_mixture(game, team, sig[team], 20))
        assert sign * (many - one) > 0.01  # at least a cent per hand better


def test_both_teams_merge_into_k_signals(averaged):
    game, sig = averaged
    a = stratified_mixture(game, 0, sig[0], 30)
    b = stratified_mixture(game, 1, sig[1], 30)
    assert merge_team_mixtures(a.weights, b.weights).probs.size == 30


def test_no_signals_is_refused(averaged):
    game, sig = averaged
    with pytest.raises(ValueError, match="signals"):
        stratified_mixture(game, 0, sig[0], 0)
