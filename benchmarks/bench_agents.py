"""Agents: Q-learning training episodes per second on leduc against RLCard's own ``env.run`` with
random agents on its Leduc, in the same run, and the wall time of the default study.

Goal: at least as many training episodes per second (one hand, epsilon-greedy decisions and
Q-updates included) as RLCard plays random hands. RLCard needs the ``bench`` extra
(``pip install -e '.[bench]'``); if it is missing it is reported and skipped. Timings on a
shared machine are noisy: compare the ratio measured in the same run.
"""

from __future__ import annotations

import tempfile
import time

SECONDS = 3.0


def qlearning_episodes_per_second(seconds: float = SECONDS) -> float:
    """Training episodes/s of :class:`teamleduc.agents.QLearning` on leduc against uniform."""
    from teamleduc.agents import QLearning
    from teamleduc.config import get_config

    q = QLearning(get_config("leduc"), "uniform", alpha=0.01, gamma=0.5, epsilon=0.8)
    q.train(1000)  # compile / load the kernel
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        q.train(200_000)
        n += 200_000
    return n / (time.perf_counter() - t0)


def rlcard_hands_per_second(seconds: float = SECONDS) -> float:
    """Hands/s of RLCard's ``env.run`` on ``leduc-holdem`` with two RandomAgents."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("leduc-holdem", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.run(is_training=False)
        n += 1
    return n / (time.perf_counter() - t0)


def study_seconds() -> float:
    """Wall time of ``teamleduc study agents`` with its defaults (leduc, three agents, three
    bots, 10^6 Q-learning episodes per bot, 2000 CFR iterations), outputs included."""
    from teamleduc.agents.study import Study
    from teamleduc.config import get_config

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        Study(get_config("leduc")).run(progress=False).write(out)
    return time.perf_counter() - t0


def main() -> None:
    ours = qlearning_episodes_per_second()
    print(f"Q-learning training on leduc vs uniform: {ours:,.0f} episodes/s")
    try:
        ref = rlcard_hands_per_second()
    except ImportError as e:
        print(f"RLCard leduc-holdem env.run: skipped ({e}; pip install -e '.[bench]')")
    else:
        print(f"RLCard leduc-holdem env.run, 2 random agents: {ref:,.0f} hands/s")
        verdict = "meets" if ours >= ref else "misses"
        print(f"ratio {ours / ref:.1f}x ({verdict} the goal: at least 1x)")
    print(f"teamleduc study agents (defaults): {study_seconds():.1f} s wall time")


if __name__ == "__main__":
    main()
