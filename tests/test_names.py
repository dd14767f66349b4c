"""Names are data (issue 34): entrant names from arguments, names files, folder names and
Python reach every file, the terminal and the heatmap exactly or escaped, never raw; a name
never ends a grading; a bad names file is refused with its line."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.entrants import NamedPath, read_names_file
from teamleduc.errors import TeamLeducError
from teamleduc.files.writing import write_submission
from teamleduc.grade.entries import unique_names as _unique_names
from teamleduc.leaderboard import _csv_text, write_heatmap, write_outputs
from teamleduc.names import display_name, display_width, file_text, picture_label
from teamleduc.standings import GradeResult, InvalidEntry

from .cli_run import run
from .test_evaluate import random_submission

PRESET = "tiny-team-leduc"

#: names that broke a file, the terminal or the picture, and what the terminal shows
HOSTILE = {
    "carol$x$": "carol$x$",
    "x$\\foo$": "x$\\foo$",  # mathtext parse error: the whole grading ended in exit 3
    "e\x1b[31mred": "e\\x1b[31mred",
    "cr\rx": "cr\\rx",
    "two\nlines": "two\\nlines",
    "tab\there": "tab\\there",
    "\u202eevil\u202c": "\\u202eevil\\u202c",  # bidi override
    "zero\u200bwidth": "zero\\u200bwidth",
    "bell\x07nul\x00del\x7fc1\x85": "bell\\x07nul\\x00del\\x7fc1\\x85",
    "line\u2028sep": "line\\u2028sep",
    "b\udcff": "b\\xff",  # a non-UTF-8 folder name, as os.fsdecode keeps it
    "lone\ud800": "lone\\ud800",
    "a_b*c|d<e>&`[x](y)~": "a_b*c|d<e>&`[x](y)~",
    "张伟": "张伟",
    "émoji😀": "émoji😀",
    "   ": "   ",
    "x" * 300: "x" * 300,
}
CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]"
)


def result_of(names, invalid=()):
    n = len(names)
    values = np.random.default_rng(3).normal(size=(n, n))
    sources = tuple(f"subs/{i}" for i in range(n))
    signals = (1,) * n
    return GradeResult.ranked(PRESET, names, sources, signals, values, invalid=invalid)


# --------------------------------------------------------------------------- the policy


@pytest.mark.parametrize(("name", "shown"), HOSTILE.items())
def test_display_name_escapes_what_would_act_and_keeps_the_rest(name, shown):
    assert display_name(name) == shown
    assert not CONTROL.search(display_name(name))
    display_name(name).encode("utf-8")  # always printable to a UTF-8 terminal


def test_file_text_changes_only_what_utf8_cannot_hold():
    for name in HOSTILE:
        if not any("\ud800" <= c <= "\udfff" for c in name):
            assert file_text(name) is name
    assert file_text("b\udcff") == "b\\xff" and file_text("lone\ud800") == "lone\\ud800"


def test_display_width_counts_terminal_columns():
    assert display_width("abc") == 3 and display_width("张伟") == 4
    assert display_width("e\u0301") == 1  # a combining accent takes no column


def test_picture_label_is_literal_short_and_drawable():
    assert picture_label("carol$x$") == "carol$x$"
    assert picture_label("e\x1b[31m") == "e\\x1b[31m"
    assert picture_label("张伟") == "\\u5f20\\u4f1f"  # DejaVu Sans has no CJK: no empty boxes
    assert picture_label("x" * 300) == "x" * 31 + "…"


# --------------------------------------------------------------------------- unique names


def test_repeated_names_get_suffixes_no_other_name_has():
    assert _unique_names(["alice", "alice", "alice (2)"]) == ["alice", "alice (3)", "alice (2)"]
    assert _unique_names(["a", "a", "a", "a (2)", "a (3)"]) == ["a", "a (4)", "a (5)", "a (2)", "a (3)"]  # fmt: skip
    assert _unique_names(["x (2)", "x", "x"]) == ["x (2)", "x", "x (3)"]
    # names that look the same are repeats: NFC and NFD forms, a control and its escape
    assert _unique_names(["e\u0301", "\u00e9"]) == ["e\u0301", "\u00e9 (2)"]
    assert _unique_names(["a\x1b", "a\\x1b"]) == ["a\x1b", "a\\x1b (2)"]
    many = _unique_names(["s"] * 2000)
    assert len(set(many)) == 2000 and many[-1] == "s (2000)"
    with pytest.raises(TypeError, match="entrant 2: its name must be a str, not int"):
        _unique_names(["a", 5])


# --------------------------------------------------------------------------- names file


def names_file(tmp_path, data: bytes) -> Path:
    f = tmp_path / "names.csv"
    f.write_bytes(data)
    return f


def test_names_file_fields_are_read_by_the_csv_rules(tmp_path):
    f = names_file(
        tmp_path,
        b'\xef\xbb\xbfname,path\nplain,a\n"two\nlines",b\n"cr\rhere",c\r\n"q""uote, comma",uniform\n'
        b"e\x1b[1m,d\n\n",
    )
    got = read_names_file(f)
    assert [n.name for n in got] == ["plain", "two\nlines", "cr\rhere", 'q"uote, comma', "e\x1b[1m"]
    assert got[1].path == str(tmp_path / "b") and got[3].path == "baseline:uniform"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a,x\n" + b"n" * 140_000 + b",y\n", "line 2: a field over 131,072 characters"),
        (b"a,x\n" + b"n" * 1001 + b",y\n", "line 2: name of 1,001 characters (at most 1,000)"),
        (b"a,x\nb," + b"p" * 4097 + b"\n", "line 2: path of 4,097 characters (at most 4,096)"),
        (b'a,x\n"b\n\nc",y\n  ,z\n', "line 5: empty name"),
        (b"a,x\nb,\n", "line 2: empty path for b"),
        (b'a,x\n"b\nc","p\x00q"\n', "line 2: path holding a NUL character"),
        (b"a,x\nb\n", "line 2: expected 'name,path' (two non-empty fields)"),
        (b"a,x\nb,c,d\n", "line 2: expected 'name,path'"),
        (b'a,x\n"b,c\n', "line 2: a quoted field is never closed"),
        (b'a,x\n"b"c,d\n', "line 2: not CSV"),
        (b"a,x\n\xff,y\n", "line 2: not UTF-8 text"),
        (b"name,path\n\n", "no 'name,path' rows"),
    ],
)
def test_a_bad_names_file_is_refused_with_its_line(tmp_path, data, message):
    f = names_file(tmp_path, data)
    with pytest.raises(TeamLeducError) as e:
        read_names_file(f)
    assert str(e.value).startswith(str(f)) and message in str(e.value)
    assert e.value.exit_code == 2


def test_a_names_file_that_is_a_pipe_a_device_or_huge_is_never_read(tmp_path):
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")  # reading it would wait for a writer forever
        with pytest.raises(TeamLeducError, match="not a regular file"):
            read_names_file(tmp_path / "fifo")
    if os.path.exists("/dev/zero"):
        with pytest.raises(TeamLeducError, match="not a regular file"):
            read_names_file("/dev/zero")
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate((16 << 20) + 1)  # sparse: refused from its size
    with pytest.raises(TeamLeducError, match=r"16,777,217 bytes \(at most 16,777,216\)"):
        read_names_file(big)


def test_named_paths_are_checked_where_they_are_made(tmp_path):
    assert NamedPath(" ann ", tmp_path) == NamedPath("ann", str(tmp_path))
    with pytest.raises(TeamLeducError, match="empty name"):
        NamedPath("  ", "x")
    with pytest.raises(TeamLeducError, match="name of 1,001 characters"):
        NamedPath("n" * 1001, "x")
    with pytest.raises(TypeError, match="the name must be a str, not int"):
        NamedPath(1, "x")
    with pytest.raises(TeamLeducError, match="argument '=subs/a': empty name"):
        NamedPath.parse("=subs/a")
    with pytest.raises(TeamLeducError, match="empty name"):
        NamedPath.parse("  =subs/a")
    assert NamedPath.parse("x=") == "x="  # no path: graded (and refused) as a path
    assert NamedPath.parse("carol$x$=a") == NamedPath("carol$x$", "a")


# --------------------------------------------------------------------------- the files


def test_csv_quotes_a_carriage_return():
    """The csv module leaves a lone CR unquoted when lines end in LF; readers split there."""
    text = _csv_text([["a\rb", "c\nd", 'e"f', "g,h", 1, 0.5, float("nan")]])
    assert text == '"a\rb","c\nd","e""f","g,h",1,0.5,\n'
    assert list(csv.reader(io.StringIO(text, newline=""))) == [
        ["a\rb", "c\nd", 'e"f', "g,h", "1", "0.5", ""]
    ]


def md_columns(line: str) -> int:
    """Cells of a Markdown table row: ``|`` not escaped (after an even number of ``\\``)."""
    unescaped = re.findall(r"(?<!\\)(?:\\\\)*\|", line)
    return len(unescaped) - 1


def test_every_file_holds_every_name(tmp_path):
    names = list(HOSTILE)
    bad = InvalidEntry("bad\x1b]0;title\x07\r\n", "p\udcfe", "msg\nline2 | <b>")
    result = result_of(names, [bad])
    paths = write_outputs(result, tmp_path / "out")
    assert {p.name for p in paths} >= {"leaderboard.csv", "matrix.png", "leaderboard.html"}
    assert "heatmap_error" not in result.work
    exact = [file_text(names[i]) for i in result.order()]

    def rows(name):
        with open(tmp_path / "out" / name, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))

    board = rows("leaderboard.csv")
    assert len(board) == len(names) + 1 and [r[1] for r in board[1:]] == exact
    matrix = rows("matrix.csv")
    assert matrix[0][1:] == exact and [r[0] for r in matrix[1:]] == exact
    values = rows("values.csv")
    assert len(values) == 1 + len(names) * (len(names) - 1)
    assert rows("invalid.csv")[1] == ["bad\x1b]0;title\x07\r\n", "p\\xfe", "msg\nline2 | <b>"]
    data = json.loads((tmp_path / "out" / "grade.json").read_text(encoding="utf-8"))
    assert data["names"] == exact and data["invalid"][0]["source"] == "p\\xfe"

    # the pages: one table row per entrant, the names shown escaped, nothing raw
    md = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert not CONTROL.search(md)
    table = [line for line in md.split("\n") if line.startswith("| ")]
    assert len(table) == 1 + len(names) + 2  # heads, entrants, invalid heads and row
    # every row keeps its columns: 10 on the leaderboard, 3 for the invalid submissions
    assert [md_columns(line) for line in table] == [10] * (1 + len(names)) + [3, 3]
    assert "| carol\\$x\\$ |" in md and "| x\\$\\\\foo\\$ |" in md
    assert "| e\\\\x1b\\[31mred |" in md and "| a\\_b\\*c\\|d\\<e\\>\\&\\`\\[x\\](y)\\~ |" in md
    html = (tmp_path / "out" / "leaderboard.html").read_text(encoding="utf-8")
    assert not CONTROL.search(html) and "<b>" not in html
    assert "<td>e\\x1b[31mred</td>" in html and "<td>a_b*c|d&lt;e&gt;&amp;`[x](y)~</td>" in html


def test_the_terminal_table_escapes_names_and_lines_up():
    names = list(HOSTILE)
    result = result_of(names, [InvalidEntry("bad\x1b[2J", "p\r", "m\n")])
    text = str(result)
    assert not CONTROL.search(text)
    lines = text.split("\n")
    assert len(lines) == 2 + len(names) + 1
    assert lines[-1] == "invalid: bad\\x1b[2J (p\\r): m\\n"
    # the columns line up: the header and every row take the same terminal columns
    assert len({display_width(line) for line in lines[1:-1]}) == 1
    for name in names:
        assert display_name(name) in text


def test_the_heatmap_draws_names_literally(tmp_path, monkeypatch):
    import matplotlib.axes
    import matplotlib.text

    drawn = []
    original = matplotlib.axes.Axes.set_yticks

    def spy(self, ticks, labels=None, **kwargs):
        out = original(self, ticks, labels, **kwargs)
        drawn.extend(
            (t.label1.get_text(), t.label1.get_parse_math(), t.label1.get_usetex()) for t in out
        )
        return out

    monkeypatch.setattr(matplotlib.axes.Axes, "set_yticks", spy)
    names = list(HOSTILE)
    result = result_of(names)
    with matplotlib.rc_context({"text.usetex": True}):  # a user's rc asking for TeX
        path = write_heatmap(result, tmp_path / "m.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / ".m.png.tmp").exists()
    order = result.order()
    assert [d[0] for d in drawn] == [picture_label(names[i]) for i in order]
    assert not any(d[1] or d[2] for d in drawn)  # no mathtext, no TeX
    assert "carol$x$" in [d[0] for d in drawn]
    assert matplotlib.rcParams["text.usetex"] is False


def test_a_failing_heatmap_leaves_every_other_file(tmp_path, monkeypatch):
    from teamleduc import leaderboard

    def broken(result, path):
        raise RuntimeError("no picture today")

    monkeypatch.setattr(leaderboard, "write_heatmap", broken)
    result = result_of(["a", "b", "c"])
    paths = write_outputs(result, tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(p.name for p in paths) and "matrix.png" not in names
    assert len(names) == 7 and "leaderboard.html" in names
    assert result.work["heatmap_error"] == "matrix.png not drawn: RuntimeError: no picture today"
    assert "base64" not in (tmp_path / "out" / "leaderboard.html").read_text()


# --------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def subs(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    config = get_config(PRESET)
    for k, name in enumerate("abc"):
        write_submission(random_submission(config, 1, 300 + k), root / name)
    return root


GRADE = ["--preset", PRESET, "--jobs", "1", "--no-worst-case", "--no-cache"]


def test_mathtext_names_grade_and_draw(subs, tmp_path, capsys):
    out = tmp_path / "g"
    code, text, err = run(
        capsys,
        ["grade", f"x$\\foo$={subs / 'a'}", f"carol$x$={subs / 'b'}", f"e\x1b[31m={subs / 'c'}",
         "--out", str(out), *GRADE],
    )  # fmt: skip
    assert code == 0, err
    assert "internal error" not in err and "\x1b" not in text + err
    assert "e\\x1b[31m" in text and "carol$x$" in text
    assert (out / "matrix.png").exists() and "matrix.png" in err
    board = list(csv.reader(open(out / "leaderboard.csv", newline="", encoding="utf-8")))
    assert sorted(r[1] for r in board[1:]) == sorted(["x$\\foo$", "carol$x$", "e\x1b[31m"])


def test_names_file_repeats_and_newlines_through_the_cli(subs, tmp_path, capsys):
    f = tmp_path / "names.csv"
    f.write_bytes(f'alice,{subs / "a"}\nalice,{subs / "b"}\n"alice (2)",{subs / "c"}\n'.encode())
    code, text, err = run(
        capsys, ["grade", "--names", str(f), "--out", str(tmp_path / "g"), *GRADE]
    )
    assert code == 0, err
    board = list(csv.reader(open(tmp_path / "g" / "leaderboard.csv", newline="")))
    assert sorted(r[1] for r in board[1:]) == ["alice", "alice (2)", "alice (3)"]
    assert {r[1]: r[2] for r in board[1:]}["alice (3)"] == str(subs / "b")
    f.write_bytes(f'"two\nlines",{subs / "a"}\n"cr\rhere",{subs / "b"}\n'.encode())
    code, text, err = run(
        capsys, ["grade", "--names", str(f), "--out", str(tmp_path / "h"), "--no-heatmap", *GRADE]
    )
    assert code == 0, err
    board = list(csv.reader(open(tmp_path / "h" / "leaderboard.csv", newline="")))
    assert sorted(r[1] for r in board[1:]) == ["cr\rhere", "two\nlines"]
    assert "two\\nlines" in text and "cr\\rhere" in text and "\r" not in text
    f.write_bytes(b"a,x\n" + b"n" * 140_000 + b",y\n")
    code, text, err = run(
        capsys, ["grade", "--names", str(f), "--out", str(tmp_path / "i"), *GRADE]
    )
    assert code == 2 and f"{f}, line 2: a field over 131,072 characters" in err


def test_a_failing_heatmap_is_a_warning_on_the_cli(subs, tmp_path, capsys, monkeypatch):
    from teamleduc import leaderboard

    def broken(result, path):
        raise ValueError("cannot draw")

    monkeypatch.setattr(leaderboard, "write_heatmap", broken)
    out = tmp_path / "g"
    code, text, err = run(capsys, ["grade", str(subs / "a"), str(subs / "b"), "--out", str(out), *GRADE])  # fmt: skip
    assert code == 0
    assert "warning: matrix.png not drawn: ValueError: cannot draw" in err
    assert "matrix.png" not in err.split("wrote ")[1]
    assert (out / "leaderboard.csv").exists() and not (out / "matrix.png").exists()


def _undecodable_folder(root: Path) -> Path | None:
    """A folder named with the byte 0xff (not UTF-8), or None where the file system refuses."""
    raw = os.fsencode(root) + b"/b\xff"
    try:
        os.mkdir(raw)
    except (OSError, ValueError):
        return None
    return Path(os.fsdecode(raw))


def test_a_class_folder_with_odd_folder_names(subs, tmp_path, capsys):
    import shutil

    klass = tmp_path / "class"
    klass.mkdir()
    shutil.copytree(subs / "a", klass / "e\x1b[31mred")
    shutil.copytree(subs / "b", klass / "\u202eevil")
    odd = _undecodable_folder(klass)
    if odd is not None:
        shutil.rmtree(odd)
        shutil.copytree(subs / "c", odd)
    code, text, err = run(capsys, ["validate", str(klass), "--preset", PRESET])
    assert code == 0 and not CONTROL.search(text) and "e\\x1b[31mred" in text
    assert "\\u202eevil" in text
    code, text, err = run(capsys, ["grade", str(klass), "--out", str(tmp_path / "g"), *GRADE])
    assert code == 0, err
    assert not CONTROL.search(text + err) and "e\\x1b[31mred" in text
    board = list(csv.reader(open(tmp_path / "g" / "leaderboard.csv", newline="", encoding="utf-8")))  # fmt: skip
    want = {"e\x1b[31mred", "\u202eevil"} | ({"b\\xff"} if odd is not None else set())
    assert {r[1] for r in board[1:]} == want
    if odd is not None:
        assert "b\\xff" in text


def test_nfc_lookalikes_are_told_apart_on_the_leaderboard():
    names = _unique_names([unicodedata.normalize("NFD", "José"), "José"])
    assert names[1] == "José (2)"
