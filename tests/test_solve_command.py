"""The ``solve`` command (:mod:`teamleduc.commands.solve`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from teamleduc.files.reading import load_submission

from .solving import KUHN_VALUE


def test_the_command_says_where_the_state_is_kept(tmp_path, monkeypatch):
    """``solve`` after a Ctrl-C that kept the state alone: exit 130, the checkpoint's path
    and the command that goes on, in text and as JSON."""
    import teamleduc.solver as solver
    from teamleduc.cli import cli
    from teamleduc.solver.result import CheckpointKept

    def kept(config, method, **kwargs):
        raise CheckpointKept(str(kwargs["out_dir"]), 1234, 56.7)

    monkeypatch.setattr(solver, "solve", kept)
    run = str(tmp_path / "run")
    args = ["solve", "--preset", "team-leduc", "--out", run, "--quiet"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 130
    assert "1234 iterations (57 s)" in r.output and f"{run}/checkpoint.npz" in r.output
    assert f"teamleduc solve --preset team-leduc --resume {run} --out {run}" in r.output
    r = CliRunner().invoke(cli, args + ["--json"])
    assert r.exit_code == 130
    report = json.loads(r.stdout)
    assert report == {
        "status": "aborted",
        "checkpoint": f"{run}/checkpoint.npz",
        "iterations": 1234,
        "seconds": 56.7,
    }


def test_solve_command(tmp_path):
    from teamleduc.cli import cli

    out = tmp_path / "run"
    res = CliRunner().invoke(
        cli,
        [
            "solve",
            "--preset",
            "kuhn",
            "--time-limit",
            "60",
            "--target-gap",
            "1e-9",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert any(
        l.startswith("iter ") and "lower" in l and "upper" in l and "gap" in l for l in lines
    )
    assert lines[-1].startswith("final gap ")
    report = json.loads((out / "solve-report.json").read_text())
    for key in (
        "preset",
        "version",
        "algorithm",
        "iterations",
        "seconds",
        "value_lower",
        "value_upper",
        "gap",
        "signals",
        "peak_memory_bytes",
        "history",
    ):
        assert key in report
    assert report["preset"] == "kuhn" and report["algorithm"] == "dcfr"
    assert report["value_lower"] == pytest.approx(KUHN_VALUE, abs=1e-6)
    assert (out / "convergence.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    load_submission(out / "submission", "kuhn")
    res = CliRunner().invoke(cli, ["solve", "--preset", "kuhn-3p", "--out", str(tmp_path / "x")])
    assert res.exit_code != 0


@pytest.mark.parametrize("refine", ["10", "100", "1e300"])
def test_refinement_longer_than_the_time_limit_is_a_usage_error(tmp_path, refine):
    """--refine-seconds is part of --time-limit: as long or longer left the solver nothing
    (it made 1 iteration and said the time limit was reached); refused before anything runs,
    and the same through the Python API."""
    from teamleduc.cli import cli
    from teamleduc.errors import ArgumentValueError
    from teamleduc.solver import solve

    out = tmp_path / "out"
    args = ["solve", "--preset", "kuhn", "--time-limit", "10", "--refine-seconds", refine]
    r = CliRunner().invoke(cli, [*args, "--out", str(out)])
    assert r.exit_code == 2 and "--refine-seconds" in r.output and "--time-limit" in r.output
    assert "solving kuhn" not in r.output and not out.exists()
    with pytest.raises(ArgumentValueError, match="refine_seconds .* must be less than time_limit"):
        solve("kuhn", time_limit=10, refine_seconds=float(refine), out_dir=out)
    assert not out.exists()
