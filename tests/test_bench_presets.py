"""The refinement benchmarks name a bad preset in one line before any work (benchmarks.settings.
team_preset, shared by all of them): an unknown name, or a game without a team of two."""

from __future__ import annotations

import importlib

import pytest

BENCHMARKS = [
    ("bench_block_split", "BENCH_BLOCK_SPLIT_PRESET"),
    ("bench_budget", "BENCH_BUDGET_PRESET"),
    ("bench_interleave", "BENCH_INTERLEAVE_PRESET"),
    ("bench_signal_cap", "BENCH_CAP_PRESET"),
    ("bench_signal_rule", "BENCH_SIGNAL_RULE_PRESET"),
]


@pytest.mark.parametrize(("module", "variable"), BENCHMARKS)
@pytest.mark.parametrize(
    ("preset", "message"),
    [("leduc", "leduc has no team of two to refine"), ("nope", "unknown preset 'nope'")],
)
def test_a_bad_preset_ends_in_one_line(monkeypatch, module, variable, preset, message):
    bench = importlib.import_module(f"benchmarks.{module}")
    monkeypatch.setenv(variable, preset)
    with pytest.raises(SystemExit) as exc:
        bench.main()
    text = str(exc.value)
    assert text.startswith(f"{variable}: ") and message in text and "\n" not in text
