"""The regret-pass benchmark (benchmarks/bench_regret_parts.py): its two variants of the regret
kernel skip exactly what they say, on tiny-team-leduc, and a kernel source that no longer has
the statement a variant changes ends the benchmark in one line. No speed is checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import bench_regret_parts as bench
from teamleduc.dag import kernels, passes


@pytest.fixture(scope="module")
def regret():
    return bench.RegretPass("tiny-team-leduc")


def test_the_variants_change_only_cfr_par():
    text = Path(kernels.__file__).read_text()
    for name, changes in bench.VARIANTS.items():
        changed = bench.variant_source(changes)
        assert changed != text, name
        cut = text.index("\ndef _cfr_par(")
        assert changed[:cut] == text[:cut]  # every kernel before _cfr_par as it was
        tail = text.index("\n@njit(cache=True, _nrt=False)\ndef _cfr_ser(")
        assert changed.endswith(text[tail:])  # and every kernel after it


def test_a_statement_no_longer_there_is_named(monkeypatch):
    with pytest.raises(SystemExit, match="no longer has the statement 'nowhere_to_be_found"):
        bench.variant_source([("        nowhere_to_be_found()\n", "")])


def test_the_full_kernel_is_the_solvers(regret):
    """The benchmark's run (level-parallel kernel) updates the regrets as the solver does."""
    regret.run(kernels._cfr_par)
    got = regret.rm.reg[0].copy(), regret.rm.sigma[0].copy()
    rm = regret.rm
    rm.reg[0][...], rm.sigma[0][...] = regret.saved
    pos_f, neg_f = regret.factors
    passes.cfr_update(
        rm.game, 0, rm.reach[1], rm.V[0], rm.reg[0], rm.sigma[0], rm.last[0], pos_f, neg_f, False
    )
    assert not np.array_equal(got[0], regret.saved[0])  # the pass did update them
    np.testing.assert_array_equal(got[0], rm.reg[0])
    np.testing.assert_array_equal(got[1], rm.sigma[0])


def test_no_team_nodes_leaves_regrets_and_strategies_alone(regret):
    regret.run(bench.load_variant("no team nodes"))
    np.testing.assert_array_equal(regret.rm.reg[0], regret.saved[0])
    np.testing.assert_array_equal(regret.rm.sigma[0], regret.saved[1])


@pytest.mark.parametrize(("name", "recomputed"), [("no team nodes", True), ("no team nodes, no leaves", False)])  # fmt: skip
def test_no_leaves_skips_the_terminal_values(regret, name, recomputed):
    terminals = regret.rm.game.tree.terminals
    V = regret.rm.V[0]
    V[terminals] = 12345.0
    regret.run(bench.load_variant(name))
    assert np.all(V[terminals] == 12345.0) != recomputed
