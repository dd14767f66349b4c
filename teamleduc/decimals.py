"""CSV lines of probability rows: each float as its shortest round-trip decimal, quickly.

``repr`` of a Python float is the shortest decimal that reads back to the same double, so
writing and reading again gives identical arrays; but it costs about a microsecond a value,
and a 100-signal team-leduc submission has 177 M values (its files' distinct rows alone hold
8 M). orjson formats a float64 array with the same shortest round-trip digits about 14 times
as fast. It writes some numbers in another notation (``1.5e-7`` and ``0.000012`` where
``repr`` writes ``1.5e-07`` and ``1.2e-05``), which :func:`_as_repr` rewrites, so the bytes
are exactly ``repr``'s: rows of finite values in [0, 1] (every valid strategy row) take this
path, any other row ``repr`` itself (tested on millions of values of every magnitude).
Each distinct row is formatted once (a strategy file is mostly repeats): the distinct rows and
the copying of their lines into the file's bytes are compiled
(:mod:`teamleduc.decimal_kernels`).
"""

from __future__ import annotations

import re

import numpy as np
import orjson

# orjson's notation -> repr's, for values in [0, 1]: a one-digit exponent gets a leading zero
# ("e-7" -> "e-07"); values in [1e-5, 1e-4), positional in orjson (3.9 to 3.13; the "e-06"
# branch is for a version that would write 1e-6 so too), are scientific in repr
# ("0.000012" -> "1.2e-05"). In [0, 1] only a number's integer part is followed by ".", so
# "0.0000" starts a number: no look-behind, which would make the search ten times slower
_ONE_DIGIT_EXPONENT = re.compile(rb"e-(\d)(?!\d)")
_POSITIONAL_SMALL = re.compile(rb"0\.0000(0?)([1-9])(\d*)")


def _two_digits(m: re.Match) -> bytes:
    return b"e-0" + m[1]


def _scientific(m: re.Match) -> bytes:
    fifth_zero, first, rest = m.groups()
    return first + (b"." + rest if rest else b"") + (b"e-06" if fifth_zero else b"e-05")


def _as_repr(text: bytes) -> bytes:
    """orjson's text of values in [0, 1] rewritten in ``repr``'s notation (same digits)."""
    if b"e-" in text:
        # a function, not the template rb"e-0\1", which re expands in Python (twice as slow)
        text = _ONE_DIGIT_EXPONENT.sub(_two_digits, text)
    if b"0.0000" in text:
        text = _POSITIONAL_SMALL.sub(_scientific, text)
    return text


def _fast_lines(rows: np.ndarray) -> bytes:
    """The lines ``a,b,c\n`` of rows of values in [0, 1] (at least one row), by orjson."""
    text = _as_repr(orjson.dumps(np.ascontiguousarray(rows), option=orjson.OPT_SERIALIZE_NUMPY))
    return text[2:-2].replace(b"],[", b"\n") + b"\n"


def _lines(rows: np.ndarray) -> tuple[bytes, np.ndarray]:
    """Each row's line ``a,b,c\n`` (``repr`` of each value), all in one bytes, and the (m + 1,)
    offsets where the lines start and the last ends."""
    # NaN fails both comparisons; -0.0 passes, and both write it "-0.0"
    fast = ((rows >= 0.0) & (rows <= 1.0)).all(axis=1)
    if fast.all() and len(rows):
        blob = _fast_lines(rows)
        ends = np.flatnonzero(np.frombuffer(blob, np.uint8) == ord("\n")) + 1
        return blob, np.concatenate([[0], ends])
    lines = np.empty(len(rows), dtype=object)
    if fast.any():
        lines[fast] = [line + b"\n" for line in _fast_lines(rows[fast]).splitlines()]
    for i in np.flatnonzero(~fast).tolist():
        a, b, c = rows[i].tolist()
        lines[i] = f"{a!r},{b!r},{c!r}\n".encode()
    lengths = np.fromiter(map(len, lines), np.int64, len(lines))
    return b"".join(lines), np.concatenate([[0], np.cumsum(lengths)])


def format_rows(probs: np.ndarray) -> bytes:
    """CSV bytes of an (n, 3) probability array: shortest round-trip decimals (``repr``'s
    text, byte for byte), ``\n`` endings."""
    from .decimal_kernels import distinct_rows, gathered_lines  # numba: only when writing

    rows = np.ascontiguousarray(np.asarray(probs, dtype=np.float64).reshape(-1, 3))
    first, inverse = distinct_rows(rows)
    blob, offsets = _lines(rows[first])
    return gathered_lines(blob, offsets.astype(np.int64), inverse)
