"""CSV lines of probability rows: each float as its shortest round-trip decimal, quickly.

``repr`` of a Python float is the shortest decimal that reads back to the same double, so
writing and reading again gives identical arrays; but it costs about a microsecond a value,
and a 100-signal team-leduc submission has 177 M values (its files' distinct rows alone are
8 M). orjson formats a float64 array with the same shortest round-trip digits about fifteen
times as fast. It writes some numbers in another notation (``1.5e-7`` and ``0.000012`` where
``repr`` writes ``1.5e-07`` and ``1.2e-05``), which :func:`_as_repr` rewrites, so the bytes
are exactly ``repr``'s: rows of finite values in [0, 1] (every valid strategy row) take this
path, any other row ``repr`` itself (tested on millions of values of every magnitude).
Each distinct row is formatted once (a strategy file is mostly repeats).
"""

from __future__ import annotations

import re

import numpy as np
import orjson
import pandas as pd

#: odd 64-bit multipliers mixing a row's three words into one hash (:func:`distinct_rows`)
_ROW_HASH = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], np.uint64)

# orjson's notation -> repr's, for values in [0, 1]: a one-digit exponent gets a leading zero
# ("e-7" -> "e-07"); values in [1e-6, 1e-4), positional in orjson, are scientific in repr
# ("0.000012" -> "1.2e-05"). In [0, 1] only a number's integer part is followed by ".", so
# "0.0000" starts a number: no look-behind, which would make the search ten times slower
_ONE_DIGIT_EXPONENT = re.compile(rb"e-(\d)(?!\d)")
_POSITIONAL_SMALL = re.compile(rb"0\.0000(0?)([1-9])(\d*)")


def _two_digits(m: re.Match) -> bytes:
    return b"e-0" + m[1]


def _scientific(m: re.Match) -> bytes:
    fifth_zero, first, rest = m.groups()
    return first + (b"." + rest if rest else b"") + (b"e-06" if fifth_zero else b"e-05")


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of a float64 (n, 3) array, bit for bit:
    ``rows[first][inverse]`` is ``rows``. Rows are hashed to one uint64 and factorised by
    pandas (7 times faster than ``np.unique`` on 24-byte keys: a team-leduc strategy file
    took 49 ms); the result is checked exactly, and a hash collision falls back to
    ``np.unique``."""
    bits = rows.view(np.uint64)
    with np.errstate(over="ignore"):  # wraps around: a hash
        h = bits[:, 0] * _ROW_HASH[0]
        h += bits[:, 1] * _ROW_HASH[1]
        h += bits[:, 2] * _ROW_HASH[2]
    inverse, uniques = pd.factorize(h)
    first = np.empty(len(uniques), np.int64)
    first[inverse[::-1]] = np.arange(len(rows) - 1, -1, -1)  # first occurrence of each
    if np.array_equal(bits[first][inverse], bits):
        return first, inverse
    keys = rows.view(np.dtype((np.void, 24))).ravel()  # a collision: sort the bytes
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _as_repr(text: bytes) -> bytes:
    """orjson's text of values in [0, 1] rewritten in ``repr``'s notation (same digits)."""
    if b"e-" in text:
        # a function, not the template rb"e-0\1", which re expands in Python (twice as slow)
        text = _ONE_DIGIT_EXPONENT.sub(_two_digits, text)
    if b"0.0000" in text:
        text = _POSITIONAL_SMALL.sub(_scientific, text)
    return text


def _lines(rows: np.ndarray) -> np.ndarray:
    """Object array of each row's line ``a,b,c\\n`` (bytes), ``repr`` of each value."""
    lines = np.empty(len(rows), dtype=object)
    # NaN fails both comparisons; -0.0 passes, and both write it "-0.0"
    fast = ((rows >= 0.0) & (rows <= 1.0)).all(axis=1)
    if fast.any():
        text = _as_repr(
            orjson.dumps(np.ascontiguousarray(rows[fast]), option=orjson.OPT_SERIALIZE_NUMPY)
        )
        lines[fast] = [line + b"\n" for line in text[2:-2].split(b"],[")]
    for i in np.flatnonzero(~fast).tolist():
        a, b, c = rows[i].tolist()
        lines[i] = f"{a!r},{b!r},{c!r}\n".encode()
    return lines


def format_rows(probs: np.ndarray) -> bytes:
    """CSV bytes of an (n, 3) probability array: shortest round-trip decimals (``repr``'s
    text, byte for byte), ``\\n`` endings."""
    rows = np.ascontiguousarray(np.asarray(probs, dtype=np.float64).reshape(-1, 3))
    first, inverse = distinct_rows(rows)
    # numpy's take of the lines: twice a list comprehension's speed
    return b"".join(_lines(rows[first]).take(inverse))
