"""The grading cache's key of a zip entrant, read as stored (not inflated).

:func:`teamleduc.grade.cache.entrant_key` keys each member of a zip that the loader reads by
its entry's fields and its compressed bytes (:meth:`teamleduc.files.safeio.Container.stored`),
so a re-grade reads the archive's bytes once and decompresses nothing. The key still changes
whenever what the loader sees changes; a member that cannot be read as stored (a hostile
entry) is read as the loader reads it and keyed by what the loader reports, as before.
"""

import shutil
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from teamleduc.baselines import baseline
from teamleduc.config import get_config
from teamleduc.entrants import load_entrant
from teamleduc.files.convert import convert
from teamleduc.files.findings import SubmissionError
from teamleduc.files.safeio import MIN_LIMIT, Container, open_container
from teamleduc.files.writing import write_submission
from teamleduc.grade.cache import entrant_key

PRESET = "tiny-team-leduc"
CONFIG = get_config(PRESET)
S2 = "strategy0-player2.csv"
S4 = "strategy0-player4.csv"
WHEN = (2025, 1, 2, 3, 4, 6)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, bytes]:
    """The files of a valid submission (the cautious baseline): four strategy files of the
    same size (4,416 bytes) and different contents."""
    folder = tmp_path_factory.mktemp("files") / "cautious"
    write_submission(baseline("cautious", CONFIG), folder)
    out = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
    assert len({len(out[S2]), len(out[S4])}) == 1 and out[S2] != out[S4]
    return out


def make_zip(path: Path, files: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> Path:
    """A zip of ``files`` with a fixed date, so that the same files give the same bytes."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=WHEN)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return path


def keyed_as_read(monkeypatch, path: Path, members: set[str]) -> str | None:
    """The key with ``members`` read as the loader reads them (inflated, or refused with the
    loader's message): how every member was keyed before."""
    real = Container.stored

    def stored(self, name, *args, **kwargs):
        if name in members:
            raise SubmissionError("read it inflated")
        return real(self, name, *args, **kwargs)

    with monkeypatch.context() as mp:
        mp.setattr(Container, "stored", stored)
        return entrant_key(path, CONFIG)


def never_inflate(monkeypatch) -> None:
    """Make every way of inflating a zip member fail the test."""

    def fail(*_, **__):
        raise AssertionError("a zip member was inflated")

    monkeypatch.setattr(Container, "read", fail)
    monkeypatch.setattr(zipfile.ZipFile, "open", fail)
    monkeypatch.setattr(zlib, "decompressobj", fail)


def patch_central(path: Path, name: str, offset: int, fmt: str, value: int) -> Path:
    """Overwrite a field (``fmt`` at ``offset``) of ``name``'s central directory header."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + length] == name.encode():
            struct.pack_into(fmt, data, at + offset, value)
            path.write_bytes(bytes(data))
            return path
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"no central header for {name}")


# ------------------------------------------------------------------ what changes the key


def test_one_changed_byte_changes_the_key_and_the_same_bytes_keep_it(tmp_path, files):
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        key = entrant_key(make_zip(tmp_path / "a.zip", files, method), CONFIG)
        assert key is not None
        # the same files written again, and the same bytes under another name: the same key
        assert entrant_key(make_zip(tmp_path / "again.zip", files, method), CONFIG) == key
        shutil.copy(tmp_path / "a.zip", tmp_path / "copy.zip")
        assert entrant_key(tmp_path / "copy.zip", CONFIG) == key
        # one digit of one strategy file changed (same size): another key
        data = files[S2]
        at = data.index(b"1")
        changed = data[:at] + b"2" + data[at + 1 :]
        assert len(changed) == len(data)
        other = make_zip(tmp_path / "b.zip", files | {S2: changed}, method)
        assert entrant_key(other, CONFIG) not in (None, key)


def test_a_renamed_member_changes_the_key(tmp_path, files):
    key = entrant_key(make_zip(tmp_path / "a.zip", files), CONFIG)
    # two strategy files of the same size swap names: the same names and sizes, other contents
    swapped = make_zip(tmp_path / "b.zip", files | {S2: files[S4], S4: files[S2]})
    assert entrant_key(swapped, CONFIG) not in (None, key)
    # the files in a top folder, then in a folder of another name
    mine = make_zip(tmp_path / "c.zip", {f"mine/{n}": d for n, d in files.items()})
    yours = make_zip(tmp_path / "d.zip", {f"yours/{n}": d for n, d in files.items()})
    assert None not in (entrant_key(mine, CONFIG), entrant_key(yours, CONFIG))
    assert len({key, entrant_key(mine, CONFIG), entrant_key(yours, CONFIG)}) == 3
    # a member the loader does not read, renamed: its name counts, its bytes are not read
    notes = make_zip(tmp_path / "e.zip", files | {"notes.txt": b"hello"})
    readme = make_zip(tmp_path / "f.zip", files | {"readme.txt": b"hello"})
    assert len({key, entrant_key(notes, CONFIG), entrant_key(readme, CONFIG)}) == 3


def test_stored_and_deflated_zips_of_the_same_files_have_two_keys(tmp_path, files):
    """The key hashes the bytes as stored, so the same files compressed otherwise get another
    key: a cache miss, never a wrong hit (the loader sees the same submission in both)."""
    plain = make_zip(tmp_path / "stored.zip", files, zipfile.ZIP_STORED)
    packed = make_zip(tmp_path / "deflated.zip", files, zipfile.ZIP_DEFLATED)
    keys = entrant_key(plain, CONFIG), entrant_key(packed, CONFIG)
    assert None not in keys and keys[0] != keys[1]
    a, b = load_entrant(plain, CONFIG).submission, load_entrant(packed, CONFIG).submission
    assert np.array_equal(a.probs, b.probs) and sorted(a.strategies) == [0, 1, 2, 3]
    for seat in a.strategies:
        assert np.array_equal(a.strategies[seat], b.strategies[seat])
    assert entrant_key(a, CONFIG) == entrant_key(b, CONFIG)  # the loaded arrays: one key


# ------------------------------------------------------------------ nothing is inflated


def test_the_key_of_a_zip_inflates_nothing(tmp_path, files, monkeypatch):
    """A zip, a zip behind a 1 TB sparse prefix and a folder of team zips are keyed without
    inflating a member: the same keys with every way of inflating made to fail."""
    z = make_zip(tmp_path / "a.zip", files)
    big = tmp_path / "big.zip"
    with open(big, "wb") as f:
        f.truncate(1 << 40)
        f.seek(1 << 40)
        f.write(z.read_bytes())
    sub = tmp_path / "sub"
    sub.mkdir()
    for name, data in files.items():
        (sub / name).write_bytes(data)
    convert(sub, tmp_path / "teams", "npy2025", CONFIG)
    paths = [z, big, tmp_path / "teams"]
    keys = [entrant_key(p, CONFIG) for p in paths]
    assert None not in keys and keys[0] == keys[1] != keys[2]
    never_inflate(monkeypatch)
    assert [entrant_key(p, CONFIG) for p in paths] == keys


def test_stored_yields_the_entry_from_its_local_header_in_bounded_chunks(tmp_path, files):
    z = make_zip(tmp_path / "a.zip", files)
    raw = z.read_bytes()
    with zipfile.ZipFile(z) as zf:
        info = zf.getinfo(S2)
    with open_container(z) as c:
        fields, chunks = c.stored(S2, MIN_LIMIT, chunk=16)
        parts = list(chunks)
    assert fields == {
        "name": S2,
        "flags": info.flag_bits,
        "method": zipfile.ZIP_DEFLATED,
        "crc": zlib.crc32(files[S2]),
        "compress_size": info.compress_size,
        "file_size": len(files[S2]),
    }
    start = info.header_offset
    end = start + 30 + len(S2) + len(info.extra) + info.compress_size
    assert b"".join(parts) == raw[start:end] and raw[start : start + 4] == b"PK\x03\x04"
    assert max(map(len, parts)) == 16 and len(parts) == -(-(end - start) // 16) > 5
    assert zlib.decompress(b"".join(parts)[end - start - info.compress_size :], -15) == files[S2]
    with open_container(tmp_path / "a.zip") as c, pytest.raises(SubmissionError, match="above"):
        c.stored(S2, 100)
    with open_container(z.parent) as c, pytest.raises(ValueError, match="not of a zip"):
        c.stored("a.zip", MIN_LIMIT)


# ------------------------------------------------------------------ hostile entries


def _local_name(path: Path) -> Path:
    """The local header of S2 names another file than the central directory does."""
    data = path.read_bytes()
    at = data.index(S2.encode())  # the local header comes first
    path.write_bytes(data[:at] + b"strategy0-player9.csv" + data[at + len(S2) :])
    return path


HOSTILE = {
    # name: (how the zip is spoiled, the member that cannot be read as stored, stored's message)
    "local header disagrees": (_local_name, S2, "the local header names"),
    "overlapping entries": (
        lambda p: patch_central(p, "meta-strategy.csv", 20, "<L", 200),  # runs into the next
        "meta-strategy.csv",
        "overlaps the next entry",
    ),
    "huge compressed size": (
        lambda p: patch_central(p, S2, 20, "<L", 0xFFFFFFF0),
        S2,
        "4,294,967,280 compressed bytes for 4,416 declared",
    ),
    "huge declared size": (
        lambda p: patch_central(p, S2, 24, "<L", 0xFFFFFFF0),
        S2,
        "zip bomb",
    ),
    "above its limit": (
        lambda p: patch_central(
            patch_central(p, S2, 24, "<L", MIN_LIMIT + 1), S2, 20, "<L", 2000
        ),  # and a compressed size that a deflated file of that size can have
        S2,
        "above the limit of 1,048,576 bytes",
    ),
    "unknown method": (lambda p: patch_central(p, S2, 10, "<H", 99), S2, "not supported"),
    "patched data flag": (
        lambda p: patch_central(p, S2, 8, "<H", 0x20),
        S2,
        "compressed patched data",
    ),
    "local header past the end": (
        lambda p: patch_central(p, S2, 42, "<L", 0xFFFFFF00),
        S2,
        "bad local header",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_entry_is_keyed_as_the_loader_reads_it(tmp_path, files, monkeypatch, case):
    """An entry that cannot be read as stored is read as the loader reads it (inflated within
    its limit, or refused with the loader's message), so it is keyed as it was before; the
    other members are still read as stored."""
    spoil, member, message = HOSTILE[case]
    good = entrant_key(make_zip(tmp_path / "good.zip", files), CONFIG)
    bad = spoil(make_zip(tmp_path / "bad.zip", files))
    with open_container(bad) as c, pytest.raises(SubmissionError, match=message) as e:
        fields, chunks = c.stored(member, MIN_LIMIT)
        list(chunks)
    assert e.value.file == member
    key = entrant_key(bad, CONFIG)
    assert key not in (None, good)
    assert key == keyed_as_read(monkeypatch, bad, {member})
    assert key != keyed_as_read(monkeypatch, bad, set(files))  # the others were read as stored


def test_a_corrupt_entry_is_keyed_by_its_stored_bytes(tmp_path, files, monkeypatch):
    """A stored entry whose CRC fails: the loader refuses it; the key reads its bytes as
    stored (they decide that refusal), and another corruption gives another key."""
    z = make_zip(tmp_path / "a.zip", files, zipfile.ZIP_STORED)
    good = entrant_key(z, CONFIG)
    data = z.read_bytes()
    at = data.index(files[S2]) + 100
    keys = set()
    for byte in (b"7", b"8"):
        z.write_bytes(data[:at] + byte + data[at + 1 :])
        with open_container(z) as c, pytest.raises(SubmissionError, match="corrupt archive"):
            c.read(S2, MIN_LIMIT)
        with monkeypatch.context() as mp:
            never_inflate(mp)
            keys.add(entrant_key(z, CONFIG))
    assert len(keys) == 2 and None not in keys and good not in keys
