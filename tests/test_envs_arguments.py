"""The environments refuse bad arguments with the toolkit's errors naming the argument (never an
IndexError, KeyError or AttributeError from inside, never a silently wrong number), and give
the same numbers as before for good ones."""

from __future__ import annotations

import random

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.envs import (
    Hand,
    IllegalActionError,
    SeatEnv,
    SubmissionPolicy,
    agent_name,
    env,
    env_game,
    env_id,
    raw_env,
    simulate,
)
from teamleduc.envs.kuhn import kuhn_config
from teamleduc.errors import ArgumentTypeError, ArgumentValueError


def _play(preset, cards, community, actions, small_blind=None):
    hand = Hand(env_game(preset))
    hand.start(cards, community, small_blind)
    for a in actions:
        hand.act(a)
    return hand


# -- Hand.start -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cards, community, error, match",
    [
        ([3, 1], 2, ArgumentValueError, r"cards\[0\] must be 0\.\.2 .*J, Q, K.*not 3"),
        ([0, -1], 2, ArgumentValueError, r"cards\[1\] must be 0\.\.2"),
        ([2**63, 1], 2, ArgumentValueError, r"cards\[0\] must be 0\.\.2"),
        ([0.5, 1], 2, ArgumentTypeError, r"cards\[0\] must be an int, not float"),
        ([True, 1], 2, ArgumentTypeError, r"cards\[0\] must be an int, not bool"),
        (["J", "Q"], "K", ArgumentTypeError, r"cards\[0\] must be an int, not str"),
        ([0], 2, ArgumentValueError, r"cards must be 2 ranks .*not 1"),
        ([0, 1, 2], 2, ArgumentValueError, r"cards must be 2 ranks .*not 3"),
        (None, 2, ArgumentTypeError, r"cards must be a sequence of 2 ranks"),
        ("01", 2, ArgumentTypeError, r"cards must be a sequence"),
        ([0, 1], 3, ArgumentValueError, r"community must be 0\.\.2"),
        ([0, 1], 1.0, ArgumentTypeError, r"community must be an int, not float"),
        ([0, 1], "K", ArgumentTypeError, r"community must be an int, not str"),
    ],
)
def test_hand_start_refuses_bad_cards_and_community(cards, community, error, match):
    hand = Hand(env_game("leduc"))
    with pytest.raises(error, match=match):
        hand.start(cards, community)


def test_hand_start_community_only_where_the_game_has_a_second_round():
    hand = Hand(env_game("kuhn"))
    with pytest.raises(ArgumentValueError, match=r"community: kuhn has one betting round"):
        hand.start([0, 1], 2)
    hand.start([0, 1], None)  # None and -1 both mean "no community card"
    hand.start([0, 1], -1)
    # a two-round hand without its community card: fine until round 2 is reached
    hand = _play("leduc", [0, 1], -1, [1, 2])  # P1 raises, P2 folds: P2 loses its ante
    assert hand.utilities().tolist() == [1.0, -1.0]
    hand = _play("leduc", [0, 1], None, [0])
    before = (hand.node, list(hand.actions), hand.history, hand.public.copy())
    with pytest.raises(ArgumentValueError, match=r"community: .*reaches round 2"):
        hand.act(0)  # the check that closes round 1 would show the community card
    assert (hand.node, hand.actions, hand.history) == before[:3]  # nothing changed
    assert np.array_equal(hand.public, before[3])


def test_hand_refuses_a_deal_the_deck_cannot_hold():
    """start() refuses it before anything changes: the hand in play stays as it was."""
    # leduc: two of each rank; three jacks (two private, the community) is no possible hand
    hand = _play("leduc", [0, 1], 2, [0, 0, 0, 0])
    with pytest.raises(ArgumentValueError, match=r"cards and community: rank J is dealt 3 times"):
        hand.start([0, 0], 0)
    assert hand.cards == (0, 1) and hand.utilities().tolist() == [-1.0, 1.0]
    # kuhn: one card of each rank
    with pytest.raises(ArgumentValueError, match=r"rank Q is dealt 2 times.*holds 1 of each"):
        _play("kuhn", [1, 1], -1, [0, 0])


def test_hand_valid_deals_give_the_right_utilities():
    # check-check in both rounds, ante 1 each: Q beats J under a K ...
    assert _play("leduc", [0, 1], 2, [0, 0, 0, 0]).utilities().tolist() == [-1.0, 1.0]
    # ... the J pairs the community J ...
    assert _play("leduc", [0, 1], 0, [0, 0, 0, 0]).utilities().tolist() == [1.0, -1.0]
    # ... two jacks (the deck has two) split the pot; numpy integers are ranks too
    hand = _play("leduc", np.array([0, 0]), np.int64(1), [0, 0, 0, 0])
    assert hand.cards == (0, 0) and hand.community == 1
    assert hand.utilities().tolist() == [0.0, 0.0]
    # round 1: P1 raises 2, P2 calls; round 2: P1 raises 4, P2 folds: P2 loses 1 + 2
    assert _play("leduc", [0, 1], 2, [1, 0, 1, 2]).utilities().tolist() == [3.0, -3.0]
    # kuhn: P1 bets, P2 calls, K beats Q: 2 chips each
    assert _play("kuhn", (2, 1), -1, [1, 0]).utilities().tolist() == [2.0, -2.0]


def test_hand_and_deal_refuse_what_is_not_a_game_or_generator():
    with pytest.raises(ArgumentTypeError, match=r"game must be an EnvGame.*NoneType"):
        Hand(None)
    with pytest.raises(ArgumentTypeError, match=r"game must be an EnvGame.*str"):
        Hand("leduc")
    hand = Hand(env_game("leduc"))
    for rng in (None, random.Random(0), np.random.RandomState(0), 7):
        with pytest.raises(ArgumentTypeError, match=r"rng must be a numpy.random.Generator"):
            hand.deal(rng)
    hand.deal(np.random.default_rng(0))
    assert len(hand.cards) == 2


def test_hand_before_start_and_after_the_hand_is_over():
    hand = Hand(env_game("kuhn"))
    for call in (
        lambda: hand.act(0),
        lambda: hand.infoset(0),
        lambda: hand.infoset_index(0),
        lambda: hand.observation(0),
        lambda: hand.utilities(),
    ):
        with pytest.raises(RuntimeError, match=r"no hand in play: call start\(\) or deal\(\)"):
            call()
    hand.start([0, 1])
    with pytest.raises(RuntimeError, match=r"utilities: the hand is not over"):
        hand.utilities()
    hand.act(0)
    hand.act(0)
    with pytest.raises(IllegalActionError, match=r"the hand is over \(1:c 2:c\)") as caught:
        hand.act(0)
    assert "player_0" not in str(caught.value)
    assert hand.utilities().tolist() == [-1.0, 1.0]


@pytest.mark.parametrize(
    "seat, error, match",
    [
        (2, ArgumentValueError, r"seat must be 0\.\.1 \(0-based seats of leduc\), not 2"),
        (-1, ArgumentValueError, r"seat must be 0\.\.1"),
        (1.5, ArgumentTypeError, r"seat must be an int, not float"),
        (True, ArgumentTypeError, r"seat must be an int, not bool"),
        (None, ArgumentTypeError, r"seat must be an int, not NoneType"),
    ],
)
def test_hand_queries_refuse_a_bad_seat(seat, error, match):
    hand = _play("leduc", [0, 1], 2, [])
    for query in (hand.infoset, hand.infoset_index, hand.observation):
        with pytest.raises(error, match=match):
            query(seat)
    assert hand.infoset(np.int64(0)) == hand.infoset(0)  # numpy integers are seats too


def test_describe_index_refuses_a_non_integer():
    game = env_game("kuhn")
    for i in (None, 1.5, "0", True):
        with pytest.raises(ArgumentTypeError, match=r"i \(an observation index\) must be an int"):
            game.describe_index(i)
    assert game.describe_index(np.int64(0)) == "own_rank: J"
    with pytest.raises(IndexError, match="out of range"):
        game.describe_index(game.obs_size)


# -- PettingZoo -------------------------------------------------------------------------------


def test_raw_env_refuses_step_observe_last_before_reset():
    e = raw_env("kuhn")
    with pytest.raises(RuntimeError, match=r"step: no hand dealt: call reset\(\) first"):
        e.step(0)
    with pytest.raises(RuntimeError, match=r"observe: no hand dealt: call reset\(\) first"):
        e.observe("player_1")
    with pytest.raises(RuntimeError, match=r"last: no hand dealt: call reset\(\) first"):
        e.last()
    assert e.render() is None  # no render_mode: a warning, as before
    assert "no hand dealt" in raw_env("kuhn", render_mode="ansi").render()


def test_after_every_agent_stepped_out_step_and_last_say_so():
    e = raw_env("kuhn")
    e.reset(seed=0)
    e.step(0)
    e.step(0)  # check, check: the hand is over
    e.step(None)
    e.step(None)  # both agents are out
    assert e.agents == []
    for call in (lambda: e.step(None), lambda: e.last()):
        with pytest.raises(RuntimeError, match=r"every agent has stepped out.*call reset\(\)"):
            call()
    e.reset(seed=0)
    assert e.last()[2] is False
    w = env("kuhn")
    w.reset(seed=0)
    for a in (0, 0, None, None, None):  # the wrapper warns on the last step, as PettingZoo does
        w.step(a)
    with pytest.raises(RuntimeError, match=r"every agent has stepped out"):
        w.last()


def test_unknown_agents_are_named_with_the_list_of_agents():
    w = env("kuhn")
    w.reset(seed=0)
    for call, agent in (
        (w.observe, "player_9"),
        (w.action_space, "player_0"),
        (w.observation_space, "player_0"),
    ):
        with pytest.raises(
            ArgumentValueError, match=rf"unknown agent '{agent}'.*player_1, player_2"
        ):
            call(agent)
    for call in (w.observe, w.action_space, w.observation_space):
        with pytest.raises(ArgumentTypeError, match=r"agent must be an agent name.*int 3"):
            call(3)
        with pytest.raises(ArgumentTypeError, match=r"agent must be an agent name"):
            call(["player_1"])  # unhashable
    assert w.action_space("player_1").n == 3
    assert w.observe("player_1")["action_mask"].tolist() == [1, 1, 0]


def test_illegal_reward_is_checked_naming_it():
    env("kuhn", illegal_reward=10**30)  # a finite number, even as a big int
    env("kuhn", illegal_reward=np.float32(-1))
    with pytest.raises(ArgumentValueError, match=r"illegal_reward must be finite"):
        env("kuhn", illegal_reward=10**400)  # too large for a float
    with pytest.raises(ArgumentTypeError, match=r"illegal_reward must be a number or None"):
        env("kuhn", illegal_reward="-1")


# -- SubmissionPolicy, simulate, ids, names -------------------------------------------------------


@pytest.mark.parametrize(
    "info, error, match",
    [
        ({}, ArgumentValueError, r"info must hold 'seat' .*missing 'seat', 'infoset_index'"),
        ({"seat": 1}, ArgumentValueError, r"info must hold .*missing 'infoset_index'"),
        (None, ArgumentTypeError, r"info must be the environment's info dict.*NoneType"),
        ("x", ArgumentTypeError, r"info must be the environment's info dict.*str"),
        ({"seat": 0, "infoset_index": 0}, ArgumentValueError, r"info\['seat'\] must be 1\.\.2"),
        ({"seat": 1.0, "infoset_index": 0}, ArgumentTypeError, r"info\['seat'\] must be an int"),
    ],
)
def test_submission_policy_checks_info(info, error, match):
    policy = SubmissionPolicy("uniform", "kuhn", seed=0)
    with pytest.raises(error, match=match):
        policy.act(None, info)
    with pytest.raises(error, match=match):
        policy.probabilities(None, info)


def test_submission_policy_reads_a_good_info():
    policy = SubmissionPolicy("uniform", "kuhn", seed=0)
    e = env("kuhn")
    e.reset(seed=0)
    obs, _, _, _, info = e.last()
    assert policy.probabilities(obs, info).tolist() == [0.5, 0.5, 0.0]
    assert policy.act(obs, info) in (0, 1)


def test_simulate_refuses_a_count_past_numpys_largest_array():
    with pytest.raises(ArgumentValueError, match=r"n_hands=1,180,591,620,717,411,303,424"):
        simulate("kuhn", "uniform", 2**70)


def test_env_id_refuses_what_is_not_a_preset():
    assert env_id("team-leduc") == "teamleduc/TeamLeduc-v0"
    assert env_id("kuhn-100") == "teamleduc/Kuhn100-v0"
    assert env_id(get_config("team-leduc-2025")) == "teamleduc/TeamLeduc2025-v0"
    for preset in (None, 3):
        with pytest.raises(ArgumentTypeError, match=r"preset must be a preset name"):
            env_id(preset)
    for preset in ("bogus", ""):
        with pytest.raises(ArgumentValueError, match=r"unknown preset"):
            env_id(preset)
    with pytest.raises(ArgumentValueError, match=r"preset: 'kuhn-5p-6cards' is not a preset"):
        env_id(kuhn_config(5, 6))


def test_agent_name_takes_a_seat_from_0():
    assert agent_name(0) == "player_1"
    assert agent_name(np.int64(3)) == "player_4"
    with pytest.raises(ArgumentValueError, match=r"seat \(0-based\) must be >= 0, not -1"):
        agent_name(-1)
    for seat in (1.5, True, "1", None):
        with pytest.raises(ArgumentTypeError, match=r"seat \(0-based\) must be an int"):
            agent_name(seat)


# -- SeatEnv ----------------------------------------------------------------------------------


def test_seat_env_before_the_first_reset():
    s = SeatEnv("kuhn")
    with pytest.raises(RuntimeError, match=r"action_masks: no hand dealt: call reset\(\) first"):
        s.action_masks()
    with pytest.raises(RuntimeError, match=r"step: no hand dealt: call reset\(\) first"):
        s.step(0)
    s.reset(seed=0)
    assert s.action_masks().tolist() == [True, True, False]
    while not s.step(0)[2]:
        pass
    assert s.action_masks().tolist() == [False, False, False]
    with pytest.raises(RuntimeError, match=r"the hand is over: call reset\(\)"):
        s.step(0)
