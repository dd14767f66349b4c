"""The Gymnasium single-seat environment, the policy adapters and the exact seat value."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from teamleduc.best_response import exploitability
from teamleduc.envs import (
    ENV_IDS,
    IllegalActionError,
    SeatEnv,
    SubmissionPolicy,
    env_game,
    policy_submission,
    write_policy,
)
from teamleduc.envs.play import parse_action, seat_value
from teamleduc.errors import TeamLeducError
from teamleduc.evaluate import evaluate
from teamleduc.files.reading import load_submission

from .test_envs_aec import PRESETS
from .test_envs_sampling import random_mixture


@pytest.mark.parametrize("preset", PRESETS)
def test_gymnasium_check_env_every_seat(preset):
    for seat in range(1, env_game(preset).num_seats + 1):
        e = gymnasium.make(ENV_IDS[preset], seat=seat, others="cautious")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_env(e.unwrapped, skip_render_check=True)


def test_registered_ids():
    assert ENV_IDS["team-leduc"] == "teamleduc/TeamLeduc-v0"
    assert ENV_IDS["team-leduc-2025"] == "teamleduc/TeamLeduc2025-v0"
    assert ENV_IDS["kuhn-100"] == "teamleduc/Kuhn100-v0"
    e = gymnasium.make("teamleduc/TeamLeduc-v0", seat=1, others="cautious")
    assert e.unwrapped.config.name == "team-leduc" and e.unwrapped.seat == 0
    import pettingzoo

    if hasattr(pettingzoo, "make"):
        aec = pettingzoo.make("aec", "teamleduc/Leduc-v0")
        aec.reset(seed=0)
        assert aec.possible_agents == ["player_1", "player_2"]


def test_seat_env_masks_illegal_actions_and_render():
    e = SeatEnv("team-leduc", seat=1, others="cautious", render_mode="ansi")
    obs, info = e.reset(seed=0)
    assert info["action_mask"].tolist() == [1, 1, 0] and e.action_masks().tolist() == [1, 1, 0]
    assert info["infoset"] == f"/C:{'JQK'[int(np.argmax(obs[:3]))]}???/"
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(c\), 1 \(r\)"):
        e.step(2)
    assert "player_1 (you)" in e.render()
    for _ in range(50):
        assert e.action_space.contains(e.action_space.sample())
        assert e.action_masks()[e.action_space.sample()]


def test_seat_env_same_seed_same_episodes():
    def run(seed):
        e = SeatEnv("leduc", seat=2, others=random_mixture("leduc", 2, 0), seed=seed)
        e.action_space.seed(0)  # the learner's random actions: the same in both runs
        out = []
        obs, info = e.reset()
        for _ in range(300):
            a = e.action_space.sample()
            obs, r, term, trunc, info = e.step(a)
            out.append((obs.tobytes(), r, term))
            if term:
                obs, info = e.reset()
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_seat_env_rewards_agree_with_evaluate():
    """Seat 1 of leduc played by the cautious adapter against aggressive: the mean reward of
    20,000 hands is within 4 standard errors of the exact value."""
    e = SeatEnv("leduc", seat=1, others="aggressive", seed=3)
    me = SubmissionPolicy("cautious", "leduc", seed=4)
    rewards = []
    obs, info = e.reset()
    while len(rewards) < 20_000:
        obs, r, term, _, info = e.step(me.act(obs, info))
        if term:
            rewards.append(r)
            obs, info = e.reset()
    rewards = np.array(rewards)
    exact = evaluate("cautious", "aggressive", "leduc").value
    assert abs(rewards.mean() - exact) < 4 * rewards.std(ddof=1) / np.sqrt(len(rewards))


def test_team_rewards_in_seat_env():
    e = SeatEnv("team-leduc", seat=3, others="uniform", seed=1, team_rewards=True)
    obs, info = e.reset()
    while True:
        obs, r, term, _, info = e.step(e.action_space.sample())
        if term:
            u = e.hand.utilities()
            assert r == u[0] + u[2]
            break


def test_submission_policy_draws_one_signal_per_hand():
    """Two signals that are pure and opposite: within a hand every seat of a team follows the
    same signal, and both signals occur across hands."""
    game = env_game("kuhn")
    tabs = game.tables
    always = [{s: np.tile([1.0, 0.0, 0.0], (t.size, 1)) for s, t in enumerate(tabs, 1)}]
    raise_ = {
        s: np.where(t.legal[:, 1:2], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0])
        for s, t in enumerate(tabs, 1)
    }
    sub = policy_submission(always + [raise_], "kuhn", probs=[0.5, 0.5])
    pol = SubmissionPolicy(sub, "kuhn", seed=0)
    seen = set()
    for hand in range(1, 60):
        info = {"seat": 1, "infoset_index": 0, "hand": hand}
        first = pol.act(None, info)
        assert all(pol.act(None, info) == first for _ in range(5))  # same hand, same signal
        seen.add(first)
    assert seen == {0, 1}


def test_policy_submission_from_strings_fills_and_validates(tmp_path):
    game = env_game("kuhn")
    # seat 1 always raises with K, seat 2 calls everything it is given; the rest uniform
    policy = {
        "player_1": {"/C:K?/": (0.0, 1.0, 0.0)},
        "player_2": {s: (1.0, 0.0, 0.0) for s in game.tables[1].strings},
    }
    sub = policy_submission(policy, "kuhn")
    k = game.tables[0].lookup["/C:K?/"]
    assert sub.strategies[0][0, k].tolist() == [0.0, 1.0, 0.0]
    j = game.tables[0].lookup["/C:J?/"]
    assert sub.strategies[0][0, j].tolist() == [0.5, 0.5, 0.0]  # filled uniform
    # mass on an illegal action is dropped and the row renormalised
    fixed = policy_submission({"player_1": {"/C:J?/": (1.0, 1.0, 2.0)}}, "kuhn")
    assert fixed.strategies[0][0, j].tolist() == [0.5, 0.5, 0.0]
    path = write_policy(policy, tmp_path / "sub", "kuhn")
    back = load_submission(path, "kuhn")
    assert np.array_equal(back.strategies[1], sub.strategies[1])
    with pytest.raises(TeamLeducError, match="not an information set"):
        policy_submission({"player_1": {"/C:X?/": (1, 0, 0)}}, "kuhn")
    with pytest.raises(TeamLeducError, match="expected"):
        policy_submission({"player_1": np.ones((2, 3))}, "kuhn")


def test_team_policy_fills_the_teammate_and_goes_into_exploitability():
    game = env_game("tiny-team")
    table = np.tile([1.0, 0.0, 0.0], (game.tables[0].size, 1))
    sub = policy_submission({"player_1": table}, "tiny-team", fill="cautious")
    assert sub.seats == (0, 2)  # the teammate is filled with the baseline
    full = policy_submission({s: table for s in range(1, 5)}, "tiny-team")
    ex = exploitability("tiny-team", full)
    assert ex.gap >= 0
    assert evaluate(full, "always-call", "tiny-team").value == pytest.approx(0.0, abs=1e-12)


def test_seat_values_sum_to_the_team_value():
    a, b = random_mixture("team-leduc", 3, 1), random_mixture("team-leduc", 2, 2)
    v = [seat_value("team-leduc", (a, b), s) for s in range(4)]
    assert v[0] + v[2] == pytest.approx(evaluate(a, b, "team-leduc").value, abs=1e-9)
    assert sum(v) == pytest.approx(0.0, abs=1e-9)
    assert seat_value("leduc", "uniform", 0) == pytest.approx(-0.078125, abs=1e-12)


def test_parse_action():
    assert [parse_action(w) for w in ("c", " Call ", "check", "r", "RAISE", "f", "2")] == [
        0,
        0,
        0,
        1,
        1,
        2,
        2,
    ]
    assert parse_action("x") is None and parse_action("") is None
