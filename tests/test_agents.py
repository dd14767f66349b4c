"""The learning agents and ``teamleduc study agents``: exact curves, ceilings, equilibria."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from click.testing import CliRunner

from teamleduc.agents import QLearning, fixed_others
from teamleduc.agents.cfr import CFRAgent
from teamleduc.agents.expectiminimax import Expectiminimax, expectiminimax_values, heuristic
from teamleduc.agents.study import Study
from teamleduc.best_response import nash_conv
from teamleduc.cli import cli
from teamleduc.config import get_config
from teamleduc.envs.play import seat_value
from teamleduc.evaluate import evaluate
from teamleduc.files.reading import load_submission
from teamleduc.tree import CHANCE, DECISION, TERMINAL, build_tree

BOTS = ("uniform", "aggressive", "cautious")


@pytest.fixture(scope="module")
def leduc_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    args = ["study", "agents", "--preset", "leduc", "--episodes", "20000", "--cfr-iterations"]
    args += ["200", "--max-depth", "2", "--out", str(out), "--no-progress"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return out, result.output


def _points(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_last_point_of_each_curve_is_evaluate_of_the_exported_policy(leduc_study):
    out, _ = leduc_study
    config = get_config("leduc")
    for bot in BOTS:
        rows = _points(out / f"{bot}.csv")
        for agent, folder in (("qlearning", f"qlearning-{bot}"), ("cfr", "cfr")):
            last = [r for r in rows if r["agent"] == agent][-1]
            sub = load_submission(out / "policies" / folder, config)
            # seat 1 is team A, seat 2 team B: the mean of both seats' exact values
            both = 0.5 * (evaluate(sub, bot, config).value - evaluate(bot, sub, config).value)
            assert float(last["value"]) == pytest.approx(both, abs=1e-9)
            assert len([r for r in rows if r["agent"] == agent]) == 21


def test_no_point_passes_the_best_response_ceiling(leduc_study):
    out, _ = leduc_study
    for bot in BOTS:
        for r in _points(out / f"{bot}.csv"):
            assert float(r["value"]) <= float(r["ceiling"]) + 1e-12
    with open(out / "expectiminimax-depths.csv") as fh:
        for r in csv.DictReader(fh):
            assert float(r["value"]) <= fixed_others(get_config("leduc"), r["bot"]).ceiling + 1e-12


def test_cfr_cannot_lose_more_than_half_its_nash_conv(leduc_study):
    out, _ = leduc_study
    config = get_config("leduc")
    sub = load_submission(out / "policies" / "cfr", config)
    nc = nash_conv(config, sub).nash_conv
    assert nc < 0.2  # 200 iterations of plain CFR
    for bot in BOTS:
        last = [r for r in _points(out / f"{bot}.csv") if r["agent"] == "cfr"][-1]
        assert float(last["value"]) >= -nc / 2 - 1e-12


def test_summary_lists_every_agent_and_bot(leduc_study):
    out, output = leduc_study
    text = (out / "summary.md").read_text()
    for bot in BOTS:
        for agent in ("qlearning", "cfr", "expectiminimax"):
            assert f"| {bot} | {agent} |" in text
    assert "expectiminimax by depth" in output
    assert (out / "uniform.png").stat().st_size > 1000


def test_ceilings_are_best_responses_to_the_bot():
    # leduc seat 1 against always-call: the exact team best response of the toolkit
    from teamleduc.best_response import best_response

    f = fixed_others(get_config("leduc"), "always-call")
    assert f.ceilings[0] == pytest.approx(best_response("leduc", 0, "always-call").value, abs=1e-12)
    assert f.ceilings[1] == pytest.approx(best_response("leduc", 1, "always-call").value, abs=1e-12)
    assert f.value(0, f.best[0]) == pytest.approx(f.ceilings[0], abs=1e-12)


@pytest.mark.parametrize("bot", ["aggressive", "always-call"])
def test_q_learning_finds_the_best_response_on_kuhn(bot):
    # against a pure bot, greedy Q-learning with enough exploration reaches the exact ceiling
    q = QLearning(get_config("kuhn"), bot, alpha=0.05, gamma=1.0, epsilon=0.5, seed=1)
    q.train(200_000)
    assert q.fixed.mean_value(q.policy()) == pytest.approx(q.fixed.ceiling, abs=1e-12)
    assert q.episodes == 200_000


def test_q_learning_update_by_hand_on_kuhn():
    # kuhn: seat 1 acts first; with alpha = 1 and gamma = 0 after one hand the first action's Q
    # is 0 (the bootstrap of a next decision, gamma 0) or the hand's reward in chips
    q = QLearning(
        get_config("kuhn"), "always-call", alpha=1.0, gamma=0.0, epsilon=0.0, seats=[0], seed=3
    )
    q.train(1)
    touched = np.flatnonzero(q.Q[0].any(axis=1))
    assert len(touched) <= 1
    if len(touched):  # greedy from zeros checks (c); against always-call: a showdown for 1 chip
        assert abs(q.Q[0][touched[0], 0]) == 1.0


def test_heuristic_by_hand():
    tree = build_tree(get_config("leduc"))
    h = heuristic(tree, 0)
    # seat 1 at the root, ante 1 each, unseen: the 5 other cards. J ties 1 J and loses to 4:
    # -4/5; Q beats 2 J, loses to 2 K: 0; K beats 4, ties 1: +4/5
    assert h[0].tolist() == pytest.approx([-0.8, 0.0, 0.8])


def _reference(tree, seat, node, depth, x):
    """Brute-force expectiminimax by recursion (the module's definition)."""
    h = heuristic(tree, seat)
    kind = tree.kind[node]
    if kind == TERMINAL:
        return h[node, x]
    if kind == CHANCE:
        c = tree.config
        counts = np.array([c.suits - (y == x) for y in range(c.num_ranks)], float)
        return sum(
            counts[y] / counts.sum() * _reference(tree, seat, tree.children[node, 3 + y], depth, x)
            for y in range(c.num_ranks)
        )
    if depth == 0:
        return h[node, x]
    vals = [
        _reference(tree, seat, k, depth - 1, x) for k in tree.children[node, :3].tolist() if k >= 0
    ]
    return max(vals) if tree.actor[node] == seat else min(vals)


@pytest.mark.parametrize("preset", ["kuhn", "leduc"])
def test_expectiminimax_matches_recursion(preset):
    tree = build_tree(get_config(preset))
    nodes = np.flatnonzero(tree.kind == DECISION)[:40]
    for depth in (0, 1, 3):
        V = expectiminimax_values(tree, 1, depth)
        for n in nodes.tolist():
            for x in range(tree.config.num_ranks):
                assert V[n, x] == pytest.approx(_reference(tree, 1, n, depth, x), abs=1e-12)


def test_cfr_agent_converges_and_exports():
    a = CFRAgent(get_config("kuhn"))
    a.train(2000)
    nc = nash_conv("kuhn", a.submission()).nash_conv
    assert nc < 0.01
    # the value of a near-equilibrium is the game's value -1/18 for seat 1
    assert evaluate(a.submission(), a.submission(), "kuhn").value == pytest.approx(
        -1 / 18, abs=0.01
    )


def test_team_preset_one_learning_seat(tmp_path):
    study = Study(
        get_config("tiny-team-leduc"),
        agents=("qlearning", "expectiminimax"),
        bots=("cautious",),
        episodes=2000,
        seats=[0],
        max_depth=1,
    ).run(progress=False)
    study.write(tmp_path)
    curve = next(c for c in study.curves if c.agent == "qlearning")
    sub = load_submission(tmp_path / "policies" / "qlearning-cautious", "tiny-team-leduc")
    exact = seat_value("tiny-team-leduc", [sub, "cautious"], 0)
    assert curve.values[-1] == pytest.approx(exact, abs=1e-9)
    ceiling = fixed_others(get_config("tiny-team-leduc"), "cautious", [0]).ceiling
    assert max(curve.values) <= ceiling + 1e-12
    eval_mm = Expectiminimax(get_config("tiny-team-leduc"), 1, seats=[0])
    assert study.depth_values[("cautious", 1)] == pytest.approx(
        fixed_others(get_config("tiny-team-leduc"), "cautious", [0]).value(0, eval_mm.policy()[0]),
        abs=1e-12,
    )


def test_cfr_on_a_team_preset_is_refused():
    result = CliRunner().invoke(
        cli, ["study", "agents", "--preset", "tiny-team", "--agents", "cfr", "--no-progress"]
    )
    assert result.exit_code != 0
    assert "two-player games" in str(result.exception) + result.output


def test_ctrl_c_keeps_the_curves(tmp_path, monkeypatch):
    calls = {"n": 0}
    train = QLearning.train

    def interrupted(self, n):
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt
        train(self, n)

    monkeypatch.setattr(QLearning, "train", interrupted)
    args = ["study", "agents", "--preset", "kuhn", "--agents", "qlearning", "--bots", "uniform"]
    result = CliRunner().invoke(
        cli, [*args, "--episodes", "2000", "--out", str(tmp_path), "--no-progress"]
    )
    assert result.exit_code == 130
    rows = _points(tmp_path / "uniform.csv")
    assert [int(r["step"]) for r in rows] == [0, 100, 200]


def test_out_is_written_as_one_unit_under_the_overwrite_rule(tmp_path):
    """`study agents --out` follows the rule of every writing command: an existing non-empty
    folder is refused before the study runs (and left as it was) unless --overwrite, which
    replaces it whole: no file of the previous run is left beside the new ones."""
    out = tmp_path / "study"
    out.mkdir()
    (out / "old.txt").write_text("previous run\n")
    args = ["study", "agents", "--preset", "kuhn", "--agents", "qlearning", "--bots", "uniform"]
    args += ["--episodes", "2000", "--out", str(out), "--no-progress"]
    refused = CliRunner().invoke(cli, args)  # main() prints it as one error line, exit 2
    assert "pass --overwrite" in str(refused.exception) and refused.output == ""  # nothing ran
    assert [p.name for p in out.iterdir()] == ["old.txt"]
    done = CliRunner().invoke(cli, [*args, "--overwrite"])
    assert done.exit_code == 0, done.output
    names = sorted(p.name for p in out.iterdir())
    assert "old.txt" not in names and "uniform.csv" in names and "summary.md" in names
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
