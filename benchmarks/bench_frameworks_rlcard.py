"""RLCard: ``env.run`` with RLCard's RandomAgents on our registered environments against RLCard's
own ``leduc-holdem`` in the same run, and the way back (an agent as a submission).

The loop is RLCard's own: ``env.set_agents([RandomAgent] * n)`` then ``env.run()`` until the
time is up, counted in hands (``run`` calls) and actions (RLCard's ``env.timestep``) per second
of process time. The environments take turns in short slices (best slice kept), so a busy
machine slows them alike. Needs the ``rlcard`` extra (``pip install -e '.[rlcard]'``); without
it the benchmark says so and stops. ``BENCH_RLCARD_SECONDS`` (default 6) is the time per
environment.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from benchmarks.settings import positive_seconds, setting

SLICES = 6


def _run_slice(env, seconds: float) -> tuple[int, int, float]:
    """``(hands, actions, process seconds)`` of ``env.run()`` for about ``seconds``."""
    hands, steps0 = 0, env.timestep
    t0 = time.process_time()
    while True:
        env.run(is_training=False)
        hands += 1
        elapsed = time.process_time() - t0
        if elapsed > seconds:
            return hands, env.timestep - steps0, elapsed


def main() -> None:
    try:
        import rlcard
        from rlcard.agents.random_agent import RandomAgent

        import teamleduc.rlcard as tlr
    except ImportError:
        print("rlcard is not installed: skipped (pip install -e '.[rlcard]')")
        return
    seconds = setting("BENCH_RLCARD_SECONDS", "6", positive_seconds)
    envs = {
        "leduc-holdem (RLCard's own)": rlcard.make("leduc-holdem", {"seed": 0}),
        "teamleduc-leduc": rlcard.make(tlr.env_id("leduc"), {"seed": 0}),
        "teamleduc-team-leduc-2025": rlcard.make(tlr.env_id("team-leduc-2025"), {"seed": 0}),
        "teamleduc-team-leduc": rlcard.make(tlr.env_id("team-leduc"), {"seed": 0}),
    }
    np.random.seed(0)  # RandomAgent draws from NumPy's global generator
    for env in envs.values():
        env.set_agents([RandomAgent(env.num_actions) for _ in range(env.num_players)])
        _run_slice(env, 0.05)  # warm: tables built, caches filled
    best = dict.fromkeys(envs, (0.0, 0.0))
    for _ in range(SLICES):
        for name, env in envs.items():
            hands, actions, elapsed = _run_slice(env, seconds / SLICES)
            rate = (hands / elapsed, actions / elapsed)
            best[name] = max(best[name], rate)
    ref_hands, ref_actions = best["leduc-holdem (RLCard's own)"]
    print(f"env.run with RandomAgents, best of {SLICES} slices of {seconds / SLICES:.1f} s CPU:")
    for name, (hps, aps) in best.items():
        print(
            f"  {name:<28} {hps:>8,.0f} hands/s {aps:>8,.0f} actions/s "
            f"({aps / hps:.1f} actions/hand, {1e6 / aps:.0f} us/action); "
            f"hands {hps / ref_hands:.2f}x, actions {aps / ref_actions:.2f}x RLCard's"
        )

    # the way back: every information set of team-leduc-2025 asked of an RLCard agent
    env = tlr.make("team-leduc-2025")
    n = sum(t.size for t in env.game.envgame.tables)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tlr.agent_submission(RandomAgent(3), "team-leduc-2025")
    elapsed = time.perf_counter() - t0
    print(
        f"agent_submission(RandomAgent, team-leduc-2025): {n:,} information sets in "
        f"{elapsed:.2f} s ({n / elapsed:,.0f} states/s)"
    )


if __name__ == "__main__":
    main()
