"""teamleduc/KuhnPoker-v0 against gym-kuhn-poker 0.2 itself, step by step.

Two players: gym-kuhn-poker deals (its own ``reset``, global numpy seeded), our environment is
reset with the cards read from its state, and both play the same random actions: every
observation of every player, every reward vector, every end of hand and the player to act are
equal over 10,000 hands (and over every deal and action sequence of smaller variants).

Three players: gym-kuhn-poker 0.2 is wrong there (its state's player-turn block has 2 entries
whatever N, its offsets assume N), so only what it gets right is compared: the end of hand,
the player to act, the player block and, with betting_rounds >= 3, the pot block of every
observation, and the rewards of the hands that end with one player left where it does not
crash. Its other numbers are pinned as it gives them: how many showdowns it pays wrongly or
crashes on, and that no step shows every player its own card.

gym 0.26.2's passive environment checker reads ``np.bool8``, which numpy 2 removed: the gym
environment is made with ``disable_env_checker=True`` (here only; nothing of gym is patched).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter

import gymnasium
import numpy as np
import pytest

from teamleduc.envs import KUHN_POKER_ID
from tests.test_envs_kuhn_gym import terminal_sequences

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    gym = pytest.importorskip("gym")
    pytest.importorskip("gym_kuhn_poker")

PASS, BET = 0, 1


@pytest.fixture(autouse=True)
def keep_global_numpy_state():
    """gym-kuhn-poker deals from numpy's global generator: seed it, then give it back."""
    state = np.random.get_state()
    yield
    np.random.set_state(state)


def pair(**kwargs):
    """(gym-kuhn-poker's env, ours) with the same keyword arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = gym.make("KuhnPoker-v0", disable_env_checker=True, **kwargs)
    return theirs, gymnasium.make(KUHN_POKER_ID, **kwargs)


def their_cards(theirs, n, d):
    """The cards gym-kuhn-poker dealt: its reset writes [1, 0] + one-hot hands + ..."""
    state = theirs.unwrapped.state
    return [state[2 + p * d : 2 + (p + 1) * d].index(1) for p in range(n)]


def set_their_cards(theirs, cards):
    """Deal ``cards`` in gym-kuhn-poker after its reset, with its own encoding of hands."""
    env = theirs.unwrapped
    n, d = env.number_of_players, env.deck_size
    env.state[2 : 2 + n * d] = env.vector_from_dealt_hands(cards)


def as_lists(obs):
    return [o.tolist() for o in obs]


def play_two_players(theirs, ours, actions_of) -> int:
    """Play one hand in both; assert every step is identical; return its number of steps."""
    obs_t = theirs.reset()
    obs_o, info = ours.reset(options={"cards": their_cards(theirs, 2, ours.unwrapped.deck_size)})
    assert as_lists(obs_o) == obs_t
    done, steps = False, 0
    while not done:
        assert info["current_player"] == theirs.unwrapped.current_player
        a = actions_of(steps)
        obs_t, reward_t, done, info_t = theirs.step(a)
        obs_o, reward_o, terminated, truncated, info = ours.step(a)
        assert as_lists(obs_o) == obs_t
        assert reward_o.tolist() == reward_t
        assert terminated == done and truncated is False and info_t == {}
        steps += 1
    return steps


def test_ten_thousand_random_hands_step_by_step():
    theirs, ours = pair(number_of_players=2, deck_size=3, betting_rounds=2, ante=1)
    np.random.seed(20240530)
    rng = np.random.default_rng(20240530)
    actions = rng.integers(0, 2, size=3 * 10_000).tolist()
    at, steps = 0, Counter()
    for _ in range(10_000):
        n = play_two_players(theirs, ours, lambda k, at=at: actions[at + k])
        at += n
        steps[n] += 1
    assert sorted(steps) == [2, 3]  # every hand length occurred


@pytest.mark.parametrize(
    "kwargs, hands",
    [
        ({"deck_size": 5, "betting_rounds": 3, "ante": 2}, 2000),
        ({"deck_size": 10, "betting_rounds": 4, "ante": 7}, 2000),
    ],
)
def test_random_hands_of_other_two_player_variants(kwargs, hands):
    theirs, ours = pair(number_of_players=2, **kwargs)
    np.random.seed(7)
    rng = np.random.default_rng(7)
    for _ in range(hands):
        play_two_players(theirs, ours, lambda k: int(rng.integers(2)))


SEQUENCES_2P = [(PASS, PASS), (PASS, BET, PASS), (PASS, BET, BET), (BET, PASS), (BET, BET)]


@pytest.mark.parametrize("kwargs", [{}, {"deck_size": 5, "betting_rounds": 3, "ante": 2}])
def test_every_deal_and_every_sequence_of_two_players(kwargs):
    theirs, ours = pair(**kwargs)
    d = ours.unwrapped.deck_size
    for cards in itertools.permutations(range(d), 2):
        for seq in SEQUENCES_2P:
            theirs.reset()
            set_their_cards(theirs, cards)
            ours.reset(options={"cards": cards})
            for a in seq:
                obs_t, reward_t, done, _ = theirs.step(a)
                obs_o, reward_o, terminated, _, _ = ours.step(a)
                assert as_lists(obs_o) == obs_t and reward_o.tolist() == reward_t
                assert terminated == done
            assert done


def three_players(betting_rounds):
    """Every deal of 4 cards to 3 players and every action sequence, in both environments:
    assert what gym-kuhn-poker gets right, count the rest."""
    n, d = 3, 4
    theirs, ours = pair(number_of_players=n, deck_size=d, betting_rounds=betting_rounds)
    count = Counter()
    for cards in itertools.permutations(range(d), n):
        for seq in terminal_sequences(n):
            theirs.reset()
            set_their_cards(theirs, cards)
            obs_o, info = ours.reset(options={"cards": cards})
            crashed = False
            for a in seq:
                assert info["current_player"] == theirs.unwrapped.current_player
                try:
                    obs_t, reward_t, done, _ = theirs.step(a)
                except ValueError:  # its showdown reads a hand slice without a card
                    crashed = True
                obs_o, reward_o, terminated, _, info = ours.step(a)
                if crashed:
                    assert terminated
                    break
                count["steps"] += 1
                assert done == terminated
                for p in range(n):
                    assert len(obs_t[p]) == len(obs_o[p]) - (n - 2)  # its vector is shorter
                    assert obs_t[p][:n] == obs_o[p][:n].tolist()  # the player block
                    count["pots equal"] += obs_t[p][-n:] == obs_o[p][-n:].tolist()
                count["every card shown"] += all(
                    obs_t[p][n : n + d] == obs_o[p][n : n + d].tolist() for p in range(n)
                )
            kind = "uncontested" if seq.count(BET) == 1 else "showdown"
            if crashed:
                count[f"{kind} crash"] += 1
            elif reward_t == reward_o.tolist():
                count[f"{kind} equal"] += 1
            else:
                count[f"{kind} wrong"] += 1
    return count


def test_three_players_with_three_history_blocks():
    count = three_players(3)
    steps = count.pop("steps")
    assert count.pop("pots equal") == 3 * steps  # every pot entry of every observation
    assert count.pop("every card shown") == 0  # never: its card block is read off by one
    # every hand with one player left is paid right unless it crashes; showdowns are not
    assert count == {
        "uncontested equal": 60,
        "uncontested crash": 12,
        "showdown equal": 96,
        "showdown wrong": 48,
        "showdown crash": 96,
    }


def test_three_players_with_two_history_blocks():
    # with betting_rounds=2 player 2's answer BET is written past the history, into player 0's
    # pot entry: 30 steps show a wrong pot to every player
    count = three_players(2)
    steps = count.pop("steps")
    assert count.pop("pots equal") == 3 * (steps - 30)
    assert count.pop("every card shown") == 0
    assert count["uncontested equal"] == 60 and count["uncontested crash"] == 12
    assert count["showdown wrong"] + count["showdown crash"] == 154
