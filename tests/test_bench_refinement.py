"""The refinement benchmark (benchmarks/bench_refinement.py) on a tiny game: every part of a
block is timed, the parts add up to at most the block, and the refiner's own functions are put
back afterwards. Only sums and names are checked, never a speed."""

from __future__ import annotations

from collections import defaultdict

import pytest

from benchmarks import bench_refinement as bench
from teamleduc.dag import DagGame
from teamleduc.solver import team_refinement as refiner


@pytest.fixture(scope="module")
def refined():
    return bench.start("tiny-team-leduc", 3)


def test_block_parts_cover_the_refiners_kernels(refined):
    _, r = refined
    originals = {name: getattr(refiner, name) for name in bench.PARTS}
    weights = DagGame.weights
    total, parts = bench.block_parts(r, refiner.CHECK_EVERY)
    assert set(parts) == set(bench.PARTS.values()) | {"weights"}
    assert all(s >= 0.0 for s in parts.values())
    assert sum(parts.values()) <= total
    assert {name: getattr(refiner, name) for name in bench.PARTS} == originals
    assert DagGame.weights is weights


def test_a_nested_call_counts_for_the_outer_one_only(monkeypatch):
    """best_values computes weights inside: that time counts for the best response only."""
    calls = []

    def inner(*args):
        calls.append("inner")

    def outer(*args):
        calls.append("outer")
        refiner._member_pass()  # the wrapped inner function, called from inside

    monkeypatch.setattr(refiner, "_member_pass", inner)
    monkeypatch.setattr(refiner, "best_values", outer)
    seconds = defaultdict(float)
    with bench.timed_parts(seconds):
        refiner.best_values()
    assert calls == ["outer", "inner"]
    assert set(seconds) == {"check best response"}


def test_fewer_than_two_iterations_is_refused(monkeypatch):
    monkeypatch.setenv("TEAMLEDUC_BENCH_ITERS", "1")
    with pytest.raises(SystemExit, match="TEAMLEDUC_BENCH_ITERS"):
        bench.main()


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TEAMLEDUC_BENCH_PRESETS", "leduc", "no team of two"),
        ("TEAMLEDUC_BENCH_PRESETS", "bogus", "unknown preset"),
        ("TEAMLEDUC_BENCH_SIGNALS", "0", "TEAMLEDUC_BENCH_SIGNALS"),
    ],
)
def test_bad_settings_end_in_one_line(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit, match=message):
        bench.main()
