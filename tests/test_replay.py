"""The handout's sample hand and scripted hands with hand-computed payoffs."""

import pytest
from click.testing import CliRunner

from teamleduc.cli import cli, main
from teamleduc.config import get_config
from teamleduc.errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from teamleduc.replay import replay

SAMPLE = "1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:c"


def test_handout_sample_hand():
    r = replay(get_config("team-leduc"), "J,Q,Q,K", SAMPLE, "J")
    assert r.utilities == (13.0, -1.0, -1.0, -11.0)
    assert r.team_utilities() == (12.0, -12.0)
    assert [s.infoset for s in r.steps] == [
        "/C:J???/",
        "/C:?Q??/P1:r/",
        "/C:??Q?/P1:r/P2:f/",
        "/C:???K/P1:r/P2:f/P3:f/",
        "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/",
        "/C:???K/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/",
        "/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/",
        "/C:???K/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/P1:r/",
    ]


@pytest.mark.parametrize(
    "preset, cards, comm, actions, expected",
    [
        # everybody checks twice, K beats the rest: pot 4
        ("team-leduc", "J,Q,K,J", "Q", "1:c 2:c 3:c 4:c 1:c 2:c 3:c 4:c", (-1, 3, -1, -1)),
        # seat 2 holds Q and the community is Q: the pair beats the K
        ("team-leduc", "K,Q,J,J", "Q", "1:c 2:c 3:c 4:c 1:c 2:c 3:c 4:c", (-1, 3, -1, -1)),
        # split pot between two kings: pot 4 + raise 2 x 2 callers
        ("team-leduc", "K,K,J,Q", "J", "1:r 2:c 3:f 4:f 1:c 2:c", (1, 1, -1, -1)),
        # everyone folds to a raise in round 1: no community card
        ("team-leduc", "J,Q,K,K", None, "1:r 2:f 3:f 4:f", (3, -1, -1, -1)),
        # classic Leduc: bet, raise, call, then check-check; pot 10
        ("leduc", "J,K", "Q", "1:r 2:r 1:c 1:c 2:c", (-5, 5)),
        # Kuhn: check, bet, fold
        ("kuhn", "K,J", None, "1:c 2:r 1:f", (-1, 1)),
    ],
)
def test_scripted_hands(preset, cards, comm, actions, expected):
    r = replay(get_config(preset), cards, actions, comm)
    assert r.utilities == tuple(float(v) for v in expected)
    assert sum(r.utilities) == 0


@pytest.mark.parametrize(
    "actions, message",
    [
        ("1:f", "not facing a bet"),
        ("2:c", "seat 1's turn"),
        ("1:r 2:f 3:f 4:c / 1:c 4:r 1:r 4:r", "already raised"),
        ("1:r 2:f 3:f 4:c 1:c", "not over"),
        ("1:x", "SEAT:ACTION"),
        ("1:c / 2:c", "not over here"),
    ],
)
def test_illegal_actions_are_explained(actions, message):
    with pytest.raises(TeamLeducError, match=message):
        replay(get_config("team-leduc"), "J,Q,Q,K", actions, "J")


def test_cap_rule_message():
    with pytest.raises(TeamLeducError, match="cap is 2"):
        replay(get_config("team-leduc-2025"), "J,Q,Q,K", "1:r 2:r 3:r", "J")


def test_too_many_cards_of_a_rank():
    with pytest.raises(TeamLeducError, match="only 2 card"):
        replay(get_config("team-leduc"), "J,J,J,K", "1:c", "J")


def test_cli_replay_and_error_exit(capsys):
    res = CliRunner().invoke(
        cli, ["replay", "--cards", "J,Q,Q,K", "--community", "J", "--actions", SAMPLE]
    )
    assert res.exit_code == 0
    assert "seat 1 +13, seat 2 -1, seat 3 -1, seat 4 -11" in res.output
    with pytest.raises(SystemExit) as e:
        main(["replay", "--cards", "J,Q,Q,K", "--actions", "1:f"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "not facing a bet" in err and "Traceback" not in err


def test_main_returns_the_exit_code_of_ctx_exit(monkeypatch):
    import click

    @click.command("exit-seven")
    @click.pass_context
    def seven(ctx):
        ctx.exit(7)

    cli.add_command(seven)
    try:
        with pytest.raises(SystemExit) as e:
            main(["exit-seven"])
        assert e.value.code == 7
    finally:
        cli.commands.pop("exit-seven")


# -- rlcard-leduc: the small blind is dealt (a chance node at the root of the tree) -----------

RLCARD = "rlcard-leduc"


def _truth(config, cards, community, small_blind, actions):
    """The hand played on the environments' engine (:class:`teamleduc.envs.game.Hand`), which
    walks the public tree: the node, the actor and information set of every step, utilities."""
    from teamleduc.envs.game import Hand, env_game

    hand = Hand(env_game(config))
    hand.start(cards, community, small_blind=small_blind)
    steps = []
    for tok in actions.replace("/", " ").split():
        seat, a = tok.split(":")
        steps.append((hand.to_act, hand.infoset(hand.to_act)))
        assert hand.to_act == int(seat) - 1
        hand.act("crf".index(a))
    assert hand.over
    return hand.node, steps, tuple(float(u) for u in hand.utilities())


@pytest.mark.parametrize(
    "cards, comm, sb, actions, expected",
    [
        # the small blind (seat 1) folds at once: it loses its 1 chip
        ("J,Q", None, 0, "1:f", (-1, 1)),
        # seat 2 posts the small blind and acts first; seat 1 (the big blind) folds although it
        # is not facing a bet (fold is always legal in RLCard's Leduc): it loses its 2 chips
        ("J,Q", None, 1, "2:c 1:f", (-2, 2)),
        # seat 1's check closes round 1, so seat 2 opens round 2; Q beats J: 2 + 4 each
        ("J,Q", "K", 1, "2:c 1:c / 2:r 1:c", (-6, 6)),
        # seat 2's check closes round 1 (small blind seat 1): seat 1 opens round 2
        ("K,J", "Q", 0, "1:c 2:c / 1:c 2:c", (2, -2)),
        # seat 1 calls seat 2's re-raise: seat 2 opens round 2; seat 2 pairs the J: 14 each
        ("K,J", "J", 0, "1:r 2:r 1:c / 2:r 1:r 2:c", (-14, 14)),
        # the same round 1, then seat 1 folds in round 2 without facing a bet (6 chips in)
        ("K,J", "J", 0, "1:r 2:r 1:c / 2:c 1:f", (-6, 6)),
        # seat 2 (small blind) raises, seat 1 calls: seat 2 opens round 2; K beats Q, 4 each
        ("Q,K", "J", 1, "2:r 1:c / 2:c 1:c", (-4, 4)),
        # a tie splits the pot
        ("Q,Q", "K", 1, "2:r 1:c / 2:c 1:c", (0, 0)),
    ],
)
def test_rlcard_leduc_hands_follow_the_tree(cards, comm, sb, actions, expected):
    config = get_config(RLCARD)
    r = replay(config, cards, actions, comm, small_blind=sb)
    assert r.utilities == tuple(float(v) for v in expected)
    assert r.small_blind == sb and f"small blind seat {sb + 1}" in str(r)
    assert r.to_dict()["small_blind"] == sb + 1
    ranks = [config.ranks.index(c) for c in cards.split(",")]
    node, steps, utilities = _truth(
        config, ranks, config.ranks.index(comm) if comm else -1, sb, actions
    )
    assert r.node == node and r.utilities == utilities
    assert [(s.seat, s.infoset) for s in r.steps] == steps
    assert all(f"/SB:P{sb + 1}/" in s.infoset for s in r.steps)


def test_rlcard_leduc_random_hands_replay_to_the_engines_node():
    """Hands dealt and played at random on the engine (both small blinds, all rounds): the
    replay of their actions reaches the same terminal with the same utilities."""
    import numpy as np

    from teamleduc.envs.game import Hand, env_game

    config = get_config(RLCARD)
    hand = Hand(env_game(config))
    rng = np.random.default_rng(7)
    blinds, second_openers = set(), set()
    for _ in range(300):
        hand.deal(rng)
        while not hand.over:
            hand.act(int(rng.choice(hand.legal_actions())))
        community = config.ranks[hand.community] if hand.community >= 0 else None
        r = replay(config, list(hand.cards), hand.actions_text(), community, hand.small_blind)
        assert (r.node, r.utilities) == (hand.node, tuple(float(u) for u in hand.utilities()))
        blinds.add(hand.small_blind)
        if hand.community_after >= 0 and hand.community_after < len(hand.actions):
            second_openers.add(hand.actions[hand.community_after][0])
    assert blinds == {0, 1} and second_openers == {0, 1}


def test_rlcard_leduc_turn_order_is_checked():
    config = get_config(RLCARD)
    with pytest.raises(TeamLeducError, match="seat 2's turn"):
        replay(config, "J,Q", "1:c", small_blind=1)
    # seat 1 closed round 1 by calling: seat 2 opens round 2
    with pytest.raises(TeamLeducError, match="seat 2's turn, not seat 1's"):
        replay(config, "J,Q", "1:r 2:r 1:c / 1:c", "K", small_blind=0)


@pytest.mark.parametrize(
    "preset, small_blind, error, message",
    [
        (RLCARD, None, ArgumentValueError, "small_blind: rlcard-leduc deals the small blind"),
        (RLCARD, 2, ArgumentValueError, "small_blind: seat 2 is out of range 0..1"),
        (RLCARD, -1, ArgumentValueError, "out of range"),
        (RLCARD, True, ArgumentTypeError, "small_blind: the 0-based seat"),
        (RLCARD, "1", ArgumentTypeError, "small_blind: the 0-based seat"),
        (RLCARD, 0.0, ArgumentTypeError, "small_blind"),
        ("leduc", 0, ArgumentValueError, "small_blind: leduc does not deal the small blind"),
    ],
)
def test_small_blind_argument_is_checked(preset, small_blind, error, message):
    with pytest.raises(error, match=message):
        replay(get_config(preset), "J,Q", "1:f", small_blind=small_blind)


def test_small_blind_accepts_numpy_integers():
    import numpy as np

    r = replay(RLCARD, "J,Q", "2:f", small_blind=np.int64(1))
    assert r.small_blind == 1 and r.utilities == (1.0, -1.0)


def test_other_presets_print_no_small_blind():
    r = replay(get_config("leduc"), "J,K", "1:r 2:r 1:c 1:c 2:c", "Q")
    assert r.small_blind == -1 and "small blind" not in str(r)
    assert "small_blind" not in r.to_dict()


def test_cli_replay_small_blind(capsys):
    res = CliRunner().invoke(
        cli,
        ["replay", "--preset", RLCARD, "--cards", "J,Q", "--community", "K", "--small-blind", "2"]
        + ["--actions", "2:c 1:c / 2:r 1:c"],
    )
    assert res.exit_code == 0, res.output
    assert "small blind seat 2" in res.output and "seat 1 -6, seat 2 +6" in res.output
    for argv, message in [
        (["--preset", RLCARD], "--small-blind K is required on rlcard-leduc"),
        (
            ["--preset", RLCARD, "--small-blind", "3"],
            "--small-blind 3: rlcard-leduc has seats 1..2",
        ),
        (
            ["--preset", RLCARD, "--small-blind", "0"],
            "--small-blind 0: rlcard-leduc has seats 1..2",
        ),
        (["--preset", "leduc", "--small-blind", "1"], "--small-blind: leduc does not deal"),
        (["--preset", RLCARD, "--small-blind", "x"], "'x' is not a valid integer"),
    ]:
        with pytest.raises(SystemExit) as e:
            main(["replay", "--cards", "J,Q", "--actions", "1:f", *argv])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
