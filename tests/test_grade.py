"""Round-robin grading: values equal single evaluations, leaderboard arithmetic, invalid
submissions, deterministic files, the CLI."""

import csv
import json

import numpy as np
import pytest

from teamleduc.cli import main
from teamleduc.config import get_config
from teamleduc.evaluate import evaluate, evaluate_reach, team_b_weights, team_seats
from teamleduc.files.writing import write_submission
from teamleduc.grade import grade
from teamleduc.grade.kernel import pair_values
from teamleduc.reach import team_reach
from teamleduc.tree import build_tree

from .test_evaluate import random_submission

PRESET = "tiny-team-leduc"


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    """Three random submissions (one a zip), one broken, one team-only, as files."""
    root = tmp_path_factory.mktemp("subs")
    config = get_config(PRESET)
    paths = []
    for k, (name, signals) in enumerate([("alice", 1), ("bob", 3), ("carol.zip", 2)]):
        write_submission(random_submission(config, signals, 100 + k), root / name)
        paths.append(root / name)
    write_submission(random_submission(config, 1, 200), root / "broken")
    target = root / "broken" / "strategy1-player3.csv"  # signal ids are 1, 4, 7, ...
    lines = target.read_text().splitlines()
    lines[6] = "0.7,0.7,0.0"
    target.write_text("\n".join(lines) + "\n")
    A, _ = team_seats(config)
    write_submission(random_submission(config, 1, 201, seats=A), root / "half")
    return root, paths


def test_values_equal_single_evaluations_bit_for_bit(entries):
    root, paths = entries
    r = grade(paths, PRESET, baselines="cautious,random-pure:4")
    assert r.names == ("alice", "bob", "carol", "cautious", "random-pure:4")
    specs = paths + ["cautious", "random-pure:4"]
    for i, x in enumerate(specs):
        for j, y in enumerate(specs):
            if i != j:
                assert r.values[i, j] == evaluate(x, y, PRESET).value  # exact equality
    assert r.signals == (1, 3, 2, 1, 1)


def test_leaderboard_arithmetic(entries):
    root, paths = entries
    r = grade(paths, PRESET, baselines="all")
    n = len(r.names)
    V = r.values
    S = r.scores
    np.testing.assert_array_equal(S, -S.T)
    by_name = {s.name: s for s in r.standings}
    for i, name in enumerate(r.names):
        others = [j for j in range(n) if j != i]
        s = by_name[name]
        assert s.mean_score == pytest.approx(
            np.mean([(V[i, j] - V[j, i]) / 2 for j in others]), abs=1e-14
        )
        assert s.mean_as_team_a == pytest.approx(np.mean([V[i, j] for j in others]), abs=1e-14)
        assert s.mean_as_team_b == pytest.approx(np.mean([-V[j, i] for j in others]), abs=1e-14)
        assert s.mean_score == pytest.approx((s.mean_as_team_a + s.mean_as_team_b) / 2, abs=1e-14)
        worst = min(others, key=lambda j: S[i, j])
        assert s.worst_match == S[i, worst] and s.worst_opponent == r.names[worst]
    scores = [s.mean_score for s in r.standings]
    assert scores == sorted(scores, reverse=True)
    assert [s.rank for s in r.standings][0] == 1
    # the round robin is zero-sum: mean scores sum to zero
    assert sum(scores) == pytest.approx(0.0, abs=1e-12)


def test_invalid_submissions_are_listed_not_fatal(entries):
    root, paths = entries
    r = grade(paths + [root / "broken", root / "half", root / "missing"], PRESET)
    assert r.names == ("alice", "bob", "carol")
    bad = {b.name: b.message for b in r.invalid}
    assert set(bad) == {"broken", "half", "missing"}
    assert "strategy1-player3.csv, line 7" in bad["broken"] and "sum" in bad["broken"]
    assert "both seatings" in bad["half"]
    assert "no such submission" in bad["missing"]


def test_output_files_are_deterministic(entries, tmp_path):
    root, paths = entries
    args = (paths + [root / "broken"], PRESET)
    grade(*args, baselines="aggressive,uniform", out=tmp_path / "one", jobs=1)
    grade(*args, baselines="aggressive,uniform", out=tmp_path / "two", jobs=2)
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert files == [
        "grade.json",
        "invalid.csv",
        "leaderboard.csv",
        "leaderboard.html",
        "leaderboard.md",
        "matrix.csv",
        "matrix.png",
        "values.csv",
    ]
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), (
            name
        )
    rows = list(csv.reader(open(tmp_path / "one" / "leaderboard.csv")))
    assert rows[0] == [
        "rank",
        "name",
        "path",
        "mean_score",
        "mean_as_team_a",
        "mean_as_team_b",
        "worst_match",
        "worst_opponent",
        "signals",
        "worst_case_as_team_a",
        "worst_case_as_team_b",
    ]
    assert len(rows) == 1 + 5
    matrix = list(csv.reader(open(tmp_path / "one" / "matrix.csv")))
    names = matrix[0][1:]
    assert names == [r[1] for r in rows[1:]]  # leaderboard order
    for i, row in enumerate(matrix[1:]):
        assert row[0] == names[i] and row[1 + i] == ""
        for j, cell in enumerate(row[1:]):
            if i != j:
                assert float(cell) == -float(matrix[1 + j][1 + i])
    md = (tmp_path / "one" / "leaderboard.md").read_text()
    assert (
        "| rank | name | path | mean score | mean as team A | mean as team B | worst match "
        "| signals |" in md
    )
    assert "Invalid submissions (1, not graded)" in md and "broken" in md
    data = json.loads((tmp_path / "one" / "grade.json").read_text())
    assert data["preset"] == PRESET and "version" in data and len(data["leaderboard"]) == 5
    assert (tmp_path / "one" / "matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pair_values_match_evaluate_reach_bitwise():
    config = get_config("small-team-leduc")
    tree = build_tree(config)
    A, B = team_seats(config)
    subs = [random_submission(config, k, 300 + k) for k in (1, 2, 3, 4)]
    ta = np.stack([team_reach(tree, s, A).ravel() for s in subs])
    wb = np.stack([team_b_weights(tree, team_reach(tree, s, B)).ravel() for s in subs])
    V = pair_values(ta, wb)
    for i in range(4):
        for j in range(4):
            assert V[i, j] == evaluate_reach(
                tree, ta[i].reshape(-1, 9), team_reach(tree, subs[j], B)
            )


def test_grade_cli(entries, tmp_path, capsys):
    root, paths = entries
    out = tmp_path / "g"
    with pytest.raises(SystemExit) as e:
        main(
            [
                "grade",
                *map(str, paths),
                str(root / "broken"),
                "--preset",
                PRESET,
                "--baselines",
                "cautious",
                "--out",
                str(out),
                "--jobs",
                "1",
                "--no-heatmap",
            ]
        )
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "4 entrants graded" in text and "invalid: broken" in text
    assert not (out / "matrix.png").exists() and (out / "leaderboard.md").exists()
    with pytest.raises(SystemExit) as e:
        main(
            [
                "grade",
                str(paths[0]),
                "--preset",
                PRESET,
                "--out",
                str(tmp_path / "h"),
                "--no-heatmap",
            ]
        )
    assert e.value.code == 1  # one entrant: nothing was played
    with pytest.raises(SystemExit) as e:
        main(["grade", "--preset", PRESET])
    assert e.value.code == 2


def test_evaluate_and_match_cli(entries, capsys):
    root, paths = entries
    with pytest.raises(SystemExit) as e:
        main(["evaluate", str(paths[0]), "aggressive", "--preset", PRESET, "--json"])
    assert e.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == evaluate(paths[0], "aggressive", PRESET).value
    assert data["preset"] == PRESET and data["team_b"]["name"] == "aggressive"
    with pytest.raises(SystemExit) as e:
        main(["match", str(paths[1]), "uniform", "--preset", PRESET, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["score"] == pytest.approx((data["value_x_as_a"] - data["value_y_as_a"]) / 2, abs=0)
    with pytest.raises(SystemExit) as e:
        main(
            [
                "evaluate",
                "uniform",
                "uniform",
                "--preset",
                "team-leduc",
                "--cards",
                "J,Q,Q,K",
                "--community",
                "J",
            ]
        )
    assert e.value.code == 0 and "given cards J,Q,Q,K and community J" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["evaluate", str(root / "broken"), "uniform", "--preset", PRESET])  # seat 3 is broken
    assert e.value.code == 1 and "line 7" in capsys.readouterr().err


def test_worst_case_columns_equal_exact_best_responses():
    from teamleduc.best_response import exploitability
    from teamleduc.grade import grade as run_grade

    result = run_grade([], "small-team-leduc", baselines=["uniform", "cautious", "random-pure:3"])
    assert len(result.standings) == 3
    for s in result.standings:
        ex = exploitability("small-team-leduc", s.name)
        assert s.worst_case_as_team_a == pytest.approx(-ex.br_b.value, abs=1e-12)
        assert s.worst_case_as_team_b == pytest.approx(-ex.br_a.value, abs=1e-12)
        # nobody guarantees more than what it actually scores against these opponents
        assert s.worst_case_as_team_a <= s.mean_as_team_a + 1e-12
        assert s.worst_case_as_team_b <= s.mean_as_team_b + 1e-12
    off = run_grade([], "small-team-leduc", baselines=["uniform"], worst_case=False)
    assert np.isnan(off.standings[0].worst_case_as_team_a)


def baseline_result(names, values):
    """A grading result of one-signal baselines with these team-A values."""
    from teamleduc.standings import GradeResult

    sources, signals = ("baseline",) * len(names), (1,) * len(names)
    return GradeResult.ranked("tiny-team", names, sources, signals, values)


def test_grade_json_matrices_in_leaderboard_order():
    """grade.json's matrices: the scores and values in leaderboard order, None on the scores'
    diagonal and wherever a value is not finite (built in one pass: a class of 1,000 has a
    million entries, and recomputing the score matrix per entry never finished)."""
    values = np.array([[0.0, 1.0, -2.0], [0.5, 0.0, np.nan], [3.0, 0.25, 0.0]])
    names = ("x", "y", "z")
    result = baseline_result(names, values)
    d = json.loads(json.dumps(result.to_dict()))
    order = result.order()
    assert d["names"] == [names[i] for i in order]
    for a, i in enumerate(order):
        for b, j in enumerate(order):
            v = values[i, j]
            assert d["values_team_a"][a][b] == (v if np.isfinite(v) else None)
            s = 0.5 * (values[i, j] - values[j, i])
            want = None if i == j or not np.isfinite(s) else s
            assert d["scores"][a][b] == want


def test_the_files_of_a_large_grading_are_the_generic_writers_bytes(tmp_path):
    """matrix.csv and values.csv are written a row at a time (a class of 1,000 has a million
    values), with the bytes the csv module gives, names needing quotes included; grade.json
    puts a matrix row per line and reads back as ``to_dict``."""
    from teamleduc import leaderboard

    rng = np.random.default_rng(5)
    names = ("plain", 'say "hi"', "a,b", "two\nlines", "ünï", "x" * 40)
    n = len(names)
    values = rng.standard_normal((n, n)) * 10.0 ** rng.integers(-20, 20, (n, n))
    values[1, 4] = np.inf
    values[2, 0] = -0.0
    result = baseline_result(names, values)
    leaderboard.write_outputs(result, tmp_path / "out", heatmap=False)
    order = result.order()
    S = result.scores
    want_matrix = leaderboard._csv_text(
        [["entrant"] + [names[i] for i in order]]
        + [[names[i]] + [S[i, j] if i != j else float("nan") for j in order] for i in order]
    )
    want_values = leaderboard._csv_text(
        [("team_a", "team_b", "value_team_a")]
        + [(names[i], names[j], values[i, j]) for i in order for j in order if i != j]
    )
    assert (tmp_path / "out" / "matrix.csv").read_text() == want_matrix
    assert (tmp_path / "out" / "values.csv").read_text() == want_values
    text = (tmp_path / "out" / "grade.json").read_text()
    assert json.loads(text) == json.loads(json.dumps(result.to_dict()))
    lines = [line.rstrip(",") for line in text.split("\n")]
    for row in result.to_dict()["values_team_a"] + result.to_dict()["scores"]:
        assert "    " + json.dumps(row) in lines  # a row per line, not a number per line


def test_baselines_all_adds_rlcards_agents_on_rlcard_leduc_only():
    """``--baselines all`` is :func:`teamleduc.baselines.baselines_for`: RLCard's rule agents
    join the five baselines on rlcard-leduc, and nowhere else."""
    five = ["uniform", "always-call", "aggressive", "cautious", "random-pure:0"]
    r = grade(["cfr:1"], "rlcard-leduc", baselines="all", jobs=1, worst_case=False)
    assert sorted(r.names) == sorted(["cfr:1", *five, "rlcard-v1", "rlcard-v2"])
    assert {s.name for s in r.standings} >= {"rlcard-v1", "rlcard-v2"}
    r = grade(["cfr:1"], "leduc", baselines="all", jobs=1, worst_case=False)
    assert sorted(r.names) == sorted(["cfr:1", *five])


def test_grade_cli_baselines_all_on_rlcard_leduc(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(
            ["grade", "uniform", "--preset", "rlcard-leduc", "--baselines", "all"]
            + ["--out", str(tmp_path / "g"), "--jobs", "1", "--no-heatmap"]
        )
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "rlcard-v1" in out and "rlcard-v2" in out
