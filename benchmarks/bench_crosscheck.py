"""Cross-check against OpenSpiel (optional: `pip install -e '.[crosscheck]'`).

Compares the exact uniform-profile values of kuhn, leduc and their 3-player forms, and the
NashConv of the uniform profile, with OpenSpiel's `expected_game_score.policy_value` and
`exploitability.nash_conv`. Skipped with a message when open-spiel is not installed.
"""

import time


def main() -> None:
    try:
        import pyspiel
        from open_spiel.python import policy
        from open_spiel.python.algorithms import expected_game_score, exploitability
    except ImportError:
        print("open-spiel is not installed: skipped (pip install -e '.[crosscheck]')")
        return
    from teamleduc.best_response import nash_conv

    for ours, name, params in [
        ("kuhn", "kuhn_poker", {}),
        ("leduc", "leduc_poker", {}),
        ("kuhn-3p", "kuhn_poker", {"players": 3}),
        ("leduc-3p", "leduc_poker", {"players": 3}),
    ]:
        game = pyspiel.load_game(name, params)
        uniform = policy.UniformRandomPolicy(game)
        theirs = expected_game_score.policy_value(
            game.new_initial_state(), [uniform] * game.num_players()
        )
        mine = nash_conv(ours, "uniform")  # on-policy values and NashConv, exact
        diff = max(abs(a - b) for a, b in zip(mine.values, theirs))
        line = (
            f"{ours:>9}: uniform values ours {[round(v, 12) for v in mine.values]} OpenSpiel "
            f"{[round(float(v), 12) for v in theirs]} max diff {diff:.1e}; "
            f"NashConv ours {mine.nash_conv:.6f} in {mine.seconds:.2f} s"
        )
        if game.num_players() == 2:  # OpenSpiel's nash_conv: 2 players only here
            t0 = time.perf_counter()
            nc = exploitability.nash_conv(game, uniform)
            line += f", OpenSpiel {nc:.6f} in {time.perf_counter() - t0:.2f} s"
        print(line)
