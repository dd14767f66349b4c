"""The 2025 course formats: infoset file layout, the order permutation, safe .npy reading,
team zips, and lossless conversion both ways."""

import io
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from teamleduc.cli import cli
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.files.convert import convert
from teamleduc.files.findings import SubmissionError
from teamleduc.files.format2025 import (
    COLUMNS_2025,
    name_2025,
    npy_bytes,
    orders_2025,
    parse_strategy_npy,
    read_infosets_2025,
    write_infosets_2025,
    write_submission_2025,
    write_team_zip,
)
from teamleduc.files.model import merge_team_mixtures, uniform_submission
from teamleduc.files.reading import load_submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree

from . import test_submission

Y25 = get_config("team-leduc-2025")
TREE25 = build_tree(Y25)
TINY = get_config("tiny-team")


def random_submission(config, seats, num_signals, seed=0, signals=None):
    """Fully mixed random strategies, signals 0, 1, ... unless given."""
    return test_submission.random_submission(
        config,
        seats,
        num_signals,
        seed,
        pure_rows=0.0,
        signals=np.arange(num_signals) if signals is None else signals,
    )


def assert_same(a, b):
    assert a.seats == b.seats and np.array_equal(a.signals, b.signals)
    assert np.array_equal(a.probs.view(np.int64), b.probs.view(np.int64))
    for s in a.seats:
        assert np.array_equal(a.strategies[s].view(np.int64), b.strategies[s].view(np.int64))


# ------------------------------------------------------------------------ names and order


@pytest.mark.parametrize(
    "spec, name",
    [
        ("/C:J???/P1:c/P2:c/P3:c/P4:c/C:J/", "J???/P1:C/P2:C/P3:C/P4:C/C:J"),
        ("/C:?J??/P1:c/", "?J??/P1:C"),
        ("/C:J???/", "J???"),
        ("/C:???K/P1:r/P2:f/P3:f/", "???K/P1:R/P2:F/P3:F"),
    ],
)
def test_names(spec, name):
    assert name_2025(spec) == name


def test_infosets_file_layout(tmp_path):
    paths = write_infosets_2025(TREE25, tmp_path)
    assert [p.name for p in paths] == [f"player_{i}_infosets.txt" for i in (1, 2, 3, 4)]
    text = paths[0].read_text()
    lines = text.split("\n")
    assert text.endswith("\n") and len(lines) == 11_565 + 1
    assert lines[0] == "    0 " + "J???".ljust(111) + "CR"
    assert lines[1] == "    1 " + "J???/P1:C/P2:C/P3:C/P4:C/C:J".ljust(111) + "CR"
    names, actions = read_infosets_2025(paths[0])
    assert names == sorted(names) and len(set(names)) == 11_565
    assert set(actions) <= {"CR", "CF", "CFR", "C"} and "CFR" in actions
    tables = infoset_tables(TREE25)
    for seat, path in enumerate(paths):
        names, actions = read_infosets_2025(path)
        assert names == sorted(name_2025(s) for s in tables[seat].strings)
        order = orders_2025(TREE25)[seat]
        assert actions == [
            "".join(c for c, ok in zip("CFR", row) if ok) for row in order.legal.tolist()
        ]


def test_infosets_command(tmp_path):
    r = CliRunner().invoke(
        cli, ["infosets", "--preset", "team-leduc-2025", "--format", "2025", "--out", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"player_{i}_infosets.txt" for i in (1, 2, 3, 4)
    ]


def test_names_too_long_for_the_2025_field_are_refused(tmp_path):
    with pytest.raises(TeamLeducError, match="up to 163 characters"):
        write_infosets_2025(build_tree(get_config("team-leduc")), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_read_infosets_reports_the_bad_line(tmp_path):
    path = write_infosets_2025(TREE25, tmp_path)[1]
    rows = path.read_text().split("\n")
    rows[7], rows[8] = rows[8], rows[7]
    path.write_text("\n".join(rows))
    with pytest.raises(SubmissionError) as e:
        read_infosets_2025(path)
    assert e.value.line == 8 and e.value.file == "player_2_infosets.txt"


def test_permutation_is_consistent_with_the_tables():
    tables = infoset_tables(TREE25)
    for order, table in zip(orders_2025(TREE25), tables):
        assert sorted(order.perm.tolist()) == list(range(table.size))
        assert np.array_equal(order.perm[order.inverse], np.arange(table.size))
        assert np.array_equal(order.legal, table.legal[order.perm][:, [0, 2, 1]])
        assert [name_2025(table.strings[i]) for i in order.perm[:50].tolist()] == list(
            order.names[:50]
        )
    assert COLUMNS_2025.tolist() == [0, 2, 1]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seat=st.integers(0, 3))
def test_to_2025_and_back_is_the_identity(seed, seat):
    order = orders_2025(build_tree(TINY))[seat]
    a = np.random.default_rng(seed).random((2, order.size, 3))
    b = order.to_2025(a)
    assert np.array_equal(order.from_2025(b), a)
    k = int(np.random.default_rng(seed).integers(order.size))
    assert np.array_equal(b[:, k], a[:, order.perm[k]][:, [0, 2, 1]])


# ------------------------------------------------------------------------------ .npy files


def _npy_check(values, seat=0, config=TINY):
    table = infoset_tables(build_tree(config))[seat]
    return parse_strategy_npy(
        npy_bytes(values) if isinstance(values, np.ndarray) else values,
        f"strategy0-player{seat + 1}.npy",
        table,
    )


def test_npy_reads_in_spec_order():
    order = orders_2025(build_tree(TINY))[0]
    spec = uniform_submission(TINY).strategies[0][0]
    check = _npy_check(order.to_2025(spec))
    assert not check.errors and np.array_equal(check.values, spec)


def _save(arr, **kw):
    buf = io.BytesIO()
    np.save(buf, arr, **kw)
    return buf.getvalue()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda a: b"", "empty file"),
        (lambda a: b"1,0,0\n" * 16, "not a .npy file"),
        (
            lambda a: _save(np.array([{"x": 1}] * 16, dtype=object), allow_pickle=True),
            "dtype object; expected float64",
        ),
        (lambda a: _save(a.astype(np.int64)), "dtype int64; expected float64"),
        (lambda a: _save(a.astype(np.complex128)), "dtype complex128"),
        (lambda a: _save(a.T.copy()), "shape (3, 16); seat 1 of tiny-team needs (16, 3)"),
        (lambda a: _save(a[:-1]), "shape (15, 3)"),
        (lambda a: _save(a)[:-8], "truncated"),
        (lambda a: _save(a) + b"\x00" * 8, "trailing bytes after the array"),
        (lambda a: _save(a)[:20], "corrupt .npy header"),
    ],
)
def test_npy_refused(make, message):
    a = orders_2025(build_tree(TINY))[0].to_2025(uniform_submission(TINY).strategies[0][0])
    check = _npy_check(make(a))
    assert check.values is None and message in check.errors[0].message, check.errors


def test_npy_row_errors_name_row_and_2025_name():
    order = orders_2025(build_tree(TINY))[0]
    a = order.to_2025(uniform_submission(TINY).strategies[0][0])
    k = order.names.index("Q???")  # first to act: check or raise, no fold
    a[k] = [0.5, 0.5, 0.0]  # C, F, R: fold is illegal
    a[k + 1, 0] = np.nan
    check = _npy_check(a)
    assert check.values is None and check.bad_lines.tolist() == [k, k + 1]
    first = check.errors[0]
    assert (first.file, first.line, first.infoset) == ("strategy0-player1.npy", k, "Q???")
    assert "p_F = 0.5 on an illegal action (fold is not legal here" in first.message
    assert str(first).startswith(f"strategy0-player1.npy, row {k}: ")
    assert "not a finite number" in check.errors[1].message


def test_npy_float32_and_big_endian_are_accepted():
    order = orders_2025(build_tree(TINY))[0]
    a = order.to_2025(uniform_submission(TINY).strategies[0][0])
    check = _npy_check(_save(a.astype(">f8")))
    assert (
        not check.errors and not check.warnings and np.array_equal(order.to_2025(check.values), a)
    )
    halves = np.where(a > 0, 0.5, 0.0)
    halves[halves.sum(axis=1) == 1.5] = [0.25, 0.25, 0.5]  # exact in float32
    check = _npy_check(_save(halves.astype(np.float32)))
    assert not check.errors and "widened exactly to float64" in check.warnings[0].message


# ----------------------------------------------------------------------- zips and convert


def test_team_zips_hold_flat_npy_files(tmp_path):
    sub = random_submission(Y25, (0, 1, 2, 3), 2, signals=[3, 8])
    paths = write_submission_2025(sub, tmp_path / "out", Y25)
    assert [p.name for p in paths] == ["team13.zip", "team24.zip"]
    orders = orders_2025(TREE25)
    with zipfile.ZipFile(paths[0]) as zf:
        assert sorted(zf.namelist()) == [
            "meta-strategy.csv",
            "strategy3-player1.npy",
            "strategy3-player3.npy",
            "strategy8-player1.npy",
            "strategy8-player3.npy",
        ]
        arr = np.load(io.BytesIO(zf.read("strategy8-player3.npy")), allow_pickle=False)
    assert arr.dtype == np.float64 and arr.shape == (11_565, 3)
    table = infoset_tables(TREE25)[2]
    k = orders[2].names.index("??J?/P1:C/P2:C")
    spec_id = table.parse("/C:??J?/P1:c/P2:c/")
    assert np.array_equal(arr[k], sub.strategies[2][1, spec_id][[0, 2, 1]])  # columns C, F, R


def test_csv_to_npy2025_and_back_is_lossless(tmp_path):
    sub = random_submission(Y25, (0, 1, 2, 3), 2, seed=5, signals=[0, 4])
    src = write_submission(sub, tmp_path / "src.zip")
    r = CliRunner().invoke(
        cli,
        [
            "convert",
            str(src),
            str(tmp_path / "y25"),
            "--to",
            "npy2025",
            "--preset",
            "team-leduc-2025",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "wrote" in r.output and "team13.zip" in r.output
    r = CliRunner().invoke(cli, ["validate", str(tmp_path / "y25")])  # preset follows the files
    assert (
        r.exit_code == 0
        and "2025 team zips, preset team-leduc-2025, seats 1,2,3,4, 2 signals, "
        "8 strategy files checked"
        in r.output
    ), r.output
    r = CliRunner().invoke(
        cli, ["convert", str(tmp_path / "y25"), str(tmp_path / "back"), "--to", "csv"]
    )
    assert r.exit_code == 0, r.output
    assert_same(sub, load_submission(tmp_path / "back", Y25))
    assert (tmp_path / "back" / "strategy4-player2.csv").read_bytes() == zipfile.ZipFile(src).read(
        "strategy4-player2.csv"
    )


def test_a_single_team_zip_converts_and_loads(tmp_path):
    sub = random_submission(TINY, (1, 3), 3, seed=2)
    z = write_team_zip(sub, tmp_path / "team24.zip", TINY, (1, 3))
    back = load_submission(z, TINY)
    assert_same(sub, back)
    result = convert(z, tmp_path / "csv", "csv", TINY)
    assert result.seats == (1, 3) and result.source_format == "npy2025"
    assert_same(sub, load_submission(tmp_path / "csv", TINY))


def test_npy2025_to_a_zip_needs_a_single_team(tmp_path):
    team = write_submission(random_submission(TINY, (0, 2), 2, seed=3), tmp_path / "team.zip")
    result = convert(team, tmp_path / "team13.zip", "npy2025", TINY)
    assert result.written == (str(tmp_path / "team13.zip"),)
    assert_same(load_submission(team, TINY), load_submission(tmp_path / "team13.zip", TINY))
    full = write_submission(uniform_submission(TINY), tmp_path / "full")
    r = CliRunner().invoke(
        cli,
        [
            "convert",
            str(full),
            str(tmp_path / "both.zip"),
            "--to",
            "npy2025",
            "--preset",
            "tiny-team",
        ],
    )
    assert (
        r.exit_code == 2
        and "a .zip holds one team" in r.output
        and "team13.zip and team24.zip" in r.output
    )
    assert not (tmp_path / "both.zip").exists()


def test_team_zips_with_different_metas_are_merged(tmp_path):
    a = random_submission(TINY, (0, 2), 2, seed=1)
    b = random_submission(TINY, (1, 3), 3, seed=2)
    (tmp_path / "zips").mkdir()
    write_team_zip(a, tmp_path / "zips" / "team13.zip", TINY, (0, 2))
    write_team_zip(b, tmp_path / "zips" / "team24.zip", TINY, (1, 3))
    convert(tmp_path / "zips", tmp_path / "full.zip", "csv", TINY)
    full = load_submission(tmp_path / "full.zip", TINY)
    m = merge_team_mixtures(a.probs, b.probs)
    assert full.num_signals == m.probs.size <= 4
    assert np.array_equal(full.probs, m.probs)
    assert np.array_equal(full.strategies[2], a.strategies[2][m.index_a])
    assert np.array_equal(full.strategies[1], b.strategies[1][m.index_b])
    for _team, index, probs in ((a, m.index_a, a.probs), (b, m.index_b, b.probs)):
        np.testing.assert_allclose(np.bincount(index, weights=full.probs), probs, atol=1e-15)


def test_a_zip_of_team_zips_gets_a_hint(tmp_path):
    write_submission_2025(uniform_submission(TINY), tmp_path / "zips", TINY)
    with zipfile.ZipFile(tmp_path / "all.zip", "w") as zf:
        for p in sorted((tmp_path / "zips").iterdir()):
            zf.write(p, p.name)
    r = CliRunner().invoke(cli, ["validate", str(tmp_path / "all.zip"), "--preset", "tiny-team"])
    assert r.exit_code == 1 and "all.zip: this archive holds team zips: unzip it" in r.output


def test_invalid_source_writes_nothing(tmp_path):
    src = write_submission(uniform_submission(TINY), tmp_path / "src")
    (src / "strategy0-player4.csv").write_text("1,0,0\n" * 16)  # illegal raise/fold zero is fine
    (src / "strategy0-player2.csv").write_text("0,0,1\n" * 16)  # fold where it is illegal
    r = CliRunner().invoke(
        cli,
        ["convert", str(src), str(tmp_path / "out"), "--to", "npy2025", "--preset", "tiny-team"],
    )
    assert r.exit_code == 1, r.output
    assert (
        f"error: {src}: strategy0-player2.csv, line 1: p_f = 1.0 on an illegal action" in r.output
    )
    assert "nothing was written" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_convert_refuses_to_overwrite_and_bad_arguments(tmp_path):
    src = write_submission(uniform_submission(TINY), tmp_path / "src")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    args = ["convert", str(src), str(tmp_path / "out"), "--to", "npy2025", "--preset", "tiny-team"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "already exists" in r.output and "--overwrite" in r.output
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"
    r = CliRunner().invoke(cli, args + ["--overwrite"])
    assert r.exit_code == 0 and sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "team13.zip",
        "team24.zip",
    ]
    r = CliRunner().invoke(cli, ["convert", str(src), str(tmp_path / "x"), "--to", "json"])
    assert r.exit_code == 2
    r = CliRunner().invoke(
        cli, ["convert", str(tmp_path / "nowhere"), str(tmp_path / "x"), "--to", "csv"]
    )
    assert r.exit_code == 2


def test_wrong_preset_is_reported_per_file(tmp_path):
    src = write_submission(uniform_submission(TINY), tmp_path / "src")
    r = CliRunner().invoke(cli, ["validate", str(src), "--preset", "team-leduc-2025"])
    assert r.exit_code == 1
    assert (
        "strategy0-player1.csv: 16 lines where seat 1 of team-leduc-2025 has 11,565 information sets"
        in r.output
    )
