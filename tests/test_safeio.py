"""Safe reading of submission containers: layouts, refused archives, size limits, no hangs."""

import os
import zipfile

import pytest

from teamleduc.files.findings import SubmissionError
from teamleduc.files.safeio import MIN_LIMIT, Container, csv_limit, npy_limit, open_container

FILES = {"meta-strategy.csv": b"0,1.0\n", "strategy0-player1.csv": b"1.0,0.0,0.0\n"}


def make_zip(path, entries, compression=zipfile.ZIP_DEFLATED):
    """entries: list of (name, bytes) or (ZipInfo, bytes); duplicates allowed on purpose."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(path, "w", compression) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def make_folder(path, files):
    path.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    return path


def read_all(container: Container) -> dict:
    return {n: container.read(n, MIN_LIMIT) for n in container.names()}


def test_limits_derive_from_the_expected_size():
    assert csv_limit(147_660) == 456 * 147_660  # about 64 MiB for team-leduc
    assert 63 * 2**20 < csv_limit(147_660) < 65 * 2**20
    assert csv_limit(16) == MIN_LIMIT
    assert npy_limit(100) == 64 * 1024 + 2400


def test_folder_at_root(tmp_path):
    with open_container(make_folder(tmp_path / "sub", FILES)) as c:
        assert c.kind == "folder" and c.top == ""
        assert read_all(c) == FILES
        assert c.display("strategy0-player1.csv") == "strategy0-player1.csv"


def test_folder_with_one_top_folder(tmp_path):
    make_folder(tmp_path / "sub" / "mine", FILES)
    with open_container(tmp_path / "sub") as c:
        assert c.top == "mine"
        assert read_all(c) == FILES
        assert c.display("meta-strategy.csv") == "mine/meta-strategy.csv"


def test_folder_nested_too_deep_is_refused(tmp_path):
    make_folder(tmp_path / "sub" / "a" / "b", FILES)
    with pytest.raises(SubmissionError, match="nested folders"):
        open_container(tmp_path / "sub")


def test_folder_files_next_to_a_folder_are_refused(tmp_path):
    make_folder(tmp_path / "sub", FILES)
    (tmp_path / "sub" / "old").mkdir()
    with pytest.raises(SubmissionError, match="folder 'old/' next to the files"):
        open_container(tmp_path / "sub")


def test_folder_symlink_is_refused(tmp_path):
    make_folder(tmp_path / "sub", FILES)
    os.symlink("/etc/passwd", tmp_path / "sub" / "strategy0-player2.csv")
    with pytest.raises(SubmissionError, match="symbolic link") as e:
        open_container(tmp_path / "sub")
    assert e.value.file == "strategy0-player2.csv"


def test_folder_fifo_is_refused_without_blocking(tmp_path):
    make_folder(tmp_path / "sub", FILES)
    os.mkfifo(tmp_path / "sub" / "strategy0-player2.csv")
    with pytest.raises(SubmissionError, match="not a regular file") as e:
        open_container(tmp_path / "sub")
    assert e.value.file == "strategy0-player2.csv"


def test_hidden_and_macos_files_are_ignored_with_a_warning(tmp_path):
    make_folder(tmp_path / "sub", {**FILES, ".DS_Store": b"\x00\x01"})
    with open_container(tmp_path / "sub") as c:
        assert c.names() == sorted(FILES)
        assert len(c.warnings) == 1 and ".DS_Store" in c.warnings[0].message
    z = make_zip(
        tmp_path / "s.zip",
        [("sub/" + n, d) for n, d in FILES.items()]
        + [("__MACOSX/sub/._meta-strategy.csv", b"junk")],
    )
    with open_container(z) as c:
        assert c.top == "sub" and read_all(c) == FILES
        assert "__MACOSX" in c.warnings[0].message


def test_huge_file_is_refused_before_reading(tmp_path):
    make_folder(tmp_path / "sub", FILES)
    big = tmp_path / "sub" / "strategy0-player2.csv"
    with open(big, "wb") as f:  # sparse: 200 MB declared, nothing written
        f.truncate(200 * 2**20)
    with open_container(tmp_path / "sub") as c:
        with pytest.raises(SubmissionError, match="above the limit") as e:
            c.read("strategy0-player2.csv", MIN_LIMIT)
    assert e.value.file == "strategy0-player2.csv"


@pytest.mark.parametrize("size", [10, 2000])
def test_a_file_that_grows_while_read_is_read_on_to_the_limit(tmp_path, monkeypatch, size):
    """The read asks for the size ``fstat`` gave, plus one byte; more bytes than that mean
    the file grew: it is read on, and refused above the limit as before."""
    import teamleduc.files.safeio as safeio

    make_folder(tmp_path / "sub", {**FILES, "strategy0-player2.csv": b"00"})
    real_fstat = os.fstat

    def fstat_before_it_grew(fd):
        st = real_fstat(fd)
        return os.stat_result((*st[:6], min(st.st_size, 2), *st[7:]))

    with open_container(tmp_path / "sub") as c:  # listed at 2 bytes
        (tmp_path / "sub" / "strategy0-player2.csv").write_bytes(b"0" * size)
        monkeypatch.setattr(safeio.os, "fstat", fstat_before_it_grew)
        if size <= 1000:
            assert c.read("strategy0-player2.csv", 1000) == b"0" * size
        else:
            with pytest.raises(SubmissionError, match="refused: more than 1,000 bytes"):
                c.read("strategy0-player2.csv", 1000)


def test_zip_at_root_and_under_one_top_folder(tmp_path):
    z = make_zip(tmp_path / "a.zip", list(FILES.items()))
    with open_container(z) as c:
        assert c.kind == "zip" and c.top == "" and read_all(c) == FILES
    z = make_zip(
        tmp_path / "b.zip", [("mine/", b"")] + [("mine/" + n, d) for n, d in FILES.items()]
    )
    with open_container(z) as c:
        assert c.top == "mine" and read_all(c) == FILES
        assert c.display("meta-strategy.csv") == "mine/meta-strategy.csv"


def test_zip_with_backslash_separators(tmp_path):
    z = make_zip(tmp_path / "w.zip", [("mine\\" + n, d) for n, d in FILES.items()])
    with open_container(z) as c:
        assert c.top == "mine" and read_all(c) == FILES


@pytest.mark.parametrize(
    "entries, message",
    [
        ([("/etc/meta-strategy.csv", b"x")], "absolute path"),
        ([("C:\\meta-strategy.csv", b"x")], "absolute path"),
        ([("\\\\server\\x.csv", b"x")], "absolute path"),
        ([("../meta-strategy.csv", b"x")], r"leaves the archive \(\.\.\)"),
        ([("top/../../x.csv", b"x")], r"leaves the archive"),
        ([("a/b/meta-strategy.csv", b"x")], "nested folders"),
        ([("a/meta-strategy.csv", b"x"), ("b/strategy0-player1.csv", b"x")], "several top folders"),
        (
            [("meta-strategy.csv", b"x"), ("a/strategy0-player1.csv", b"x")],
            "both at the top and in a folder",
        ),
        (
            [("meta-strategy.csv", b"x"), ("meta-strategy.csv", b"y")],
            "duplicate entry 'meta-strategy.csv'",
        ),
        ([], "holds no files"),
    ],
)
def test_zip_refused(tmp_path, entries, message):
    z = make_zip(tmp_path / "bad.zip", entries)
    with pytest.raises(SubmissionError, match=message) as e:
        open_container(z)
    assert e.value.file == "bad.zip"


def test_zip_symlink_entry_is_refused(tmp_path):
    info = zipfile.ZipInfo("strategy0-player1.csv")
    info.external_attr = 0o120777 << 16
    z = make_zip(tmp_path / "l.zip", [("meta-strategy.csv", b"0,1\n"), (info, b"/etc/passwd")])
    with pytest.raises(SubmissionError, match="symbolic link 'strategy0-player1.csv'"):
        open_container(z)


def test_zip_bomb_by_ratio_is_refused(tmp_path):
    # bzip2 turns 20 MB of one byte into a few dozen bytes: far beyond what deflate can do
    z = make_zip(
        tmp_path / "bomb.zip",
        [("meta-strategy.csv", b"0,1\n"), ("strategy0-player1.csv", b"0" * (20 * 2**20))],
        compression=zipfile.ZIP_BZIP2,
    )
    with open_container(z) as c, pytest.raises(SubmissionError, match="zip bomb") as e:
        c.read("strategy0-player1.csv", 64 * 2**20)
    assert e.value.file == "strategy0-player1.csv"


def test_zip_bomb_by_size_is_refused_before_decompressing(tmp_path):
    z = make_zip(
        tmp_path / "big.zip",
        [("meta-strategy.csv", b"0,1\n"), ("strategy0-player1.csv", b"0" * (3 * 2**20))],
    )
    with open_container(z) as c:
        with pytest.raises(SubmissionError, match="above the limit of 1,048,576 bytes"):
            c.read("strategy0-player1.csv", MIN_LIMIT)


def _patch_central_flags(path, bit):
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        data[at + 8] |= bit
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))


def test_encrypted_entry_is_refused(tmp_path):
    z = make_zip(tmp_path / "enc.zip", list(FILES.items()))
    _patch_central_flags(z, 0x1)
    with pytest.raises(SubmissionError, match="encrypted"):
        open_container(z)


def test_corrupt_entry_gives_a_clean_error(tmp_path):
    z = make_zip(
        tmp_path / "c.zip",
        [("meta-strategy.csv", b"0,1.0\n" * 1000)],
        compression=zipfile.ZIP_STORED,
    )
    data = bytearray(z.read_bytes())
    at = data.find(b"0,1.0\n0,1.0")
    data[at : at + 4] = b"XXXX"  # breaks the CRC
    z.write_bytes(bytes(data))
    with open_container(z) as c:
        with pytest.raises(SubmissionError, match="corrupt archive entry") as e:
            c.read("meta-strategy.csv", MIN_LIMIT)
    assert e.value.file == "meta-strategy.csv"


def test_truncated_zip_and_other_files(tmp_path):
    z = make_zip(tmp_path / "t.zip", list(FILES.items()))
    z.write_bytes(z.read_bytes()[:40])
    with pytest.raises(SubmissionError, match="not a valid zip archive"):
        open_container(z)
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(SubmissionError, match="not a folder or a .zip archive"):
        open_container(other)
    with pytest.raises(FileNotFoundError):
        open_container(tmp_path / "nowhere")


def test_submission_error_carries_file_and_line():
    e = SubmissionError("bad value", file="strategy0-player1.csv", line=7, infoset="/C:J???/")
    assert (e.file, e.line, e.infoset) == ("strategy0-player1.csv", 7, "/C:J???/")
    assert str(e) == "strategy0-player1.csv, line 7: bad value (information set /C:J???/)"
    assert e.exit_code == 1 and e.findings == [e.finding]
