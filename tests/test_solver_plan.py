"""The time plan of a solve run (:mod:`teamleduc.solver.plan`): the export budget and the
default refinement.
"""

from __future__ import annotations

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
