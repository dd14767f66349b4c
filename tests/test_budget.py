"""Each edition's signal budget (issue 22): 2025 team zips with up to K signals per team, the
merged CSV submission within K, and the exports' exact gaps against independent values.

tiny-team-leduc's TMECor value 0.1319361388 comes from column generation to an exact gap of
1e-10 (also asserted by ``tests/test_solver.py``); the LP equilibrium found there has supports
19 and 22 (``python -m benchmarks support``), which fit a budget of 24 signals per team but
not 24 merged signals (K_A + K_B - 1 = 40).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from teamleduc.best_response import exploitability
from teamleduc.cli import cli
from teamleduc.config import get_config
from teamleduc.files.reading import load_submission, read_path
from teamleduc.solver import native_format, solve
from teamleduc.solver.budget import check_format
from teamleduc.solver.dag_cfr import RegretMinimizer, dcfr
from teamleduc.solver.export import fits, guaranteed_value, team_submission
from teamleduc.solver.refine import halves_export, refine_export, team_sizes
from teamleduc.solver.stratify import stratified_counts, stratified_mixture

TINY_VALUE = 0.1319361388


def _measured(config, path):
    r = exploitability(config, load_submission(path, config))
    return float(r.worst_case_a), float(r.br_a.value)


def test_budgets_of_the_editions():
    assert native_format(get_config("team-leduc-2025")) == "teams2025"
    assert native_format(get_config("team-leduc")) == "csv"
    assert check_format(None, get_config("tiny-team-leduc")) == "csv"
    with pytest.raises(ValueError, match="unknown export format"):
        check_format("zip", get_config("tiny-team-leduc"))
    assert team_sizes(100) == (50, 51) and team_sizes(100, per_team=True) == (100, 100)
    a, b = np.full(60, 1 / 60), np.full(50, 1 / 50)
    # merged: cut points at the union of both cumulative distributions, 60 + 50 - 10 - 1
    assert not fits(a, b, 100) and fits(a, b, 100, per_team=True)
    assert fits(a, b, 99) is False and fits(np.full(100, 0.01), np.full(100, 0.01), 100)
    assert not fits(np.full(101, 1 / 101), b, 100, per_team=True)


def test_stratified_signals_with_given_weights_keep_the_flow():
    """Stratified on unequal weights (the shared-weights CSV variant), the signals together
    still have exactly the average's flow, and the mixture carries those weights."""
    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(30)
    sigma = rm.average_sigma(0)
    w = np.array([0.5, 0.3, 0.15, 0.05])
    _, reach_w = stratified_counts(rm.game, 0, sigma, 4, weights=w)
    _, reach_eq = stratified_counts(rm.game, 0, sigma, 4)
    np.testing.assert_allclose(reach_w, reach_eq, atol=1e-12)
    mix = stratified_mixture(rm.game, 0, sigma, 4, weights=w)
    np.testing.assert_array_equal(mix.weights, w)
    with pytest.raises(ValueError, match="weights"):
        stratified_counts(rm.game, 0, sigma, 4, weights=np.array([0.5, 0.5, 0.1, -0.1]))


def test_per_team_refinement_keeps_each_teams_cap_and_exact_bounds():
    """Refined with its own budget, each team keeps at most K signals with free weights (the
    merge may exceed K: nothing is merged in team zips), the bounds are exact, and the result
    is never worse than its start."""
    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(40)
    game = rm.game

    def restart(team, k):
        return stratified_mixture(game, team, rm.average_sigma(team), k)

    ex = halves_export(game, restart, 6, per_team=True)
    assert [m.size for m in ex.mixtures] == [6, 6]
    res = refine_export(
        game, ex, max_signals=6, time_limit=60.0, keep_sizes=True, per_team=True, blocks=2
    )
    assert res.gap <= ex.gap
    assert all(m.size <= 6 for m in res.mixtures)
    assert res.lower == pytest.approx(guaranteed_value(game, res.mixtures[0]), abs=1e-12)
    assert res.upper == pytest.approx(guaranteed_value(game, res.mixtures[1]), abs=1e-12)
    # each team's own submission plays its mixture: same bound, measured independently
    part = team_submission(game.tree, res.mixtures[0])
    assert part.num_signals == res.mixtures[0].size
    np.testing.assert_allclose(part.probs, res.mixtures[0].weights / res.mixtures[0].weights.sum())


def test_team_zips_hold_an_exact_equilibrium_within_each_teams_budget(tmp_path):
    """tiny-team-leduc with 24 signals per team: the 2025 team zips reach the exact value
    (gap <= 1e-6, measured on the written files), each team within 24 signals; they are
    valid, and the merged CSV files are written only when they fit 24 signals."""
    config = get_config("tiny-team-leduc")
    out = tmp_path / "run"
    r = solve(
        config,
        "dcfr",
        time_limit=60.0,
        target_gap=1e-6,
        max_signals=24,
        out_dir=out,
        export_format="teams2025",
        handle_sigint=False,
    )
    assert r.success and r.gap <= 1e-6
    assert r.lower <= TINY_VALUE + 1e-6 and r.upper >= TINY_VALUE - 1e-6
    assert max(r.team_signals) <= 24
    zips = sorted(p.name for p in (out / "submission").iterdir())
    assert zips == ["team13.zip", "team24.zip"]
    check = read_path(out / "submission", config, keep=False)
    assert not check.errors and check.format == "teams2025"
    lower, upper = _measured(config, out / "submission")
    assert upper - lower <= 1e-6
    assert lower == pytest.approx(r.lower, abs=1e-9) and upper == pytest.approx(r.upper, abs=1e-9)
    for name, k in zip(zips, r.team_signals):
        team = read_path(out / "submission" / name, config)
        assert team.submission.num_signals == k <= 24
    report = json.loads((out / "solve-report.json").read_text())
    assert report["export_format"] == "teams2025"
    assert (out / "submission-csv").is_dir() == (r.signals <= 24)
    assert report["files"] == ["submission"] + (["submission-csv"] if r.signals <= 24 else [])


def test_solve_writes_what_validate_and_grade_read(tmp_path):
    """``solve --format teams2025`` on a small preset: the folder of team zips is accepted by
    ``validate`` and graded directly by ``grade``, with the same result as the lossless CSV
    copy when there is one; ``--format csv`` writes CSV files within the merged cap."""
    runner = CliRunner()
    out = tmp_path / "zips"
    args = ["solve", "--preset", "tiny-team-leduc", "--time-limit", "4", "--quiet"]
    res = runner.invoke(
        cli, args + ["--max-iterations", "50", "--format", "teams2025", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "exported team zips" in res.output
    res = runner.invoke(cli, ["validate", str(out / "submission"), "--preset", "tiny-team-leduc"])
    assert res.exit_code == 0 and "VALID" in res.output, res.output
    graded = tmp_path / "grading"
    res = runner.invoke(
        cli,
        [
            "grade",
            str(out / "submission"),
            "--preset",
            "tiny-team-leduc",
            "--baselines",
            "uniform",
            "--out",
            str(graded),
            "--no-heatmap",
            "--jobs",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    board = (graded / "leaderboard.csv").read_text()
    assert "submission" in board and "uniform" in board
    csv_out = tmp_path / "csv"
    res = runner.invoke(
        cli,
        args
        + [
            "--max-iterations",
            "50",
            "--format",
            "csv",
            "--max-signals",
            "7",
            "--out",
            str(csv_out),
        ],
    )
    assert res.exit_code == 0, res.output
    sub = load_submission(csv_out / "submission", "tiny-team-leduc")
    assert sub.num_signals <= 7 and not (csv_out / "submission-csv").exists()


def test_a_resumed_run_reads_back_its_team_zips(tmp_path):
    """Resuming a run that wrote team zips starts from that export (read back from the zips)
    and never ends worse; the folder then holds the team zips again, and no stale CSV copy."""
    config = get_config("tiny-team-leduc")
    first = tmp_path / "first"
    r1 = solve(
        config,
        "dcfr",
        max_iterations=20,
        time_limit=4,
        max_signals=3,
        out_dir=first,
        export_format="teams2025",
        handle_sigint=False,
    )
    second = tmp_path / "second"
    (second / "submission-csv").mkdir(parents=True)  # stale, from an earlier run
    r2 = solve(
        config,
        None,
        max_iterations=25,
        time_limit=4,
        max_signals=3,
        out_dir=second,
        resume=first,
        export_format="teams2025",
        handle_sigint=False,
        overwrite=True,  # ``second`` holds a stale run's folder
    )
    assert r2.gap <= r1.gap + 1e-12
    assert sorted(p.name for p in (second / "submission").iterdir()) == [
        "team13.zip",
        "team24.zip",
    ]
    assert (second / "submission-csv").exists() == (r2.signals <= 3)
    lower, upper = _measured(config, second / "submission")
    assert lower == pytest.approx(r2.lower, abs=1e-9) and upper == pytest.approx(r2.upper, abs=1e-9)


def test_signals_per_team_follow_the_refinement_time():
    """Team zips that are refined get as many signals per team as one block of refinement
    per team can move in the time, between half the cap and the cap."""
    from teamleduc.dag import dag_game
    from teamleduc.solver.refine import iteration_seconds, refined_team_signals
    from teamleduc.solver.team_refinement import BLOCK_ITERS

    game = dag_game(get_config("small-team-leduc"))
    seconds = (0.0, 1.0, 2.0, 4.0, 8.0, 1e3)
    ks = [refined_team_signals(game, 100, s) for s in seconds]
    assert ks[0] == 50 and ks[-1] == 100 and ks == sorted(ks)
    for s, k in zip(seconds, ks):
        if 50 < k < 100:  # the largest K whose block fits each team's half
            assert iteration_seconds(game, k) * BLOCK_ITERS <= s / 2
            assert iteration_seconds(game, k + 1) * BLOCK_ITERS > s / 2
    assert refined_team_signals(game, 7, 0.0) == 3


def test_signals_per_team_follow_the_machine_speed():
    """The same refinement time buys more signals per team where DCFR runs faster than on
    the machine the cost constants describe, fewer where it runs slower: a block of the
    chosen K fits each team's half at the measured speed."""
    from teamleduc.dag import dag_game
    from teamleduc.solver.refine import (
        _DCFR_SECONDS_PER_ROW,
        iteration_seconds,
        refined_team_signals,
    )
    from teamleduc.solver.team_refinement import BLOCK_ITERS

    game = dag_game(get_config("small-team-leduc"))
    rows = max(d.num_rows for d in game.dags)
    reference = _DCFR_SECONDS_PER_ROW * rows
    assert refined_team_signals(game, 100, 4.0, reference) == refined_team_signals(game, 100, 4.0)
    speeds = (4.0, 2.0, 1.0, 0.5, 0.25)  # DCFR's seconds per iteration against the reference
    ks = [refined_team_signals(game, 100, 4.0, f * reference) for f in speeds]
    assert ks == sorted(ks) and ks[0] == 50 and ks[-1] == 100 and len(set(ks)) >= 3
    for f, k in zip(speeds, ks):
        if 50 < k < 100:
            assert f * iteration_seconds(game, k) * BLOCK_ITERS <= 4.0 / 2 + 1e-12
            assert f * iteration_seconds(game, k + 1) * BLOCK_ITERS > 4.0 / 2
