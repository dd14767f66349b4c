"""teamleduc.openspiel: the presets as OpenSpiel games, checked with OpenSpiel's own tools.

Every value is compared with OpenSpiel's own computation (``policy_value``, ``nash_conv``,
``CFRSolver``) on one side and the toolkit's exact evaluation on the other.
"""

import pickle
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

import teamleduc.api as tl  # noqa: E402
import teamleduc.openspiel as tos  # noqa: E402
from teamleduc.envs.game import Hand, env_game  # noqa: E402
from teamleduc.errors import ArgumentTypeError, ArgumentValueError, TeamLeducError  # noqa: E402
from teamleduc.files.model import Submission  # noqa: E402
from teamleduc.infosets import tables_for  # noqa: E402
from teamleduc.payoffs import deal_community_probabilities, deal_probabilities  # noqa: E402

SMALL = [p for p in tl.PRESETS if p != "team-leduc"]


@pytest.mark.parametrize("preset", list(tl.PRESETS))
def test_every_preset_passes_openspiel_random_sim_test(preset):
    game = pyspiel.load_game("python_teamleduc", {"preset": preset})
    assert str(game) == f"python_teamleduc(preset={preset})"
    assert game.num_players() == tl.get_config(preset).num_seats
    pyspiel.random_sim_test(
        game, num_sims=2 if preset == "team-leduc" else 5, serialize=True, verbose=False
    )


@pytest.mark.parametrize("preset", ["kuhn-3p", "tiny-team-leduc", "rlcard-leduc", "leduc-stack50"])
def test_clone_pickle_and_serialisation_give_the_same_state(preset):
    # what OpenSpiel's games_sim_test checks, along one seeded random hand
    game = tos.load_game(preset)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        new_game, new_state = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state)
        )
        assert str(new_game) == str(game) and str(new_state) == str(state)
        assert str(pickle.loads(pickle.dumps(state))) == str(state)
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(actions, p=probs))
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        clone.apply_action(action)
        assert str(clone) == str(state)
    assert clone.returns() == state.returns()


def test_the_handout_sample_hand():
    # spec: cards J, Q, Q, K; 1:r 2:f 3:f 4:c; community J; 1:c 4:r 1:r 4:c
    game = tos.load_game("team-leduc")
    state = game.new_initial_state()
    for rank in (0, 1, 1, 2):
        state.apply_action(rank)
    for a in (1, 2, 2, 0):
        state.apply_action(a)
    assert state.is_chance_node()
    assert dict(state.chance_outcomes()) == {0: 1 / 2, 2: 1 / 2}  # one J and one K left
    state.apply_action(0)
    state.apply_action(0)
    state.apply_action(1)
    assert state.information_state_string(0) == "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/"
    state.apply_action(1)
    state.apply_action(0)
    assert state.returns() == [13.0, -1.0, -1.0, -11.0]


@pytest.mark.parametrize("preset", ["tiny-team", "kuhn-3p", "rlcard-leduc"])
def test_tabular_policy_rows_are_the_infoset_files(preset):
    game = tos.load_game(preset)
    tables = tables_for(tl.get_config(preset))
    policy = tos.tabular_policy(game)
    for seat, table in enumerate(tables):
        assert policy.states_per_player[seat] == table.strings  # the file's lines, in order
        rows = [policy.state_lookup[s] for s in table.strings]
        assert np.array_equal(policy.legal_actions_mask[rows].astype(bool), table.legal)
    if preset in ("tiny-team", "kuhn-3p"):  # OpenSpiel's own enumeration of every history
        full = os_policy.TabularPolicy(game)
        assert sorted(full.state_lookup) == sorted(policy.state_lookup)


@pytest.mark.parametrize("preset", ["small-team-leduc", "rlcard-leduc"])
def test_chance_probabilities_are_exact(preset):
    # every deal (and community card) reached through chance_outcomes has the engine's probability
    config = tl.get_config(preset)
    game = tos.load_game(preset)
    R, S = config.num_ranks, config.num_seats
    got_deal, got_joint = {}, {}

    def walk(state, p, cards):
        if len(cards) < S:
            for a, q in state.chance_outcomes():
                walk(state.child(a), p * q, cards + (a,))
            return
        got_deal[cards] = p
        state = state.child(state.chance_outcomes()[0][0]) if state.is_chance_node() else state
        while not state.is_chance_node():  # check/call to the end of round 1
            state = state.child(0)
        for a, q in state.chance_outcomes():
            got_joint[cards + (a,)] = p * q

    walk(game.new_initial_state(), 1.0, ())
    index = {tuple(np.unravel_index(d, (R,) * S)): d for d in range(R**S)}
    want = deal_probabilities(config)
    assert sum(got_deal.values()) == pytest.approx(1.0, abs=1e-12)
    for cards, p in got_deal.items():
        assert p == pytest.approx(want[index[cards]], abs=1e-15)
    assert len(got_deal) == int((want > 0).sum())
    joint = deal_community_probabilities(config)
    for key, p in got_joint.items():
        assert p == pytest.approx(joint[index[key[:S]], key[S]], abs=1e-15)
    assert len(got_joint) == int((joint > 0).sum())


def test_tensors_are_the_environments_observation():
    game = tos.load_game("tiny-team-leduc")
    hand = Hand(env_game("tiny-team-leduc"))
    rng = np.random.default_rng(5)
    for _ in range(20):
        state = game.new_initial_state()
        while len(state.history()) < 4:
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        cards = state.history()
        # a rank with a copy left in the deck (2 ranks x 3 suits): OpenSpiel's state refuses
        # a community card the deal has used up
        community = int(rng.choice([r for r in range(2) if cards.count(r) < 3]))
        hand.start(cards, community)
        while not hand.over:
            if state.is_chance_node():
                state.apply_action(community)
            seat = state.current_player()
            assert seat == hand.to_act
            obs = hand.observation(seat)
            assert np.array_equal(state.information_state_tensor(seat), obs)
            assert len(state.observation_tensor(seat)) < len(obs)  # no history
            assert state.information_state_string(seat) == hand.infoset(seat)
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            hand.act(action)
        assert state.returns() == hand.utilities().tolist()


@pytest.mark.parametrize("preset", ["tiny-team-leduc", "small-team-leduc"])
@pytest.mark.parametrize("profile", ["uniform", "cautious", "random-pure:7"])
def test_policy_value_equals_evaluate(preset, profile):
    config = tl.get_config(preset)
    sub = tl.baseline(profile, config)
    (signal,) = tos.to_policies(sub, tos.load_game(preset))
    game = signal.policy.game
    values = expected_game_score.policy_value(game.new_initial_state(), [signal.policy] * 4)
    assert values.sum() == pytest.approx(0.0, abs=1e-12)
    assert values[0] + values[2] == pytest.approx(tl.evaluate(sub, sub, config).value, abs=1e-9)


def test_a_correlated_submission_is_its_signals_mixture():
    config = tl.get_config("tiny-team")
    game = tos.load_game("tiny-team")
    parts = [
        tl.baseline(b, config).restrict(config.teams[0]) for b in ("cautious", "random-pure:1")
    ]
    team_a = Submission(
        np.array([3, 8]),
        np.array([0.25, 0.75]),
        config.teams[0],
        {s: np.concatenate([p.strategies[s] for p in parts]) for s in config.teams[0]},
    )
    uniform = tos.to_policies(tl.baseline("uniform", config), game)[0].policy
    signals = tos.to_policies(team_a, game)
    assert [(s.weight, s.signal) for s in signals] == [(0.25, 3), (0.75, 8)]
    mixture = sum(
        s.weight
        * expected_game_score.policy_value(
            game.new_initial_state(), [s.policy, uniform, s.policy, uniform]
        )
        for s in signals
    )
    exact = tl.evaluate(team_a, "uniform", config).value
    assert mixture[0] + mixture[2] == pytest.approx(exact, abs=1e-9)


@pytest.mark.parametrize("preset", ["kuhn", "kuhn-3p", "leduc"])
@pytest.mark.parametrize("profile", ["uniform", "cautious", "random-pure:3"])
def test_nash_conv_equals_ours(preset, profile):
    config = tl.get_config(preset)
    sub = tl.baseline(profile, config)
    (signal,) = tos.to_policies(sub, tos.load_game(preset))
    theirs = exploitability.nash_conv(signal.policy.game, signal.policy)
    assert theirs == pytest.approx(tl.nash_conv(config, sub).nash_conv, abs=1e-9)


@pytest.mark.parametrize("preset", ["tiny-team", "rlcard-leduc"])
def test_any_policy_converts_state_by_state(preset):
    # a Policy that is not a table, Python or C++, is asked at one state of every information set
    game = tos.load_game(preset)
    uniform = tl.baseline("uniform", preset)
    for policy, where in [
        (os_policy.UniformRandomPolicy(game), None),
        (pyspiel.UniformRandomPolicy(game), game),
        (os_policy.FirstActionPolicy(game), None),
    ]:
        sub = tos.to_submission(policy, where)
        want = (
            uniform
            if isinstance(policy, os_policy.UniformRandomPolicy | pyspiel.Policy)
            else (tl.baseline("always-call", preset))
        )
        for seat in sub.seats:
            assert np.array_equal(sub.strategies[seat], want.strategies[seat])


def test_kuhn_nash_conv_anchor():
    # Kuhn's uniform profile: NashConv 11/12 (OpenSpiel's kuhn_poker_test)
    sub = tl.baseline("uniform", "kuhn")
    assert tl.nash_conv("kuhn", sub).nash_conv == pytest.approx(11 / 12, abs=1e-12)


def test_cfr_on_kuhn_3p_converts_with_its_nash_conv():
    game = tos.load_game("kuhn-3p")
    solver = cfr.CFRSolver(game)
    for _ in range(6):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    sub = tos.to_submission(average)
    assert sub.seats == (0, 1, 2) and sub.num_signals == 1
    theirs = exploitability.nash_conv(game, average)
    assert 0 < theirs < 0.5
    assert tl.nash_conv("kuhn-3p", sub).nash_conv == pytest.approx(theirs, abs=1e-9)


def _write_bytes(sub, path, config):
    tl.write_submission(sub, path, config=config)
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@pytest.mark.parametrize("preset", ["tiny-team-leduc", "kuhn-3p", "rlcard-leduc"])
def test_round_trip_is_byte_identical(preset, tmp_path):
    config = tl.get_config(preset)
    game = tos.load_game(preset)
    subs = [tl.baseline(b, config) for b in ("uniform", "random-pure:2", "cautious")]
    sub = Submission(
        np.array([0, 4, 9]),
        np.array([0.5, 0.3, 0.2]),
        tuple(range(config.num_seats)),
        {s: np.concatenate([x.strategies[s] for x in subs]) for s in range(config.num_seats)},
    )
    back = tos.to_submission(tos.to_policies(sub, game))
    assert _write_bytes(back, tmp_path / "back", config) == _write_bytes(
        sub, tmp_path / "sub", config
    )
    if len(config.teams[0]) == 2:  # a team submission keeps its seats
        team = sub.restrict(config.teams[1])
        again = tos.to_submission(tos.to_policies(team, game))
        assert again.seats == config.teams[1]
        assert _write_bytes(again, tmp_path / "t2", config) == _write_bytes(
            team, tmp_path / "t1", config
        )


def test_openspiel_kuhn_poker_policies_map_onto_kuhn():
    game = pyspiel.load_game("kuhn_poker")
    solver = cfr.CFRSolver(game)
    for _ in range(40):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    sub = tos.to_submission(average)
    value = expected_game_score.policy_value(game.new_initial_state(), [average] * 2)
    assert tl.evaluate(sub, sub, "kuhn").value == pytest.approx(value[0], abs=1e-9)
    theirs = exploitability.nash_conv(game, average)
    assert tl.nash_conv("kuhn", sub).nash_conv == pytest.approx(theirs, abs=1e-9)
    # and back: our submission as a policy over kuhn_poker
    (signal,) = tos.to_policies(sub, game)
    assert exploitability.nash_conv(game, signal.policy) == pytest.approx(theirs, abs=1e-12)
    # OpenSpiel's published anchor: uniform random NashConv 11/12
    assert tl.nash_conv(
        "kuhn", tos.to_submission(os_policy.UniformRandomPolicy(game))
    ).nash_conv == (pytest.approx(11 / 12, abs=1e-12))


def test_openspiel_leduc_poker_policies_map_onto_leduc():
    game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRSolver(game)  # OpenSpiel's C++ CFR
    for _ in range(20):
        solver.evaluate_and_update_policy()
    theirs = pyspiel.nash_conv(game, solver.average_policy())
    sub = tos.to_submission(solver.tabular_average_policy(), game)
    assert tl.nash_conv("leduc", sub).nash_conv == pytest.approx(theirs, abs=1e-9)
    cpp = tos.to_submission(solver.average_policy(), game)  # any C++ policy, state by state
    assert np.array_equal(cpp.strategies[0], sub.strategies[0])
    value = pyspiel.expected_returns(game.new_initial_state(), solver.average_policy(), -1, True)
    assert tl.evaluate(sub, sub, "leduc").value == pytest.approx(value[0], abs=1e-9)
    (signal,) = tos.to_policies(sub, game)
    back = pyspiel.nash_conv(game, os_policy.python_policy_to_pyspiel_policy(signal.policy))
    assert back == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("name, preset", [("kuhn_poker", "kuhn"), ("leduc_poker", "leduc")])
def test_round_trip_through_openspiels_own_games_is_byte_identical(name, preset, tmp_path):
    config = tl.get_config(preset)
    subs = [tl.baseline(b, config) for b in ("uniform", "random-pure:4")]
    sub = Submission(
        np.array([2, 7]),
        np.array([0.6, 0.4]),
        (0, 1),
        {s: np.concatenate([x.strategies[s] for x in subs]) for s in (0, 1)},
    )
    back = tos.to_submission(tos.to_policies(sub, pyspiel.load_game(name)))
    assert _write_bytes(back, tmp_path / "b", config) == _write_bytes(sub, tmp_path / "a", config)


def test_a_policy_that_tells_suits_apart_is_refused():
    game = pyspiel.load_game("leduc_poker")
    policy = os_policy.TabularPolicy(game)
    key = policy.states_per_player[0][0]  # player 0 holding card 0 (a J), first to act
    policy.policy_for_key(key)[:] = [0.0, 0.0, 1.0]  # raise with one J, uniform with the other
    with pytest.raises(ArgumentValueError, match="suits"):
        tos.to_submission(policy)


def test_a_policy_over_another_game_names_the_first_missing_state(tmp_path):
    other = os_policy.TabularPolicy(tos.load_game("tiny-team"))
    out = tmp_path / "sub"
    with pytest.raises(ArgumentValueError, match=r"'/C:J\?/' \(player 0, line 1") as err:
        tos.to_submission(other, tos.load_game("kuhn"), out=out)
    assert "python_teamleduc(preset=tiny-team)" in str(err.value)
    assert not out.exists()
    partial = os_policy.TabularPolicy(tos.load_game("kuhn"))
    del partial.state_lookup["/C:?K/P1:c/"]
    with pytest.raises(ArgumentValueError, match=r"'/C:\?K/P1:c/' \(player 1, line 3"):
        tos.to_submission(partial, out=out)
    assert not out.exists()
    kuhn = pyspiel.load_game("kuhn_poker")
    with pytest.raises(ArgumentValueError, match=r"it is over kuhn_poker\(\), not over python"):
        tos.to_submission(os_policy.UniformRandomPolicy(kuhn), tos.load_game("kuhn"))


def test_bad_arguments_are_named():
    with pytest.raises(ArgumentValueError, match="unknown preset 'nope'"):
        pyspiel.load_game("python_teamleduc", {"preset": "nope"})
    with pytest.raises(ArgumentTypeError, match="policy"):
        tos.to_submission({"/C:J?/": (1, 0, 0)})
    with pytest.raises(ArgumentTypeError, match="weight"):
        tos.to_submission([(os_policy.UniformRandomPolicy(tos.load_game("kuhn")), "1")])
    with pytest.raises(ArgumentValueError, match="pass game="):
        tos.to_submission(pyspiel.UniformRandomPolicy(tos.load_game("kuhn")))
    with pytest.raises(ArgumentValueError, match="not a teamleduc preset"):
        tos.preset_of(pyspiel.load_game("tic_tac_toe"))
    with pytest.raises(ArgumentValueError, match="whole"):
        tos.to_submission(os_policy.TabularPolicy(tos.load_game("tiny-team"), players=[0]))
    with pytest.raises(TeamLeducError, match="line"):  # a row that is not a distribution
        bad = os_policy.TabularPolicy(tos.load_game("kuhn"))
        bad.action_probability_array[0] = [0.5, 0.6, 0.0]
        tos.to_submission(bad)


def test_without_openspiel_the_error_names_the_extra():
    code = "import sys; sys.modules['pyspiel'] = None; import teamleduc.openspiel"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError: teamleduc.openspiel needs OpenSpiel (pyspiel): pip install " in run.stderr
    assert "'teamleduc[openspiel]'" in run.stderr


# -- chance actions and players are checked --------------------------------------------------


@pytest.mark.parametrize("action", [99, 3, 255, 256, 300])
def test_a_deal_outside_the_chance_outcomes_is_refused(action):
    """A private card that is no rank of the deck was taken (str(state) then failed); now it is
    ArgumentValueError naming the action and the outcomes, and the state is unchanged."""
    state = tos.load_game("kuhn").new_initial_state()
    with pytest.raises(ArgumentValueError, match=rf"^action {action} is not legal") as info:
        state.apply_action(action)
    assert "0 (J), 1 (Q), 2 (K)" in str(info.value)
    assert state.history() == [] and state.is_chance_node()
    state.apply_action(2)
    assert str(state).startswith("K")


def test_a_card_the_deck_has_no_copy_of_is_refused():
    """kuhn has one J: dealing it twice was taken and the hand paid [0, 0] for a deal that
    cannot happen."""
    state = tos.load_game("kuhn").new_initial_state()
    state.apply_action(0)
    with pytest.raises(
        ArgumentValueError, match=r"action 0 is not legal.*dealt: J.*1 \(Q\), 2 \(K\)"
    ):
        state.apply_action(0)
    assert state.history() == [0]
    state.apply_action(1)
    state.apply_action(0)
    state.apply_action(0)
    assert state.returns() == [-1.0, 1.0]  # J checks against Q: Q wins the antes


def test_a_community_card_the_deal_used_up_is_refused():
    """leduc: two copies of each rank; with J J dealt, the community card is Q or K."""
    state = tos.load_game("leduc").new_initial_state()
    for action in (0, 0, 0, 0):  # J, J, check, check
        state.apply_action(action)
    assert [a for a, _ in state.chance_outcomes()] == [1, 2]
    for action in (0, 3, -2):
        with pytest.raises(ArgumentValueError, match=rf"action {action} is not legal"):
            state.apply_action(action)
    state.apply_action(1)
    assert str(state) == "J J P1:c/P2:c/C:Q/"


def test_a_small_blind_seat_outside_the_game_is_refused():
    state = tos.load_game("rlcard-leduc").new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ArgumentValueError, match=r"action 2 is not legal.*0 \(P1\), 1 \(P2\)"):
        state.apply_action(2)
    state.apply_action(1)
    assert str(state) == "J Q SB:P2/"


def test_action_to_string_refuses_an_action_of_no_kind():
    state = tos.load_game("kuhn").new_initial_state()
    with pytest.raises(ArgumentValueError, match="action 99 is not an action of kuhn"):
        state.action_to_string(pyspiel.PlayerId.CHANCE, 99)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "Deal:K"


def test_the_tabular_policy_of_every_preset_is_still_complete():
    """_infoset_states deals any community rank (also one the template deal used up); the
    states it hands out check the deck again."""
    game = tos.load_game("tiny-team-leduc")  # 2 ranks x 3 suits, 4 seats, a community card
    policy = tos.tabular_policy(game)
    for seat, table in enumerate(tables_for(tl.get_config("tiny-team-leduc"))):
        assert policy.states_per_player[seat] == table.strings
    assert all(state._any_community is False for state in policy.states)


@pytest.mark.parametrize(
    ("players", "error", "match"),
    [
        ([2], ArgumentValueError, r"players: 2 is not a player of .*\(0\.\.1\)"),
        ([-1], ArgumentValueError, r"players: -1 is not a player"),
        ([], ArgumentValueError, r"players: empty"),
        ([0, 0], ArgumentValueError, r"players: \[0, 0\] names a player twice"),
        ([0.5], ArgumentTypeError, r"players must be .*0\.5 \(float\) is not a player id"),
        ([True], ArgumentTypeError, r"players must be .*True \(bool\) is not a player id"),
        ("0", ArgumentTypeError, r"players must be .*not str '0'"),
        (0, ArgumentTypeError, r"players must be .*not int 0"),
    ],
)
def test_tabular_policy_checks_players(players, error, match):
    """[2] and [-1] gave an empty policy, [0.5], [True] and '0' were taken, 0 failed inside."""
    with pytest.raises(error, match=match):
        tos.tabular_policy(tos.load_game("kuhn"), players=players)


def test_tabular_policy_takes_players_as_any_integers():
    game = tos.load_game("kuhn")
    one = tos.tabular_policy(game, players=[1])
    assert one.action_probability_array.shape == (6, 3)
    for players in ((np.int64(1),), np.array([1]), range(1, 2), {1}):
        same = tos.tabular_policy(game, players=players)
        assert same.state_lookup == one.state_lookup
    assert tos.tabular_policy(game).action_probability_array.shape == (12, 3)
