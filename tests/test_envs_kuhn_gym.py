"""teamleduc/KuhnPoker-v0: gym-kuhn-poker's interface on the toolkit's engine.

Anchors: gym-kuhn-poker's own README example (an observation vector printed there), hands
scripted with rewards counted by hand, Kuhn's -1/18 (two players) and the three-player family of
Szafron, Gibson and Sturtevant (AAMAS 2013: "A parameterized family of equilibrium profiles for
three-player Kuhn poker"; sub-family 1 as the ACPC server's ``kuhn_3p_equilibrium_player`` by
Morrill, 2013, encodes it). The exact values are also checked against a brute force that replays
every deal and every action sequence through the environment itself.
"""

from __future__ import annotations

import itertools
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from teamleduc.best_response import nash_conv
from teamleduc.config import PRESETS
from teamleduc.envs import KUHN_POKER_ID, KuhnPokerEnv, kuhn_config
from teamleduc.envs.kuhn import BET, PASS
from teamleduc.errors import ArgumentTypeError, ArgumentValueError

NONE_, P_, B_ = 0, 1, 2  # a history slot: no action, PASS, BET


def make(**kwargs) -> KuhnPokerEnv:
    return gymnasium.make(KUHN_POKER_ID, **kwargs).unwrapped


def play(env, cards, actions):
    """Reset with ``cards``, play ``actions``; return the list of step results."""
    env.reset(options={"cards": cards})
    return [env.step(a) for a in actions]


def decode(obs, n, d):
    """(player, card, block 0, block 1) of an observation, each block a tuple of slot states."""
    h = np.asarray(obs[n + d : n + d + 6 * n]).reshape(2, n, 3).argmax(axis=2)
    return int(np.argmax(obs[:n])), int(np.argmax(obs[n : n + d])), tuple(h[0]), tuple(h[1])


# --------------------------------------------------------------------------- interface


def test_make_gives_the_kuhn_presets_and_gym_kuhn_pokers_spaces():
    e = make()
    assert e.config is PRESETS["kuhn"]
    assert e.action_space == gymnasium.spaces.Discrete(2) and (PASS, BET) == (0, 1)
    assert len(e.observation_space) == 2
    box = e.observation_space[0]
    assert box.shape == (2 + 3 + 3 * 2 * 2 + 2,) and box.dtype == np.int64
    assert box.low[-2:].tolist() == [1, 1] and box.high[-2:].tolist() == [2, 2]
    assert kuhn_config(3, 4) is PRESETS["kuhn-3p"] and kuhn_config(2, 100) is PRESETS["kuhn-100"]
    c = kuhn_config(4, 6, 2)
    assert (c.name, c.num_seats, c.num_ranks, c.suits, c.ante) == (
        "kuhn-4p-6cards-ante2",
        4,
        6,
        1,
        2,
    )
    assert (c.raise_sizes, c.raise_rule, c.max_raises) == ((1,), "cap", 1)
    assert make(number_of_players=3, deck_size=5, betting_rounds=4).observation_space[2].shape == (
        3 + 5 + 3 * 3 * 4 + 3,
    )
    assert gymnasium.spec(KUHN_POKER_ID).disable_env_checker  # reward vector: no passive checker


def test_gym_kuhn_pokers_readme_example():
    # README: "player 1 has card 3 and player 2 has card 2; player one PASSed, followed by player
    # 2's BET"; the observation for player 1 is printed there (players counted from 1).
    e = make()
    obs, r, term, trunc, info = play(e, (2, 1), [PASS, BET])[-1]
    assert obs[0].tolist() == [1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 2]
    assert r.tolist() == [0, 0] and not term and not trunc and info == {"current_player": 0}
    obs, r, term, trunc, info = e.step(BET)  # player 1 calls with the higher card
    assert r.tolist() == [2.0, -2.0] and term and not trunc and info == {"current_player": -1}
    assert obs[1].tolist() == [0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 2, 2]


@pytest.mark.parametrize("ante", [1, 3])
def test_every_two_player_hand_by_hand(ante):
    # player 0 holds card 0, player 1 card 2: every action sequence, chips counted by hand
    cases = {
        (PASS, PASS): [-ante, ante],  # showdown of the antes
        (PASS, BET, PASS): [-ante, ante],  # player 0 folds
        (PASS, BET, BET): [-ante - 1, ante + 1],  # call, showdown
        (BET, PASS): [ante, -ante],  # player 1 folds
        (BET, BET): [-ante - 1, ante + 1],
    }
    e = make(ante=ante)
    for actions, want in cases.items():
        steps = play(e, (0, 2), actions)
        assert [s[2] for s in steps] == [False] * (len(actions) - 1) + [True]
        assert all(s[1].tolist() == [0, 0] for s in steps[:-1])
        assert steps[-1][1].tolist() == want, actions
        paid = [ante, ante]
        for i, a in enumerate(actions):
            paid[i % 2] += a == BET
        assert all(o[-2:].tolist() == paid for o in steps[-1][0])


def test_three_players_history_pots_and_turns():
    e = make(number_of_players=3, deck_size=4, betting_rounds=3)
    obs, info = e.reset(options={"cards": (0, 1, 2)})
    turns = [info["current_player"]]
    for a in (PASS, PASS, BET, PASS, BET):  # 2 bets, 0 folds, 1 calls: Q against K
        obs, r, term, _, info = e.step(a)
        turns.append(info["current_player"])
    assert turns == [0, 1, 2, 0, 1, -1] and term
    assert r.tolist() == [-1.0, -2.0, 3.0]
    for p in range(3):
        player, card, b0, b1 = decode(obs[p], 3, 4)
        assert (player, card) == (p, p)
        assert b0 == (P_, P_, B_) and b1 == (P_, B_, NONE_)
        assert obs[p][3 + 4 + 18 : 3 + 4 + 27].tolist() == [1, 0, 0] * 3  # block 2 untouched
        assert obs[p][-3:].tolist() == [1, 2, 2]


def test_three_players_every_uncontested_hand_by_hand():
    # one bet, everyone else folds: the bettor takes every ante
    e = make(number_of_players=3, deck_size=4)
    for bettor in range(3):
        actions = [PASS] * bettor + [BET, PASS, PASS]
        steps = play(e, (3, 2, 1), actions)
        want = [-1.0] * 3
        want[bettor] = 2.0
        assert steps[-1][1].tolist() == want and steps[-1][2]


def test_the_deal_is_seeded_and_uniform_over_distinct_cards():
    e = make(number_of_players=3, deck_size=5)

    def cards(obs):
        return [int(np.argmax(o[3:8])) for o in obs]

    first = [cards(e.reset(seed=7)[0]) for _ in range(2)]
    assert first[0] == first[1] == list(e.hand.cards)
    seen = set()
    for _ in range(3000):
        seen.add(tuple(cards(e.reset()[0])))
    assert seen == set(itertools.permutations(range(5), 3))  # all 60 ordered deals occur


def test_gymnasium_check_env_passes_with_the_reward_vector():
    for kwargs in ({}, {"number_of_players": 3, "deck_size": 5, "betting_rounds": 3, "ante": 2}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(make(**kwargs), skip_render_check=True)
        messages = {str(w.message) for w in caught}
        assert messages and all(
            "reward returned by `step()` must be a float" in m for m in messages
        )


def test_no_warning_from_make_and_play():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = gymnasium.make(KUHN_POKER_ID, number_of_players=3, deck_size=4)
        e.reset(seed=0)
        done = False
        while not done:
            _, _, done, _, _ = e.step(e.action_space.sample())


def test_render_ansi_shows_the_table():
    e = make(render_mode="ansi")
    e.reset(options={"cards": (1, 2)})
    e.step(BET)
    text = e.render()
    assert "player_1" in text and "Q" in text and "K" in text


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"foo": 1}, ArgumentTypeError, "unknown keyword argument(s) foo"),
        ({"players": 3}, ArgumentTypeError, "players"),
        ({"number_of_players": 1}, ArgumentValueError, "number_of_players must be 2..8"),
        ({"number_of_players": 9}, ArgumentValueError, "number_of_players must be 2..8"),
        ({"number_of_players": 2.0}, ArgumentTypeError, "number_of_players must be an int"),
        ({"number_of_players": "3"}, ArgumentTypeError, "number_of_players must be an int"),
        ({"number_of_players": 3, "deck_size": 2}, ArgumentValueError, "deck_size must be 3.."),
        ({"deck_size": 1001}, ArgumentValueError, "deck_size must be 2..1000"),
        ({"deck_size": None}, ArgumentTypeError, "deck_size must be an int"),
        ({"betting_rounds": 1}, ArgumentValueError, "betting_rounds must be 2..100"),
        ({"betting_rounds": 101}, ArgumentValueError, "betting_rounds must be 2..100"),
        ({"betting_rounds": 2.5}, ArgumentTypeError, "betting_rounds must be an int"),
        ({"ante": 0}, ArgumentValueError, "ante must be 1..1000000"),
        ({"ante": 1.5}, ArgumentTypeError, "ante must be an int"),
        ({"ante": True}, ArgumentTypeError, "ante must be an int"),
        ({"render_mode": "rgb_array"}, ArgumentValueError, "render_mode"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array'")
def test_bad_arguments_name_the_argument(kwargs, error, words):
    with pytest.raises(error) as caught:
        gymnasium.make(KUHN_POKER_ID, **kwargs)
    # Gymnasium re-raises a TypeError with its context appended; the message starts with ours
    assert str(caught.value).startswith("KuhnPoker-v0: ")
    assert words in str(caught.value)
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        KuhnPokerEnv(**kwargs)


def test_numpy_integers_are_taken():
    e = make(number_of_players=np.int64(3), deck_size=np.int32(4), betting_rounds=np.int8(2))
    assert e.config is PRESETS["kuhn-3p"]


@pytest.mark.parametrize(
    "action, error",
    [(2, ArgumentValueError), (-1, ArgumentValueError), (1.0, ArgumentTypeError),
     ("1", ArgumentTypeError), (True, ArgumentTypeError), (None, ArgumentTypeError)],
)  # fmt: skip
def test_bad_actions_are_refused_and_change_nothing(action, error):
    e = make()
    obs, _ = e.reset(options={"cards": (0, 1)})
    with pytest.raises(error, match="action"):
        e.step(action)
    assert e.current_player == 0 and np.array_equal(e._observations()[0], obs[0])
    assert e.step(np.int64(1))[0][0][2 + 3 + 2] == 1  # numpy integers are actions


def test_step_out_of_order():
    e = KuhnPokerEnv()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(PASS)
    assert e.current_player == -1
    play(e, (0, 1), [PASS, PASS])
    with pytest.raises(RuntimeError, match="the hand is over"):
        e.step(PASS)
    with pytest.raises(gymnasium.error.ResetNeeded):
        gymnasium.make(KUHN_POKER_ID).step(PASS)


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"cards": (0, 0)}, ArgumentValueError, "distinct"),
        ({"cards": (0, 3)}, ArgumentValueError, r"options\['cards'\]\[1\] must be 0..2"),
        ({"cards": (0,)}, ArgumentValueError, "must be 2 cards"),
        ({"cards": "01"}, ArgumentValueError, "must be 2 cards"),
        ({"cards": (0, 1.0)}, ArgumentTypeError, r"options\['cards'\]\[1\] must be an int"),
        ({"deal": (0, 1)}, ArgumentValueError, "unknown option"),
        ([0, 1], ArgumentTypeError, "options must be a dict"),
    ],
)
def test_bad_reset_options(options, error, words):
    with pytest.raises(error, match=words):
        make().reset(options=options)


def test_bad_policies_name_the_policy():
    e = make()
    with pytest.raises(ArgumentValueError, match="policy of player 0 must return"):
        e.expected_rewards(lambda obs: (0.5, 0.6))
    with pytest.raises(ArgumentValueError, match="policy of player 0 must return"):
        e.expected_rewards(lambda obs: 0.5)
    with pytest.raises(ArgumentValueError, match="policy of player 0 must return"):
        e.expected_rewards(lambda obs: (1.5, -0.5))
    with pytest.raises(ArgumentTypeError, match="list of 2 callables"):
        e.expected_rewards([lambda obs: (1, 0)])
    with pytest.raises(ArgumentTypeError, match="policy must be a callable"):
        e.expected_rewards({"player_1": None})
    with pytest.raises(ArgumentValueError, match="deck_size\\*\\*number_of_players = 7\\*\\*6"):
        make(number_of_players=6, deck_size=7).expected_rewards(lambda obs: (1, 0))


# --------------------------------------------------------------------------- exact values


def terminal_sequences(n):
    """Every complete PASS/BET sequence of n-player one-bet Kuhn poker."""
    out = []

    def extend(h):
        if (BET in h and len(h) - h.index(BET) == n) or (BET not in h and len(h) == n):
            out.append(tuple(h))
            return
        extend(h + [PASS])
        extend(h + [BET])

    extend([])
    return out


def brute_expected_rewards(env, policy):
    """The expected reward vector by replaying every deal and every action sequence."""
    n, d = env.number_of_players, env.deck_size
    deals = list(itertools.permutations(range(d), n))
    total = np.zeros(n)
    for cards in deals:
        for seq in terminal_sequences(n):
            obs, info = env.reset(options={"cards": cards})
            prob = 1.0
            for a in seq:
                prob *= policy(obs[info["current_player"]])[a]
                obs, r, term, _, info = env.step(a)
            assert term
            total += prob * r
    return total / len(deals)


def test_terminal_sequences_count():
    # 2 players: pp, pbp, pbb, bp, bb; n players: n + 1 ways to bet or not, answers 2**(n-1)
    assert len(terminal_sequences(2)) == 5
    assert len(terminal_sequences(3)) == 1 + 3 * 4


def random_policy(seed, n, d):
    """A fixed random mixed policy on the observations (a table keyed by the vector)."""
    rng = np.random.default_rng(seed)
    table = {}

    def policy(obs):
        key = tuple(np.asarray(obs).tolist())
        if key not in table:
            p = float(rng.random())
            table[key] = (1 - p, p)
        return table[key]

    return policy


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"ante": 2, "deck_size": 4},
        {"number_of_players": 3, "deck_size": 4, "betting_rounds": 3},
    ],
)
def test_exact_rewards_equal_the_brute_force(kwargs):
    e = make(**kwargs)
    policy = random_policy(5, e.number_of_players, e.deck_size)
    exact = e.expected_rewards(policy)  # every information set is asked once, first
    np.testing.assert_allclose(exact, brute_expected_rewards(e, policy), atol=1e-13)
    assert abs(exact.sum()) < 1e-13  # zero-sum


def kuhn_equilibrium(alpha):
    """Kuhn's family for two players (value -1/18 for player 0), on the observations."""

    def policy(obs):
        p, c, b0, _ = decode(obs, 2, 3)
        if p == 0:
            bet = [alpha, 0, 3 * alpha][c] if b0 == (NONE_, NONE_) else [0, alpha + 1 / 3, 1][c]
        else:
            bet = [1 / 3, 0, 1][c] if b0 == (P_, NONE_) else [0, 1 / 3, 1][c]
        return 1 - bet, bet

    return policy


@pytest.mark.parametrize("alpha", [0.0, 0.2, 1 / 3])
def test_two_player_kuhn_is_minus_one_eighteenth(alpha):
    result = make().nash_conv(kuhn_equilibrium(alpha))
    np.testing.assert_allclose(result.values, [-1 / 18, 1 / 18], atol=1e-15)
    assert result.nash_conv == pytest.approx(0.0, abs=1e-14)


def szafron_equilibrium(b11, b21, b32, c33, c34):
    """Sub-family 1 (c11 = 0) of Szafron, Gibson and Sturtevant's three-player family, on the
    observations (cards J Q K A = 0..3). Player 0 always checks and calls only with the ace (and
    with the king half the time when player 1 bet and player 2 folded); player 1 bets J, Q, A with
    b11, b21, 2 b11 + 2 b21 after a check, calls a bet with K b32 and with A, and calls player 2's
    bet after player 0 folded with K (1 + b11 + 2 b21) / 2; player 2 bets Q 1/2 and A after two
    checks and calls with A, with K c33 / c34 after player 0 bet and player 1 folded / called."""
    b41, b33 = 2 * b11 + 2 * b21, (1 + b11 + 2 * b21) / 2

    def policy(obs):
        p, c, b0, b1 = decode(obs, 3, 4)
        if p == 0:
            if b0 == (NONE_, NONE_, NONE_):
                t = [0, 0, 0, 0]
            else:
                t = [0, 0, 0.5, 1] if b0 == (P_, B_, NONE_) and b1[2] == P_ else [0, 0, 0, 1]
        elif p == 1:
            if b0 == (P_, NONE_, NONE_):
                t = [b11, b21, 0, b41]
            elif b0 == (B_, NONE_, NONE_):
                t = [0, 0, b32, 1]
            else:  # player 2 bet after two checks; player 0 answered
                t = [0, 0, b33, 1] if b1[0] == P_ else [0, 0, 0, 1]
        else:
            if b0 == (P_, P_, NONE_):
                t = [0, 0.5, 0, 1]
            elif b0 == (P_, B_, NONE_):
                t = [0, 0, 0, 1]
            else:  # player 0 bet; player 1 answered
                t = [0, 0, c33, 1] if b1[1] == P_ else [0, 0, c34, 1]
        return 1 - t[c], t[c]

    return policy


@pytest.mark.parametrize(
    "params",
    [
        (0.0, 0.0, 0.5, 0.0, 0.0),  # beta = max(b11, b21) = 0
        (0.0, 0.0, 0.0, 0.5, 1.0),
        (0.1, 0.2, 0.3, 0.3, 0.5),  # beta = 1/5
        (0.25, 0.25, 0.9375, 0.0, 1.0),  # the ACPC server's sample player: beta = 1/4
    ],
)
def test_three_player_kuhn_family_is_an_equilibrium_with_its_values(params):
    e = make(number_of_players=3, deck_size=4)
    assert e.config is PRESETS["kuhn-3p"]
    result = e.nash_conv(szafron_equilibrium(*params))
    assert result.nash_conv == pytest.approx(0.0, abs=1e-14)
    beta = max(params[0], params[1])
    # player 0 (the paper's P1) gets -1/48 at beta = 0 and less as player 1 shifts utility
    # from player 0 to player 2; player 1 always gets -1/48
    want = [-1 / 48 - beta / 24, -1 / 48, 1 / 24 + beta / 24]
    np.testing.assert_allclose(result.values, want, atol=1e-15)


def test_three_player_family_against_the_brute_force():
    e = make(number_of_players=3, deck_size=4)
    policy = szafron_equilibrium(0.0, 0.0, 0.5, 0.0, 0.0)
    np.testing.assert_allclose(brute_expected_rewards(e, policy), [-1 / 48, -1 / 48, 1 / 24])


def test_the_policy_becomes_the_submission_nash_conv_reads():
    e = make(number_of_players=3, deck_size=4)
    sub = e.policy_submission(lambda obs: (0.5, 0.5))
    uniform = nash_conv("kuhn-3p", "uniform")
    np.testing.assert_allclose(nash_conv("kuhn-3p", sub).values, uniform.values, atol=1e-15)
    # one callable per player; player 0 always bets, the others always pass (fold)
    rewards = e.expected_rewards([lambda o: (0, 1), lambda o: (1, 0), lambda o: (1, 0)])
    np.testing.assert_allclose(rewards, [2.0, -1.0, -1.0])
