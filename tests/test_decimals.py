"""teamleduc.decimals: CSV lines of probability rows, byte for byte ``repr``'s text."""

import numpy as np
import pytest

import teamleduc.decimals as module
from teamleduc.decimals import distinct_rows, format_rows


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


def test_repeats_signed_zeros_and_hash_collisions(monkeypatch):
    """Repeated rows (a strategy file is mostly repeats), signed zeros and NaN keep their own
    text, and a collision of the row hash (forced: every row hashes to 0) gives the same
    text through the exact fallback."""
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(3), size=50)[rng.integers(0, 50, size=1000)]
    p[7] = [-0.0, 1.0, 0.0]
    p[8] = [0.0, 1.0, -0.0]
    p[9] = [np.nan, 0.5, 0.5]
    expected = _repr_text(p)
    assert format_rows(p) == expected
    first, inverse = distinct_rows(p)
    assert len(first) == len(np.unique(p.view(np.dtype((np.void, 24)))))  # by bytes
    assert (p.view(np.uint64)[first][inverse] == p.view(np.uint64)).all()
    monkeypatch.setattr(module, "_ROW_HASH", np.zeros(3, np.uint64))
    first, inverse = distinct_rows(p)
    assert len(first) == len(np.unique(p.view(np.dtype((np.void, 24)))))
    assert format_rows(p) == expected


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
