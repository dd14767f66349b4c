"""Environments: our PettingZoo AEC environment against PettingZoo's own ``leduc_holdem_v4``, and
the batch simulator against OpenSpiel's Python rollouts of ``leduc_poker`` with 4 players.

Both AEC loops are the same: wrapped environments as their ``env()`` returns them, uniformly
random legal actions from the observation's mask, resets included; measured in step calls per
second (goal: at least 3x PettingZoo's). The simulator plays uniform against uniform on
team-leduc (goal: at least 10^6 hands/s). References need the ``bench`` extra
(``pip install -e '.[bench]'``); a missing one is reported and skipped. Timings on a shared
machine are noisy: compare the ratios measured in the same run.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

SECONDS = 3.0


def aec_steps_per_second(make, seconds: float = SECONDS) -> tuple[float, float]:
    """``(step calls/s, hands/s)`` of random legal play on the wrapped AEC env ``make()``."""
    e = make()
    rng = np.random.default_rng(0)
    e.reset(seed=0)
    steps = hands = 0
    t0 = time.perf_counter()
    while True:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                e.step(int(legal[int(rng.integers(len(legal)))]))
            steps += 1
        hands += 1
        e.reset()
        elapsed = time.perf_counter() - t0
        if elapsed > seconds:
            return steps / elapsed, hands / elapsed


def openspiel_hands_per_second(seconds: float = SECONDS) -> float:
    """Hands/s of OpenSpiel's Python rollouts (random legal actions, chance sampled)."""
    import pyspiel

    game = pyspiel.load_game("leduc_poker", {"players": 4})
    rng = np.random.default_rng(0)
    hands = 0
    t0 = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs))])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
        state.returns()
        hands += 1
        elapsed = time.perf_counter() - t0
        if elapsed > seconds:
            return hands / elapsed


def main() -> None:
    from teamleduc.envs import env, simulate

    warnings.simplefilter("ignore")
    ours, ours_hands = aec_steps_per_second(lambda: env("team-leduc"))
    ours_leduc, _ = aec_steps_per_second(lambda: env("leduc"))
    print(f"AEC team-leduc (ours): {ours:,.0f} step calls/s, {ours_hands:,.0f} hands/s")
    print(f"AEC leduc (ours):      {ours_leduc:,.0f} step calls/s")
    try:
        from pettingzoo.classic import leduc_holdem_v4

        ref, ref_hands = aec_steps_per_second(leduc_holdem_v4.env)
        print(
            f"AEC leduc_holdem_v4 (PettingZoo): {ref:,.0f} step calls/s, {ref_hands:,.0f} hands/s"
        )
        print(
            f"ratio team-leduc/leduc_holdem_v4 {ours / ref:.2f}x, leduc/leduc_holdem_v4 "
            f"{ours_leduc / ref:.2f}x (goal >= 3x)"
        )
    except Exception as e:  # noqa: BLE001 - a missing optional reference is reported, not fatal
        print(f"leduc_holdem_v4 reference skipped: {type(e).__name__}: {e}")

    simulate("team-leduc", "uniform", 10_000, seed=0)  # compile and build the tables
    best = 0.0
    for seed in range(3):
        sim = simulate("team-leduc", "uniform", 10**6, seed=seed)
        best = max(best, sim.hands_per_second)
    print(f"batch simulator team-leduc: {best:,.0f} hands/s (best of 3 x 10^6 hands; goal >= 10^6)")
    try:
        os_rate = openspiel_hands_per_second()
        print(
            f"OpenSpiel leduc_poker players=4 Python rollouts: {os_rate:,.0f} hands/s; "
            f"ratio {best / os_rate:.0f}x"
        )
    except Exception as e:  # noqa: BLE001
        print(f"OpenSpiel reference skipped: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
