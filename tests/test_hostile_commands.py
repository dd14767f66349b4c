"""Issue 34, class 6: ``play``, ``show``/``trace``, ``replay``'s arguments and the studies
under hostile input. Every case is one precise message and a non-zero exit (or the toolkit's
TypeError / ValueError in Python), never an internal error, a traceback, a raw escape sequence
on the terminal, a megabyte echoed back, or a run of days; and the Q-learner's training, now
in slices so that Ctrl-C is never held off, gives the same numbers bit for bit."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from click.testing import CliRunner

from teamleduc.agents import qlearning
from teamleduc.agents.expectiminimax import Expectiminimax, expectiminimax_values
from teamleduc.agents.qlearning import QLearning
from teamleduc.agents.study import MAX_EPISODES, Study
from teamleduc.arguments import excerpt
from teamleduc.cli import cli
from teamleduc.commands.play import LINE_BYTES, MAX_BAD_LINES
from teamleduc.config import get_config
from teamleduc.envs.play import parse_action, seat_value
from teamleduc.errors import TeamLeducError
from teamleduc.explain import show_infoset, trace_hand
from teamleduc.studies.abstraction import check_arguments
from teamleduc.studies.p2_advantage import p2_advantage, solve_game
from teamleduc.tree import build_tree

from .cli_run import run

ESC = "\x1b"
SEED_WORDS = ["-1", "1.5", "abc", "1e3", str(2**63), "9" * 40, "", " "]


def play(args, text: bytes | str):
    """``teamleduc play`` on kuhn against cautious with ``text`` on stdin (CliRunner: its
    stdin has a binary buffer, as a terminal or a pipe has)."""
    result = CliRunner().invoke(
        cli, ["play", "--preset", "kuhn", "--against", "cautious", *args], input=text
    )
    if isinstance(result.exception, TeamLeducError):  # main() prints it as "error: ..."
        return result.exception.exit_code, f"{result.output}error: {result.exception}\n"
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def assert_clean(text: str) -> None:
    assert "Traceback" not in text and "internal error" not in text, text
    assert ESC not in text and "\x00" not in text, text  # escapes shown, never sent


# ------------------------------------------------------------------ the shared seed type


@pytest.mark.parametrize("word", SEED_WORDS)
@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--preset", "kuhn", "--against", "cautious", "--seed"],
        ["trace", "cautious", "--preset", "kuhn", "--seed"],
        ["study", "agents", "--preset", "kuhn", "--agents", "expectiminimax", "--seed"],
    ],
)
def test_a_bad_seed_is_a_usage_error_naming_the_bound(capsys, argv, word):
    """``--seed -1`` was an internal error in ``play`` and ``study agents`` (numpy's "expected
    non-negative integer"); ``1.5`` and 2**63 are refused alike, with the bound."""
    code, out, err = run(capsys, [*argv, word])
    assert code == 2, err
    assert "is not a seed: give an integer from 0 to 2**63 - 1" in err
    assert_clean(out + err)


def test_the_largest_seed_is_accepted():
    code, out = play(["--hands", "1", "--seed", str(2**63 - 1)], "c\nc\nc\n")
    assert code == 0 and "== 1 hand(s) played" in out


def test_excerpt_escapes_and_bounds():
    assert excerpt("c") == "'c'"
    assert excerpt(f"{ESC}[2J\x00") == "'\\x1b[2J\\x00'"
    long = excerpt("x" * 1_000_000)
    assert long == "'" + "x" * 80 + "'... (1,000,000 characters)"


# ------------------------------------------------------------------ play


def test_play_refuses_a_closed_stdin(capsys, monkeypatch):
    """``teamleduc play <&-`` (sys.stdin is None) was an internal AttributeError."""
    monkeypatch.setattr("sys.stdin", None)
    code, out, err = run(capsys, ["play", "--preset", "kuhn", "--against", "cautious"])
    assert code == 2 and "standard input is closed" in err
    assert out == ""  # refused before the first hand
    assert_clean(err)


def test_play_empty_input_quits_with_the_summary():
    code, out = play(["--seed", "1"], "")
    assert code == 0 and "== 0 hand(s) played as player_1 against cautious" in out


def test_play_a_megabyte_line_is_skipped_and_never_echoed():
    code, out = play(["--hands", "1", "--seed", "2"], "x" * 1_000_000 + "\nq\n")
    assert code == 0
    assert "'" + "x" * 40 + "'... (a line of 1,000,001 bytes) is not an action" in out
    assert len(out) < 5_000  # the line is never echoed back whole


def test_play_a_long_line_of_a_valid_word_is_not_an_action():
    """Only the first LINE_BYTES of a line are kept: a line of 'c' padded past them is not
    read as 'c' (the rest of it is skipped, not taken as the next line)."""
    code, out = play(["--hands", "1", "--seed", "2"], "c" + " " * (2 * LINE_BYTES) + "\nq\n")
    assert code == 0 and "(a line of 8,194 bytes) is not an action" in out
    assert "you check" not in out and "== 0 hand(s) played" in out


@pytest.mark.parametrize(
    "typed, shown",
    [
        (b"\x00\n", "'\\x00'"),
        (b"c\xff\xfe\n", "'c\\xff\\xfe'"),  # not UTF-8: the bytes, escaped
        (b"\x1b[2J\x1b]0;title\x07\n", "'\\x1b[2J\\x1b]0;title\\x07'"),
        ("\u202eesrever\n".encode(), "'\\u202eesrever'"),  # a bidi override
        (b"\xc3\xa9t\xc3\xa9\n", "'\u00e9t\u00e9'"),  # plain UTF-8 stays as written
    ],
)
def test_play_odd_bytes_are_shown_escaped(typed, shown):
    code, out = play(["--hands", "1", "--seed", "2"], typed + b"q\n")
    assert code == 0
    assert f"  {shown} is not an action; type c or r" in out  # f is not legal there
    assert_clean(out)


def test_play_repeated_bad_lines_end_the_session():
    """``yes x | teamleduc play`` re-prompted forever; now the session ends after
    MAX_BAD_LINES bad lines in a row, with the summary and exit code 2."""
    code, out = play(["--seed", "2"], "x\n" * 10_000)
    assert code == 2
    assert out.count("'x' is not an action") == MAX_BAD_LINES
    assert "== 0 hand(s) played" in out
    assert f"{MAX_BAD_LINES} lines in a row were not a legal action" in out


def test_play_bad_lines_between_good_ones_do_not_add_up():
    text = ("x\n" * (MAX_BAD_LINES - 1) + "c\n") * 3
    code, out = play(["--hands", "3", "--seed", "2"], text)
    assert code == 0 and "lines in a row" not in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--seat", "0"], "kuhn has seats 1..2"),
        (["--seat", "3"], "kuhn has seats 1..2"),
        (["--seat", "99999999999999999999999"], "kuhn has seats 1..2"),
        (["--seat", "1.5"], "'1.5' is not a valid integer"),
        (["--hands", "-1"], "-1 is not in the range x>=0"),
        (["--hands", "1e9"], "'1e9' is not a valid integer"),
    ],
)
def test_play_bad_seat_and_hands(capsys, args, words):
    code, out, err = run(capsys, ["play", "--preset", "kuhn", "--against", "cautious", *args])
    assert code == 2 and words in err
    assert_clean(out + err)


def test_play_against_a_submission_of_another_game(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, ["baseline", "cautious", "--preset", "leduc", "--out", "x"])
    assert code == 0
    code, out, err = run(capsys, ["play", "--preset", "kuhn", "--against", "x", "--seed", "1"])
    assert code == 1 and "pass --preset leduc" in err  # 1: invalid content
    code, out, err = run(capsys, ["play", "--preset", "kuhn", "--against", f"no{ESC}[31mpe"])
    assert code == 2 and "not a baseline" in err
    assert_clean(out + err)


@pytest.mark.parametrize(
    "argv, what",
    [
        (["play", "--preset", "kuhn", "--against"], "--against"),
        (["show", "--preset", "kuhn", "--infoset", "/C:J?/"], "SUB"),
        (["trace", "--preset", "kuhn"], "SUB"),
        (["trace", "--preset", "kuhn", "cautious"], "TEAM_B_SUB"),
    ],
)
@pytest.mark.parametrize("sub", ["s" * 100_000, "a\x00b"])
def test_a_sub_argument_no_file_system_holds(capsys, argv, what, sub):
    """A 100,000-character SUB was echoed whole by the loader's error; a NUL reached it."""
    code, out, err = run(capsys, [*argv, sub])
    assert code == 2 and f"{what} '" in err
    assert "not a submission folder, .zip or baseline name (at most 4,096 characters" in err
    assert len(err) < 600
    assert_clean(out + err)


def test_play_library_arguments():
    with pytest.raises(TypeError, match="text must be a str"):
        parse_action(b"c")
    with pytest.raises(TypeError, match="seat must be a 0-based int, not bool"):
        seat_value("kuhn", "cautious", True)  # used to be seat 1's value
    with pytest.raises(ValueError, match="kuhn has 0-based seats 0..1"):
        seat_value("kuhn", "cautious", 2)
    with pytest.raises(TypeError):
        seat_value("kuhn", "cautious", "1")


# ------------------------------------------------------------------ show and trace


@pytest.mark.parametrize(
    "infoset, words",
    [
        ("/C:" + "x" * 1_000_000, "... (1,000,003 characters): not an information-set string"),
        ("/C:" + "?" * 100_000 + "/", "the deal field '" + "?" * 40 + "'... (100,000 characters)"),
        (f"/C:{ESC}[31mJ?/", "the deal field '\\x1b[31mJ?' is not one of kuhn"),
        ("/C:J?/P1:c/", "'/C:J?/P1:c/': not an information set of seat 1 in kuhn"),
        ("", "infoset '': not an information-set string (one starts like /C:J?/)"),
        ("/C:J?/\x00", "'/C:J?/\\x00': not an information set of seat 1"),
    ],
)
def test_show_bad_infoset_is_bounded_and_escaped(capsys, infoset, words):
    """A megabyte ``--infoset`` was echoed back whole; now at most 80 characters of it."""
    code, out, err = run(capsys, ["show", "cautious", "--preset", "kuhn", "--infoset", infoset])
    assert code == 2 and words in err, err
    assert len(err) < 600
    assert_clean(out + err)


def test_show_still_reads_a_good_infoset_with_blanks(capsys):
    code, out, _ = run(capsys, ["show", "cautious", "--preset", "kuhn", "--infoset", " /C:J?/\n"])
    assert code == 0 and "cautious (kuhn): /C:J?/" in out


def test_show_and_trace_library_arguments():
    with pytest.raises(TypeError, match="infoset must be a str"):
        show_infoset("cautious", get_config("kuhn"), None)
    for seed, error in ((-1, ValueError), (2**63, ValueError), (1.5, TypeError), (None, TypeError)):
        with pytest.raises(error, match="seed"):
            trace_hand("cautious", None, get_config("kuhn"), seed)
    assert trace_hand("cautious", None, get_config("kuhn"), 2**63 - 1).seed == 2**63 - 1


# ------------------------------------------------------------------ replay's arguments


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--actions", "x" * 100_000, "'... (100,000 characters): not a hand of leduc"),
        ("--actions", "1:c\x002:c", "--actions '1:c\\x002:c': not a hand of leduc"),
        ("--cards", "J," * 50_000, "(100,000 characters): not a hand of leduc"),
        ("--community", f"{ESC}[2J", "--community '\\x1b[2J': not a hand of leduc"),
    ],
)
def test_replay_arguments_no_hand_can_spell(capsys, option, value, words):
    args = {"--cards": "J,Q", "--actions": "1:c 2:c / 1:c 2:c", "--community": "K"}
    args[option] = value
    argv = ["replay", "--preset", "leduc"] + [x for kv in args.items() for x in kv]
    code, out, err = run(capsys, argv)
    assert code == 2 and words in err, err
    assert len(err) < 600
    assert_clean(out + err)


def test_replay_actions_across_lines_still_replay(capsys):
    argv = ["replay", "--preset", "leduc", "--cards", "J,Q", "--community", "K"]
    code, out, _ = run(capsys, [*argv, "--actions", "1:c 2:c\n/\n1:c\t2:c"])
    assert code == 0 and "utilities: seat 1 -1, seat 2 +1" in out


def test_a_megabyte_preset_name_is_not_echoed(capsys):
    code, out, err = run(capsys, ["replay", "--preset", "x" * 100_000, "--cards", "J,Q"])
    assert code == 2 and "(100,000 characters)" in err and len(err) < 1_000
    code, out, err = run(capsys, ["info", "--preset", f"kuhn{ESC}[2J"])
    assert code == 2 and "'kuhn\\x1b[2J'" in err
    assert_clean(out + err)


# ------------------------------------------------------------------ study agents


AGENTS = ["study", "agents", "--preset", "kuhn", "--no-progress"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--episodes", str(10**15)], "--episodes 1,000,000,000,000,000 is above the maximum"),
        (["--cfr-iterations", str(10**12)], "--cfr-iterations 1,000,000,000,000 is above"),
        (["--grid", "--grid-episodes", str(10**12)], "--grid-episodes 1,000,000,000,000 is"),
        (["--grid", "--grid-episodes", "10000000", "--episodes", "1000"], "Q-learning episodes"),
        (["--max-depth", str(10**8)], "--max-depth 100,000,000 is above the maximum 100"),
        (["--depth", str(10**8)], "--depth 100,000,000 is above the maximum 100"),
        (["--seats", ","], "--seats ',': give 1-based seat numbers"),
        (["--seats", "1,1"], "a seat is listed twice"),
        (["--seats", "0"], "seat 0 is not one of 1..2"),
        (["--seats", "9" * 30], "is not a seat number"),
        (["--seats", f"1,{ESC}[2J"], "'\\x1b[2J' is not a seat number"),
        (["--bots", ""], "--bots: give at least one bot"),
        (["--bots", ",,"], "--bots: give at least one bot"),
        (["--bots", "x" * 100_000], "(100,000 characters) is not a name of the study's bots"),
        (["--bots", ",".join(f"random-pure:{k}" for k in range(101))], "101 bots, at most 100"),
        (["--agents", f"q{ESC}[2J"], "'q\\x1b[2j' is not a name of the study's agents"),
        (["--alpha", "nan", "--gamma", "0.5", "--epsilon", "0.5"], "'nan' is not a finite"),
        (["--alpha", "0.1", "--gamma", "inf", "--epsilon", "0.5"], "'inf' is not a finite"),
        (["--alpha", "0.1", "--gamma", "0.5", "--epsilon", "1.5"], "above the maximum 1"),
        (["--alpha", "0.1"], "give --alpha, --gamma and --epsilon together"),
    ],
)
def test_study_agents_refuses_before_running(tmp_path, capsys, args, words):
    """Each of these ran for days, printed NaN tables (--seats ,), or was an internal error
    (--bots ''); now one message, exit code 2, and nothing runs or is written."""
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, [*AGENTS, *args, "--out", str(out_dir)])
    assert code == 2 and words in err, err
    assert len(err) < 1_000
    assert_clean(out + err)
    assert not out_dir.exists()


def test_study_agents_minus_zero_is_zero(tmp_path, capsys):
    code, out, err = run(
        capsys,
        [*AGENTS, "--agents", "qlearning", "--bots", "uniform", "--episodes", "40"]
        + ["--alpha", "0.1", "--gamma", "-0", "--epsilon", "0.5", "--out", str(tmp_path / "o")],
    )
    assert code == 0, err
    assert "gamma 0," in out and "gamma -0" not in out


def test_study_library_arguments():
    with pytest.raises(TeamLeducError, match="--episodes"):
        Study(
            get_config("kuhn"), agents=("qlearning",), bots=("uniform",), episodes=MAX_EPISODES + 1
        )
    with pytest.raises(TeamLeducError, match="--seats: give at least one"):
        Study(get_config("kuhn"), agents=("expectiminimax",), seats=[])
    with pytest.raises(TypeError, match="bots must be a tuple of names"):
        Study(get_config("kuhn"), agents=("expectiminimax",), bots="uniform")
    with pytest.raises(ValueError, match="seed"):
        Study(get_config("kuhn"), agents=("expectiminimax",), seed=-1)
    with pytest.raises(TypeError, match="episodes must be an int"):
        Study(get_config("kuhn"), agents=("qlearning",), episodes=1e9)
    with pytest.raises(TypeError, match="seats: 0-based ints"):
        Study(get_config("kuhn"), agents=("expectiminimax",), seats=["1", "1"])
    with pytest.raises(TypeError, match="three numbers"):
        Study(get_config("kuhn"), agents=("qlearning",), parameters=(0.1, 0.5))
    with pytest.raises(ValueError, match="gamma must be in"):
        Study(get_config("kuhn"), agents=("qlearning",), parameters=(0.1, math.nan, 0.5))


def test_q_learning_library_arguments():
    with pytest.raises(ValueError, match="seed"):
        QLearning(get_config("kuhn"), "uniform", seed=-1)
    with pytest.raises(ValueError, match="alpha must be in"):
        QLearning(get_config("kuhn"), "uniform", alpha=math.inf)
    with pytest.raises(TypeError, match="epsilon must be a number"):
        QLearning(get_config("kuhn"), "uniform", epsilon="0.5")
    agent = QLearning(get_config("kuhn"), "uniform")
    with pytest.raises(TypeError, match="n must be an int"):
        agent.train(1.5)
    with pytest.raises(ValueError, match="n must be >= 0"):
        agent.train(-1)
    agent.train(0)
    assert agent.episodes == 0


# ------------------------------------------------------------------ the sliced training


def _train_all(agent) -> None:
    for n in (1000, 5, 40000):
        agent.train(n)


@pytest.mark.parametrize(
    "preset, bot, seats, total, digest",
    [
        ("leduc", "cautious", None, -867.924007651357, "2dd804cfd22ac450"),
        ("tiny-team-leduc", "aggressive", [0, 2], 12.354958168480414, "b22866baacef9dc1"),
    ],
)
@pytest.mark.parametrize("slice_size", [1, 37, 1 << 14])
def test_sliced_training_is_bit_identical(
    monkeypatch, preset, bot, seats, total, digest, slice_size
):
    """The Q-tables after 1000, 5 and 40000 episodes, whatever the slices: equal to the values
    of the one-call kernel that the slices replaced (its sum and hash, recorded from it before
    the change)."""
    monkeypatch.setattr(qlearning, "SLICE", slice_size)
    done = []
    agent = QLearning(
        get_config(preset),
        bot,
        alpha=0.1,
        gamma=0.5,
        epsilon=0.8,
        seats=seats,
        seed=7,
        progress=done.append,
    )
    _train_all(agent)
    assert agent.episodes == 41005 and sum(done) == 41005
    assert max(done) <= slice_size
    assert float(agent._Q.sum()) == total
    assert hashlib.sha256(agent._Q.tobytes()).hexdigest()[:16] == digest


def test_a_deep_expectiminimax_costs_the_tree_depth():
    """The sweeps stop at their fixed point: depth 10**12 is the search of the whole tree,
    equal to the search at the tree's depth (it used to loop 10**12 times)."""
    tree = build_tree(get_config("leduc"))
    deepest = tree.summary()["max_depth"]
    for seat in (0, 1):
        assert np.array_equal(
            expectiminimax_values(tree, seat, 10**12), expectiminimax_values(tree, seat, deepest)
        )
    deep = Expectiminimax(get_config("leduc"), 10**12).policy()
    full = Expectiminimax(get_config("leduc"), deepest).policy()
    assert all(np.array_equal(deep[s], full[s]) for s in (0, 1))
    with pytest.raises(ValueError, match="depth must be >= 0"):
        Expectiminimax(get_config("leduc"), -1)
    with pytest.raises(TeamLeducError, match="0-based seats of leduc"):
        Expectiminimax(get_config("leduc"), 1, seats=[2])


# ------------------------------------------------------------------ the other studies


@pytest.mark.parametrize(
    "argv, words",
    [
        (["p2-advantage", "--time-limit", "1e300"], "1e+300 is above the maximum 86400"),
        (["p2-advantage", "--time-limit", "nan"], "'nan' is not a finite number"),
        (["p2-advantage", "--target", "-1"], "-1 is not positive"),
        (["p2-advantage", "--presets", "x" * 100_000], "(100,000 characters); two-player"),
        (["p2-advantage", "--presets", f"kuhn,{ESC}[2J"], "unknown preset '\\x1b[2J'"),
        (["abstraction", "--preset", "y" * 100_000], "(100,000 characters); two-player"),
        (["abstraction", "--buckets", "1.5"], "'1.5' is not a valid integer"),
        (["abstraction", "--buckets", "0"], "--buckets must be between 1 and 100"),
    ],
)
def test_other_studies_refuse_before_running(tmp_path, capsys, argv, words):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, ["study", *argv, "--out", str(out_dir)])
    assert code == 2 and words in err, err
    assert len(err) < 1_000
    assert_clean(out + err)
    assert not out_dir.exists()


def test_other_studies_library_arguments():
    with pytest.raises(TeamLeducError, match="time_limit must be a finite number > 0"):
        p2_advantage(["kuhn"], "dcfr", 1e-6, math.inf)
    with pytest.raises(TeamLeducError, match="target must be a finite number > 0"):
        solve_game(get_config("kuhn"), "dcfr", math.nan)
    with pytest.raises(TeamLeducError, match="unknown preset 'k'") as e:
        p2_advantage("k")  # a str is the option's text, not a sequence of one-letter names
    assert "two-player presets" in str(e.value)
    with pytest.raises(TeamLeducError, match="--buckets must be an int"):
        check_arguments(get_config("kuhn-100"), 2.5)
    assert p2_advantage("kuhn").rows[0].value_seat1 == pytest.approx(-1 / 18, abs=1e-9)
