"""The submission model: exact round trips, the vectorised CSV check against a line-by-line
reference, atomic writes, and merging two teams' mixtures."""

import math
import re
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamleduc.config import get_config
from teamleduc.files.csv_format import parse_meta, parse_strategy_csv
from teamleduc.files.findings import SubmissionError
from teamleduc.files.model import Submission, combine_teams, merge_team_mixtures, uniform_submission
from teamleduc.files.reading import load_submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree

TINY = get_config("tiny-team")
TABLES = infoset_tables(build_tree(TINY))


def random_submission(config, seats, num_signals, seed=0, *, pure_rows=0.2, signals=None):
    """Random behavioural strategies, a share ``pure_rows`` of the rows pure (c), random signal
    probabilities; signals 1, 4, 7, ... unless given."""
    rng = np.random.default_rng(seed)
    tables = infoset_tables(build_tree(config))
    probs = rng.random(num_signals) + 0.1
    strategies = {}
    for s in seats:
        a = rng.random((num_signals, tables[s].size, 3)) * tables[s].legal
        if pure_rows:
            a[rng.random(a.shape[:2]) < pure_rows] *= np.array([1.0, 0.0, 0.0])
            a[a.sum(axis=2) == 0] = [1.0, 0.0, 0.0]
        strategies[s] = a / a.sum(axis=2, keepdims=True)
    signals = np.arange(num_signals) * 3 + 1 if signals is None else signals
    return Submission(signals, probs / probs.sum(), seats, strategies)


def assert_same(a: Submission, b: Submission):
    assert a.seats == b.seats
    assert np.array_equal(a.signals, b.signals)
    assert np.array_equal(a.probs.view(np.int64), b.probs.view(np.int64))
    for s in a.seats:
        assert np.array_equal(a.strategies[s].view(np.int64), b.strategies[s].view(np.int64))


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("suffix", ["", ".zip"])
@pytest.mark.parametrize("seats", [(0, 1, 2, 3), (0, 2), (1, 3)])
def test_write_then_load_gives_identical_arrays(tmp_path, suffix, seats):
    sub = random_submission(TINY, seats, 3, seed=len(seats))
    path = write_submission(sub, tmp_path / f"sub{suffix}", config=TINY)
    back = load_submission(path, TINY)  # seats detected from the files
    assert_same(sub, back)


def test_round_trip_on_team_leduc(tmp_path):
    config = get_config("team-leduc")
    sub = uniform_submission(config)
    back = load_submission(write_submission(sub, tmp_path / "s.zip"), config)
    assert_same(sub, back)
    assert back.strategies[3].shape == (1, 147_660, 3)


_row_weights = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 5e-324, 1e-300, 1 / 3, 0.1])),
    min_size=3,
    max_size=3,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(_row_weights, min_size=16, max_size=16), p=st.floats(0.01, 0.99))
def test_round_trip_is_bit_exact_for_any_floats(tmp_path_factory, rows, p):
    legal = TABLES[0].legal
    a = np.array(rows) * legal
    a[a.sum(axis=1) == 0] = legal[a.sum(axis=1) == 0]
    a = a / a.sum(axis=1, keepdims=True)
    sub = Submission(
        [0, 7],
        [p, 1 - p],
        (0, 2),
        {
            0: np.stack([a, TABLES[0].uniform_strategy()]),
            2: np.stack([TABLES[2].uniform_strategy()] * 2),
        },
    )
    if sub.problems(TINY):
        return  # e.g. sums off by more than 1e-6 after normalising
    path = write_submission(sub, tmp_path_factory.mktemp("rt") / "s")
    assert_same(sub, load_submission(path, TINY, seats=(0, 2)))


@settings(max_examples=200, deadline=None)
@given(x=st.floats(0, 1), form=st.sampled_from(["{!r}", "{:.17g}", "{:.25e}", "{:.40f}", "{:.3e}"]))
def test_any_decimal_form_reads_as_python_float(x, form):
    token = form.format(x)
    legal = TABLES[0].legal
    lines = [f"{token},{1 - float(token)!r},0" if i == 0 else "1,0,0" for i in range(16)]
    check = parse_strategy_csv(("\n".join(lines) + "\n").encode(), "f.csv", TABLES[0])
    if legal[0, 1] and abs(float(token) + (1 - float(token)) - 1) <= 1e-6:
        assert check.values is not None, check.errors
        assert check.values[0, 0] == float(token)


# ------------------------------------------------------ the vectorised check vs a reference

_NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def reference_bad_lines(data: bytes, table) -> tuple[list[int], int]:
    """The rules of spec section 3, one line at a time, as a student would read them:
    (bad 1-based lines, number of lines)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.replace(b"\r\n", b"\n")
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data.split(b"\n")[:-1]
    aligned = len(lines) == table.size
    bad = []
    for i, raw in enumerate(lines):
        fields = [f.strip(b" \t") for f in raw.split(b",")]
        ok = len(fields) == 3 and all(_NUMBER.fullmatch(f) for f in fields)
        if ok:
            v = [float(f) for f in fields]
            ok = (
                all(math.isfinite(x) and 0 <= x <= 1 for x in v)
                and abs(v[0] + v[1] + v[2] - 1) <= 1e-6
            )
            if ok and aligned:
                ok = all(x == 0 for x, legal in zip(v, table.legal[i]) if not legal)
        if not ok:
            bad.append(i + 1)
    return bad, len(lines)


_junk = st.text(alphabet="0123456789.,eE+-\t ;naifx\r1", max_size=14).map(str.encode)
_edit = st.one_of(
    st.tuples(st.just("replace"), st.integers(0, 20), _junk),
    st.tuples(st.just("insert"), st.integers(0, 20), _junk),
    st.tuples(st.just("delete"), st.integers(0, 20), st.just(b"")),
    st.tuples(
        st.just("value"),
        st.integers(0, 20),
        st.sampled_from(
            [
                b"0.5,0.5,0",
                b"1,0,0",
                b"0,1,0",
                b"0,0,1",
                b"1e999,0,0",
                b"0.5,0.5000001,0",
                b"-0,1,0",
                b"+1.,.0,0e5",
                b" 1 ,\t0,0 ",
            ]
        ),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    edits=st.lists(_edit, max_size=4),
    bom=st.booleans(),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    seat=st.integers(0, 3),
)
def test_vectorised_check_agrees_with_line_by_line_reference(edits, bom, crlf, final_newline, seat):
    table = TABLES[seat]
    lines = [",".join(repr(x) for x in row).encode() for row in table.uniform_strategy().tolist()]
    for kind, at, text in edits:
        at = min(at, len(lines))
        if kind == "replace" and at < len(lines):
            lines[at] = text
        elif kind == "insert":
            lines.insert(at, text)
        elif kind == "delete" and at < len(lines):
            del lines[at]
        elif kind == "value" and at < len(lines):
            lines[at] = text
    data = (b"\r\n" if crlf else b"\n").join(lines) + (
        (b"\r\n" if crlf else b"\n") if final_newline else b""
    )
    data = (b"\xef\xbb\xbf" if bom else b"") + data
    check = parse_strategy_csv(data, "strategy0-player1.csv", table)
    if not data.removeprefix(b"\xef\xbb\xbf"):
        assert check.values is None and "empty" in check.errors[0].message
        return
    expected, num_lines = reference_bad_lines(data, table)
    assert check.bad_lines.tolist() == expected
    assert (check.values is not None) == (not expected and num_lines == table.size)
    if check.values is not None:
        assert check.values.shape == (table.size, 3)
    listed = [f.line for f in check.errors if f.line is not None]
    assert listed == expected[:20]
    assert all(f.file == "strategy0-player1.csv" for f in check.errors)


def test_error_lines_name_the_information_set():
    table = TABLES[1]
    rows = table.uniform_strategy()
    rows[4] = [0.5, 0.6, 0.0]
    text = "".join(f"{a!r},{b!r},{c!r}\n" for a, b, c in rows.tolist())
    check = parse_strategy_csv(text.encode(), "strategy0-player2.csv", table)
    assert check.values is None and check.bad_lines.tolist() == [5]
    (f,) = check.errors
    assert (f.file, f.line, f.infoset) == ("strategy0-player2.csv", 5, table.strings[4])
    assert "sum to 1.1" in f.message and '"0.5,0.6,0.0"' in f.message


def test_errors_are_capped_per_file_with_a_count_of_the_rest():
    table = TABLES[0]
    text = b"2,0,0\n" * table.size
    check = parse_strategy_csv(text, "s.csv", table, cap=5)
    assert [f.line for f in check.errors[:5]] == [1, 2, 3, 4, 5]
    assert check.errors[5].line is None and "11 more lines with errors" in check.errors[5].message
    assert len(check.errors) == 6


# ------------------------------------------------------------------------- meta-strategy


@pytest.mark.parametrize(
    "text, line, message",
    [
        (b"0,0.5\n0,0.5\n", 2, "listed twice (first on line 1)"),
        (b"-1,1\n", 1, "not a non-negative integer"),
        (b"a,1\n", 1, "not a non-negative integer"),
        (b"1.5,1\n", 1, "not a non-negative integer"),
        (b"007,1\n", 1, "without leading zeros (7)"),
        (b"0,1.5\n", 1, "not a finite number in [0, 1]"),
        (b"0,-0.5\n1,1.5\n", 1, "not a finite number in [0, 1]"),
        (b"0,nan\n", 1, "not a finite number"),
        (b"0,1e999\n", 1, "not a finite number in [0, 1]"),
        (b"0,1,2\n", 1, "3 values where 2"),
        (b"0,0.5\n\n1,0.5\n", 2, "blank line"),
        (b"0;1\n", 1, "1 values where 2"),
        (b"0,0.5\n1,0.4\n", None, "sum to 0.9"),
        (b"", None, "empty file"),
    ],
)
def test_meta_errors(text, line, message):
    check = parse_meta(text, "meta-strategy.csv")
    assert check.errors, text
    assert check.errors[0].line == line and message in check.errors[0].message


def test_meta_accepts_close_sums_and_oddities_with_warnings():
    check = parse_meta(b"\xef\xbb\xbf0, 0.3333333\r\n5,0.6666667", "meta-strategy.csv")
    assert not check.errors
    assert check.signals == [0, 5] and check.probs == [0.3333333, 0.6666667]
    assert len(check.warnings) == 4  # BOM, CRLF, final newline, blanks


# -------------------------------------------------------------------------------- writing


def test_write_refuses_an_invalid_submission_and_writes_nothing(tmp_path):
    sub = uniform_submission(TINY)
    bad = Submission(sub.signals, [0.5], sub.seats, sub.strategies)
    with pytest.raises(ValueError, match="sum to 0.5"):
        write_submission(bad, tmp_path / "s")
    bad2 = Submission(
        sub.signals,
        sub.probs,
        sub.seats,
        {s: np.ones_like(a) / 3 for s, a in sub.strategies.items()},
    )
    with pytest.raises(ValueError, match="illegal action"):
        write_submission(bad2, tmp_path / "s.zip", config=TINY)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["s", "s.zip"])
def test_write_is_atomic(tmp_path, monkeypatch, name):
    import teamleduc.files.writing as module

    calls = []

    def failing(rows):
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        return b"1.0,0.0,0.0\n" * len(rows)

    monkeypatch.setattr(module, "format_rows", failing)
    with pytest.raises(OSError, match="disk full"):
        write_submission(uniform_submission(TINY), tmp_path / name)
    assert list(tmp_path.iterdir()) == []  # no partial output, no temporary left


def test_write_does_not_overwrite_unless_asked(tmp_path):
    sub = random_submission(TINY, (0, 1, 2, 3), 2)
    write_submission(sub, tmp_path / "s.zip")
    with pytest.raises(FileExistsError):
        write_submission(uniform_submission(TINY), tmp_path / "s.zip")
    assert_same(sub, load_submission(tmp_path / "s.zip", TINY))
    write_submission(uniform_submission(TINY), tmp_path / "s.zip", overwrite=True)
    assert load_submission(tmp_path / "s.zip", TINY).num_signals == 1
    (tmp_path / "empty").mkdir()
    write_submission(sub, tmp_path / "empty")  # an empty folder may be filled
    write_submission(uniform_submission(TINY), tmp_path / "empty", overwrite=True)
    assert sorted(p.name for p in (tmp_path / "empty").iterdir())[0] == "meta-strategy.csv"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_written_files_are_canonical(tmp_path):
    sub = Submission(
        [0, 2],
        [0.25, 0.75],
        (0, 1, 2, 3),
        {s: np.stack([TABLES[s].uniform_strategy()] * 2) for s in range(4)},
    )
    path = write_submission(sub, tmp_path / "s.zip")
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["meta-strategy.csv"] + [
            f"strategy{j}-player{i}.csv" for j in (0, 2) for i in (1, 2, 3, 4)
        ]
        assert zf.read("meta-strategy.csv") == b"0,0.25\n2,0.75\n"
        first = zf.read("strategy0-player1.csv").split(b"\n")[0]
        assert first == b"0.5,0.5,0.0"  # /C:Q???/: check or raise, no fold
    assert path.read_bytes() == write_submission(sub, tmp_path / "t.zip").read_bytes()


def test_load_raises_with_every_finding(tmp_path):
    path = write_submission(uniform_submission(TINY), tmp_path / "s")
    (path / "strategy0-player3.csv").write_text("1,0,0\n")
    (path / "strategy0-player4.csv").unlink()
    with pytest.raises(SubmissionError) as e:
        load_submission(path, TINY)
    assert e.value.file == "strategy0-player3.csv" and "1 lines where seat 3" in e.value.message
    assert [f.file for f in e.value.findings] == ["strategy0-player3.csv", "strategy0-player4.csv"]
    assert "missing" in e.value.findings[1].message


def test_loading_more_than_memory_allows_is_refused_up_front(tmp_path, monkeypatch):
    import teamleduc.files.container as module

    path = write_submission(uniform_submission(TINY), tmp_path / "s")
    monkeypatch.setattr(module, "_memory_budget", lambda: 1000)
    with pytest.raises(SubmissionError, match="too large to load: 1 signals need"):
        load_submission(path, TINY)
    from teamleduc.validate import validate_submission

    assert validate_submission(path, TINY).ok  # validation streams


def test_submission_checks_shapes():
    with pytest.raises(ValueError, match="shape"):
        Submission([0], [1.0], (0,), {0: np.zeros((16, 3))})
    with pytest.raises(ValueError, match="differ"):
        Submission([0], [1.0], (0, 2), {0: np.zeros((1, 16, 3))})
    sub = uniform_submission(TINY)
    assert sub.problems(TINY) == [] and sub.restrict((1, 3)).seats == (1, 3)


# ------------------------------------------------------------------- merging two mixtures

_mixture = (
    st.lists(st.one_of(st.just(0.0), st.floats(1e-9, 1)), min_size=1, max_size=8)
    .filter(lambda w: sum(w) > 0)
    .map(lambda w: (np.array(w) / sum(w)).tolist())
)


@settings(max_examples=300, deadline=None)
@given(pa=_mixture, pb=_mixture)
def test_merge_keeps_both_marginals(pa, pb):
    m = merge_team_mixtures(pa, pb)
    assert m.probs.size <= len(pa) + len(pb) - 1
    assert (m.probs > 0).all() and abs(m.probs.sum() - 1) < 1e-12
    for p, index in ((pa, m.index_a), (pb, m.index_b)):
        marginal = np.bincount(index, weights=m.probs, minlength=len(p))
        np.testing.assert_allclose(marginal, p, atol=1e-12)


def test_merge_examples():
    m = merge_team_mixtures([0.3, 0.7], [0.5, 0.25, 0.25])
    np.testing.assert_allclose(m.probs, [0.3, 0.2, 0.25, 0.25])
    assert m.index_a.tolist() == [0, 1, 1, 1] and m.index_b.tolist() == [0, 0, 1, 2]
    same = merge_team_mixtures([0.25, 0.75], [0.25, 0.75])
    assert same.probs.tolist() == [
        0.25,
        0.75,
    ] and same.index_a.tolist() == same.index_b.tolist() == [0, 1]
    with pytest.raises(ValueError):
        merge_team_mixtures([0.5], [1.0])


def test_combine_teams():
    a = random_submission(TINY, (0, 2), 2, seed=1)
    b = random_submission(TINY, (1, 3), 3, seed=2)
    full = combine_teams(a, b)
    assert full.seats == (0, 1, 2, 3) and full.num_signals <= 4
    m = merge_team_mixtures(a.probs, b.probs)
    assert np.array_equal(full.strategies[0], a.strategies[0][m.index_a])
    assert np.array_equal(full.strategies[3], b.strategies[3][m.index_b])
    same = combine_teams(a, random_submission(TINY, (1, 3), 2, seed=1).restrict((1, 3)))
    assert np.array_equal(same.signals, a.signals)
