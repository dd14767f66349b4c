"""Baselines ``cfr:N``: the toolkit's DCFR after N iterations, deterministic, on two-player
presets; usable by evaluate and grade (the pokercamp page's whole tournament in one command)."""

import json

import numpy as np
import pytest

from teamleduc.baselines import (
    baseline,
    canonical_name,
    is_baseline,
    parse_baseline,
)
from teamleduc.best_response import nash_conv
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.grade import grade
from teamleduc.solver.cfr_baseline import solver_average
from teamleduc.solver.sequence_form import solve_sequence_form

from .cli_run import run


def test_names():
    assert parse_baseline("cfr:100") == ("cfr", 100)
    assert canonical_name("CFR:007") == "cfr:7"
    assert is_baseline("cfr:1") and not is_baseline("cfr") and not is_baseline("cfr:x")
    with pytest.raises(TeamLeducError, match="1 <= N"):
        parse_baseline("cfr:0")


def test_more_iterations_converge_to_the_exact_value():
    gaps = [nash_conv("kuhn-100", f"cfr:{n}").nash_conv for n in (1, 10, 100, 1000)]
    assert gaps == sorted(gaps, reverse=True) and gaps[-1] < 1e-4
    exact = solve_sequence_form(get_config("leduc-stack50")).value
    nc = nash_conv("leduc-stack50", "cfr:300")
    assert nc.nash_conv < 0.01 and abs(nc.values[0] - exact) <= nc.nash_conv


def test_deterministic():
    a = baseline("cfr:50", get_config("leduc-stack50")).strategies[1].copy()
    solver_average.cache_clear()
    b = baseline("cfr:50", get_config("leduc-stack50")).strategies[1]
    assert np.array_equal(a, b)
    rows = b[0]
    assert np.allclose(rows.sum(axis=1), 1.0)


def test_team_presets_are_refused(capsys):
    with pytest.raises(TeamLeducError, match="two-player presets"):
        baseline("cfr:10", get_config("team-leduc-2025"))
    code, _, err = run(capsys, ["evaluate", "cfr:10", "uniform", "--preset", "tiny-team"])
    assert code == 2 and "two-player presets" in err


def test_evaluate_and_grade_commands(capsys, tmp_path):
    code, out, _ = run(capsys, ["evaluate", "cfr:1000", "uniform", "--preset", "kuhn", "--json"])
    assert code == 0 and json.loads(out)["value"] > 0.1  # near-equilibrium beats uniform
    names = "cfr:1,cfr:10,cfr:100,cfr:1000,cfr:10000"
    code, out, _ = run(
        capsys,
        [
            "grade",
            "--baselines",
            f"all,{names}",
            "--preset",
            "kuhn-100",
            "--json",
            "--out",
            str(tmp_path),
        ],
    )
    assert code == 0
    board = {r["name"]: r for r in json.loads(out)["leaderboard"]}
    assert set(names.split(",")) <= set(board)
    # exact grading: a match of an entrant against itself is worth 0 in both seatings
    result = grade([], baselines=["cfr:10", "cfr:10000"], config="kuhn-100")
    assert len(result.standings) == 2
    assert result.standings[0].name == "cfr:10000"
