"""Hostile input at the Python API and the environments (issue 34, class 5): every entry point of
``teamleduc.api`` and ``teamleduc.envs`` checks what it is given and names the argument; no
compiled kernel sees an array for another preset, a NaN or mass on an illegal action."""

import warnings

import numpy as np
import pandas as pd
import pytest

import teamleduc.api as tl
from teamleduc.envs import (
    IllegalActionError,
    SeatEnv,
    SubmissionPolicy,
    env,
    greedy_policy,
    policy_submission,
    raw_env,
    simulate,
)
from teamleduc.errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from teamleduc.files.model import Submission, check_submission, uniform_submission

LEDUC = tl.get_config("leduc")
TINY = "tiny-team-leduc"
UNIFORM_LEDUC = -0.078125  # OpenSpiel's leduc_poker, uniform policy (tests/test_evaluate.py)


def with_rows(sub, seat, rows):
    strategies = dict(sub.strategies)
    strategies[seat] = rows
    return Submission(sub.signals, sub.probs, sub.seats, strategies)


def nan_sub():
    a = uniform_submission(LEDUC).strategies[0].copy()
    a[0, 7] = np.nan
    return with_rows(uniform_submission(LEDUC), 0, a)


def illegal_sub():  # 1/3 each everywhere: fold where nobody bet
    sub = uniform_submission(LEDUC)
    return with_rows(sub, 0, np.full_like(sub.strategies[0], 1 / 3))


class Duck:
    """A Submission-like object that is not a Submission (the resolver takes one)."""

    def __init__(self, sub):
        self.signals, self.probs, self.seats = sub.signals, sub.probs, sub.seats
        self.strategies = sub.strategies


# ------------------------------------------------------------------ the error types


def test_argument_errors_are_the_toolkits_and_pythons():
    assert issubclass(ArgumentValueError, TeamLeducError)
    assert issubclass(ArgumentValueError, ValueError)
    assert issubclass(ArgumentTypeError, TeamLeducError)
    assert issubclass(ArgumentTypeError, TypeError)
    assert ArgumentValueError("x").exit_code == 2


# ------------------------------------------------------------------ one check of a loaded object


@pytest.mark.parametrize(
    "bad, message",
    [
        (
            uniform_submission(tl.get_config("kuhn")),
            r"seat 1: 6 rows, expected 144 .*another preset",
        ),
        (nan_sub(), r"seat 1, signal 0, line 8 \(/C:Q\?/[^)]*\): p_c = nan is not a finite number"),
        (illegal_sub(), r"seat 1, signal 0, line 1 \(/C:J\?/\): .*on an illegal action"),
        (
            Submission(
                [0, 1],
                [0.5, 0.6],
                (0, 1),
                {s: np.repeat(a, 2, 0) for s, a in uniform_submission(LEDUC).strategies.items()},
            ),
            "signal probabilities sum to 1.1",
        ),
        (Duck(uniform_submission(tl.get_config("kuhn"))), "6 rows, expected 144"),
    ],
)
def test_every_boundary_refuses_a_bad_loaded_submission(bad, message):
    calls = [
        lambda: tl.evaluate(bad, "uniform", LEDUC),
        lambda: tl.evaluate("uniform", bad, LEDUC),
        lambda: tl.match(bad, "uniform", LEDUC),
        lambda: tl.best_response(LEDUC, 0, bad),
        lambda: tl.exploitability(LEDUC, bad),
        lambda: tl.nash_conv(LEDUC, bad),
        lambda: simulate(LEDUC, bad, 100, seed=0),
        lambda: SeatEnv(LEDUC, others=bad),
        lambda: SubmissionPolicy(bad, LEDUC),
    ]
    for call in calls:
        with pytest.raises(ArgumentValueError, match=message):
            call()
    # the same call with a valid object still gives the exact value
    assert tl.evaluate(Duck(uniform_submission(LEDUC)), "uniform", LEDUC).value == pytest.approx(
        UNIFORM_LEDUC, abs=1e-12
    )


def test_check_submission_names_the_object_and_passes_a_valid_one():
    sub = uniform_submission(tl.get_config(TINY))
    assert check_submission(sub, tl.get_config(TINY)) is sub
    assert check_submission(Duck(sub), tl.get_config(TINY)).seats == (0, 1, 2, 3)
    with pytest.raises(ArgumentTypeError, match="SUB: a int is not a submission"):
        check_submission(3, LEDUC, "SUB")
    far = Submission([0], [1.0], (5,), {5: np.zeros((1, 3, 3))})
    with pytest.raises(ArgumentValueError, match=r"seat 6: no such seat \(leduc has seats 1..2\)"):
        check_submission(far, LEDUC)


def test_the_gym_env_refuses_another_games_opponent_at_construction():
    kuhn = uniform_submission(
        tl.get_config("kuhn")
    )  # used to fail mid-episode with numpy's IndexError
    with pytest.raises(ArgumentValueError, match="others the submission object"):
        SeatEnv("leduc", others=kuhn)
    with pytest.raises(ArgumentValueError, match="6 rows"):
        SeatEnv("leduc", others=["uniform", kuhn])


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((["a"], [1.0], (0,), {0: np.zeros((1, 2, 3))}), ArgumentTypeError, "signals"),
        (([0.5], [1.0], (0,), {0: np.zeros((1, 2, 3))}), ArgumentValueError, "integers"),
        (([0], [1 + 0j], (0,), {0: np.zeros((1, 2, 3))}), ArgumentTypeError, "probs.*complex"),
        (([0], [1.0], (0.0,), {0: np.zeros((1, 2, 3))}), ArgumentTypeError, "not float"),
        (([0], [1.0], (True,), {1: np.zeros((1, 2, 3))}), ArgumentTypeError, "not bool"),
        (([0], [1.0], 0, {0: np.zeros((1, 2, 3))}), ArgumentTypeError, "sequence"),
        (([0], [1.0], (-1,), {-1: np.zeros((1, 2, 3))}), ArgumentValueError, "negative"),
        (([0], [1.0], (0,), [np.zeros((1, 2, 3))]), ArgumentTypeError, "mapping"),
        (([0], [1.0], (0,), {0.0: np.zeros((1, 2, 3))}), ArgumentTypeError, "key"),
        (([0], [1.0], (0,), {0: np.full((1, 2, 3), "x")}), ArgumentTypeError, "seat 1"),
        (([0], [1.0], (0,), {0: np.zeros((1, 2, 3), complex)}), ArgumentTypeError, "complex"),
    ],
)
def test_submission_constructor_refuses_wrong_types(args, error, message):
    with pytest.raises(error, match=message):
        Submission(*args)


def test_submission_constructor_keeps_numpy_integers():
    sub = Submission(
        np.array([0]), np.array([1.0]), (np.int64(0),), {np.int64(0): np.ones((1, 2, 3))}
    )
    assert sub.seats == (0,) and type(sub.seats[0]) is int


# ------------------------------------------------------------------ get_config


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: tl.get_config("lduc"), ArgumentValueError, "did you mean 'leduc'"),
        (lambda: tl.get_config(["leduc"]), ArgumentTypeError, "preset must be a preset name"),
        (lambda: tl.get_config(None), ArgumentTypeError, "NoneType"),
        (lambda: tl.get_config("leduc", num_seats="4"), ArgumentTypeError, "num_seats='4'"),
        (lambda: tl.get_config("leduc", suits=1.5), ArgumentTypeError, "suits=1.5"),
        (lambda: tl.get_config("leduc", ante=True), ArgumentTypeError, "ante=True"),
        (lambda: tl.get_config("leduc", bogus=1), ArgumentTypeError, "unknown field.*bogus"),
        (lambda: tl.get_config("leduc", suits=0), ArgumentValueError, "suits must be >= 1"),
        (lambda: tl.evaluate("uniform", "uniform", "lduc"), ArgumentValueError, "unknown preset"),
    ],
)
def test_get_config_names_the_bad_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_get_config_overrides_normalise_lists_and_numpy_integers():
    c = tl.get_config("leduc", raise_sizes=[2, 6], suits=np.int64(3))
    assert c.raise_sizes == (2, 6) and c.suits == 3 and hash(c)  # hashable: the tree cache
    assert tl.build_tree(c).config is c


# ------------------------------------------------------------------ evaluate, match, best responses


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(cards=[5, 0]), ArgumentTypeError, r"card 1: give a rank name \(J Q K\), not int 5"),
        (dict(cards=["J", 1.5]), ArgumentTypeError, "card 2"),
        (dict(cards=123), ArgumentTypeError, "cards: give one rank name per seat"),
        (dict(cards="J,X"), ArgumentValueError, "card 2: unknown rank 'X'"),
        (dict(cards="J,Q", community=7), ArgumentTypeError, "community"),
        (dict(community="J"), TeamLeducError, "needs --cards"),
    ],
)
def test_evaluate_checks_cards_and_community(kwargs, error, message):
    with pytest.raises(error, match=message):
        tl.evaluate("uniform", "uniform", LEDUC, **kwargs)


def test_evaluate_conditional_value_still_exact():
    r = tl.evaluate("uniform", "uniform", LEDUC, cards=("J", "Q"))
    assert r.value == pytest.approx(-1.2109375, abs=1e-15) and r.cards == ("J", "Q")


@pytest.mark.parametrize("spec", [None, 3, {"a": 1}, 1.5])
def test_submission_arguments_of_the_wrong_type_are_named(spec):
    with pytest.raises(ArgumentTypeError, match="team_a: give a submission path"):
        tl.evaluate(spec, "uniform", LEDUC)
    with pytest.raises(ArgumentTypeError, match="y: give"):
        tl.match("uniform", spec, LEDUC)
    with pytest.raises(ArgumentTypeError, match="opponent: give"):
        tl.best_response(LEDUC, 0, spec)
    with pytest.raises(ArgumentTypeError, match="submission: give"):
        tl.exploitability(LEDUC, spec)


@pytest.mark.parametrize("team", [1.5, True, (0.0, 2.0), None])
def test_best_response_refuses_a_team_of_the_wrong_type(team):
    with pytest.raises(ArgumentTypeError, match="responding_team"):
        tl.best_response("tiny-team", team, "uniform")


def test_best_response_team_forms_agree():
    values = {
        tl.best_response("tiny-team", t, "uniform").value for t in (1, "b", (1, 3), np.int64(1))
    }
    assert len(values) == 1
    with pytest.raises(ArgumentValueError, match="not a team"):
        tl.best_response("tiny-team", (1, 2), "uniform")
    with pytest.raises(ArgumentTypeError, match="opponent_name"):
        tl.best_response("tiny-team", 1, "uniform", opponent_name=3)


# ------------------------------------------------------------------ replay


@pytest.mark.parametrize(
    "cards, community, error, message",
    [
        ([5, 0], None, ArgumentValueError, r"card 1: rank index 5 is out of range 0..2"),
        ([-1, 0], None, ArgumentValueError, r"card 1: rank index -1"),  # used to play a K
        ([1.5, 0], None, ArgumentTypeError, "card 1: give a rank name"),
        ([None, 0], None, ArgumentTypeError, "card 1"),
        ([True, 0], None, ArgumentTypeError, "card 1"),
        (5, None, ArgumentTypeError, "cards: give one rank per seat"),
        ("J,Q", 9, ArgumentValueError, "community: rank index 9"),
        ("J,Q", -1, ArgumentValueError, "community: rank index -1"),
        ("J,Q", 0.0, ArgumentTypeError, "community"),
    ],
)
def test_replay_checks_cards(cards, community, error, message):
    with pytest.raises(error, match=message):
        tl.replay(LEDUC, cards, "1:c 2:c / 1:c 2:c", community=community)


def test_replay_accepts_a_preset_name_and_numpy_integers_and_checks_actions():
    a = tl.replay("leduc", [np.int64(0), 2], "1:r 2:c / 1:c 2:c", community=np.int64(1))
    b = tl.replay(LEDUC, "J,K", "1:r 2:c / 1:c 2:c", community="Q")
    assert a.utilities == b.utilities == (-3.0, 3.0)
    with pytest.raises(ArgumentTypeError, match="actions: a string"):
        tl.replay(LEDUC, "J,K", ["1:c", "2:c"])
    with pytest.raises(ArgumentTypeError, match="actions"):
        tl.replay(LEDUC, "J,K", None)


# ------------------------------------------------------------------ the environments' actions


BAD_ACTIONS = [
    (np.inf, ArgumentTypeError),
    (1.5, ArgumentTypeError),  # used to be played as a raise
    (1.0, ArgumentTypeError),
    ("1", ArgumentTypeError),  # used to be played as a raise
    (None, ArgumentTypeError),
    (True, ArgumentTypeError),
    ([1], ArgumentTypeError),
    (np.array([1]), ArgumentTypeError),
    (-1, ArgumentValueError),
    (3, ArgumentValueError),
    (2**70, ArgumentValueError),
]


@pytest.mark.parametrize("action, error", BAD_ACTIONS)
@pytest.mark.parametrize("make", ["raw_env", "env", "seat"])
def test_an_action_outside_the_space_is_refused_and_changes_nothing(make, action, error):
    e = {"raw_env": raw_env, "env": env, "seat": SeatEnv}[make]("leduc")
    e.reset(seed=0)
    hand = e.unwrapped.hand
    before = (hand.node, list(hand.actions))
    with pytest.raises(error, match="action"):
        e.step(action)
    assert (hand.node, hand.actions) == before
    e.step(np.int64(0))  # numpy integers (and 0-d integer arrays) are in the space
    e.step(np.array(0)) if make != "seat" else None
    assert hand.actions[0] == (0, 0)


def test_illegal_but_in_space_still_raises_illegal_action_error():
    e = raw_env("leduc")
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"legal actions: 0 \(c\), 1 \(r\)"):
        e.step(2)


def test_a_done_agent_steps_none_only():
    e = env("kuhn")
    e.reset(seed=0)
    e.step(2) if e.unwrapped.hand.legal_mask()[2] else e.step(0)
    while not all(e.terminations.values()):
        e.step(0)
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)  # PettingZoo's own check
    with pytest.raises(ValueError, match="action 1.5: player_.* is done; its only action is None"):
        e.step(1.5)
    e.step(None)


@pytest.mark.parametrize(
    "seed, error",
    [
        (-1, ArgumentValueError),
        (1.5, ArgumentTypeError),
        ("3", ArgumentTypeError),
        (True, ArgumentTypeError),
    ],
)
def test_reset_seeds_are_checked(seed, error):
    for e in (raw_env("leduc"), SeatEnv("leduc")):
        with pytest.raises(error, match="seed"):
            e.reset(seed=seed)


def test_numpy_and_huge_seeds_work_and_agree():
    a, b = SeatEnv("leduc"), SeatEnv("leduc")
    a.reset(seed=np.int64(7))
    b.reset(seed=7)
    assert a.hand.cards == b.hand.cards
    r = raw_env("leduc")
    r.reset(seed=2**100)
    assert len(r.hand.cards) == 2


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(seat=1.5), ArgumentTypeError, "seat must be an int"),  # used to be seat 1
        (dict(seat="2"), ArgumentTypeError, "seat must be an int"),
        (dict(seat=True), ArgumentTypeError, "seat"),
        (dict(seat=0), ValueError, "seat must be 1..2"),
        (dict(team_rewards="no"), ArgumentTypeError, "team_rewards"),  # used to be True
        (dict(seed=-1), ArgumentValueError, "seed"),
        (dict(others=None), ArgumentTypeError, "others: give"),
        (dict(others=iter(["uniform"])), ArgumentTypeError, "others"),
        (dict(others=["uniform"]), ArgumentValueError, "others: leduc has 2 teams"),
    ],
)
def test_seat_env_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        SeatEnv("leduc", **kwargs)


def test_aec_env_arguments():
    with pytest.raises(ArgumentTypeError, match="team_rewards"):
        raw_env("leduc", team_rewards="yes")
    with pytest.raises(TypeError, match="illegal_reward"):
        env("leduc", illegal_reward="x")
    with pytest.raises(ValueError, match="illegal_reward must be finite"):
        env("leduc", illegal_reward=float("nan"))
    with pytest.raises(ArgumentValueError, match="did you mean 'leduc'"):
        raw_env("Leduc")


# ------------------------------------------------------------------ the simulator


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(n_hands=-1), ArgumentValueError, "n_hands must be >= 1"),
        (dict(n_hands=0), ArgumentValueError, "n_hands must be >= 1"),  # used to give nan means
        (dict(n_hands=1.5), ArgumentTypeError, "n_hands"),
        (dict(n_hands="10"), ArgumentTypeError, "n_hands"),
        (dict(n_hands=True), ArgumentTypeError, "n_hands"),
        (dict(n_hands=10**13), ArgumentValueError, r"n_hands=10,000,000,000,000: the results need"),
        (dict(n_hands=10, seed=-1), ArgumentValueError, "seed"),  # used to alias 2**32 - 1
        (dict(n_hands=10, seed=2**32), ArgumentValueError, "seed"),
        (dict(n_hands=10, seed=1.5), ArgumentTypeError, "seed"),
        (dict(n_hands=10, seed=None), ArgumentTypeError, "seed"),
    ],
)
def test_simulate_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        simulate("leduc", "uniform", **kwargs)


def test_simulate_numpy_integers_give_the_same_hands():
    a = simulate("leduc", "uniform", np.int64(500), seed=np.uint32(3))
    b = simulate("leduc", "uniform", 500, seed=3)
    assert np.array_equal(a.utilities, b.utilities) and a.n_hands == 500
    with pytest.raises(ArgumentTypeError, match="submissions"):
        simulate("leduc", (s for s in ["uniform", "uniform"]), 10)


# ------------------------------------------------------------------ build_submission and frames


def test_seats_are_one_based_ints():
    with pytest.raises(ArgumentTypeError, match="seat 1.5"):
        tl.infoset_frame(TINY, seats=(1.5, 3))  # used to be accepted as seats 1, 3
    with pytest.raises(ArgumentValueError, match="given twice"):
        tl.infoset_frame(TINY, seats=(1, 1, 3))
    with pytest.raises(ArgumentValueError, match="seat 0: tiny-team-leduc has seats 1..4"):
        tl.infoset_frame(TINY, seats=(0, 2))
    with pytest.raises(ArgumentTypeError, match="seats 5"):
        tl.infoset_frame(TINY, seats=5)
    for seat in (1.5, True, "1"):
        with pytest.raises(ArgumentTypeError, match="a seat is an int 1..4"):
            tl.infoset_table(TINY, seat)
    assert tl.infoset_table(TINY, np.int64(2)).size == tl.infoset_table(TINY, 2).size == 368
    assert len(tl.infoset_frame(TINY, seats=iter([1, 3]))) == 2 * 368


def frame():
    f = tl.infoset_frame(TINY)
    f["p_c"], f["p_r"], f["p_f"] = 1.0, 0.0, 0.0
    return f


def test_a_duplicated_information_set_in_a_frame_is_refused():
    f = frame()
    dup = pd.concat([f, f.iloc[[5]].assign(p_c=0.0, p_r=1.0)], ignore_index=True)
    with pytest.raises(ArgumentValueError, match=r"is given twice \(rows 5 and 1472\)"):
        tl.build_submission(dup, TINY)
    assert tl.build_submission(f, TINY).strategies[0][0, :, 0].sum() == 368


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda f: f.assign(p_c=f["p_c"].astype(str)), "expected real numbers, found '1.0'"),
        (lambda f: f.assign(p_c=f["p_c"].astype(complex)), "complex"),
    ],
)
def test_frame_values_must_be_real_numbers(mutate, message):
    with pytest.raises(ArgumentTypeError, match=message):
        tl.build_submission(mutate(frame()), TINY)


def test_build_submission_refuses_strings_complex_and_zero_based_keys():
    arrays = {s: tl.infoset_table(TINY, s).uniform_strategy() for s in (1, 2, 3, 4)}
    with pytest.raises(ArgumentValueError, match="seat 0: tiny-team-leduc has seats 1..4"):
        tl.build_submission({s - 1: a for s, a in arrays.items()}, TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would mean a dropped part
        with pytest.raises(ArgumentTypeError, match="seat 1.*complex"):
            tl.build_submission({s: a.astype(complex) for s, a in arrays.items()}, TINY)
    with pytest.raises(TeamLeducError, match=r"returned \['1', '0', '0'\]"):
        tl.build_submission(lambda i, legal: ["1", "0", "0"], TINY)
    with pytest.raises(ArgumentTypeError, match="weights"):
        tl.build_submission([arrays, arrays], TINY, weights=["a", "b"])
    with pytest.raises(ArgumentTypeError, match="out: a path"):
        tl.build_submission(arrays, TINY, out=3)
    sub = tl.build_submission({np.int64(s): a for s, a in arrays.items()}, TINY)
    assert sub.seats == (0, 1, 2, 3)


# ------------------------------------------------------------------ policy adapters


def test_policy_keys_and_values():
    table = np.full((144, 3), 1 / 3)
    with pytest.raises(ArgumentTypeError, match="policy key 1.5"):
        policy_submission({1.5: table}, "leduc")  # used to be seat 2
    with pytest.raises(ArgumentTypeError, match="policy key True"):
        policy_submission({True: table}, "leduc")
    with pytest.raises(ArgumentValueError, match="player_1 is given twice"):
        policy_submission({1: table, "player_1": table}, "leduc")
    with pytest.raises(ArgumentTypeError, match="player_1: expected real numbers"):
        policy_submission({1: table.astype(complex)}, "leduc")  # used to drop the imaginary part
    with pytest.raises(ArgumentTypeError, match="found None"):
        policy_submission({1: np.full((144, 3), None)}, "leduc")  # used to play the fill
    with pytest.raises(ArgumentValueError, match="probs: 1 probabilities for 2 signals"):
        policy_submission([{1: table}] * 2, "leduc", probs=[1.0])
    with pytest.raises(ArgumentTypeError, match="policy: expected"):
        policy_submission(None, "leduc")
    with pytest.raises(ArgumentValueError, match=r"seats are numbered from 1 \(player_1 or 1\)"):
        policy_submission({0: table}, "leduc")  # used to be seat 1: seats are 1-based everywhere
    sub = policy_submission({"player_1": table}, "leduc")
    assert np.array_equal(policy_submission({1: table}, "leduc").strategies[0], sub.strategies[0])
    assert tl.evaluate(sub, "uniform", "leduc").value == pytest.approx(UNIFORM_LEDUC, abs=1e-12)


def test_greedy_policy_refuses_nan_and_duplicates():
    q = np.zeros((144, 3))
    q[3, 0] = np.nan
    with pytest.raises(ArgumentValueError, match="NaN at row 3"):
        greedy_policy({"player_1": q}, "leduc")
    with pytest.raises(ArgumentValueError, match="given twice"):
        greedy_policy({1: np.zeros((144, 3)), "player_1": np.ones((144, 3))}, "leduc")
    with pytest.raises(ArgumentTypeError, match="values: expected a mapping"):
        greedy_policy([q], "leduc")


def test_submission_policy_refuses_an_index_out_of_range():
    bots = SubmissionPolicy("uniform", "leduc", seed=0)
    bots.new_hand()
    with pytest.raises(ValueError, match=r"infoset_index -1 of player_1: expected 0..143"):
        bots.sample(0, -1)  # used to read the last row
    with pytest.raises(ValueError, match="infoset_index 144"):
        bots.row(0, 144)
    with pytest.raises(ValueError, match="seat 2"):
        bots.row(2, 0)
    with pytest.raises(TypeError, match="infoset_index must be an int"):
        bots.row(0, 1.5)
    assert bots.row(np.int64(0), np.int64(0)).tolist() == [0.5, 0.5, 0.0]


# ------------------------------------------------------------------ the api's other functions


def test_api_tree_and_baseline_arguments():
    assert tl.build_tree("leduc") is tl.build_tree(LEDUC)
    assert tl.infoset_tables("leduc")[0].size == 144
    with pytest.raises(ArgumentTypeError, match="preset must be"):
        tl.build_tree(None)
    with pytest.raises(ArgumentTypeError, match="string: an information-set string"):
        tl.parse_infoset("leduc", None)
    assert tl.parse_infoset("leduc", "/C:J?/") == (0, 0)
    with pytest.raises(ArgumentTypeError, match="seats: a seat is a 0-based int"):
        tl.baseline("uniform", "leduc", seats=(1.5,))
    with pytest.raises(ArgumentValueError, match="0-based seat 2 is not in 0..1"):
        tl.baseline("uniform", "leduc", seats=(2,))


def test_grade_checks_its_arguments():
    """A string is one entrant (never taken letter by letter); None, a number, bad jobs, flags
    and baseline names are refused naming the argument, before anything is computed."""
    one = tl.grade("uniform", "kuhn", baselines="cautious", worst_case=False)
    assert sorted(one.names) == ["cautious", "uniform"] and one.invalid == ()
    for kwargs, error, word in [
        (dict(submissions=None), ArgumentTypeError, "submissions"),
        (dict(submissions=3), ArgumentTypeError, "submissions"),
        (dict(jobs=-1), ArgumentValueError, "jobs"),
        (dict(jobs=1.5), ArgumentTypeError, "jobs"),
        (dict(jobs=True), ArgumentTypeError, "jobs"),
        (dict(baselines=[3]), ArgumentTypeError, "baselines"),
        (dict(baselines=None), ArgumentTypeError, "baselines"),
        (dict(heatmap="no"), ArgumentTypeError, "heatmap"),
        (dict(out=3), ArgumentTypeError, "out"),
    ]:
        args = {"submissions": ["uniform", "cautious"], **kwargs}
        with pytest.raises(error, match=word):
            tl.grade(args.pop("submissions"), "kuhn", **args)
    with pytest.raises(ArgumentTypeError, match="out_dir"):
        tl.write_infoset_files("kuhn", None)
