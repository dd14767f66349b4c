"""The student's day and the instructor's day, end to end through the command line, with no
``--preset`` anywhere: the preset is found from the files."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

from teamleduc.baselines import export_baseline
from teamleduc.config import get_config
from teamleduc.evaluate import evaluate
from teamleduc.files.reading import load_submission
from teamleduc.strategy import build_submission

from .cli_run import run

PRESET = "team-leduc-2025"


def raise_kings(infoset: str, legal: str):
    """Raise a king when legal; otherwise call, or fold a jack facing a bet."""
    rank = infoset[3 : infoset.index("/", 3)].strip("?")
    if rank == "K" and "r" in legal:
        return (0.0, 1.0, 0.0)
    if rank == "J" and "f" in legal:
        return (0.0, 0.0, 1.0)
    return (1.0, 0.0, 0.0)


def test_the_students_day(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # 1. the information sets, and the handout's sample ready to use
    code, out, _ = run(capsys, ["infosets", "--preset", PRESET, "--out", "data"])
    assert code == 0 and "sample-submission" in out
    # (infosets has no submission to read the preset from: the one --preset of the day)
    lines = (tmp_path / "data" / "leduc4-infosets-player1.csv").read_text().splitlines()
    assert len(lines) == 11_565
    code, out, _ = run(capsys, ["validate", "data/sample-submission"])
    assert code == 0 and "VALID" in out and f"preset {PRESET}" in out
    # 2. a policy function -> a submission
    build_submission(raise_kings, PRESET, out="mine")
    sub = load_submission("mine", PRESET)
    king = [i for i, s in enumerate(lines) if s.startswith("/C:K???/")][0]
    np.testing.assert_array_equal(sub.strategies[0][0, king], [0, 1, 0])
    # 3. validate, evaluate against a baseline, exploitability: no --preset
    code, out, _ = run(capsys, ["validate", "mine"])
    assert code == 0 and out.startswith("VALID: mine: CSV submission, preset team-leduc-2025")
    code, out, _ = run(capsys, ["evaluate", "mine", "uniform", "--json"])
    assert code == 0
    value = json.loads(out)["value"]
    assert value == evaluate(sub, "uniform", PRESET).value
    code, out, _ = run(capsys, ["evaluate", "data/sample-submission", "mine", "--json"])
    assert code == 0 and json.loads(out)["value"] == evaluate("uniform", sub, PRESET).value
    code, out, _ = run(capsys, ["exploitability", "mine", "--json"])
    assert code == 0
    gap = json.loads(out)
    assert gap["preset"] == PRESET and gap["gap"] > 0
    assert gap["br_a_of_y"] + gap["br_b_of_x"] == pytest.approx(gap["gap"])
    assert gap["worst_case_a"] <= gap["value"] <= -gap["worst_case_b"]


def make_class(folder):
    """Five submissions of team-leduc-2025: one broken, one a zip."""
    folder.mkdir()
    export_baseline("uniform", get_config(PRESET), folder / "alice")
    export_baseline("cautious", get_config(PRESET), folder / "bob")
    build_submission(raise_kings, PRESET, out=folder / "carol")
    shutil.make_archive(str(folder / "carol"), "zip", folder / "carol")
    shutil.rmtree(folder / "carol")
    export_baseline("aggressive", get_config(PRESET), folder / "dave")
    export_baseline("always-call", get_config(PRESET), folder / "erin")
    bad = folder / "erin" / "strategy0-player3.csv"
    rows = bad.read_text().splitlines()
    rows[6] = "0.5,0.6,0"
    bad.write_text("\n".join(rows) + "\n")


def test_the_instructors_day(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_class(tmp_path / "class")
    # 1. one table for the whole class, exit 1 because erin's is broken
    code, out, _ = run(capsys, ["validate", "class"])
    assert code == 1
    table = out.splitlines()
    assert table[0].split() == ["name", "verdict", "seats", "signals", "first", "problem"]
    verdicts = {row.split()[0]: row.split()[1] for row in table[1:-1]}
    assert verdicts == {
        "alice": "VALID",
        "bob": "VALID",
        "carol.zip": "VALID",
        "dave": "VALID",
        "erin": "INVALID",
    }
    assert "strategy0-player3.csv, line 7: the values sum to 1.1" in table[5]
    assert table[-1] == "5 submissions (preset team-leduc-2025): 4 valid, 1 invalid"
    code, out, _ = run(capsys, ["validate", "class", "--json"])
    data = json.loads(out)
    assert code == 1 and data["valid"] == 4 and data["invalid"] == 1
    assert [s["name"] for s in data["submissions"]][2] == "carol.zip"
    assert data["submissions"][4]["first_problem"].startswith("strategy0-player3.csv, line 7")
    code, out, _ = run(capsys, ["validate", "class/alice", "class/bob"])
    assert code == 0 and out.splitlines()[-1].endswith("2 valid, 0 invalid")
    # 2. grade with names: a names file and NAME=PATH, one path given twice
    (tmp_path / "class" / "names.csv").write_text(
        "name,path\nAlice Martin,alice\nBob Li,bob\nCarol Diaz,carol.zip\nErin Wu,erin\n"
    )
    code, out, err = run(
        capsys,
        [
            "grade",
            "--names",
            "class/names.csv",
            "Dave Roe=class/dave",
            "Alice again=class/alice",
            "--out",
            "grading",
            "--no-worst-case",
            "--jobs",
            "1",
        ],
    )
    assert code == 0, err
    assert "class/alice is given 2 times (as Alice again, Alice Martin)" in err
    assert "invalid: Erin Wu (class/erin)" in out
    rows = list(csv.DictReader(open(tmp_path / "grading" / "leaderboard.csv")))
    paths = {r["name"]: r["path"] for r in rows}
    assert paths == {
        "Alice Martin": "class/alice",
        "Alice again": "class/alice",
        "Bob Li": "class/bob",
        "Carol Diaz": "class/carol.zip",
        "Dave Roe": "class/dave",
    }
    md = (tmp_path / "grading" / "leaderboard.md").read_text()
    assert "| Carol Diaz | class/carol.zip |" in md and "| Erin Wu | class/erin |" in md
    # carol's raise-kings policy against bob's cautious baseline, exactly as evaluate says
    scores = json.loads((tmp_path / "grading" / "grade.json").read_text())
    i, j = scores["names"].index("Carol Diaz"), scores["names"].index("Bob Li")
    carol = load_submission(tmp_path / "class" / "carol.zip", PRESET)
    want = (
        evaluate(carol, "cautious", PRESET).value - evaluate("cautious", carol, PRESET).value
    ) / 2
    assert scores["scores"][i][j] == pytest.approx(want, abs=1e-12)


def test_names_files_and_name_arguments_are_checked(tmp_path, capsys):
    from teamleduc.entrants import NamedPath, read_names_file

    (tmp_path / "a=b").mkdir()
    assert NamedPath.parse(str(tmp_path / "a=b")) == str(tmp_path / "a=b")  # an existing path
    assert NamedPath.parse("x=y/z.zip") == NamedPath("x", "y/z.zip")
    assert NamedPath.parse("plain") == "plain"
    f = tmp_path / "names.csv"
    f.write_text("ann,subs/a\nbob,uniform\n")
    assert read_names_file(f) == [
        NamedPath("ann", str(tmp_path / "subs/a")),
        NamedPath("bob", "baseline:uniform"),  # a baseline whatever the current folder holds
    ]
    f.write_text("ann,subs/a\nbob\n")
    code, out, err = run(capsys, ["grade", "--names", str(f), "--out", str(tmp_path / "g")])
    assert code == 2 and f"{f}, line 2: expected 'name,path'" in err
