"""The handout's sample hand and scripted hands with hand-computed payoffs."""

import pytest
from click.testing import CliRunner

from teamleduc.cli import cli, main
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
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
