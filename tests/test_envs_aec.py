"""The PettingZoo AEC environment: PettingZoo's own conformance tests, the handout's sample hand,
information sets against the files, seeding, illegal actions, the observation layout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from teamleduc.config import get_config
from teamleduc.envs import IllegalActionError, env, env_game, raw_env
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree

PRESETS = [
    "team-leduc",
    "team-leduc-2025",
    "leduc",
    "kuhn",
    "kuhn-100",
    "tiny-team",
    "tiny-team-3p",
    "tiny-team-leduc",
    "small-team-leduc",
    "leduc-stack50",
]


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_and_seed_tests(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations warn by design, as in classic games
        api_test(env(preset), num_cycles=200)
        seed_test(lambda: env(preset), num_cycles=200)


def play_script(e, actions):
    for a in actions:
        e.step(a)


def test_handout_sample_hand_rewards_and_render():
    e = raw_env("team-leduc", render_mode="ansi")
    e.reset()
    e.hand.start([0, 1, 1, 2], community=0)  # J Q Q K, community J
    e.agent_selection = "player_1"
    seen = []
    for a in [1, 2, 2, 0, 0, 1, 1, 0]:
        seen.append(e.hand.infoset(e.hand.to_act))
        e.step(a)
    assert seen[4] == "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/"
    assert seen[6] == "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/"
    assert all(e.terminations.values())
    assert e.rewards == {"player_1": 13.0, "player_2": -1.0, "player_3": -1.0, "player_4": -11.0}
    text = e.render()
    assert "1:r 2:f 3:f 4:c / J / 1:c 4:r 1:r 4:c" in text and "pot 24" in text


def test_team_rewards_are_team_sums():
    e = raw_env("team-leduc", team_rewards=True)
    e.reset()
    e.hand.start([0, 1, 1, 2], community=0)
    e.agent_selection = "player_1"
    play_script(e, [1, 2, 2, 0, 0, 1, 1, 0])
    assert e.rewards == {"player_1": 12.0, "player_2": -12.0, "player_3": 12.0, "player_4": -12.0}


@pytest.mark.parametrize("preset", ["team-leduc", "leduc", "tiny-team-leduc", "kuhn-100"])
def test_infosets_equal_the_file_lines_at_their_index(preset):
    tables = infoset_tables(build_tree(get_config(preset)))
    e = env(preset)
    e.reset(seed=7)
    rng = np.random.default_rng(0)
    checked = 0
    for agent in e.agent_iter(4000):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            if not e.agents:
                e.reset()
            continue
        seat = int(agent.split("_")[1]) - 1
        assert info["seat"] == seat + 1
        table = tables[seat]
        assert table.strings[info["infoset_index"]] == info["infoset"]
        assert (table.legal[info["infoset_index"]] == obs["action_mask"].astype(bool)).all()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        checked += 1
    assert checked > 1000


def episodes(seed, n=30):
    e = env("team-leduc")
    out = []
    rng = np.random.default_rng(seed + 1)
    e.reset(seed=seed)
    for _ in range(n):
        trace = []
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            trace.append((agent, obs["observation"].tobytes(), reward, info["infoset"]))
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        out.append(trace)
        e.reset()
    return out


def test_same_seed_same_episodes():
    assert episodes(3) == episodes(3)
    assert episodes(3) != episodes(4)


def test_illegal_action_raises_naming_the_legal_ones():
    e = env("team-leduc")
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(c\), 1 \(r\)"):
        e.step(2)  # seat 1 cannot fold: no bet to face
    assert e.agent_selection == "player_1"  # nothing changed


def test_illegal_action_second_raise_is_refused():
    e = env("team-leduc")
    e.reset(seed=0)
    for a in (1, 0, 0, 0):  # 1 r, 2 c, 3 c, 4 c: round 1 over
        e.step(a)
    e.step(1)  # round 2: seat 1 raises
    for a in (1, 0, 0):  # 2 r, 3 c, 4 c
        e.step(a)
    assert e.agent_selection == "player_1"
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(c\), 2 \(f\)"):
        e.step(1)


def test_penalty_wrapper_ends_the_hand():
    e = env("leduc", illegal_reward=-1)
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(2)  # fold without a bet
    assert all(e.terminations.values())
    assert e.rewards["player_1"] == -1.0


def test_observation_layout_and_contents():
    game = env_game("team-leduc")
    names = [b for b, lo, hi in game.layout()]
    assert names == [
        "own_rank",
        "community",
        "seat",
        "to_act",
        "active",
        "contributions",
        "history",
    ]
    assert game.offsets["history"] == (22, 22 + 32 * 12)
    assert game.describe_index(0) == "own_rank: J"
    assert game.describe_index(22 + 12 + 3 * 3 + 1) == "history[1]: seat 4 r"
    e = raw_env("team-leduc")
    e.reset()
    e.hand.start([0, 1, 1, 2], community=0)
    e.agent_selection = "player_1"
    play_script(e, [1, 2, 2, 0])  # round 1 over, community J shown
    v = e.observe("player_4")["observation"]
    assert v[:3].tolist() == [0, 0, 1]  # K
    assert v[3:6].tolist() == [1, 0, 0]  # community J
    assert v[6:10].tolist() == [0, 0, 0, 1]  # seat 4
    assert v[10:14].tolist() == [1, 0, 0, 0]  # seat 1 to act
    assert v[14:18].tolist() == [1, 0, 0, 1]  # 2 and 3 folded
    assert v[18:22].tolist() == [3, 1, 1, 3]
    hist = v[22:].reshape(32, 4, 3)
    assert [tuple(np.argwhere(h)[0]) for h in hist[:4]] == [(0, 1), (1, 2), (2, 2), (3, 0)]
    assert not hist[4:].any()
    assert e.observe("player_4")["action_mask"].tolist() == [0, 0, 0]  # not its turn
    assert e.observe("player_1")["action_mask"].tolist() == [1, 1, 0]


def test_the_game_is_built_once_and_shared():
    a, b = raw_env("team-leduc"), raw_env("team-leduc", team_rewards=True)
    assert a.game is b.game and a.game.tree is b.hand.game.tree
    a.reset(seed=1)
    node_before = a.hand.node
    a.reset(seed=1)  # a reset only deals and clears the vector
    assert a.hand.node == node_before == 0 and a.game is b.game
