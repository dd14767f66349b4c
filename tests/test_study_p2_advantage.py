"""``study p2-advantage``: values against published numbers and an independent sequence-form LP
(tests/sequence_lp.py, built from the simulator), the solver's certified bounds, outputs and
bad arguments."""

import json

import pytest

from teamleduc.config import get_config
from teamleduc.solver import solve
from teamleduc.solver.sequence_form import solve_sequence_form
from teamleduc.studies.p2_advantage import p2_advantage, solve_game, write_outputs

from . import sequence_lp
from .cli_run import run


def test_published_values():
    assert solve_game(get_config("kuhn")).value_seat1 == pytest.approx(-1 / 18, abs=1e-12)
    row = solve_game(get_config("leduc"))
    assert row.value_seat1 == pytest.approx(-0.0856064, abs=5e-8)
    assert row.p2_advantage == pytest.approx(0.0856064, abs=5e-8)
    assert 0 <= row.nash_conv < 1e-9 and row.infosets_per_seat == 144


@pytest.mark.parametrize("preset", ["kuhn", "leduc", "kuhn-100", "leduc-stack50"])
def test_values_agree_with_an_independent_lp(preset):
    config = get_config(preset)
    mine = solve_sequence_form(config)
    assert mine.value == pytest.approx(sequence_lp.game_value(config), abs=1e-8)
    row = solve_game(config)  # the profile measured by exact best responses
    assert row.value_seat1 == pytest.approx(mine.value, abs=1e-8)
    assert row.nash_conv < 1e-8


def test_kuhn_100_value_is_a_simple_fraction():
    # -0.05661616... = -5605/99000 (the LP's optimum, to 1e-13)
    assert solve_sequence_form(get_config("kuhn-100")).value == pytest.approx(
        -5605 / 99000, abs=1e-13
    )


def test_the_solver_brackets_the_lp_value():
    """The toolkit's DCFR certifies [lower, upper] around the exact value."""
    value = solve_sequence_form(get_config("kuhn-100")).value
    r = solve("kuhn-100", "dcfr", time_limit=60, target_gap=1e-6, handle_sigint=False)
    assert r.lower - 1e-12 <= value <= r.upper + 1e-12 and r.gap <= 1e-6
    row = solve_game(get_config("kuhn"), "dcfr", target=1e-9)
    assert row.value_seat1 == pytest.approx(-1 / 18, abs=1e-8) and row.nash_conv <= 1e-9


def test_outputs(tmp_path):
    result = p2_advantage(["kuhn", "leduc"])
    paths = write_outputs(result, tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        f"p2-advantage.{e}" for e in ("md", "csv", "json", "png")
    )
    md = (tmp_path / "p2-advantage.md").read_text()
    assert "| kuhn | 6 | -0.055555556 | +0.055555556 |" in md
    csv = (tmp_path / "p2-advantage.csv").read_text().splitlines()
    assert csv[0].startswith("preset,infosets_per_seat,value_seat1,p2_advantage,nash_conv")
    data = json.loads((tmp_path / "p2-advantage.json").read_text())
    assert [g["preset"] for g in data["games"]] == ["kuhn", "leduc"]
    assert (tmp_path / "p2-advantage.png").read_bytes()[:4] == b"\x89PNG"


def test_command(capsys, tmp_path):
    code, out, err = run(
        capsys, ["study", "p2-advantage", "--presets", "kuhn,leduc-stack50", "--out", str(tmp_path)]
    )
    assert code == 0 and "leduc-stack50 | 3,444 | -0.077903253 | +0.077903253" in out
    assert "[2/2] solving leduc-stack50" in err


@pytest.mark.parametrize(
    "presets, message",
    [
        ("kuhn,nope", "unknown preset 'nope'"),
        ("kuhn,team-leduc", "team-leduc is not a two-player game"),
        ("kuhn-3p", "kuhn-3p is not a two-player game"),
        ("kuhn,kuhn", "listed twice"),
        ("", "at least one preset"),
    ],
)
def test_bad_presets_one_line_exit_2(capsys, tmp_path, presets, message):
    code, out, err = run(
        capsys, ["study", "p2-advantage", "--presets", presets, "--out", str(tmp_path / "x")]
    )
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_study_outputs_follow_the_toolkit_rules(tmp_path, capsys):
    """Non-finite numbers are refused before anything runs; --out is written as one unit and
    an existing non-empty folder needs --overwrite, as for every other writing command."""
    out = tmp_path / "p2"
    base = ["study", "p2-advantage", "--presets", "kuhn", "--quiet", "--out", str(out)]
    code, _, err = run(capsys, [*base, "--method", "dcfr", "--time-limit", "inf"])
    assert code == 2 and "not a finite number" in err and not out.exists()
    assert run(capsys, base)[0] in (0, None)
    (out / "p2-advantage.csv").unlink()  # the replacement must write it again
    code, _, err = run(capsys, base)
    assert code == 2 and "--overwrite" in err and "Traceback" not in err
    assert run(capsys, [*base, "--overwrite"])[0] in (0, None)
    assert (out / "p2-advantage.csv").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
