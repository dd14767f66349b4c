"""Fused multiply-adds (teamleduc.fused) against exact rational arithmetic: one rounding per
term, in the scalar ``fma`` and in every lane of the register tile ``tile_fma``."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from teamleduc.fused import COLS, ROWS, WIDTH, fma, tile_fma


@njit
def fma_of(a, b, c):
    return fma(a, b, c)


@njit
def tile_of(ap, a0, bp, b0, m, out):
    tile_fma(ap, a0, bp, b0, m, out)


def exact_fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` computed exactly, rounded once (int / int division is correctly rounded)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


#: (a, b, c) whose product rounded first gives another sum than one rounding
TWICE_ROUNDED_DIFFERS = [
    (1 + 2**-30, 1 - 2**-30, -1.0),  # a * b = 1 - 2**-60: rounds to 1, the sum to 0
    (1 + 2**-52, 1 + 2**-52, -(1 + 2**-51)),  # a * b = 1 + 2**-51 + 2**-104
    (0.1, 10.0, -1.0),  # 0.1 * 10 rounds to exactly 1.0
    (3.0, 1 / 3, -1.0),
]


@pytest.mark.parametrize(("a", "b", "c"), TWICE_ROUNDED_DIFFERS)
def test_fma_rounds_once(a, b, c):
    exact = exact_fma(a, b, c)
    assert (a * b) + c != exact  # the values do tell one rounding from two
    assert fma_of(a, b, c) == exact
    assert exact != 0.0


def test_fma_exact_cases():
    assert fma_of(1 + 2**-30, 1 - 2**-30, -1.0) == -(2.0**-60)
    assert fma_of(1 + 2**-52, 1 + 2**-52, -(1 + 2**-51)) == 2.0**-104
    assert fma_of(2.0, 3.0, 4.0) == 10.0
    assert np.isnan(fma_of(np.inf, 0.0, 1.0))
    assert fma_of(1e308, 10.0, -np.inf) == -np.inf


def test_fma_matches_exact_rounding_on_random_values():
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal(300) * 2.0 ** rng.integers(-20, 20, 300) for _ in range(3))
    got = [fma_of(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)]
    want = [exact_fma(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)]
    assert got == want
    assert got != (a * b + c).tolist()  # some of them round differently twice


def reference_tile(ap, a0, bp, b0, m, out):
    """What ``tile_fma`` computes, one exact fused multiply-add after another."""
    sums = out.copy()
    for i in range(ROWS):
        for j in range(COLS):
            s = sums[i * COLS + j]
            for l in range(m):
                s = exact_fma(ap[a0 + l * ROWS + i], bp[b0 + l * COLS + j], s)
            sums[i * COLS + j] = s
    return sums


@pytest.fixture
def packed():
    rng = np.random.default_rng(11)
    m = 9
    ap = rng.standard_normal(3 + m * ROWS + 5) * 3.0
    bp = rng.standard_normal(2 + m * COLS + 4) / 3.0
    return ap, bp, m


def test_tile_layout_constants():
    assert COLS % WIDTH == 0 and ROWS >= 1


def test_tile_fma_equals_a_loop_of_fma(packed):
    ap, bp, m = packed
    out = np.zeros(ROWS * COLS)
    tile_of(ap, 3, bp, 2, m, out)
    want = reference_tile(ap, 3, bp, 2, m, np.zeros(ROWS * COLS))
    assert out.tolist() == want.tolist()
    # and not a dot product rounded some other way
    A = ap[3 : 3 + m * ROWS].reshape(m, ROWS)
    B = bp[2 : 2 + m * COLS].reshape(m, COLS)
    np.testing.assert_allclose(out.reshape(ROWS, COLS), A.T @ B, rtol=1e-12, atol=1e-12)
    plain = np.zeros((ROWS, COLS))
    for l in range(m):
        plain = plain + np.outer(A[l], B[l])  # rounded twice per term
    assert (plain.ravel() != out).any()


def test_tile_fma_continues_chains_in_pieces(packed):
    ap, bp, m = packed
    start = np.arange(ROWS * COLS, dtype=np.float64) / 7.0
    whole = start.copy()
    tile_of(ap, 3, bp, 2, m, whole)
    assert whole.tolist() == reference_tile(ap, 3, bp, 2, m, start).tolist()
    pieces = start.copy()
    tile_of(ap, 3, bp, 2, 4, pieces)
    tile_of(ap, 3 + 4 * ROWS, bp, 2 + 4 * COLS, m - 4, pieces)
    assert pieces.tobytes() == whole.tobytes()
    nothing = start.copy()
    tile_of(ap, 0, bp, 0, 0, nothing)  # no terms: the sums are left as they were
    assert nothing.tobytes() == start.tobytes()
