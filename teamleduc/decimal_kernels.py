"""Compiled halves of :mod:`teamleduc.decimals`: the distinct rows of a file and its bytes.

Kept apart so that only writing imports numba (0.4 s): ``validate`` and the other readers
import :mod:`teamleduc.decimals` through the information-set module and never call these.
Both kernels are exact (rows are compared by their bits, bytes are copied): the distinct rows
are numpy's (tested against its sort of the rows' bytes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_H0 = np.uint64(0x9E3779B97F4A7C15)
_H1 = np.uint64(0xC2B2AE3D27D4EB4F)
_H2 = np.uint64(0x165667B19E3779F9)
#: slots probed for one row before giving up on the table (numpy's sort takes over)
MAX_PROBES = 64


@njit(cache=True, nogil=True)
def _distinct(bits, first, inverse):
    """Distinct rows of ``bits`` (n, 3) uint64, in order of first occurrence: fills ``first``
    (the row of each distinct one) and ``inverse`` (n,), returns how many. Open addressing on
    a table of at least twice n slots, keyed by the row's three words compared exactly; -1
    if a row needs more than :data:`MAX_PROBES` probes (rows made to collide: quadratic)."""
    n = bits.shape[0]
    log_size = 1
    while (1 << log_size) < 2 * n:
        log_size += 1
    mask = (1 << log_size) - 1
    shift = np.uint64(64 - log_size)
    table = np.full(1 << log_size, -1, np.int64)
    m = 0
    for i in range(n):
        a, b, c = bits[i, 0], bits[i, 1], bits[i, 2]
        h = a * _H0 + b * _H1 + c * _H2  # wraps around: a hash; its top bits pick the slot
        slot = np.int64(h >> shift)
        probes = 0
        while True:
            d = table[slot]
            if d < 0:
                table[slot] = m
                first[m] = i
                inverse[i] = m
                m += 1
                break
            f = first[d]
            if bits[f, 0] == a and bits[f, 1] == b and bits[f, 2] == c:
                inverse[i] = d
                break
            slot = (slot + 1) & mask
            probes += 1
            if probes > MAX_PROBES:
                return -1
    return m


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of a C-contiguous float64 (n, 3) array, bit
    for bit (``-0.0`` and ``0.0`` differ, each NaN payload is its own): ``rows[first][inverse]``
    is ``rows``; ``first`` ascending."""
    n = rows.shape[0]
    first = np.empty(n, np.int64)
    inverse = np.empty(n, np.int64)
    m = _distinct(rows.view(np.uint64), first, inverse)
    if m < 0:  # rows that collide in the table: sort their bytes
        keys = rows.view(np.dtype((np.void, 24))).ravel()
        return in_order_of_first(*np.unique(keys, return_index=True, return_inverse=True)[1:])
    return first[:m].copy(), inverse


def in_order_of_first(first: np.ndarray, inverse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """numpy's ``(first, inverse)`` of distinct rows (numbered in sorted order) renumbered in
    order of first occurrence, as :func:`distinct_rows`'s table gives them."""
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


@njit(cache=True, nogil=True)
def _gather(blob, offsets, inverse, out):
    """``out`` = the lines ``blob[offsets[d]:offsets[d + 1]]`` for d in ``inverse``, in order."""
    k = 0
    for i in range(inverse.shape[0]):
        d = inverse[i]
        start = offsets[d]
        n = offsets[d + 1] - start
        out[k : k + n] = blob[start : start + n]
        k += n


def gathered_lines(blob: bytes, offsets: np.ndarray, inverse: np.ndarray) -> bytes:
    """The bytes of line ``inverse[i]`` of ``blob`` (line d spans ``offsets[d]`` to
    ``offsets[d + 1]``) for every i, joined."""
    lengths = np.diff(offsets)
    out = np.empty(int(lengths[inverse].sum()), np.uint8)
    _gather(np.frombuffer(blob, np.uint8), offsets, inverse, out)
    return out.tobytes()


def _warmup() -> None:
    rows = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    first, inverse = distinct_rows(rows)
    gathered_lines(b"a\nbc\n", np.array([0, 2, 5]), inverse)
