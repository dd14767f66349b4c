"""``teamleduc play`` scripted through stdin: prompts, re-prompts, per-hand results, the summary."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from teamleduc.cli import cli, main
from teamleduc.envs.play import seat_value


def play(args, text):
    result = CliRunner().invoke(cli, ["play", *args], input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_bad_keystrokes_reprompt_and_hands_are_scored():
    # leduc seat 1 against always-call: every hand is check-check in both rounds when we check
    code, out = play(
        [
            "--preset",
            "leduc",
            "--seat",
            "1",
            "--against",
            "always-call",
            "--hands",
            "2",
            "--seed",
            "0",
        ],
        "x\nf\nc\nc\nc\nc\n",
    )
    assert code == 0
    assert "'x' is not an action; type c or r" in out  # f is not legal there
    assert "fold (f) is not legal here; legal: call/check (c), raise (r)" in out
    results = [int(x) for x in re.findall(r"^you ([+-]\d+); running total", out, re.M)]
    assert len(results) == 2 and all(abs(r) in (0, 1) for r in results)  # ante only: +-1 or split
    assert "== 2 hand(s) played as player_1 against always-call" in out
    assert f"your total {sum(results):+d} chips" in out
    assert "exact expected value of player_1 if always-call played it too: +0.000000" in out


def test_end_of_input_ends_cleanly_with_the_summary():
    code, out = play(
        ["--preset", "team-leduc", "--seat", "3", "--against", "cautious", "--seed", "1"], "c\n"
    )
    assert code == 0
    assert "Traceback" not in out
    assert "hand(s) played as player_3 against cautious" in out
    exact = seat_value("team-leduc", "cautious", 2)
    assert f"{exact:+.6f} chips per hand" in out


def test_quit_and_the_table_shows_only_the_own_card():
    code, out = play(
        ["--preset", "team-leduc", "--seat", "2", "--against", "uniform", "--seed", "4"], "q\n"
    )
    assert code == 0
    assert "player_2 (you)" in out
    table = out.split("player_2 (you)")[0].splitlines()[-1]  # the row above ours: player_1
    assert table.split()[1] == "?"
    assert "== 0 hand(s) played" in out


def test_bad_seat_and_unknown_opponent_are_one_line_errors(capsys):
    with pytest.raises(SystemExit) as e:
        main(["play", "--preset", "leduc", "--seat", "3", "--against", "uniform"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "seats 1..2" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as e:
        main(["play", "--seat", "1", "--against", "no-such-thing"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "not a baseline" in err


class _CtrlC:
    """A stdin whose second line is Ctrl-C."""

    def __init__(self):
        self.calls = 0

    def readline(self):
        self.calls += 1
        if self.calls > 1:
            raise KeyboardInterrupt
        return "c\n"


def test_ctrl_c_ends_cleanly_with_the_summary(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", _CtrlC())
    with pytest.raises(SystemExit) as e:
        main(
            [
                "play",
                "--preset",
                "team-leduc",
                "--seat",
                "1",
                "--against",
                "aggressive",
                "--seed",
                "2",
            ]
        )
    out, err = capsys.readouterr()
    assert e.value.code == 0 and "Traceback" not in out + err
    assert "hand(s) played as player_1 against aggressive" in out
    assert "exact expected value of player_1" in out


def test_three_player_game_has_exact_seat_values():
    values = [seat_value("kuhn-3p", "uniform", s) for s in range(3)]
    assert sum(values) == pytest.approx(0.0, abs=1e-12)
    code, out = play(
        [
            "--preset",
            "kuhn-3p",
            "--seat",
            "2",
            "--against",
            "uniform",
            "--hands",
            "1",
            "--seed",
            "0",
        ],
        "c\nc\n",
    )
    assert code == 0 and f"{values[1]:+.6f} chips per hand" in out
