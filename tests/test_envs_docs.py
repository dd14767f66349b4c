"""The training loop of docs/environments.md runs as printed and gives the exact numbers shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from teamleduc.best_response import nash_conv
from teamleduc.evaluate import evaluate

DOC = Path(__file__).resolve().parents[1] / "docs" / "environments.md"


def test_documented_training_loop_runs_and_its_numbers_hold(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (loop,) = [b for b in blocks if "for hand in range(20_000)" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(loop, str(DOC), "exec"), {})
    assert (tmp_path / "learned" / "meta-strategy.csv").exists()
    assert nash_conv("leduc", "learned").nash_conv == pytest.approx(2.0, abs=1e-9)
    assert evaluate("learned", "uniform", "leduc").value == pytest.approx(0.658333333333, abs=1e-9)


README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_training_loop_runs_and_its_numbers_hold(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (loop,) = [b for b in blocks if "gym.make" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(loop, str(README), "exec"), {})
    assert nash_conv("leduc", "learned").nash_conv == pytest.approx(5.454166666667, abs=1e-9)
    assert evaluate("learned", "uniform", "leduc").value == pytest.approx(1.966666666667, abs=1e-9)
