"""Cross-check against OpenSpiel (optional: `pip install -e '.[crosscheck]'`).

Compares the exact uniform-profile values of kuhn, leduc and their 3-player forms with OpenSpiel's
`expected_game_score.policy_value`, and times OpenSpiel's NashConv of the uniform policy. Skipped
with a message when open-spiel is not installed.
"""

import time


def uniform_values(preset: str) -> list[float]:
    """Every seat's exact expected utility when all seats play uniformly (library only)."""
    from teamleduc.config import get_config
    from teamleduc.reach import coalition_weights, team_reach
    from teamleduc.submission import uniform_submission
    from teamleduc.tree import build_tree

    config = get_config(preset)
    tree = build_tree(config)
    sub = uniform_submission(config)
    reach = {s: team_reach(tree, sub, (s,)) for s in range(config.num_seats)}
    out = []
    for s in range(config.num_seats):
        W = coalition_weights(tree, (s,), [((o,), reach[o]) for o in range(config.num_seats) if o != s])
        out.append(float((W * reach[s]).sum()))
    return out


def main() -> None:
    try:
        import pyspiel
        from open_spiel.python import policy
        from open_spiel.python.algorithms import expected_game_score, exploitability
    except ImportError:
        print("open-spiel is not installed: skipped (pip install -e '.[crosscheck]')")
        return
    for ours, name, params in [("kuhn", "kuhn_poker", {}), ("leduc", "leduc_poker", {}),
                               ("kuhn-3p", "kuhn_poker", {"players": 3}),
                               ("leduc-3p", "leduc_poker", {"players": 3})]:
        game = pyspiel.load_game(name, params)
        uniform = policy.UniformRandomPolicy(game)
        theirs = expected_game_score.policy_value(game.new_initial_state(), [uniform] * game.num_players())
        mine = uniform_values(ours)
        diff = max(abs(a - b) for a, b in zip(mine, theirs))
        line = f"{ours:>9}: uniform values ours {[round(v, 12) for v in mine]} OpenSpiel {[round(float(v), 12) for v in theirs]} max diff {diff:.1e}"
        if game.num_players() == 2:
            t0 = time.perf_counter()
            nc = exploitability.nash_conv(game, uniform)
            line += f"; OpenSpiel NashConv {nc:.6f} in {time.perf_counter() - t0:.2f} s"
        print(line)
