"""Findings of the command-line audit: class folders with broken links, outputs written into the
inputs, long arguments echoed back, lax parsing of --cards and --seats, and play's messages."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from teamleduc.cli import cli
from teamleduc.errors import ArgumentValueError, TeamLeducError

from .cli_run import run

TINY = "tiny-team-leduc"
FAST = ["--preset", TINY, "--no-heatmap", "--no-worst-case", "--jobs", "1"]


def tree(path: Path) -> list[str]:
    """Every path below ``path`` (links not followed), to show nothing was written there."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture()
def sub(tmp_path, capsys, monkeypatch) -> Path:
    """A valid submission ``sub`` (the uniform baseline) in the current folder ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, ["baseline", "uniform", "--preset", TINY, "--out", "sub"])
    assert code == 0, err
    return tmp_path / "sub"


# ------------------------------------------------------------------ 1. broken links in a class


@pytest.fixture()
def class4(sub) -> Path:
    klass = sub.parent / "class4"
    klass.mkdir()
    os.rename(sub, klass / "alice")
    os.symlink("/nonexistent/bob", klass / "bob")  # broken
    os.symlink("carol", klass / "carol")  # a loop: carol -> carol
    return klass


def test_validate_lists_broken_and_looping_links_of_a_class(capsys, class4):
    code, out, _ = run(capsys, ["validate", "class4"])
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == f"3 submissions (preset {TINY}): 1 valid, 2 invalid"
    for name in ("bob", "carol"):
        row = next(line for line in lines if line.startswith(name + " "))
        assert "INVALID" in row
        assert "no such file or folder (a broken or looping symbolic link)" in row
    code, out, _ = run(capsys, ["validate", "class4", "--json"])
    data = json.loads(out)
    assert code == 1 and data["invalid"] == 2
    assert [s["name"] for s in data["submissions"]] == ["alice", "bob", "carol"]


def test_grade_lists_broken_and_looping_links_of_a_class(capsys, class4):
    code, out, err = run(
        capsys, ["grade", "class4", "--baselines", "uniform", "--out", "g4", *FAST]
    )
    assert code == 0, err
    assert "invalid: bob (class4/bob)" in out and "invalid: carol (class4/carol)" in out
    assert "broken or looping symbolic link" in out
    rows = list(csv.DictReader(open(class4.parent / "g4" / "invalid.csv")))
    assert [r["name"] for r in rows] == ["bob", "carol"]


# ------------------------------------------------------------------ 2. grade writes into inputs


def test_grade_refuses_an_out_inside_a_submission(capsys, sub):
    before = tree(sub)
    code, _, err = run(capsys, ["grade", "sub", "uniform", "--out", "sub/results", *FAST])
    assert code == 2
    assert "--out 'sub/results': refused:" in err and "inside the input 'sub'" in err
    assert tree(sub) == before  # neither results nor results.cache made
    code, out, _ = run(capsys, ["validate", "sub"])
    assert code == 0 and out.startswith("VALID")


def test_grade_refuses_a_cache_that_is_or_lies_inside_a_submission(capsys, sub):
    before = tree(sub)
    for cache in ("sub", "sub/c"):
        code, _, err = run(
            capsys, ["grade", "sub", "uniform", "--out", "g2", "--cache", cache, *FAST]
        )
        assert code == 2
        assert f"--cache '{cache}': refused:" in err and "inside the input 'sub'" in err
        assert tree(sub) == before and not (sub.parent / "g2").exists()


def test_grade_refuses_an_out_inside_the_class_folder_it_grades(capsys, sub):
    klass = sub.parent / "class"
    klass.mkdir()
    os.rename(sub, klass / "a")
    (klass / "b").symlink_to(klass / "a", target_is_directory=True)
    before = tree(klass)
    for extra in ([], ["--overwrite"], ["--no-cache"]):
        code, _, err = run(capsys, ["grade", "class", "--out", "class/results", *FAST, *extra])
        assert code == 2
        assert "--out 'class/results': refused:" in err and "inside the input 'class'" in err
        assert "it is or holds the input" not in err
        assert tree(klass) == before
    # a link to a submission: the folder it points to is the input
    code, _, err = run(capsys, ["grade", "class/b", "uniform", "--out", "class/a/x", *FAST])
    assert code == 2 and "inside the input 'class/b'" in err
    assert tree(klass) == before
    code, out, _ = run(capsys, ["validate", "class"])
    assert code == 0 and out.splitlines()[-1].endswith("2 valid, 0 invalid")


def test_the_api_refuses_an_out_or_cache_inside_a_submission(sub):
    from teamleduc import api

    before = tree(sub)
    with pytest.raises(TeamLeducError, match=r"^out 'sub/results': refused: .*input 'sub'"):
        api.grade(["sub", "uniform"], TINY, out="sub/results", worst_case=False)
    with pytest.raises(TeamLeducError, match=r"^cache 'sub': refused: .*input 'sub'"):
        api.grade(["sub", "uniform"], TINY, cache="sub", worst_case=False)
    assert tree(sub) == before


# ------------------------------------------------------------------ 3. convert DST inside SRC


def test_convert_refuses_a_destination_inside_the_source(capsys, sub):
    before = tree(sub)
    for to in ("npy2025", "csv"):
        code, _, err = run(capsys, ["convert", "sub", "sub/npy", "--to", to])
        assert code == 2
        assert "'sub/npy': refused: it lies inside the source 'sub'" in err
        assert tree(sub) == before
    code, out, _ = run(capsys, ["convert", "sub", "npy", "--to", "npy2025"])  # beside it: fine
    assert code == 0 and "team13.zip" in out


# ------------------------------------------------------------------ 4. long arguments


def test_grade_cuts_a_long_invalid_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    long = "a" * 3000
    code, out, err = run(capsys, ["grade", long, "uniform", "--out", "gl", *FAST])
    assert code == 1  # one valid entrant
    line = next(x for x in out.splitlines() if x.startswith("invalid:"))
    assert len(line) <= 2000 and line.endswith("characters, cut)")
    assert all(len(x) <= 2000 for x in (out + err).splitlines())
    assert len(next(csv.DictReader(open(tmp_path / "gl" / "invalid.csv")))["path"]) == 3000


@pytest.mark.parametrize(
    "argv, what",
    [
        (["evaluate", "{L}", "uniform", "--preset", TINY], "TEAM_A_SUB"),
        (["evaluate", "uniform", "{L}", "--preset", TINY], "TEAM_B_SUB"),
        (["match", "{L}", "uniform", "--preset", TINY], "X"),
        (["grade", "{L}", "uniform", "--out", "g", *FAST], "SUB"),
        (["exploitability", "{L}", "--preset", TINY], "SUB"),
        (["best-response", "{L}", "--against", "a", "--preset", TINY], "SUB"),
        (["validate", "{L}"], "'PATHS...'"),
        (["convert", "{L}", "x", "--to", "csv"], "'SRC'"),
    ],
)
def test_a_sub_over_4096_characters_is_shown_as_80_and_its_length(
    capsys, tmp_path, monkeypatch, argv, what
):
    monkeypatch.chdir(tmp_path)
    long = "b" * 5000
    code, out, err = run(capsys, [long if a == "{L}" else a for a in argv])
    assert code == 2
    assert what in err and f"'{'b' * 80}'... (5,000 characters)" in err
    assert "b" * 81 not in out + err
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ 5. lax parsing


@pytest.mark.parametrize(
    "cards, field",
    [("Q,K,Q,K,,", 5), (",Q,K,Q,K", 1), ("Q,,K,Q,K", 2), ("Q,K,Q,K,", 5)],
)
def test_cards_with_an_empty_field_are_refused(capsys, cards, field):
    want = f"--cards '{cards}': field {field} is empty"
    code, _, err = run(
        capsys, ["evaluate", "uniform", "uniform", "--preset", TINY, "--cards", cards]
    )
    assert code == 2 and want in err
    code, _, err = run(capsys, ["replay", "--preset", TINY, "--cards", cards, "--actions", "1:c"])
    assert code == 2 and want in err


def test_cards_separated_by_commas_or_blanks_still_read(capsys):
    for cards in ("Q,K,Q,K", "Q, K, Q ,K", "Q K Q K"):
        code, out, err = run(
            capsys, ["evaluate", "uniform", "uniform", "--preset", TINY, "--cards", cards]
        )
        assert code == 0, err
        assert "given cards Q,K,Q,K" in out


def test_the_library_refuses_an_empty_card_too():
    from teamleduc.evaluate import evaluate
    from teamleduc.replay import replay

    with pytest.raises(ArgumentValueError, match="field 2 is empty"):
        evaluate("uniform", "uniform", TINY, cards="Q,,K,Q,K")
    with pytest.raises(ArgumentValueError, match="card 2 is empty"):
        evaluate("uniform", "uniform", TINY, cards=["Q", "", "K", "Q", "K"])
    with pytest.raises(ArgumentValueError, match="field 1 is empty"):
        replay(TINY, ",Q,K,Q,K", "1:c")


@pytest.mark.parametrize(
    "seats, message",
    [
        ("1,3,1,3", "seat 1 is given twice"),
        ("1,01,3", "a seat is given twice"),
        ("1,,3", "field 2 is empty"),
        ("1,3,", "field 3 is empty"),
    ],
)
def test_validate_refuses_repeated_or_empty_seats(capsys, sub, seats, message):
    code, _, err = run(capsys, ["validate", "sub", "--seats", seats])
    assert code == 2 and "'--seats'" in err and message in err


def test_validate_seats_still_read(capsys, sub):
    code, out, _ = run(capsys, ["validate", "sub", "--seats", " 1 , 3 "])
    assert code == 0 and "seats 1,3," in out


# ------------------------------------------------------------------ 6. play


def play(args, text: bytes | str):
    result = CliRunner().invoke(cli, ["play", "--preset", "kuhn", *args], input=text)
    if isinstance(result.exception, TeamLeducError):  # main() prints it as "error: ..."
        return result.exception.exit_code, f"{result.output}error: {result.exception}\n"
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_play_names_against_for_a_missing_submission():
    code, out = play(["--against", "missing"], b"")
    assert code == 2
    assert "error: --against missing: no such submission folder or .zip" in out
    assert "players" not in out


def test_play_a_last_line_without_newline_is_a_short_line():
    code, out = play(["--against", "uniform", "--seed", "1"], b"x")
    assert code == 0
    assert "  'x' is not an action; type c or r\n" in out  # fold is not legal there
    assert "a line of" not in out and "'x'..." not in out


def test_play_a_line_of_exactly_line_bytes_is_not_long():
    from teamleduc.commands.play import LINE_BYTES

    code, out = play(["--against", "uniform", "--seed", "1"], b"y" * LINE_BYTES + b"\nq\n")
    assert code == 0 and "a line of" not in out
    assert f"'{'y' * 80}'... ({LINE_BYTES:,} characters) is not an action" in out
