"""teamleduc.decimals: CSV lines of probability rows, byte for byte ``repr``'s text."""

import numpy as np
import pytest

from teamleduc.decimal_kernels import distinct_rows, gathered_lines
from teamleduc.decimals import format_rows


def _repr_text(rows: np.ndarray) -> bytes:
    return "".join(f"{a!r},{b!r},{c!r}\n" for a, b, c in rows.tolist()).encode()


def _every_magnitude(rng, n: int) -> np.ndarray:
    """Values in [0, 1] at every decimal magnitude down to the subnormals, random bit patterns,
    and the powers of ten with their neighbours (where the notation of repr changes)."""
    scaled = rng.random(n) * 10.0 ** rng.integers(-330, 1, n)
    bit_patterns = rng.integers(0, 0x3FF0000000000001, n, dtype=np.int64).view(np.float64)
    powers = 10.0 ** -np.arange(0, 325, dtype=np.float64)
    edges = np.concatenate(
        [powers, np.nextafter(powers, 0), np.nextafter(powers, 1), [0.0, -0.0, 1.0, 5e-324]]
    )
    return np.concatenate([scaled, bit_patterns, rng.random(n), edges])


def test_the_text_is_that_of_repr_at_every_magnitude():
    rng = np.random.default_rng(7)
    values = _every_magnitude(rng, 90_000)
    values = values[: len(values) // 3 * 3]
    rows = values.reshape(-1, 3)
    assert format_rows(rows) == _repr_text(rows)
    # and on rows that are distinct values, formatted one row per value
    single = np.stack([values, np.zeros_like(values), np.ones_like(values)], axis=1)
    assert format_rows(single) == _repr_text(single)


def test_the_text_reads_back_exactly():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(3), size=2000) ** 9  # many tiny values
    text = format_rows(p)
    back = np.array([[float(v) for v in line.split(b",")] for line in text.splitlines()])
    assert back.tobytes() == p.tobytes()


def test_rows_outside_zero_one_and_non_finite_rows_are_repr_too():
    rows = np.array(
        [
            [np.nan, 0.5, 0.5],
            [np.inf, 0.0, 1.0],
            [-1e-7, 0.5, 0.5],
            [1.5, 2e16, 123456789.0],
            [0.25, 0.25, 0.5],
            [1e-5, 1.2e-5, 9.999999999999999e-05],
        ]
    )
    assert format_rows(rows) == _repr_text(rows)
    assert format_rows(rows).splitlines()[0] == b"nan,0.5,0.5"


def test_empty_and_one_row():
    assert format_rows(np.zeros((0, 3))) == b""
    assert format_rows(np.array([[1e-6, 0.0, 0.999999]])) == b"1e-06,0.0,0.999999\n"


def test_repeats_signed_zeros_and_nan_keep_their_own_text():
    """Repeated rows (a strategy file is mostly repeats), signed zeros and NaN keep their own
    text."""
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(3), size=50)[rng.integers(0, 50, size=1000)]
    p[7] = [-0.0, 1.0, 0.0]
    p[8] = [0.0, 1.0, -0.0]
    p[9] = [np.nan, 0.5, 0.5]
    assert format_rows(p) == _repr_text(p)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000, 200_000])
def test_distinct_rows_are_those_of_numpy_by_bytes(n):
    """The compiled distinct rows against numpy's sort of the rows' bytes: the same rows, each
    at its first occurrence, in order of first occurrence; -0.0 and 0.0 differ."""
    rng = np.random.default_rng(n)
    pool = rng.dirichlet(np.ones(3), size=max(n // 10, 1))
    pool[0, 0] = -0.0 if n > 5 else pool[0, 0]
    rows = np.ascontiguousarray(pool[rng.integers(0, len(pool), size=n)])
    if n > 5:
        rows[3] = [0.0, 0.5, 0.5]
        rows[4] = [-0.0, 0.5, 0.5]
    first, inverse = distinct_rows(rows)
    keys = rows.view(np.dtype((np.void, 24))).ravel()
    _, expected_first = np.unique(keys, return_index=True)
    assert np.array_equal(first, np.sort(expected_first))
    assert (rows.view(np.uint64)[first][inverse] == rows.view(np.uint64)).all()
    assert len(first) == len(np.unique(keys))


def test_gathered_lines_joins_the_lines_in_order():
    blob = b"0.5,0.5,0.0\n1.0,0.0,0.0\nx\n"
    offsets = np.array([0, 12, 24, 26])
    assert gathered_lines(blob, offsets, np.array([1, 0, 0, 2, 1])) == (
        b"1.0,0.0,0.0\n0.5,0.5,0.0\n0.5,0.5,0.0\nx\n1.0,0.0,0.0\n"
    )
    assert gathered_lines(blob, offsets, np.array([], np.int64)) == b""


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e-4, b"0.0001"),
        (9.999999999999999e-05, b"9.999999999999999e-05"),
        (1e-05, b"1e-05"),
        (1.2e-05, b"1.2e-05"),
        (1e-06, b"1e-06"),
        (3.0000000000000005e-06, b"3.0000000000000005e-06"),
        (1.5e-07, b"1.5e-07"),
        (1e-10, b"1e-10"),
        (5e-324, b"5e-324"),
    ],
)
def test_small_values_in_the_notation_of_repr(value, text):
    assert repr(value).encode() == text
    assert format_rows(np.array([[value, 0.0, 1.0]])) == text + b",0.0,1.0\n"


def test_distinct_rows_when_rows_collide_in_the_table():
    """Rows made to share one hash (each needs another probe) go, past the probe limit, to
    numpy's sort of their bytes: the same rows, in order of first occurrence."""
    import teamleduc.decimal_kernels as kernels

    rng = np.random.default_rng(3)
    n = 3 * kernels.MAX_PROBES
    h = [int(x) for x in (kernels._H0, kernels._H1, kernels._H2)]
    inverse_h2 = pow(h[2], -1, 2**64)  # odd, so invertible modulo 2**64
    target = 12345
    bits = np.empty((n, 3), np.uint64)
    for i in range(n):
        a, b = (int(x) for x in rng.integers(0, 2**62, size=2))
        c = ((target - a * h[0] - b * h[1]) * inverse_h2) % 2**64
        bits[i] = (a, b, c)
    rows = np.ascontiguousarray(bits[rng.integers(0, n, size=4 * n)]).view(np.float64)
    assert (
        kernels._distinct(
            rows.view(np.uint64), np.empty(4 * n, np.int64), np.empty(4 * n, np.int64)
        )
        == -1
    )
    first, inverse = distinct_rows(rows)
    keys = rows.view(np.dtype((np.void, 24))).ravel()
    _, expected_first = np.unique(keys, return_index=True)
    assert np.array_equal(first, np.sort(expected_first))
    assert (rows.view(np.uint64)[first][inverse] == rows.view(np.uint64)).all()
    assert format_rows(rows) == _repr_text(rows)
