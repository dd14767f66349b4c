"""``teamleduc validate``: every malformed case gives the right exit code and a message naming
the file, the line and the information set; bad input never crashes or hangs."""

import json
import os
import shutil
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamleduc.cli import cli
from teamleduc.config import get_config
from teamleduc.files.csv_format import parse_meta
from teamleduc.files.model import Submission, uniform_submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree
from teamleduc.validate import ValidationReport, validate_submission

TINY = get_config("tiny-team")
S2 = "strategy1-player2.csv"  # signal 1, seat 2: the file most cases break


def two_signal_submission(config=TINY):
    sub = uniform_submission(config)
    return Submission(
        [0, 1],
        [0.5, 0.5],
        sub.seats,
        {s: np.concatenate([a, a]) for s, a in sub.strategies.items()},
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return write_submission(two_signal_submission(), tmp_path_factory.mktemp("valid") / "sub")


@pytest.fixture
def sub(pristine, tmp_path):
    return shutil.copytree(pristine, tmp_path / "sub")


def run(*args):
    result = CliRunner().invoke(cli, ["validate", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def lines(path):
    return path.read_bytes().split(b"\n")[:-1]


def set_line(path, number, text: bytes):
    rows = lines(path)
    rows[number - 1] = text
    path.write_bytes(b"\n".join(rows) + b"\n")


def test_valid_submission(sub):
    r = run(sub, "--preset", "tiny-team")
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert (
        last.startswith("VALID: ")
        and "CSV submission, preset tiny-team, seats 1,2,3,4, 2 signals, "
        "8 strategy files checked (16 information sets each); 0 errors, 0 warnings"
        in last
    )


def _rewrite(transform):
    def mutate(sub):
        p = sub / S2
        p.write_bytes(transform(p.read_bytes()))

    return mutate


def _line(number, text):
    return lambda sub: set_line(sub / S2, number, text)


# (mutation, exit code, expected text in the output)
CASES = {
    "empty": (_rewrite(lambda b: b""), 1, f"{S2}: empty file"),
    "binary": (
        _rewrite(lambda b: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        1,
        f"{S2}, line 3: binary data, not text (a NUL byte)",
    ),
    "utf16": (_rewrite(lambda b: b.decode().encode("utf-16")), 1, f"{S2}: UTF-16 text"),
    "bom": (
        _rewrite(lambda b: b"\xef\xbb\xbf" + b),
        0,
        f"warning: {S2}: starts with a UTF-8 byte-order mark",
    ),
    "crlf": (
        _rewrite(lambda b: b.replace(b"\n", b"\r\n")),
        0,
        f"warning: {S2}: Windows (CRLF) line endings: accepted",
    ),
    "no final newline": (
        _rewrite(lambda b: b[:-1]),
        0,
        f"warning: {S2}: no newline after the last line",
    ),
    "blanks": (
        _rewrite(lambda b: b.replace(b",", b" , ")),
        0,
        f"warning: {S2}: spaces or tabs around values",
    ),
    "extra column": (
        _line(5, b"0.5,0.0,0.5,0"),
        1,
        f'{S2}, line 5: 4 values where 3 comma-separated values are expected: "0.5,0.0,0.5,0" '
        f"(information set /C:?Q??/P1:c/P2:c/P3:c/P4:r/P1:f/)",
    ),
    "missing column": (_line(3, b"0.5,0.5"), 1, f"{S2}, line 3: 2 values where 3"),
    "semicolons": (_line(3, b"0.5;0;0.5"), 1, "separate the values with commas, not semicolons"),
    "decimal comma": (_line(3, b"0,5,0,0,5"), 1, f"{S2}, line 3: 5 values where 3"),
    "nan": (_line(3, b"nan,0.5,0.5"), 1, f"{S2}, line 3: value 1 ('nan') is not a finite number"),
    "inf": (_line(3, b"0.5,0,inf"), 1, f"{S2}, line 3: value 3 ('inf') is not a finite number"),
    "overflow": (_line(3, b"1e999,0,0"), 1, f"{S2}, line 3: p_c = inf is not a finite number"),
    "negative": (
        _line(3, b"-0.5,0,1.5"),
        1,
        f"{S2}, line 3: p_c = -0.5 is negative; p_f = 1.5 is above 1",
    ),
    "above one": (_line(4, b"1.5,0,0"), 1, f"{S2}, line 4: p_c = 1.5 is above 1"),
    "sum": (
        _line(3, b"0.5,0,0.4"),
        1,
        f"{S2}, line 3: the values sum to 0.9, not 1 (tolerance 1e-06)",
    ),
    "sum just off": (
        _line(3, b"0.5,0,0.500002"),
        1,
        f"{S2}, line 3: the values sum to 1.0000019999999998, not 1",
    ),
    "illegal fold": (
        _line(1, b"0.5,0,0.5"),
        1,
        f"{S2}, line 1: p_f = 0.5 on an illegal action (fold is not legal here; it must be 0): "
        f'"0.5,0,0.5" (information set /C:?Q??/P1:c/)',
    ),
    "illegal raise": (
        _line(3, b"0.5,0.5,0"),
        1,
        f"{S2}, line 3: p_r = 0.5 on an illegal action (raise",
    ),
    "letters": (_line(2, b"abc"), 1, f"{S2}, line 2: 1 value where 3"),
    "bad utf-8": (
        _line(2, b"0.5,0.5,0\xff"),
        1,
        f"{S2}, line 2: value 3 ('0\\xff') contains the byte 0xff (not UTF-8)",
    ),
    "letter e": (
        _line(2, b"0.5,0.5,0e"),
        1,
        f"{S2}, line 2: value 3 ('0e') is not a decimal number",
    ),
    "non-ascii": (
        _line(2, "0.5,0.5,0\u00e9".encode()),
        1,
        f"{S2}, line 2: value 3 ('0\\xe9') contains the non-ASCII character U+00E9",
    ),
    "blank line": (
        _rewrite(lambda b: b.replace(b"\n", b"\n\n", 1)),
        1,
        f"{S2}, line 2: blank line",
    ),
    "too few lines": (
        _rewrite(lambda b: b"\n".join(b.split(b"\n")[:-2]) + b"\n"),
        1,
        f"{S2}: 15 lines where seat 2 of tiny-team has 16 information sets (one line each)",
    ),
    "too many lines": (
        _rewrite(lambda b: b + b"1,0,0\n"),
        1,
        "17 lines where seat 2 of tiny-team has 16 "
        "information sets (one line each); line 17 is past",
    ),
    "bare CR": (_rewrite(lambda b: b.replace(b"\n", b"\r")), 1, "1 lines where seat 2"),
    "missing file": (
        lambda sub: (sub / "strategy1-player4.csv").unlink(),
        1,
        "strategy1-player4.csv: missing: signal 1 needs a strategy file for seat 4",
    ),
    "extra file": (
        lambda sub: (sub / "notes.txt").write_text("hi"),
        0,
        "warning: notes.txt: not read",
    ),
    "no such seat": (
        lambda sub: shutil.copy(sub / S2, sub / "strategy1-player7.csv"),
        0,
        "warning: strategy1-player7.csv: not read: tiny-team has no seat 7",
    ),
    "unlisted signal": (
        lambda sub: shutil.copy(sub / S2, sub / "strategy9-player2.csv"),
        0,
        "warning: strategy9-player2.csv: not read: signal 9 is not listed in meta-strategy.csv",
    ),
    "meta missing": (
        lambda sub: (sub / "meta-strategy.csv").rename(sub / "Meta-Strategy.csv"),
        1,
        "meta-strategy.csv: missing: every submission needs meta-strategy.csv "
        "(there is 'Meta-Strategy.csv': names are case-sensitive)",
    ),
    "meta duplicate": (
        lambda sub: (sub / "meta-strategy.csv").write_text("0,0.5\n0,0.5\n"),
        1,
        "meta-strategy.csv, line 2: signal 0 is listed twice (first on line 1)",
    ),
    "meta sum": (
        lambda sub: (sub / "meta-strategy.csv").write_text("0,0.5\n1,0.25\n"),
        1,
        "meta-strategy.csv: the probabilities sum to 0.75, not 1",
    ),
    "meta negative": (
        lambda sub: (sub / "meta-strategy.csv").write_text("0,1.5\n1,-0.5\n"),
        1,
        "meta-strategy.csv, line 2: probability -0.5 is not a finite number in [0, 1]",
    ),
    "huge file": (
        lambda sub: os.truncate(sub / S2, 5 * 2**20),
        1,
        f"{S2}: refused: 5,242,880 bytes, above the limit of 1,048,576 bytes",
    ),
    "fifo": (
        lambda sub: (os.unlink(sub / S2), os.mkfifo(sub / S2)),
        1,
        f"{S2}: refused: not a regular file",
    ),
    "symlink": (
        lambda sub: (os.unlink(sub / S2), os.symlink("/etc/passwd", sub / S2)),
        1,
        f"{S2}: refused: symbolic link",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_folder(sub, case):
    mutate, code, expected = CASES[case]
    mutate(sub)
    r = run(sub, "--preset", "tiny-team")
    assert r.exit_code == code, r.output
    assert expected in r.output, r.output
    summary = r.output.strip().splitlines()[-1]
    assert summary.startswith("VALID: " if code == 0 else "INVALID: ")


def _zip_of(sub, target, prefix=""):
    with zipfile.ZipFile(target, "w") as zf:
        for p in sorted(sub.iterdir()):
            zf.write(p, prefix + p.name)
    return target


@pytest.mark.parametrize("case", ["extra column", "illegal fold", "missing file", "bom", "crlf"])
@pytest.mark.parametrize("prefix", ["", "mine/"])
def test_malformed_zip_names_the_file_inside(sub, tmp_path, case, prefix):
    mutate, code, expected = CASES[case]
    mutate(sub)
    r = run(_zip_of(sub, tmp_path / "sub.zip", prefix), "--preset", "tiny-team")
    assert r.exit_code == code, r.output
    expected = expected.replace(S2, prefix + S2).replace(
        "strategy1-player4.csv", prefix + "strategy1-player4.csv"
    )
    assert expected in r.output, r.output


def _raw_zip(path, entries, compression=zipfile.ZIP_DEFLATED):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(path, "w", compression) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def _entries(sub, prefix=""):
    return [(prefix + p.name, p.read_bytes()) for p in sorted(sub.iterdir())]


ZIP_CASES = {
    "absolute": (
        lambda sub: _entries(sub) + [("/tmp/evil.csv", b"x")],
        "absolute path '/tmp/evil.csv'",
    ),
    "dotdot": (
        lambda sub: _entries(sub) + [("../evil.csv", b"x")],
        "path '../evil.csv' leaves the archive",
    ),
    "nested": (lambda sub: _entries(sub, "a/b/"), "nested folders ('a/b/meta-strategy.csv')"),
    "two tops": (lambda sub: _entries(sub, "a/") + [("b/x.csv", b"x")], "several top folders"),
    "duplicate": (
        lambda sub: _entries(sub) + [("meta-strategy.csv", b"0,1\n")],
        "duplicate entry 'meta-strategy.csv'",
    ),
}


@pytest.mark.parametrize("case", list(ZIP_CASES))
def test_refused_zip(sub, tmp_path, case):
    make, expected = ZIP_CASES[case]
    r = run(_raw_zip(tmp_path / "s.zip", make(sub)), "--preset", "tiny-team")
    assert r.exit_code == 1, r.output
    assert f"error: s.zip: refused: {expected}" in r.output, r.output
    assert r.output.strip().splitlines()[-1].startswith("INVALID: ")


def test_zip_bomb(sub, tmp_path):
    entries = _entries(sub)
    entries[[n for n, _ in entries].index(S2)] = (S2, b"0" * (30 * 2**20))
    z = _raw_zip(tmp_path / "bomb.zip", entries, zipfile.ZIP_BZIP2)
    assert z.stat().st_size < 100_000
    r = run(z, "--preset", "tiny-team")
    assert r.exit_code == 1 and f"{S2}: refused" in r.output and "zip bomb" in r.output, r.output
    # deflate cannot reach that ratio: the size limit stops it before anything is inflated
    z = _raw_zip(tmp_path / "big.zip", entries)
    r = run(z, "--preset", "tiny-team")
    assert r.exit_code == 1 and f"{S2}: refused: 31,457,280 bytes, above the limit" in r.output


def test_encrypted_corrupt_and_truncated_zips(sub, tmp_path):
    z = _zip_of(sub, tmp_path / "e.zip")
    data = bytearray(z.read_bytes())
    at = data.find(b"PK\x01\x02")
    data[at + 8] |= 1
    z.write_bytes(bytes(data))
    r = run(z, "--preset", "tiny-team")
    assert r.exit_code == 1 and "encrypted" in r.output

    z = _raw_zip(tmp_path / "c.zip", _entries(sub), zipfile.ZIP_STORED)
    data = bytearray(z.read_bytes())
    at = data.find(b"0.5,0.5,0.0\n")
    data[at : at + 3] = b"9.9"
    z.write_bytes(bytes(data))
    r = run(z, "--preset", "tiny-team")
    assert r.exit_code == 1 and "corrupt archive entry" in r.output, r.output

    z = _zip_of(sub, tmp_path / "t.zip")
    z.write_bytes(z.read_bytes()[:100])
    r = run(z, "--preset", "tiny-team")
    assert r.exit_code == 1 and "t.zip: not a valid zip archive" in r.output


def test_error_cap_per_file(tmp_path):
    config = get_config("small-team-leduc")
    path = write_submission(uniform_submission(config), tmp_path / "s")
    (path / "strategy0-player3.csv").write_bytes(
        b"2,0,0\n" * infoset_tables(build_tree(config))[2].size
    )
    r = run(path, "--preset", "small-team-leduc")
    assert r.exit_code == 1
    errors = [l for l in r.output.splitlines() if l.startswith("error: ")]
    assert len(errors) == 21
    assert errors[0].startswith("error: strategy0-player3.csv, line 1: p_c = 2.0 is above 1")
    assert errors[19].startswith("error: strategy0-player3.csv, line 20: ")
    assert (
        errors[20]
        == "error: strategy0-player3.csv: 796 more lines with errors not listed (the first 20 are)"
    )


def test_far_too_many_lines_and_many_missing_files(sub):
    (sub / S2).write_bytes(b"1,0,0\n" * 5000)
    (sub / "meta-strategy.csv").write_text("".join(f"{j},0.02\n" for j in range(50)))
    r = run(sub, "--preset", "tiny-team")
    assert r.exit_code == 1
    assert f"error: {S2}: 5,000 lines where seat 2 of tiny-team has 16 information sets" in r.output
    missing = [l for l in r.output.splitlines() if ": missing: signal" in l]
    assert len(missing) == 20 and missing[0].startswith("error: strategy2-player1.csv: missing")
    assert "error: submission: 172 more missing files not listed (the first 20 are)" in r.output


def test_json_report(sub):
    set_line(sub / S2, 1, b"0.5,0,0.5")
    (sub / "notes.txt").write_text("hi")
    r = run(sub, "--preset", "tiny-team", "--json")
    assert r.exit_code == 1
    report = json.loads(r.output)
    assert report["ok"] is False and report["preset"] == "tiny-team" and report["version"]
    assert (
        report["seats"] == [1, 2, 3, 4] and report["signals"] == 2 and report["files_checked"] == 8
    )
    assert report["errors"] == [
        {
            "file": S2,
            "line": 1,
            "infoset": "/C:?Q??/P1:c/",
            "message": report["errors"][0]["message"],
        }
    ]
    assert "illegal action" in report["errors"][0]["message"]
    assert report["warnings"][0]["file"] == "notes.txt"
    assert report["summary"].startswith("INVALID: ")


def test_seats_option(sub):
    r = run(sub, "--preset", "tiny-team", "--seats", "1,3")
    assert r.exit_code == 0, r.output
    assert "warning: strategy0-player2.csv: not read: seat 2 is not checked (seats 1,3)" in r.output
    assert "seats 1,3, 2 signals, 4 strategy files checked" in r.output
    for p in sub.glob("strategy*-player[24].csv"):
        p.unlink()
    r = run(sub, "--preset", "tiny-team")  # auto: the team present
    assert r.exit_code == 0 and "seats 1,3," in r.output
    r = run(sub, "--preset", "tiny-team", "--seats", "all")
    assert (
        r.exit_code == 1
        and "strategy0-player2.csv: missing: signal 0 needs a strategy file for seat 2" in r.output
    )


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--preset", "no-such-game"], "unknown preset 'no-such-game'"),
        (["--preset", "tiny-team", "--seats", "1,2"], "do not form whole teams"),
        (["--preset", "tiny-team", "--seats", "5"], "seats must be among 1..4"),
        (["--preset", "tiny-team", "--seats", "one"], "not a list of seats"),
    ],
)
def test_unusable_arguments_exit_2(sub, args, expected):
    r = run(sub, *args)
    assert r.exit_code == 2 and expected in r.output, r.output


def test_missing_path_exits_2_and_odd_paths_exit_1(tmp_path):
    r = run(tmp_path / "nowhere")
    assert r.exit_code == 2 and "does not exist" in r.output
    (tmp_path / "x.csv").write_text("0,1\n")
    r = run(tmp_path / "x.csv", "--preset", "tiny-team")
    assert r.exit_code == 1 and "x.csv: not a folder or a .zip archive" in r.output
    (tmp_path / "empty").mkdir()
    r = run(tmp_path / "empty", "--preset", "tiny-team")
    assert r.exit_code == 1 and "empty: holds no files" in r.output


def test_exit_codes_reach_the_shell_through_main(sub, capsys):
    from teamleduc.cli import main

    with pytest.raises(SystemExit) as e:
        main(["validate", str(sub), "--preset", "tiny-team"])
    assert e.value.code == 0
    set_line(sub / S2, 3, b"0.5,0,0.4")
    with pytest.raises(SystemExit) as e:
        main(["validate", str(sub), "--preset", "tiny-team"])
    assert e.value.code == 1
    with pytest.raises(SystemExit) as e:
        main(["validate", str(sub), "--seats", "1,2"])
    assert e.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_library_report(sub):
    report = validate_submission(sub, "tiny-team")
    assert isinstance(report, ValidationReport) and report.ok and report.errors == ()
    assert str(report) == report.summary
    assert report.to_dict()["infosets_per_seat"] == [16, 16, 16, 16]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(meta=st.binary(max_size=40), strategy=st.binary(max_size=300))
def test_random_bytes_never_crash(pristine, tmp_path_factory, meta, strategy):
    sub = shutil.copytree(pristine, tmp_path_factory.mktemp("fuzz") / "sub")
    (sub / "meta-strategy.csv").write_bytes(meta)
    (sub / S2).write_bytes(strategy)
    report = validate_submission(sub, TINY)
    assert str(report).endswith(report.summary)
    assert all(f.file is None or f.file.endswith(".csv") for f in report.errors + report.warnings)
    if report.ok:  # only possible if the random meta-strategy is valid
        assert not parse_meta(meta).errors
