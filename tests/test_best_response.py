"""Exact team best responses, exploitability and NashConv.

Anchors: OpenSpiel's NashConv of the uniform policy (kuhn, leduc, leduc-3p) and the Kuhn
equilibrium family (NashConv 0, value -1/18). Exactness: on small presets the best-response value
equals an independent brute force over every joint pure strategy of the responding team
(:func:`tests.test_belief.brute_force_team_max`, with the opponent folded in by the einsum
reference :func:`tests.test_reach.reference_weights`), the exported response evaluated by
``evaluate`` gives the printed value, and no baseline does better against the same opponent.
"""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from teamleduc.baselines import BASELINES, baseline
from teamleduc.best_response import (
    BestResponse,
    best_response,
    exploitability,
    nash_conv,
    worst_cases,
)
from teamleduc.cli import cli
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.evaluate import evaluate
from teamleduc.files.model import Submission
from teamleduc.files.reading import load_submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree
from tests.test_belief import brute_force_team_max, team_value
from tests.test_reach import reference_team_reach, reference_weights

# OpenSpiel's exploitability.nash_conv(game, UniformRandomPolicy) (issue 5): 6 decimals
OPENSPIEL_NASHCONV_UNIFORM = {"kuhn": 0.916667, "leduc": 4.747222, "leduc-3p": 12.611221}


def random_submission(config, seats, signals, seed, pure=False):
    """A random mixed (or pure) strategy per signal and seat, random signal probabilities."""
    rng = np.random.default_rng(seed)
    tabs = infoset_tables(build_tree(config))
    strategies = {}
    for s in seats:
        legal = tabs[s].legal
        u = rng.random((signals,) + legal.shape) * legal
        if pure:
            u = np.eye(3)[np.argmax(u, axis=2)]
        strategies[s] = u / u.sum(axis=2, keepdims=True)
    probs = rng.random(signals) + 0.1
    return Submission(np.arange(signals), probs / probs.sum(), tuple(seats), strategies)


def core_weights(config, seats, sub):
    """W of the responding ``seats`` from the tests' reference reach and weights."""
    tree = build_tree(config)
    fixed = []
    for team in config.teams:
        if set(team) & set(seats):
            continue
        fixed.append(
            (
                tuple(team),
                reference_team_reach(
                    tree, tuple(team), sub.probs, {s: sub.strategies[s] for s in team}
                ),
            )
        )
    return reference_weights(tree, tuple(seats), fixed)


# --------------------------------------------------------------------------- anchors


@pytest.mark.parametrize("name", sorted(OPENSPIEL_NASHCONV_UNIFORM))
def test_nash_conv_of_uniform_equals_openspiel(name):
    result = nash_conv(name, "uniform")
    assert result.nash_conv == pytest.approx(OPENSPIEL_NASHCONV_UNIFORM[name], abs=5e-7)
    assert all(b >= v for b, v in zip(result.br_values, result.values))


def test_kuhn_uniform_nash_conv_is_eleven_twelfths():
    assert nash_conv("kuhn", "uniform").nash_conv == pytest.approx(11 / 12, abs=1e-14)


def test_two_player_gap_equals_nash_conv():
    e = exploitability("leduc", "uniform")
    assert e.gap == pytest.approx(nash_conv("leduc", "uniform").nash_conv, abs=1e-12)
    assert e.value == pytest.approx(-0.078125, abs=1e-14)


def kuhn_equilibrium(alpha):
    """Kuhn's equilibrium family (value -1/18 for player 1), rows in file order."""
    a = alpha
    p1 = [
        [1 - a, a, 0],
        [1, 0, 0],
        [1 - 3 * a, 3 * a, 0],  # root J Q K
        [0, 0, 1],
        [a + 1 / 3, 0, 2 / 3 - a],
        [1, 0, 0],
    ]  # check, bet: J Q K
    p2 = [
        [2 / 3, 1 / 3, 0],
        [1, 0, 0],
        [0, 1, 0],  # after check
        [0, 0, 1],
        [1 / 3, 0, 2 / 3],
        [1, 0, 0],
    ]  # facing a bet
    return Submission([0], [1.0], (0, 1), {0: np.array([p1]), 1: np.array([p2])})


@pytest.mark.parametrize("alpha", [0.0, 0.2, 1 / 3])
def test_kuhn_equilibrium_is_unexploitable(alpha):
    sub = kuhn_equilibrium(alpha)
    nc = nash_conv("kuhn", sub)
    assert nc.values[0] == pytest.approx(-1 / 18, abs=1e-14)
    assert nc.nash_conv == pytest.approx(0.0, abs=1e-14)
    assert exploitability("kuhn", sub).gap == pytest.approx(0.0, abs=1e-14)


def test_perturbed_kuhn_equilibrium_is_exploitable():
    sub = kuhn_equilibrium(0.2)
    s = {k: v.copy() for k, v in sub.strategies.items()}
    s[1][0, 3] = [0.5, 0, 0.5]  # player 2 calls a bet with J half the time
    nc = nash_conv("kuhn", Submission([0], [1.0], (0, 1), s))
    assert nc.nash_conv > 0.01


# --------------------------------------------------------------------------- brute force


BRUTE_CASES = [
    ("tiny-team", 0),
    ("tiny-team", 1),
    ("tiny-team-3p", 0),
    ("tiny-team-3p", 1),
    ("kuhn", 0),
    ("kuhn", 1),
    ("kuhn-3p", 0),
    ("kuhn-3p", 2),
    ("kuhn-100", 1),
]


@pytest.mark.parametrize("name,team", BRUTE_CASES)
@pytest.mark.parametrize("opponent", ["uniform", "mixed-2", "pure-3", "cautious"])
def test_value_equals_brute_force_over_joint_pure_strategies(name, team, opponent):
    config = get_config(name)
    tree = build_tree(config)
    seats = tuple(sorted(config.teams[team]))
    others = tuple(s for s in range(config.num_seats) if s not in seats)
    if opponent == "mixed-2":
        sub = random_submission(config, others, 2, seed=team + 7)
    elif opponent == "pure-3":
        sub = random_submission(config, others, 3, seed=team + 11, pure=True)
    else:
        sub = baseline(opponent, config, others)
    br = best_response(config, team, sub)
    W = core_weights(config, seats, sub)
    assert br.value == pytest.approx(brute_force_team_max(tree, seats, W), rel=1e-12, abs=1e-12)
    assert team_value(tree, seats, br.actions, W) == pytest.approx(br.value, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- the response itself


def test_response_is_a_legal_pure_strategy_and_a_valid_submission():
    config = get_config("small-team-leduc")
    br = best_response(config, "a", "uniform")
    assert isinstance(br, BestResponse) and br.team == (0, 2) and br.team_index == 0
    tabs = infoset_tables(build_tree(config))
    for s in br.team:
        p = br.strategies[s]
        assert p.shape == (tabs[s].size, 3)
        assert set(np.unique(p).tolist()) <= {0.0, 1.0}
        assert (p.sum(axis=1) == 1).all() and (p[~tabs[s].legal] == 0).all()
    sub = br.to_submission()
    sub.check(config)
    assert sub.seats == (0, 2) and sub.num_signals == 1
    assert evaluate(sub, "uniform", config).value == pytest.approx(br.value, abs=1e-12)
    d = br.to_dict()
    assert d["preset"] == "small-team-leduc" and d["team"] == "A" and d["seats"] == [1, 3]
    assert "team A" in str(br) and f"{br.value:+.12f}" in str(br)


def test_deterministic():
    a = best_response("tiny-team-leduc", 1, "random-pure:4")
    b = best_response("tiny-team-leduc", 1, "random-pure:4")
    assert a.value == b.value
    assert all((a.strategies[s] == b.strategies[s]).all() for s in a.team)


@pytest.mark.parametrize("name", ["small-team-leduc", "team-leduc-2025"])
@pytest.mark.parametrize("opponent", ["uniform", "aggressive", "mixed"])
def test_response_beats_every_baseline(name, opponent):
    config = get_config(name)
    for team in (0, 1):
        others = config.teams[1 - team]
        sub = (
            random_submission(config, others, 3, seed=5)
            if opponent == "mixed"
            else baseline(opponent, config, others)
        )
        br = best_response(config, team, sub)
        names = [b for b in BASELINES if b != "random-pure"] + ["random-pure:1", "random-pure:2"]
        for b in names:
            mine = baseline(b, config, config.teams[team])
            v = (
                evaluate(mine, sub, config).value
                if team == 0
                else evaluate(sub, mine, config).value_b
            )
            assert v <= br.value + 1e-12, (b, v, br.value)


# --------------------------------------------------------------------------- exploitability


@pytest.mark.parametrize("name", ["tiny-team", "tiny-team-leduc"])
def test_exploitability_invariants(name):
    config = get_config(name)
    sub = random_submission(config, range(4), 2, seed=8)
    e = exploitability(config, sub)
    assert e.br_a.value >= e.value - 1e-12  # A cannot do worse than x against y
    assert e.br_b.value >= -e.value - 1e-12
    assert e.gap >= 0 and e.exploitability == pytest.approx(e.gap / 2)
    assert e.br_b.value == pytest.approx(best_response(config, 1, sub).value, abs=1e-12)
    assert e.br_a.value == pytest.approx(best_response(config, 0, sub).value, abs=1e-12)
    assert e.value == pytest.approx(evaluate(sub, sub, config).value, abs=1e-12)
    assert worst_cases(config, sub) == pytest.approx((e.worst_case_a, e.worst_case_b), abs=1e-12)
    d = e.to_dict()
    assert d["gap"] == pytest.approx(e.gap) and d["preset"] == name and "version" in d


def test_worst_cases_of_a_team_submission():
    config = get_config("tiny-team")
    full = random_submission(config, range(4), 1, seed=2)
    as_a, as_b = worst_cases(config, full.restrict((0, 2)))
    assert as_b is None
    assert as_a == pytest.approx(-best_response(config, 1, full).value, abs=1e-12)
    as_a, as_b = worst_cases(config, full.restrict((1, 3)))
    assert as_a is None
    assert as_b == pytest.approx(-best_response(config, 0, full).value, abs=1e-12)


def test_errors():
    with pytest.raises(TeamLeducError):
        exploitability("tiny-team", baseline("uniform", get_config("tiny-team"), (0, 2)))
    with pytest.raises(TeamLeducError):
        exploitability("leduc-3p", "uniform")
    with pytest.raises(TeamLeducError):
        nash_conv("tiny-team", "uniform")
    with pytest.raises(ValueError):
        best_response("tiny-team", "c", "uniform")


# --------------------------------------------------------------------------- CLI


def run(args):
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("name", sorted(OPENSPIEL_NASHCONV_UNIFORM))
def test_cli_exploitability_prints_openspiel_nash_conv(name):
    out = run(["exploitability", "uniform", "--preset", name])
    printed = float(re.search(r"NashConv: ([0-9.]+)", out).group(1))
    assert round(printed, 6) == OPENSPIEL_NASHCONV_UNIFORM[name]
    d = json.loads(run(["exploitability", "uniform", "--preset", name, "--json"]))
    assert d["nash_conv"] == pytest.approx(OPENSPIEL_NASHCONV_UNIFORM[name], abs=5e-7)
    assert d["preset"] == name and "version" in d


def test_cli_exploitability_team_game():
    d = json.loads(run(["exploitability", "uniform", "--preset", "tiny-team-leduc", "--json"]))
    e = exploitability("tiny-team-leduc", "uniform")
    assert d["gap"] == e.gap and d["br_b_of_x"] == e.br_b.value and d["br_a_of_y"] == e.br_a.value
    out = run(["exploitability", "uniform", "--preset", "tiny-team-leduc"])
    assert "saddle-point gap" in out and f"{e.gap:.12f}" in out


@pytest.mark.parametrize(
    "name,against", [("small-team-leduc", "a"), ("small-team-leduc", "b"), ("team-leduc-2025", "b")]
)
def test_cli_export_evaluates_to_printed_value(tmp_path, name, against):
    config = get_config(name)
    opp = random_submission(config, range(4), 2, seed=13)
    opp_path = write_submission(opp, tmp_path / "opp", config=config)
    out_dir = tmp_path / "br"
    d = json.loads(
        run(
            [
                "best-response",
                str(opp_path),
                "--against",
                against,
                "--preset",
                name,
                "--export",
                str(out_dir),
                "--json",
            ]
        )
    )
    assert d["export"] == str(out_dir) and d["team"] == ("B" if against == "a" else "A")
    exported = load_submission(out_dir, config)
    if against == "a":
        value = evaluate(opp_path, out_dir, config).value_b
    else:
        value = evaluate(out_dir, opp_path, config).value
    assert value == pytest.approx(d["value"], abs=1e-9)
    assert exported.num_signals == 1
    text = run(["best-response", str(opp_path), "--against", against, "--preset", name])
    assert f"{d['value']:+.12f}" in text


def test_cli_export_refuses_to_overwrite(tmp_path):
    out = tmp_path / "br"
    run(
        [
            "best-response",
            "uniform",
            "--against",
            "a",
            "--preset",
            "tiny-team",
            "--export",
            str(out),
        ]
    )
    result = CliRunner().invoke(
        cli,
        [
            "best-response",
            "uniform",
            "--against",
            "a",
            "--preset",
            "tiny-team",
            "--export",
            str(out),
        ],
    )
    assert result.exit_code != 0
    run(
        [
            "best-response",
            "uniform",
            "--against",
            "a",
            "--preset",
            "tiny-team",
            "--export",
            str(out),
            "--force",
        ]
    )
