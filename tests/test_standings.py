"""The ranked leaderboard of a round robin (teamleduc.standings) on values chosen by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from teamleduc import __version__
from teamleduc.standings import (
    LEADERBOARD_COLUMNS,
    GradeResult,
    InvalidEntry,
    Standing,
    format_value,
    rank_standings,
)

NAN = float("nan")

#: V[X, Y], team A's value with X as team A and Y as team B (the diagonal is never used)
#: match scores S = (V - V.T) / 2:  S[a, b] = 1, S[a, c] = 1, S[b, c] = 0.5
VALUES = np.array(
    [
        [9.0, 1.0, 3.0],
        [-1.0, 9.0, 0.5],
        [1.0, -0.5, 9.0],
    ]
)


def three() -> tuple[Standing, ...]:
    return rank_standings(("a", "b", "c"), ("subs/a.zip", "subs/b", "baseline"), (1, 2, 1), VALUES)


def antisymmetric(scores: dict[tuple[str, str], float], names: list[str]) -> np.ndarray:
    """Values V = S (antisymmetric) from the match scores of the pairs given, 0 elsewhere."""
    index = {n: i for i, n in enumerate(names)}
    v = np.zeros((len(names), len(names)))
    for (x, y), s in scores.items():
        v[index[x], index[y]] = s
        v[index[y], index[x]] = -s
    return v


def test_rank_standings_columns_by_hand():
    a, b, c = three()
    assert [s.name for s in (a, b, c)] == ["a", "b", "c"]
    assert [s.rank for s in (a, b, c)] == [1, 2, 3]
    assert a.row()[:9] == [1, "a", "subs/a.zip", 1.0, 2.0, 0.0, 1.0, "b", 1]
    assert math.copysign(1.0, a.mean_as_team_b) == 1.0  # -(-1 + 1) / 2 written as +0.0
    assert b.row()[:9] == [2, "b", "subs/b", -0.25, -0.25, -0.25, -1.0, "a", 2]
    assert c.row()[:9] == [3, "c", "baseline", -0.75, 0.25, -1.75, -1.0, "a", 1]
    # the score is the mean of the two seatings' means
    for s in (a, b, c):
        assert s.mean_score == pytest.approx((s.mean_as_team_a + s.mean_as_team_b) / 2)
        assert math.isnan(s.worst_case_as_team_a) and math.isnan(s.worst_case_as_team_b)
    assert len(a.row()) == len(LEADERBOARD_COLUMNS)


def test_guarantees_are_carried():
    standings = rank_standings(
        ("a", "b", "c"), ("x",) * 3, (1, 1, 1), VALUES, [(-0.5, -1.0), (0.25, 0.0), (-2.0, 3.0)]
    )
    assert [(s.worst_case_as_team_a, s.worst_case_as_team_b) for s in standings] == [
        (-0.5, -1.0),
        (0.25, 0.0),
        (-2.0, 3.0),
    ]


def test_worst_opponent_is_the_first_lowest():
    a, *_ = three()  # a scores 1 against both b and c
    assert a.worst_opponent == "b"


def test_ties_share_a_rank_in_name_order():
    names = ["w", "z", "y", "x"]
    v = antisymmetric(
        {("x", "y"): 1, ("x", "z"): 1, ("x", "w"): 1, ("y", "w"): 1, ("z", "w"): 1}, names
    )
    standings = rank_standings(names, ("p",) * 4, (1,) * 4, v)
    assert [(s.rank, s.name, s.mean_score) for s in standings] == [
        (1, "x", 1.0),
        (2, "y", 0.0),
        (2, "z", 0.0),
        (4, "w", -1.0),
    ]


def test_scores_equal_to_a_trillionth_tie():
    names = ["b", "a"]
    v = np.array([[0.0, 0.1 + 0.2], [0.3, 0.0]])  # scores +-(0.30000000000000004 - 0.3) / 2
    standings = rank_standings(names, ("p", "p"), (1, 1), v)
    # listed by the exact score, ranked as equal
    assert [(s.rank, s.name) for s in standings] == [(1, "b"), (1, "a")]
    v = np.array([[0.0, 0.3 + 1e-9], [0.3, 0.0]])
    assert [(s.rank, s.name) for s in rank_standings(names, ("p", "p"), (1, 1), v)] == [
        (1, "b"),
        (2, "a"),
    ]


def test_nan_scores_rank_as_zero_and_never_tie():
    names = ["b", "d", "c", "a"]
    v = antisymmetric(
        {("a", "b"): 1, ("a", "c"): 1, ("a", "d"): 1, ("b", "c"): -1, ("b", "d"): -1}, names
    )
    index = {n: i for i, n in enumerate(names)}
    v[index["c"], index["d"]] = NAN  # the match of c and d is unknown: both means are NaN
    standings = rank_standings(names, ("p",) * 4, (1,) * 4, v)
    assert [(s.rank, s.name) for s in standings] == [(1, "a"), (2, "c"), (3, "d"), (4, "b")]
    assert math.isnan(standings[1].mean_score) and math.isnan(standings[2].mean_score)
    # all unknown: input order does not matter, names do; no two NaNs share a rank
    all_nan = rank_standings(names, ("p",) * 4, (1,) * 4, np.full((4, 4), NAN))
    assert [(s.rank, s.name) for s in all_nan] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_one_entrant_and_none():
    (only,) = rank_standings(("solo",), ("baseline",), (3,), np.zeros((1, 1)))
    assert (only.rank, only.name, only.worst_opponent, only.signals) == (1, "solo", "", 3)
    assert all(math.isnan(x) for x in (only.mean_score, only.mean_as_team_a, only.worst_match))
    assert rank_standings((), (), (), np.zeros((0, 0))) == ()


def test_format_value():
    assert format_value(1.5, 9) == "  +1.5000"
    assert format_value(-0.25, 0) == "-0.2500"
    assert format_value(0.0, 0) == "+0.0000"
    assert format_value(-1e-6, 0) == "-0.0000"
    assert format_value(12345.678901, 3) == "+12345.6789"  # never cut
    assert format_value(NAN, 5) == "    -"
    assert format_value(float("inf"), 1) == "-"
    assert format_value(-float("inf"), 0) == "-"


def result(values=VALUES, invalid=()) -> GradeResult:
    names, sources, signals = ("a", "b", "c"), ("subs/a.zip", "subs/b", "baseline"), (1, 2, 1)
    return GradeResult.ranked("kuhn", names, sources, signals, values, invalid=invalid)


def test_scores_and_order():
    """Entrants c, a, b in input order: the leaderboard order is a, b, c."""
    perm = [2, 0, 1]
    names, sources, signals = ("c", "a", "b"), ("baseline", "subs/a.zip", "subs/b"), (1, 1, 2)
    values = VALUES[np.ix_(perm, perm)]
    r = GradeResult.ranked("kuhn", names, sources, signals, values)
    assert r.order() == [1, 2, 0]
    s = r.scores
    assert s.tolist() == [[0.0, -1.0, -0.5], [1.0, 0.0, 1.0], [0.5, -1.0, 0.0]]
    assert all(math.copysign(1.0, x) == 1.0 for x in np.diag(s))  # +0.0, never -0.0


def test_to_dict_by_hand_and_through_json():
    r = result(invalid=[InvalidEntry("bad", "subs/bad.zip", "line 3: not a number")])
    d = r.to_dict()
    assert list(d) == [
        "preset",
        "version",
        "leaderboard",
        "names",
        "scores",
        "values_team_a",
        "invalid",
    ]
    assert d["preset"] == "kuhn" and d["version"] == __version__
    assert d["names"] == ["a", "b", "c"]
    assert d["leaderboard"][1] == {
        "rank": 2,
        "name": "b",
        "path": "subs/b",
        "mean_score": -0.25,
        "mean_as_team_a": -0.25,
        "mean_as_team_b": -0.25,
        "worst_match": -1.0,
        "worst_opponent": "a",
        "signals": 2,
        "worst_case_as_team_a": None,
        "worst_case_as_team_b": None,
        "source": "subs/b",
    }
    assert d["scores"] == [[None, 1.0, 1.0], [-1.0, None, 0.5], [-1.0, -0.5, None]]
    assert d["values_team_a"] == VALUES.tolist()
    assert d["invalid"] == [
        {"name": "bad", "source": "subs/bad.zip", "message": "line 3: not a number"}
    ]
    again = json.loads(json.dumps(d, allow_nan=False))  # valid JSON: no NaN
    assert again == d
    # the values of the dictionary give the same leaderboard back
    rows = again["leaderboard"]
    rebuilt = rank_standings(
        again["names"],
        [row["path"] for row in rows],
        [row["signals"] for row in rows],
        np.array(again["values_team_a"]),
    )
    assert [s.row()[:9] for s in rebuilt] == [
        [row[k] for k in LEADERBOARD_COLUMNS[:9]] for row in rows
    ]


def test_to_dict_writes_non_finite_values_as_null():
    values = VALUES.copy()
    values[0, 1] = NAN
    d = result(values).to_dict()
    assert d["values_team_a"][0] == [9.0, None, 3.0]
    assert d["scores"][0][1] is None and d["scores"][1][0] is None
    assert d["leaderboard"][0]["mean_score"] is None or d["leaderboard"][-1]["mean_score"] is None
    json.dumps(d, allow_nan=False)


def test_str_is_the_terminal_table():
    text = str(result(invalid=[InvalidEntry("bad", "subs/bad.zip", "no meta-strategy.csv")]))
    assert text.splitlines() == [
        "kuhn: 3 entrants graded in both seatings, 1 invalid submission left out",
        "rank  name      score       as A       as B      worst  signals    worst A    worst B",
        "   1  a       +1.0000    +2.0000    +0.0000    +1.0000        1          -          -",
        "   2  b       -0.2500    -0.2500    -0.2500    -1.0000        2          -          -",
        "   3  c       -0.7500    +0.2500    -1.7500    -1.0000        1          -          -",
        "invalid: bad (subs/bad.zip): no meta-strategy.csv",
    ]
