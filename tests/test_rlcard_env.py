"""The presets as RLCard environments (teamleduc.rlcard): RLCard's registry, its Env contract
(the checks of RLCard's own tests/envs suite, run on our ids), its agents on our env, and RLCard
agents back as submissions, measured exactly."""

from __future__ import annotations

import itertools
import random
import warnings
from collections import Counter, OrderedDict

import numpy as np
import pytest

rlcard = pytest.importorskip("rlcard")

from rlcard.agents.random_agent import RandomAgent  # noqa: E402
from rlcard.utils.utils import reorganize  # noqa: E402

import teamleduc.api as tl  # noqa: E402
import teamleduc.rlcard as tlr  # noqa: E402
from teamleduc.config import PRESETS  # noqa: E402
from teamleduc.envs import IllegalActionError  # noqa: E402
from teamleduc.errors import ArgumentTypeError, ArgumentValueError, TeamLeducError  # noqa: E402


@pytest.fixture(scope="module")
def cfr_agent_class():
    with warnings.catch_warnings():  # rlcard.agents imports distutils
        warnings.simplefilter("ignore")
        from rlcard.agents import CFRAgent
    return CFRAgent


def random_agents(env):
    return [RandomAgent(env.num_actions) for _ in range(env.num_players)]


# -- registration and RLCard's Env contract -------------------------------------------------


def test_every_preset_is_registered_in_rlcard():
    from rlcard.envs.registration import registry

    assert set(tlr.ENV_IDS) == set(PRESETS)
    for preset, id_ in tlr.ENV_IDS.items():
        assert id_ == f"teamleduc-{preset}" == tlr.env_id(preset)
        assert id_ in registry.env_specs
    env = rlcard.make("teamleduc-team-leduc")
    assert isinstance(env, tlr.TeamLeducEnv) and isinstance(env, rlcard.envs.Env)
    assert (env.name, env.num_players, env.num_actions) == ("teamleduc-team-leduc", 4, 3)
    assert env.state_shape == [[406]] * 4 and env.action_shape == [None] * 4
    assert rlcard.make("teamleduc-leduc").state_shape == [[62], [62]]
    with pytest.raises(ValueError, match="Cannot re-register"):  # RLCard's registry refuses
        rlcard.envs.registration.register("teamleduc-kuhn", "teamleduc.rlcard:TeamLeducEnv")
    assert tlr.register_all() == tlr.ENV_IDS  # registering again is a no-op


@pytest.mark.parametrize("preset", list(PRESETS))
def test_env_contract(preset):
    """What RLCard's tests/envs/test_*_env.py check for each of its games."""
    env = rlcard.make(tlr.env_id(preset), {"seed": 3})
    state, player = env.reset()
    assert player == env.get_player_id() == (player if env.config.dealt_blind else 0)
    assert state["obs"].size == env.state_shape[player][0]
    assert isinstance(state["legal_actions"], OrderedDict) and state["legal_actions"]
    assert all(a < env.num_actions for a in state["legal_actions"])
    assert state["raw_legal_actions"] == [env.actions[a] for a in state["legal_actions"]]
    assert state["action_record"] == []
    assert env._get_legal_actions() == state["raw_legal_actions"]
    for a in state["legal_actions"]:
        assert env._decode_action(a) in env.actions
    assert env.get_perfect_information()["current_player"] == player
    action = list(state["legal_actions"])[0]
    state, player = env.step(action)
    assert player == env.get_player_id()
    assert state["action_record"] == [(env.action_recorder[0][0], "call")]
    with pytest.raises(Exception, match="allow_step_back"):  # RLCard's own message
        env.step_back()
    env.set_agents(random_agents(env))
    trajectories, payoffs = env.run(is_training=False)
    assert len(trajectories) == env.num_players == len(payoffs)
    assert sum(payoffs) == pytest.approx(0, abs=1e-12) and env.is_over()  # split pots: floats


def test_state_is_the_information_set():
    """raw_obs carries the spec's string and line; obs is the AEC environment's vector."""
    from teamleduc.envs import env as aec_env

    env = tlr.make("team-leduc", seed=0)
    env.start(["J", "Q", "Q", "K"], "J")  # the handout's hand
    for action in [1, 2, 2, 0]:  # 1:r 2:f 3:f 4:c
        env.step(action)
    state = env.get_state(env.get_player_id())
    assert state["raw_obs"]["infoset"] == "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/"
    assert state["raw_obs"]["hand"] == "J" and state["raw_obs"]["public_card"] == "J"
    table = tl.infoset_table("team-leduc", 1)
    assert state["raw_obs"]["infoset_index"] == table.parse(state["raw_obs"]["infoset"])
    for action in [0, 1, 1, 0]:  # 1:c 4:r 1:r 4:c
        env.step(action)
    assert env.is_over()
    assert env.get_payoffs().tolist() == [13, -1, -1, -11]  # the handout's utilities
    info = env.get_perfect_information()
    assert info["history"] == "1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:c"
    assert info["hand_cards"] == ["J", "Q", "Q", "K"] and info["chips"] == [11, 1, 1, 11]
    # the observation vector is the PettingZoo environment's, in both rounds
    e = aec_env("leduc")
    e.reset(seed=5)
    first = e.observe("player_1")["observation"]
    e.step(0)
    e.step(0)  # both check: round 2, the community card is shown
    hand = e.unwrapped.hand
    r = tlr.make("leduc", seed=0)
    np.testing.assert_array_equal(r.start(hand.cards, hand.community)[0]["obs"], first)
    r.step(0)
    state, player = r.step(0)
    assert player == 0 and state["raw_obs"]["public_card"] == "JQK"[hand.community]
    np.testing.assert_array_equal(state["obs"], e.observe("player_1")["observation"])


def test_step_back_restores_every_state():
    env = tlr.make("team-leduc-2025", seed=11, allow_step_back=True)
    state, player = env.reset()
    assert env.step_back() is False
    seen = [(state["obs"].tobytes(), player, env.get_perfect_information())]
    rng = np.random.default_rng(0)
    while not env.is_over():
        state, player = env.step(int(rng.choice(list(state["legal_actions"]))))
        seen.append((state["obs"].tobytes(), player, env.get_perfect_information()))
    for obs, player, info in reversed(seen[:-1]):
        state, back = env.step_back()
        assert (state["obs"].tobytes(), back, env.get_perfect_information()) == (obs, player, info)
        assert len(state["action_record"]) == info["history"].count(":")
    assert env.step_back() is False


def test_seeded_and_deterministic():
    """RLCard's determinism check: the same seed gives the same observations whatever else
    draws from Python's and NumPy's global generators in between."""

    def observations(noise):
        env = rlcard.make("teamleduc-team-leduc-2025", {"seed": 12941})
        out = []
        for hand in range(20):
            random.random(), np.random.normal(size=noise)
            state, _ = env.reset()
            k = hand
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[k % len(legal)])
                k += 1
                out.append(state["obs"].tobytes())
        return out

    assert observations(1) == observations(100)

    def deals(seed):
        env = rlcard.make("teamleduc-kuhn", {"seed": seed})
        return [env.reset()[0]["raw_obs"]["hand"] for _ in range(20)]

    assert deals(1) == deals(1) != deals(2)


def test_training_run_gives_rlcard_transitions():
    env = tlr.make("tiny-team-leduc", seed=0)
    env.set_agents(random_agents(env))
    np.random.seed(0)
    trajectories, payoffs = env.run(is_training=True)
    transitions = reorganize(trajectories, payoffs)
    for seat, ts in enumerate(transitions):
        assert ts, f"seat {seat + 1} acted"
        assert [t[-1] for t in ts] == [False] * (len(ts) - 1) + [True]
        assert ts[-1][2] == payoffs[seat]
        assert not ts[-1][3]["legal_actions"]  # the final state: nothing to do


def test_without_rlcard_the_import_names_the_extra(monkeypatch):
    import importlib.util
    import sys

    monkeypatch.setitem(sys.modules, "rlcard", None)  # as if it were not installed
    spec = importlib.util.spec_from_file_location("teamleduc._rlcard_probe", tlr.__file__)
    with pytest.raises(ImportError, match=r"pip install 'teamleduc\[rlcard\]'"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_bad_input_is_refused_by_name():
    with pytest.raises(ArgumentValueError, match="game_num_players=3, but leduc has 2"):
        rlcard.make("teamleduc-leduc", {"game_num_players": 3})
    assert rlcard.make("teamleduc-leduc", {"game_num_players": 2}).num_players == 2
    with pytest.raises(ArgumentValueError, match="unknown key 'players'"):
        rlcard.make("teamleduc-leduc", {"players": 2})
    with pytest.raises(ArgumentTypeError, match="seed"):
        rlcard.make("teamleduc-leduc", {"seed": 1.5})
    with pytest.raises(ArgumentValueError, match="seed"):
        rlcard.make("teamleduc-leduc", {"seed": -1})
    with pytest.raises(ArgumentTypeError, match="allow_step_back"):
        tlr.make("leduc", allow_step_back="yes")
    env = tlr.make("leduc", seed=0)
    state, _ = env.reset()
    before = env.get_perfect_information()
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(call\), 1 \(raise\)"):
        env.step(2)  # fold when not facing a bet
    with pytest.raises(ArgumentValueError, match="raw action 'check'"):
        env.step("check", raw_action=True)
    with pytest.raises(TypeError, match="action"):
        env.step(1.0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(3)
    with pytest.raises(TeamLeducError, match="not over"):
        env.get_payoffs()
    assert env.get_perfect_information() == before and env.action_recorder == []
    env.step("raise", raw_action=True)
    assert env.action_recorder == [(0, "raise")]


# -- RLCard's agents on our env, measured exactly -------------------------------------------


def test_random_agents_match_the_exact_uniform_value():
    """10,000 hands of env.run with RLCard's RandomAgents on team-leduc-2025: team A's mean
    return lies within 4 standard errors of the exact value of uniform against uniform."""
    env = rlcard.make("teamleduc-team-leduc-2025", {"seed": 2025})
    env.set_agents(random_agents(env))
    np.random.seed(2025)  # RandomAgent draws from NumPy's global generator
    team_a = np.array([sum(env.run(is_training=False)[1][[0, 2]]) for _ in range(10_000)])
    exact = tl.evaluate("uniform", "uniform", "team-leduc-2025").value
    stderr = team_a.std(ddof=1) / np.sqrt(team_a.size)
    assert abs(team_a.mean() - exact) < 4 * stderr
    assert 0.05 < stderr < 0.2  # the hands vary: a real test of the mean
    env2 = rlcard.make("teamleduc-team-leduc-2025", {"seed": 2025})
    env2.set_agents(random_agents(env2))
    np.random.seed(2025)
    again = [sum(env2.run(is_training=False)[1][[0, 2]]) for _ in range(200)]
    assert again == team_a[:200].tolist()  # seeded: the same hands again


def exact_value_through_env(env, agent, team) -> float:
    """Team ``team``'s expected return when ``agent`` plays every seat with the probabilities
    its eval_step reports, by enumerating every deal and every action through the RLCard env
    (its step, step_back, get_state, get_payoffs): RLCard's side of the comparison."""
    config = env.config
    need = config.num_seats + (1 if config.has_community else 0)

    def walk() -> float:
        if env.is_over():
            return float(sum(env.get_payoffs()[s] for s in team))
        state = env.get_state(env.get_player_id())
        probs = agent.eval_step(state)[1]["probs"]
        total = 0.0
        for a, name in zip(state["legal_actions"], state["raw_legal_actions"]):
            if probs[name] > 0:
                env.step(a)
                total += probs[name] * walk()
                env.step_back()
        return total

    deals = Counter(  # every ordered deal of cards, by ranks: equally likely
        tuple(c // config.suits for c in cards)
        for cards in itertools.permutations(range(config.num_cards), need)
    )
    value = 0.0
    for ranks, count in deals.items():
        env.start(ranks[: config.num_seats], ranks[-1] if config.has_community else None)
        value += count * walk()
    return value / deals.total()


@pytest.mark.parametrize(
    ("preset", "iterations", "missing"),
    [("kuhn", 30, "error"), ("tiny-team", 12, "error"), ("leduc", 10, "uniform")],
)
def test_cfr_agent_becomes_a_submission_of_the_same_value(
    cfr_agent_class, preset, iterations, missing
):
    """The submission has the value that RLCard's env gives the agent's own eval_step
    probabilities, exactly: the states agent_submission builds are the env's, bit for bit (on
    leduc, where 10 iterations leave states unreached, a wrong obs would read as unreached)."""
    env = tlr.make(preset, seed=0, allow_step_back=True)
    agent = cfr_agent_class(env)
    for _ in range(iterations):
        agent.train()
    sub = tlr.agent_submission(agent, preset, missing=missing)
    assert sub.seats == tuple(range(env.num_players)) and sub.signals.size == 1
    team = env.config.teams[0]
    theirs = exact_value_through_env(env, agent, team)
    ours = tl.evaluate(sub, sub, preset).value
    assert ours == pytest.approx(theirs, abs=1e-9)
    assert abs(ours) > 1e-3  # not a trivial zero
    # the rows are the agent's average policy, information set by information set
    cards = [0] + [1] * (env.num_players - 1)  # player 0 holds J, first to act
    state = env.start(cards, 2 if env.config.has_community else None)[0]
    row = agent.eval_step(state)[1]["probs"]
    assert sub.strategies[0][0, 0].tolist() == [row.get(n, 0.0) for n in tlr.ACTIONS]
    greedy = tlr.agent_submission(agent, preset, policy="greedy", missing=missing)
    assert set(np.unique(greedy.strategies[0])) == {0.0, 1.0}
    if preset == "kuhn":  # CFR is converging: NashConv well below uniform's
        assert tl.nash_conv(preset, sub).nash_conv < 0.5 * tl.nash_conv(preset, "uniform").nash_conv


@pytest.mark.parametrize(
    "preset", ["tiny-team-leduc", "kuhn-100", "leduc-stack50", "rlcard-leduc", "tiny-team-3p"]
)
def test_every_information_set_is_asked(preset):
    """RandomAgent answers every information set (the walk reaches them all, through blinds,
    community cards and all-ins): its submission is the uniform baseline."""
    sub = tlr.agent_submission(RandomAgent(3), preset)
    uniform = tl.baseline("uniform", preset)
    for s in sub.seats:
        np.testing.assert_array_equal(sub.strategies[s], uniform.strategies[s])


def test_agent_submission_for_one_team_and_written(tmp_path, cfr_agent_class):
    env = tlr.make("tiny-team", seed=1, allow_step_back=True)
    cfr = cfr_agent_class(env)
    for _ in range(12):
        cfr.train()
    random_agent = RandomAgent(env.num_actions)
    out = tmp_path / "team-a"
    sub = tlr.agent_submission({1: cfr, 3: random_agent}, "tiny-team", out=out)
    assert sub.seats == (0, 2) and (out / "meta-strategy.csv").is_file()
    uniform = tl.baseline("uniform", "tiny-team").strategies
    np.testing.assert_array_equal(sub.strategies[2], uniform[2])  # RandomAgent's probs
    assert tl.load_submission(out, "tiny-team", seats=(0, 2)).strategies[0].tolist() == (
        sub.strategies[0].tolist()
    )
    with pytest.raises(ArgumentValueError, match="whole teams|team"):
        tlr.agent_submission({1: cfr}, "tiny-team")
    with pytest.raises(ArgumentValueError, match="4 players"):
        tlr.agent_submission([cfr, cfr], "tiny-team")
    with pytest.raises(ArgumentTypeError, match="not an RLCard agent"):
        tlr.agent_submission("cfr", "tiny-team")
    with pytest.raises(ArgumentValueError, match="policy"):
        tlr.agent_submission(cfr, "tiny-team", policy="best")


def test_agents_of_another_game_are_refused_naming_the_first_state(tmp_path, cfr_agent_class):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from rlcard import models
    pretrained = models.load("leduc-holdem-cfr").agents[0]  # RLCard's CFR on its leduc-holdem
    out = tmp_path / "sub"
    with pytest.raises(TeamLeducError, match=r"seat 1, line 1, /C:J\?/ .*no average policy"):
        tlr.agent_submission(pretrained, "leduc", out=out)
    assert not out.exists()
    # RLCard's rule agent V2 folds a jack, where fold is not legal (no bet to face)
    rule = models.load("leduc-holdem-rule-v2").agents[0]
    with pytest.raises(TeamLeducError, match=r"line 1, /C:J\?/ \(legal call, raise\).*'fold'"):
        tlr.agent_submission(rule, "leduc", out=out)
    assert not out.exists()
    # a CFRAgent of kuhn asked about leduc; with missing='uniform' it plays as its eval_step
    env = tlr.make("kuhn", seed=0, allow_step_back=True)
    cfr = cfr_agent_class(env)
    cfr.train()
    with pytest.raises(TeamLeducError, match=r"seat 1, line 1, /C:J\?/"):
        tlr.agent_submission(cfr, "leduc")
    sub = tlr.agent_submission(cfr, "leduc", missing="uniform")
    uniform = tl.evaluate("uniform", "uniform", "leduc").value
    assert tl.evaluate(sub, "uniform", "leduc").value == pytest.approx(uniform, abs=1e-12)


def test_rlcards_torch_agents_train_here_and_become_submissions():
    """RLCard's DQN and NFSP agents (its torch extra; skipped without torch) train on a
    registered game through ``env.run`` and ``feed``, and become valid submissions: DQN
    greedy on its Q-values, NFSP its average policy; exact value and NashConv follow."""
    torch = pytest.importorskip("torch")
    from rlcard.agents import DQNAgent, NFSPAgent
    from rlcard.utils import reorganize, set_seed

    import teamleduc.api as tl

    set_seed(0)
    torch.manual_seed(0)
    env = rlcard.make("teamleduc-kuhn", config={"seed": 0})
    cpu = torch.device("cpu")
    dqn = DQNAgent(
        num_actions=env.num_actions, state_shape=env.state_shape[0], mlp_layers=[16],
        replay_memory_init_size=20, batch_size=8, device=cpu,
    )  # fmt: skip
    nfsp = NFSPAgent(
        num_actions=env.num_actions, state_shape=env.state_shape[0], hidden_layers_sizes=[16],
        q_mlp_layers=[16], q_replay_memory_init_size=20, q_batch_size=8, batch_size=8,
        min_buffer_size_to_learn=20, device=cpu,
    )  # fmt: skip
    env.set_agents([dqn, nfsp])
    for _ in range(40):
        nfsp.sample_episode_policy()
        trajectories, payoffs = env.run(is_training=True)
        trajectories = reorganize(trajectories, payoffs)
        for ts in trajectories[0]:
            dqn.feed(ts)
        for ts in trajectories[1]:
            nfsp.feed(ts)
    sub = tlr.agent_submission({1: dqn, 2: nfsp}, "kuhn")  # validated on the way
    dqn_rows = sub.strategies[0][0]
    legal = tl.infoset_tables("kuhn")[0].legal
    assert np.isin(dqn_rows[legal], (0.0, 1.0)).all()  # greedy: point masses
    value = tl.evaluate(sub, sub, "kuhn").value
    assert -2.0 <= value <= 2.0
    assert tl.nash_conv("kuhn", sub).nash_conv >= 0.0
    nfsp_rows = sub.strategies[1][0]
    np.testing.assert_allclose(nfsp_rows.sum(axis=1), 1.0)


# -- before the first hand -------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda env: env.step(0),
        lambda env: env.step("call", raw_action=True),
        lambda env: env.get_state(0),
        lambda env: env.get_payoffs(),
        lambda env: env.get_perfect_information(),
        lambda env: env.game.step("call"),
    ],
)
def test_no_hand_before_reset(call):
    """step(0) before reset() was an IndexError (and had moved the hand on); RLCard's own Env
    has no state then either (AttributeError): a RuntimeError saying to call reset()."""
    env = tlr.make("kuhn")
    with pytest.raises(
        RuntimeError, match=r"^teamleduc-kuhn: .* before any hand is dealt: call reset\(\)"
    ):
        call(env)
    state, player = env.reset()  # nothing moved: the hand starts at the root
    assert env.action_recorder == [] and player == 0
    assert state["raw_legal_actions"] == ["call", "raise"]
    assert env.get_perfect_information()["history"] == ""


@pytest.mark.parametrize(
    ("player", "error"),
    [
        (2, ArgumentValueError),
        (-1, ArgumentValueError),
        (True, ArgumentTypeError),
        (1.0, ArgumentTypeError),
    ],
)
def test_get_state_checks_the_player_id(player, error):
    env = tlr.make("kuhn", seed=1)
    env.reset()
    with pytest.raises(error, match=r"player_id"):
        env.get_state(player)
    assert env.get_state(np.int64(1))["raw_obs"]["player_id"] == 1
