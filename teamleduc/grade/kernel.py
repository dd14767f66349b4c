"""The blocked pair kernel: many dot products at once, each summed in one fixed order.

Internal to :mod:`teamleduc.grade` (its public names are for the grading's other modules,
its tests and benchmarks).

Fixed order: every value is ``sum over blocks of 4,096 terms, in block order, of (the block's
terms in index order, each a fused multiply-add s = a * b + s with one rounding)``, exactly the
order of :func:`teamleduc.evaluate.evaluate_reach` (:mod:`teamleduc.fused`). The kernel
vectorises across pairs, never within a sum, so a grade matrix entry equals ``evaluate``'s
value bit for bit whatever ``jobs``, the memory budget, the number of threads or the machine
(no BLAS call: its summation order is its own and depends on the shape of the product).

A block's terms are packed into register tiles of :data:`ROWS` rows of A by :data:`COLS` columns
of B (padded with zeros to whole tiles), and the tiles are taken in cache-sized bands and groups
(:data:`BAND`, :data:`GROUP`, :data:`DEPTH`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..evaluate import BLOCK
from ..fused import COLS, ROWS, tile_fma
from ..reach import kernel_array

#: products per kernel call at most, so that Ctrl-C is seen within a fraction of a second
MAX_TERMS_PER_CALL = 1 << 29

#: cache blocking of the tiles: a work item is a block of BAND row tiles x a group of GROUP
#: column tiles, taken in passes of DEPTH terms; in a pass a row tile's 14 x 256 values of A
#: (28 KB) stay in L1 while they meet the group, the group's 16 x 32 KB of B stay in L2 for
#: the band's rows. The chains are carried from pass to pass: the same order as in one pass
DEPTH = 256
BAND = 4
GROUP = 16


@njit(cache=True, parallel=True)
def _pack(X, rows, lo, hi, width, out):
    # out[t, l * width + k] = X[rows[t * width + k], lo + l] (0 past the last of rows)
    n = rows.shape[0]
    m = hi - lo
    for t in prange(out.shape[0]):
        full = min(width, n - t * width)
        for k in range(full, width):
            for l in range(m):
                out[t, l * width + k] = 0.0
        # a cache line of each row at a time: rows whose stride is a power of two (the read
        # buffers) share L1 sets, and 14 of them side by side would evict each other's lines
        for c in range(0, m, 8):
            e = min(m, c + 8)
            for k in range(full):
                x = rows[t * width + k]
                for l in range(c, e):
                    out[t, l * width + k] = X[x, lo + l]


@njit(cache=True, parallel=True)
def _tile_products(ap, bp, m, total, nc):
    # total[i, j] += sum_l ap[i // R, l * R + i % R] * bp[j // C, l * C + j % C], each sum a
    # chain of fused multiply-adds from +0.0, l ascending, added to total at the end
    ni = ap.shape[0]
    nj = bp.shape[0]
    bands = -(-ni // BAND)
    groups = -(-nj // GROUP)
    band = -(-ni // bands)  # items of (nearly) equal sizes
    group = -(-nj // groups)
    for w in prange(bands * groups):
        i0 = (w // groups) * band
        j0 = (w % groups) * group
        i1 = min(ni, i0 + band)
        j1 = min(nj, j0 + group)
        sums = np.zeros((i1 - i0, j1 - j0, ROWS * COLS))
        for l0 in range(0, m, DEPTH):
            d = min(DEPTH, m - l0)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    tile_fma(ap[i], l0 * ROWS, bp[j], l0 * COLS, d, sums[i - i0, j - j0])
        for i in range(i0, i1):
            for j in range(j0, j1):
                for jj in range(min(COLS, nc - j * COLS)):
                    for ii in range(ROWS):
                        total[i * ROWS + ii, j * COLS + jj] += sums[i - i0, j - j0, ii * COLS + jj]


def padded_rows(n: int) -> int:
    """Rows of a sums array for ``n`` rows of A: whole register tiles of :data:`ROWS`."""
    return -(-n // ROWS) * ROWS


class Scratch:
    """Packing buffers kept from block to block: a fresh array of tens of MB is new memory
    from the system each time, one page fault per 4 KB."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def array(self, name: str, shape: tuple[int, int], zero: bool = False) -> np.ndarray:
        size = shape[0] * shape[1]
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(size)
        out = buffer[:size].reshape(shape)
        if zero:
            out.fill(0.0)
        return out


def add_block(
    A: np.ndarray,
    B: np.ndarray,
    lo: int,
    hi: int,
    total: np.ndarray,
    rows: np.ndarray | None = None,
    cols: np.ndarray | None = None,
    scratch: Scratch | None = None,
) -> None:
    """``total[:, :len(B)] += A[:, lo:hi] . B[:, lo:hi]^T`` in the fixed order: B's block
    packed once, then a few rows of A per kernel call (each call is short, so that Ctrl-C is
    not delayed). ``total`` has :func:`padded_rows` rows.

    With ``rows`` and ``cols`` (ascending indices, both or neither), only those pairs: the
    others' blocks are all zero on one side, so their block sums are +0.0 and would leave their
    totals as they are. The pairs' sums go through a zeroed buffer (0.0 + s is s) into
    ``total``, so every total gets the same bytes as from the full product."""
    scratch = scratch or Scratch()
    if rows is None:
        _add_rows(A, B, lo, hi, total, np.arange(A.shape[0]), np.arange(B.shape[0]), scratch)
    elif rows.size and cols.size:
        sums = scratch.array("sums", (padded_rows(rows.size), cols.size), zero=True)
        _add_rows(A, B, lo, hi, sums, rows, cols, scratch)
        total[np.ix_(rows, cols)] += sums[: rows.size]


def _add_rows(A, B, lo, hi, total, rows, cols, scratch) -> None:
    """``total[i, j] += A[rows[i], lo:hi] . B[cols[j], lo:hi]`` in the fixed order."""
    m = hi - lo
    nc = cols.size
    bp = scratch.array("b", (-(-nc // COLS), m * COLS))
    step = max(ROWS, (MAX_TERMS_PER_CALL // max(1, nc * m)) // ROWS * ROWS)
    ap = scratch.array("a", (-(-min(step, rows.size) // ROWS), m * ROWS))  # rows of one call
    _pack(B, cols, lo, hi, COLS, bp)
    for r0 in range(0, rows.size, step):
        part_rows = rows[r0 : r0 + step]
        part = ap[: -(-part_rows.size // ROWS)]
        _pack(A, part_rows, lo, hi, ROWS, part)
        _tile_products(part, bp, m, total[r0 : r0 + step], nc)


def pair_values(reach_a: np.ndarray, weights_b: np.ndarray) -> np.ndarray:
    """(n, m) ``V[i, j] = <reach_a[i], weights_b[j]>`` for stacked (n, L) and (m, L) arrays.

    Summed block by block in a fixed order, bit-identical to
    :func:`teamleduc.evaluate.evaluate_reach` on the same pair, whatever the number of threads.
    """
    ta = kernel_array(reach_a)
    w = kernel_array(weights_b)
    if ta.ndim != 2 or w.ndim != 2 or ta.shape[1] != w.shape[1]:
        raise ValueError(f"shapes {ta.shape} and {w.shape} must be (n, L) and (m, L)")
    n, L = ta.shape
    total = np.zeros((padded_rows(n), w.shape[0]))
    scratch = Scratch()
    for lo in range(0, L, BLOCK):
        add_block(ta, w, lo, min(L, lo + BLOCK), total, scratch=scratch)
    return total[:n] + 0.0


def _warmup() -> None:
    """Compile the pair kernel once (``python -m teamleduc.warmup``)."""
    pair_values(np.ones((2, 5)), np.ones((3, 5)))
