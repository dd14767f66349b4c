"""teamleduc/KuhnPoker-v0 against gym-kuhn-poker 0.2's own ``KuhnPoker-v0``, in the same run.

Both as ``make`` returns them (ours through Gymnasium; gym-kuhn-poker through gym 0.26 with
``disable_env_checker=True``, since gym's checker reads ``np.bool8``, gone in numpy 2), uniformly
random actions, resets included, two players and three cards; counted in step calls and hands
per second. The two alternate in rounds of 1 s and each keeps its best round, so that a busy
machine slows both alike. Ours also on three players (gym-kuhn-poker is wrong there: see
docs/source-games.md). The reference needs the ``crosscheck`` extra; a missing one is reported
and skipped. Timings on a shared machine are noisy: compare the ratio measured in the same run.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

SECONDS = 1.0
ROUNDS = 5


def steps_per_second(reset, step, seconds: float = SECONDS) -> tuple[float, float]:
    """``(step calls/s, hands/s)`` of random play: ``reset()``, then ``step(a)`` until done
    (``step`` returns the done flag)."""
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, size=1 << 16).tolist()
    steps = hands = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(1000):
            reset()
            done = False
            while not done:
                done = step(actions[steps & 0xFFFF])
                steps += 1
            hands += 1
        elapsed = time.perf_counter() - t0
        if elapsed > seconds:
            return steps / elapsed, hands / elapsed


def ours(**kwargs):
    import gymnasium

    import teamleduc.envs  # noqa: F401 - registers the id

    env = gymnasium.make("teamleduc/KuhnPoker-v0", **kwargs)
    env.reset(seed=0)
    return env.reset, lambda a: env.step(a)[2]


def theirs(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import gym
        import gym_kuhn_poker  # noqa: F401 - registers KuhnPoker-v0

        env = gym.make("KuhnPoker-v0", disable_env_checker=True, **kwargs)
    np.random.seed(0)
    return env.reset, lambda a: env.step(a)[2]


def main() -> None:
    print(f"random play, resets included; best of {ROUNDS} alternating rounds of {SECONDS:.0f} s")
    mine_env = ours()
    try:
        ref_env = theirs()
    except ImportError as e:
        ref_env = None
        print(f"  gym-kuhn-poker: not installed ({e}); pip install -e '.[crosscheck]'")
    mine_runs, ref_runs = [], []
    for _ in range(ROUNDS):
        mine_runs.append(steps_per_second(*mine_env))
        if ref_env is not None:
            ref_runs.append(steps_per_second(*ref_env))
    mine, hands = max(mine_runs)
    print(
        f"  teamleduc/KuhnPoker-v0, 2 players, 3 cards:     {mine:>9,.0f} steps/s {hands:>9,.0f} hands/s"
    )
    if ref_env is not None:
        ref, ref_hands = max(ref_runs)
        print(
            f"  gym-kuhn-poker KuhnPoker-v0, 2 players, 3 cards: {ref:>9,.0f} steps/s "
            f"{ref_hands:>9,.0f} hands/s"
        )
        print(f"  ratio (ours / gym-kuhn-poker, step calls): {mine / ref:.2f}")
    three, three_hands = max(
        [steps_per_second(*ours(number_of_players=3, deck_size=4)) for _ in range(ROUNDS)]
    )
    print(
        f"  teamleduc/KuhnPoker-v0, 3 players, 4 cards:     {three:>9,.0f} steps/s "
        f"{three_hands:>9,.0f} hands/s"
    )


if __name__ == "__main__":
    main()
