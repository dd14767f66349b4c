"""The files of a graded round robin (teamleduc.leaderboard): the exact text of each for a small
result made by hand, and the heatmap's layout."""

from __future__ import annotations

import json

import numpy as np
import pytest

from teamleduc import __version__
from teamleduc.leaderboard import (
    MAX_VALUES_SHOWN,
    graded_paths,
    heatmap_layout,
    leaderboard_html,
    leaderboard_markdown,
    write_outputs,
)
from teamleduc.standings import GradeResult, InvalidEntry

NAN = float("nan")

#: match scores S = (V - V.T) / 2: alice-bob_2 0.5, alice-c|d 0.25, bob_2-c|d 0.25
VALUES = np.array(
    [
        [0.0, 0.5, 1.25],
        [-0.5, 0.0, 0.25],
        [0.75, -0.25, 0.0],
    ]
)
INVALID = InvalidEntry('x,"y"', "subs/x.zip", "line 2:\nbad")


def result(invalid=(INVALID,)) -> GradeResult:
    # input order differs from the leaderboard's: the files follow the leaderboard
    perm = [2, 0, 1]
    names = tuple(np.array(["alice", "bob_2", "c|d"])[perm].tolist())
    sources = tuple(np.array(["subs/alice.zip", "subs/bob, 2", "baseline"])[perm].tolist())
    signals = tuple(np.array([1, 2, 1])[perm].tolist())
    guarantees = [[(0.1, -0.2), (NAN, NAN), (NAN, NAN)][k] for k in perm]
    values = VALUES[np.ix_(perm, perm)]
    return GradeResult.ranked("kuhn", names, sources, signals, values, guarantees, invalid)


@pytest.fixture
def files(tmp_path):
    out = tmp_path / "graded"
    written = write_outputs(result(), out, heatmap=False)
    assert [p.name for p in written] == [
        "leaderboard.csv",
        "leaderboard.md",
        "matrix.csv",
        "values.csv",
        "invalid.csv",
        "grade.json",
        "leaderboard.html",
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)
    return {p.name: p.read_bytes().decode("utf-8") for p in written}


def test_leaderboard_csv(files):
    assert files["leaderboard.csv"] == (
        "rank,name,path,mean_score,mean_as_team_a,mean_as_team_b,worst_match,worst_opponent,"
        "signals,worst_case_as_team_a,worst_case_as_team_b\n"
        "1,alice,subs/alice.zip,0.375,0.875,-0.125,0.25,c|d,1,0.1,-0.2\n"
        '2,bob_2,"subs/bob, 2",-0.125,-0.125,-0.125,-0.5,alice,2,,\n'
        "3,c|d,baseline,-0.25,0.25,-0.75,-0.25,alice,1,,\n"
    )


def test_matrix_values_and_invalid_csv(files):
    assert files["matrix.csv"] == (
        "entrant,alice,bob_2,c|d\nalice,,0.5,0.25\nbob_2,-0.5,,0.25\nc|d,-0.25,-0.25,\n"
    )
    assert files["values.csv"] == (
        "team_a,team_b,value_team_a\n"
        "alice,bob_2,0.5\n"
        "alice,c|d,1.25\n"
        "bob_2,alice,-0.5\n"
        "bob_2,c|d,0.25\n"
        "c|d,alice,0.75\n"
        "c|d,bob_2,-0.25\n"
    )
    assert files["invalid.csv"] == 'name,path,message\n"x,""y""",subs/x.zip,"line 2:\nbad"\n'


def test_grade_json(files):
    text = files["grade.json"]
    assert json.loads(text) == json.loads(json.dumps(result().to_dict()))
    lines = text.splitlines()
    # the matrices one row per line, in leaderboard order
    assert '  "scores": [' in lines
    assert "    [null, 0.5, 0.25]," in lines and "    [-0.25, -0.25, null]" in lines
    assert "    [0.0, 0.5, 1.25]," in lines
    assert text.endswith("}\n")


def test_markdown_text():
    md = leaderboard_markdown(result())
    assert md.split("\n") == [
        "# Leaderboard (kuhn)",
        "",
        "3 entrants, every pair played in both seatings; exact expected team utility in chips "
        "per hand. Score = mean over opponents of the mean of the two team utilities of a "
        "match; worst match = the lowest such match score. Worst case as A / as B = the value "
        "the entrant guarantees against an exact best correlated response of the other team.",
        "",
        "| rank | name | path | mean score | mean as team A | mean as team B | worst match "
        "| signals | worst case as A | worst case as B |",
        "|---:|:---|:---|---:|---:|---:|:---|---:|---:|---:|",
        "| 1 | alice | subs/alice.zip | +0.3750 | +0.8750 | -0.1250 | +0.2500 vs c\\|d | 1 "
        "| +0.1000 | -0.2000 |",
        "| 2 | bob\\_2 | subs/bob, 2 | -0.1250 | -0.1250 | -0.1250 | -0.5000 vs alice | 2 | - | - |",
        "| 3 | c\\|d | baseline | -0.2500 | +0.2500 | -0.7500 | -0.2500 vs alice | 1 | - | - |",
        "",
        "## Invalid submissions (1, not graded)",
        "",
        "| name | path | first problem |",
        "|:---|:---|:---|",
        '| x,"y" | subs/x.zip | line 2:\\\\nbad |',  # the newline shown as \n, its \ escaped
        "",
        f"teamleduc {__version__}, preset kuhn.",
        "",
    ]
    assert "Invalid" not in leaderboard_markdown(result(invalid=()))


def test_html_text(files):
    html = leaderboard_html(result(), png=b"PNG!")
    assert html.split("\n") == [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Leaderboard (kuhn)</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em}"
        "td:nth-child(n+4){text-align:right;font-variant-numeric:tabular-nums}"
        "th{background:#eee}img{max-width:100%}</style></head><body>",
        "<h1>Leaderboard (kuhn)</h1>",
        "<p>3 entrants, every pair played in both seatings; exact expected team utility in "
        "chips per hand. Score = mean over opponents of the mean of the two team utilities of "
        "a match; worst match = the lowest such match score; worst case as A / as B = the "
        "value the entrant guarantees against an exact best correlated response of the other "
        "team.</p>",
        "<table><thead><tr><th>rank</th><th>name</th><th>path</th><th>mean score</th>"
        "<th>mean as team A</th><th>mean as team B</th><th>worst match</th><th>signals</th>"
        "<th>worst case as A</th><th>worst case as B</th></tr></thead>",
        "<tbody><tr><td>1</td><td>alice</td><td>subs/alice.zip</td><td>+0.3750</td>"
        "<td>+0.8750</td><td>-0.1250</td><td>+0.2500 vs c|d</td><td>1</td><td>+0.1000</td>"
        "<td>-0.2000</td></tr>",
        "<tr><td>2</td><td>bob_2</td><td>subs/bob, 2</td><td>-0.1250</td><td>-0.1250</td>"
        "<td>-0.1250</td><td>-0.5000 vs alice</td><td>2</td><td>-</td><td>-</td></tr>",
        "<tr><td>3</td><td>c|d</td><td>baseline</td><td>-0.2500</td><td>+0.2500</td>"
        "<td>-0.7500</td><td>-0.2500 vs alice</td><td>1</td><td>-</td><td>-</td></tr>"
        "</tbody></table>",
        "<h2>Invalid submissions (1, not graded)</h2>",
        "<table><tr><th>name</th><th>path</th><th>first problem</th></tr>",
        "<tr><td>x,&quot;y&quot;</td><td>subs/x.zip</td><td>line 2:\\nbad</td></tr>",
        "</table>",
        "<h2>Match scores</h2>",
        '<img alt="heatmap of the match scores" src="data:image/png;base64,UE5HIQ==">',
        f"<p>teamleduc {__version__}, preset kuhn.</p>",
        "</body></html>",
        "",
    ]
    # the file written without a heatmap: the same page without the picture
    assert files["leaderboard.html"] == leaderboard_html(result())
    assert "<img" not in files["leaderboard.html"]


def test_graded_paths_leave_out_baselines():
    assert graded_paths(result()) == ["subs/alice.zip", "subs/bob, 2", "subs/x.zip"]


@pytest.mark.parametrize(
    ("n", "size", "values", "value_font", "label_font", "label_every"),
    [
        (1, 5.0, True, 11.0, 11.0, 1),
        (30, 12.0, True, 0.27 * 72 * 0.8 * 12 / 30, 11.0, 1),
        (31, 12.3, False, 0.27 * 72 * 0.8 * 12.3 / 31, 11.0, 1),
        (300, 30.0, False, 5.0, 5.0, 2),  # cells of 5.76 points: every other name
        (1000, 30.0, False, 5.0, 5.0, 4),  # cells of 1.728 points: one name in 4
    ],
)
def test_heatmap_layout(n, size, values, value_font, label_font, label_every):
    assert heatmap_layout(n) == {
        "size": pytest.approx(size),
        "values": values,
        "value_font": pytest.approx(value_font),
        "label_font": pytest.approx(label_font),
        "label_every": label_every,
    }
    assert values == (n <= MAX_VALUES_SHOWN)
