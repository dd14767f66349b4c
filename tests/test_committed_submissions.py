"""Every committed export in submissions/ is valid and as good as its report says (exactly)."""

import json
from pathlib import Path

import pytest

from teamleduc.best_response import exploitability
from teamleduc.config import get_config
from teamleduc.files.reading import load_submission
from teamleduc.validate import validate_submission

ROOT = Path(__file__).resolve().parent.parent / "submissions"
PRESETS = sorted(p.name for p in ROOT.iterdir() if (p / "submission").is_dir())


def test_there_are_committed_solutions():
    assert {"tiny-team", "tiny-team-3p", "tiny-team-leduc"} <= set(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_committed_solution_is_an_exact_tmecor(preset):
    config = get_config(preset)
    folder = ROOT / preset
    report = json.loads((folder / "solve-report.json").read_text())
    assert report["preset"] == preset
    all_seats = tuple(range(config.num_seats))
    assert validate_submission(folder / "submission", config, all_seats).ok
    sub = load_submission(folder / "submission", config)
    ex = exploitability(config, sub)
    lower, upper = -ex.br_b.value, ex.br_a.value
    assert upper - lower <= 1e-9
    assert lower == pytest.approx(report["value_lower"], abs=1e-12)
    assert upper == pytest.approx(report["value_upper"], abs=1e-12)
    assert len(sub.signals) == report["signals"]
