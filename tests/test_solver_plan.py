"""The time plan of a solve run (:mod:`teamleduc.solver.plan`): the export budget and the
default refinement.
"""

from __future__ import annotations

import pytest

from teamleduc.solver import solve

from .solving import GUARD_SECONDS


def test_auto_refinement_with_a_target(monkeypatch):
    """With a target, ``auto`` still refines (small-team-leduc's LP export never met a target
    of 1e-4: 3.1e-2 in 120 s; refined, 8.8e-4 in 60 s), unless the target is met first."""
    import teamleduc.solver.plan as plan

    monkeypatch.setattr(plan, "auto_seconds", lambda game, limit, signals, startup=0.0: 3.0)
    # 50 iterations: the export at the limit is exact within a second (without a limit the
    # target was met by whichever trial export the machine's speed led to: 2 to 15 s)
    met = solve(
        "tiny-team-leduc",
        "dcfr",
        time_limit=GUARD_SECONDS,
        max_iterations=50,
        target_gap=1e-9,
        handle_sigint=False,
    )
    assert met.success and met.parameters["refine_seconds"] == 3.0
    assert not [m for m in met.history if m.what == "refine"]
    # four signals cannot be exact here: the target is missed and the export refined
    missed = solve(
        "tiny-team-leduc",
        "dcfr",
        time_limit=6,  # the export gets about 2 s (5 s of 12 before), then 3 s of refinement
        max_iterations=30,
        max_signals=4,
        target_gap=1e-9,
        handle_sigint=False,
    )
    assert not missed.success
    assert [m for m in missed.history if m.what == "refine"]


def test_export_budget_of_big_games(monkeypatch):
    """Only a regret minimiser gets the short export budget of big games (its stratified
    signals take seconds); the double oracle's LP export keeps the usual share."""
    import teamleduc.solver.plan as solver_module

    calls = []
    original = solver_module._export_budget
    monkeypatch.setattr(
        solver_module, "_export_budget", lambda t, big=False: calls.append(big) or original(t, big)
    )
    monkeypatch.setattr(solver_module, "is_big", lambda game: True)
    for method in ("dcfr", "double-oracle"):
        solve("kuhn", method, time_limit=5, max_iterations=3, refine_seconds=0, handle_sigint=False)
    assert calls == [True, False]
    assert original(60.0, True) < original(60.0, False)


def _phases(**changes):
    from teamleduc.solver.plan import Phases

    base = dict(
        export_budget=1.8,
        reserve=26.3,
        refine_seconds=0.0,
        main_deadline=31.9,
        end=33.7,
        stratified_only=True,
        quick_stop=False,
        trials=False,
    )
    return Phases(**(base | changes))


def test_a_big_games_main_phase_ends_earlier_when_its_measurements_are_slow():
    """A big game's main phase keeps, for its export and finish, 110 times the least of its
    last three measurements (65 without files), when that is more than the quiet machine's
    rates keep; before three measurements, and on games exported otherwise, the plan's."""
    from teamleduc.solver.plan import measured_main_deadline

    phases = _phases()
    assert measured_main_deadline(phases, 60.0, [0.66, 0.5], True) == 31.9
    assert measured_main_deadline(phases, 60.0, [0.6, 0.5, 0.4], True) == pytest.approx(16.0)
    assert measured_main_deadline(phases, 60.0, [9, 0.6, 0.5, 0.5], False) == pytest.approx(27.5)
    assert measured_main_deadline(phases, 60.0, [0.2, 0.19, 0.25], True) == 31.9  # quiet
    assert measured_main_deadline(phases, 60.0, [5.0, 5.0, 5.0], True) == 0.0
    refined = _phases(refine_seconds=20.0, main_deadline=11.9)
    assert measured_main_deadline(refined, 60.0, [0.3] * 3, True) == pytest.approx(7.0)
    small = _phases(stratified_only=False)
    assert measured_main_deadline(small, 60.0, [5.0] * 3, True) == 31.9


def test_the_main_phase_ends_by_the_measured_deadline(monkeypatch):
    """The main phase checks the measured deadline after every iteration."""
    import teamleduc.solver.steps as steps
    from teamleduc.solver.result import TIME_LIMIT

    monkeypatch.setattr(steps, "measured_main_deadline", lambda *args: -1.0)
    r = solve("kuhn", "dcfr", time_limit=GUARD_SECONDS, max_iterations=30, handle_sigint=False)
    assert r.iterations == 1 and r.status == TIME_LIMIT
