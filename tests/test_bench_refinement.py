"""The refinement benchmark (benchmarks/bench_refinement.py) on a tiny game: every part of a
block is timed, the parts add up to at most the block, and the refiner's own functions are put
back afterwards. Only sums and names are checked, never a speed."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
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
    total, parts, moved = bench.block_parts(r, refiner.CHECK_EVERY)
    assert set(parts) == set(bench.PARTS.values()) | {"weights"}
    assert all(s >= 0.0 for s in parts.values())
    assert sum(parts.values()) <= total
    assert set(moved) == set(parts)
    assert all(once > 0 and more >= 0 for once, more in moved.values())
    # per-signal walks: the member kernels only (3 signals: 2 more walks each)
    walked = {p for p, (_, more) in moved.items() if more > 0}
    assert walked == {"member pass", "member reach", "reach, every node"}
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


def test_traffic_counts_each_array_once_read_and_again_written():
    """The bytes of a call: every array read counts its size, a written one twice when also
    read; the per-member kernels' walked index arrays count once more per further signal."""
    rng = np.random.default_rng(0)
    W, rfix, out = rng.random((7, 3, 3)), rng.random((4, 7, 3)), np.empty((4, 7, 3))
    assert bench.traffic("_member_values", (W, rfix, True, out)) == (
        W.nbytes + rfix.nbytes + out.nbytes,
        0,
    )
    own, legal = np.arange(5, dtype=np.int32), np.ones((5, 3), bool)
    tptr, optr = np.zeros(17, np.int64), np.zeros(17, np.int64)
    tz, om = np.arange(7, dtype=np.int32), np.arange(4, dtype=np.int32)
    sigma, cum = rng.random((4, 15, 3)), rng.random((4, 15, 3))
    scratch = np.empty((2, 5, 3))
    walked = sum(a.nbytes for a in (own, legal, tptr, tz, optr, om)) + 2 * scratch[0].nbytes
    rest = sigma.nbytes + out.nbytes + 2 * cum.nbytes
    args = (own, legal, tptr, tz, optr, om, sigma, out, cum, np.ones(4), scratch)
    assert bench.traffic("_member_reach_terminals", args) == (walked + rest, 3 * walked)
    args = (own, legal, tptr, tz, optr, om, sigma, out, cum, np.zeros(0), scratch)
    assert bench.traffic("_member_reach_terminals", args)[0] == walked + sigma.nbytes + out.nbytes


def test_the_report_lists_each_part_once(capsys):
    """Each part is printed once, and the parts with the rest add up to the iteration."""
    names = list(dict.fromkeys(bench.PARTS.values())) + ["weights"]
    parts = {p: 0.01 for p in names}
    moved = {p: (1e6, 0.0) for p in names}
    bench.report(2, 0.2, parts, moved, 10.0)
    lines = capsys.readouterr().out.splitlines()
    for name in names:
        assert sum(line.startswith(f"    {name}  ") for line in lines) == 1, name
    rest = [line.split() for line in lines if line.startswith("    rest ")]
    assert len(names) == 10 and rest == [["rest", "0.1000", "50.0%"]]


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
