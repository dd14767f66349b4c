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


def test_merged_submission_rows_are_each_teams_signal_rows():
    """:func:`merge_submission` builds each seat's rows straight in the merged order (one seat
    at a time, no copy of a whole team first): row m of a team-A seat is that seat's behaviour
    in A's signal ``index_a[m]``, a point mass for a pure signal, likewise for team B, and the
    probabilities are the merged meta-strategy's."""
    from teamleduc.dag import PureTeamStrategy
    from teamleduc.files.model import merge_team_mixtures
    from teamleduc.infosets import infoset_tables
    from teamleduc.solver.dag_cfr import RegretMinimizer
    from teamleduc.solver.export import merge_submission
    from teamleduc.solver.mixtures import ProductStrategy, TeamMixture

    game = RegretMinimizer(get_config("tiny-team-leduc"), dcfr()).game
    sizes = {s: t.size for s, t in enumerate(infoset_tables(game.tree))}
    rng = np.random.default_rng(11)

    def product(seats):
        return ProductStrategy(seats, {s: rng.dirichlet(np.ones(3), size=sizes[s]) for s in seats})

    def pure(seats):
        acts = tuple(rng.integers(0, 3, size=sizes[s]).astype(np.int8) for s in seats)
        return PureTeamStrategy(seats, acts, np.zeros(0, np.int64))

    sa, sb = game.dags[0].seats, game.dags[1].seats
    a = TeamMixture(0, sa, np.array([0.5, 0.3, 0.2]), (pure(sa), product(sa), pure(sa)))
    b = TeamMixture(1, sb, np.array([0.45, 0.55]), (product(sb), product(sb)))
    sub = merge_submission(game, (a, b))
    merged = merge_team_mixtures(a.weights, b.weights)
    assert len(merged.probs) == 4  # cuts at 0.45, 0.5 and 0.8
    np.testing.assert_array_equal(sub.probs, merged.probs / merged.probs.sum())
    for mix, index in ((a, merged.index_a), (b, merged.index_b)):
        for s in mix.seats:
            expected = np.zeros((len(index), sizes[s], 3))
            for m, k in enumerate(index):
                item = mix.items[k]
                if isinstance(item, PureTeamStrategy):
                    acts = item.actions[item.seats.index(s)]
                    expected[m, np.arange(sizes[s]), acts] = 1.0
                else:
                    expected[m] = item.probs[s]
            np.testing.assert_array_equal(sub.strategies[s], expected)
            assert sub.strategies[s].dtype == np.float64


def test_signals_in_order_lend_their_arrays_to_the_merged_submission():
    """Stratified signals on equal weights (the export of a big game) keep their order in the
    merge: the submission holds each seat's own (K, n, 3) array of the mixture, no copy (0.7
    GB a team on team-leduc). The same signals in another order are copied, in that order."""
    from teamleduc.infosets import infoset_tables
    from teamleduc.solver.dag_cfr import RegretMinimizer
    from teamleduc.solver.export import merge_submission
    from teamleduc.solver.mixtures import TeamMixture
    from teamleduc.solver.stratify import stratified_mixture

    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(30)
    a, b = (stratified_mixture(rm.game, k, rm.average_sigma(k), 5) for k in (0, 1))
    sizes = {s: t.size for s, t in enumerate(infoset_tables(rm.game.tree))}
    own = a.strategies(sizes, share=True) | b.strategies(sizes, share=True)
    sub = merge_submission(rm.game, (a, b))
    assert sub.num_signals == 5
    assert all(sub.strategies[s] is own[s] for s in range(4))
    turned = TeamMixture(0, a.seats, a.weights, a.items[::-1])
    sub = merge_submission(rm.game, (turned, b))
    for s in a.seats:
        assert not np.shares_memory(sub.strategies[s], own[s])
        np.testing.assert_array_equal(sub.strategies[s], own[s][::-1])
    assert all(sub.strategies[s] is own[s] for s in b.seats)
