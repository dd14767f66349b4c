"""The presets as OpenSpiel games (optional: `pip install -e '.[openspiel]'`).

1. CFR iterations per second on our registered `leduc` (a Python game: every state operation
   calls back into Python) against OpenSpiel's built-in C++ `leduc_poker`, with OpenSpiel's
   Python `cfr.CFRSolver` and its C++ `pyspiel.CFRSolver`, in the same run; and the NashConv
   each reaches after the same iterations (equal: leduc_poker's two suits of a rank get the
   same regrets, so its CFR plays our rank-only game's CFR exactly).
2. OpenSpiel's `expected_game_score.policy_value` (a traversal of every history, deals
   included) on team-leduc-2025 against `teamleduc evaluate` (exact enumeration on the public
   tree), for the uniform and cautious profiles: the longer cross-check of the tests' one.

Run: `python -m benchmarks frameworks_openspiel` (or `python -m benchmarks.bench_frameworks_openspiel`).
"""

import time

ROUNDS = 3  # the rate is the fastest round's (the machine may be shared)
ITERATIONS_PY = 4  # Python CFR iterations per round on each game
ITERATIONS_CPP = 40  # C++ CFR iterations per round on each game


def _cfr_rate(solver_factory, game, iterations: int) -> tuple[float, object]:
    """Iterations per second (the fastest of ROUNDS rounds) and the solver after them all."""
    solver = solver_factory(game)
    best = 0.0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        best = max(best, iterations / (time.perf_counter() - t0))
    return best, solver


def _histories(game) -> int:
    """Number of histories (chance, decision and terminal states) of ``game``."""
    stack, count = [game.new_initial_state()], 0
    while stack:
        state = stack.pop()
        count += 1
        if not state.is_terminal():
            stack.extend(state.child(a) for a in state.legal_actions())
    return count


def main() -> None:
    try:
        import pyspiel
        from open_spiel.python.algorithms import cfr, expected_game_score, exploitability
    except ImportError:
        print("open-spiel is not installed: skipped (pip install -e '.[openspiel]')")
        return
    import teamleduc.api as tl
    import teamleduc.openspiel as tos

    ours = tos.load_game("leduc")
    theirs = pyspiel.load_game("leduc_poker")
    print(
        f"CFR on {ours} (Python game, {_histories(ours):,} histories) against leduc_poker "
        f"(C++ game, {_histories(theirs):,} histories; rates: the fastest of {ROUNDS} rounds):"
    )
    for label, factory, n in [
        ("Python cfr.CFRSolver", cfr.CFRSolver, ITERATIONS_PY),
        ("C++ pyspiel.CFRSolver", pyspiel.CFRSolver, ITERATIONS_CPP),
    ]:
        rate_ours, solver_ours = _cfr_rate(factory, ours, n)
        rate_theirs, solver_theirs = _cfr_rate(factory, theirs, n)
        if isinstance(solver_ours, cfr.CFRSolver):
            nc_ours = exploitability.nash_conv(ours, solver_ours.average_policy())
            nc_theirs = exploitability.nash_conv(theirs, solver_theirs.average_policy())
        else:
            nc_ours = pyspiel.nash_conv(ours, solver_ours.average_policy())
            nc_theirs = pyspiel.nash_conv(theirs, solver_theirs.average_policy())
        sub = tos.to_submission(solver_ours.average_policy(), ours)
        print(
            f"  {label:<22} {n * ROUNDS:>4} iterations: ours {rate_ours:6.2f} it/s, leduc_poker "
            f"{rate_theirs:6.2f} it/s (ours at {rate_ours / rate_theirs:.2f} times its speed)\n"
            f"  {'':<22} NashConv after them: ours {nc_ours:.12f}, leduc_poker "
            f"{nc_theirs:.12f}, teamleduc's of the converted policy "
            f"{tl.nash_conv('leduc', sub).nash_conv:.12f}"
        )

    preset = "team-leduc-2025"
    game = tos.load_game(preset)
    config = tl.get_config(preset)
    t0 = time.perf_counter()
    tos.tabular_policy(game)
    print(f"{preset}: tabular_policy (46,260 rows) built in {time.perf_counter() - t0:.1f} s")
    for profile in ("cautious", "uniform"):
        sub = tl.baseline(profile, config)
        (signal,) = tos.to_policies(sub, game)
        t0 = time.perf_counter()
        values = expected_game_score.policy_value(game.new_initial_state(), [signal.policy] * 4)
        seconds_os = time.perf_counter() - t0
        exact = tl.evaluate(sub, sub, config)
        team_a = float(values[0] + values[2])
        print(
            f"  {profile:>8}: OpenSpiel policy_value team A {team_a:+.12f} in {seconds_os:.1f} s;"
            f" teamleduc evaluate {exact.value:+.12f} in {exact.seconds:.3f} s;"
            f" difference {abs(team_a - exact.value):.1e}"
        )


if __name__ == "__main__":
    main()
