"""The grader's on-disk cache: each entrant's arrays computed once, pair values kept, resumable.
Internal to :mod:`teamleduc.grade`.

Grading n entrants needs, per entrant, its correlated reach as team A and its folded weights as
team B (:mod:`teamleduc.grade`): about 36 MB on team-leduc, too much to hold for a class of a
thousand. They are written here once, as plain ``.npy`` files, and streamed block by block
into the pair products; the pair values and the worst cases are kept too, so grading again after
late submissions computes only what is new, and an interrupted grading resumes. Layout::

    entrants/KEY.json    one entrant: valid or its first problem, signals, worst case, and for
                         each array the blocks it keeps and their XXH3 checksums; sealed by its
                         own SHA-256
    entrants/KEY.a.npy   team A's correlated reach T_A, raveled: its blocks of 4,096 values
                         that are not all zero, (k, 4096) float64 (the last one padded with 0)
    entrants/KEY.b.npy   team B's folded weights W_B, likewise
    pairs/SHA.npz        a rectangle of team-A values V[row key, column key]; SHA = its bytes'
    progress/ID.SHA.npz  the partial sums of a rectangle being computed (a resume point)

``KEY`` is the SHA-256 of the cache format, the toolkit version, the preset's rules and the
submission's content, never of its path or name: renaming a folder keeps its entry, changing
one byte the loader reads makes a new one. The content is what the loader reads, read the way
it reads it (:func:`entrant_key`): the container opened by
:func:`teamleduc.files.safeio.open_container` (which refuses links, pipes, devices and bad
layouts without reading them), every member's name and size, and the bytes of the
meta-strategy and of every strategy file of a seat of the preset, each within the loader's
size limit (inside the team zips of a folder of team zips too); a baseline's canonical name; a
loaded submission's arrays. Other files (a README, a FIFO, a huge sparse file) are never read.
A zip's members are not inflated: each one is keyed by its entry's fields (name, flags,
method, CRC-32, sizes) and its bytes as stored, from its local header on, which decide what
inflating gives (so only the compressed bytes are read, and nothing is decompressed); a member
that cannot be read that way is read as the loader reads it, and keyed by what the loader reports.
Every file is written under a temporary name and renamed into place.

An all-zero block is left out: a pure strategy reaches few histories, so most blocks of a
random-pure entrant are zero, while a mixture of many signals keeps nearly all of its blocks.
Leaving them out is exact twice over: the array read back is the same bytes, and the pair
products may skip a block that is zero on either side, since its sum is +0.0 and adding +0.0
leaves every total (never -0.0) unchanged. Whatever fails a check (a short or foreign array, a block whose checksum
differs, a record or rectangle whose SHA-256 differs) is deleted and recomputed, never trusted.

Blocks are checked with XXH3-64 (the ``xxhash`` library) as they are read, about ten times as
fast as CRC-32 (docs/evaluation-and-grading.md gives the figures): a grading reads every old
entrant's arrays again, 36 GB for 1,000 dense entrants. It catches damage, as a CRC does, not
forgery (nor do the records' SHA-256 seals: whoever can write the cache can recompute them).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import io
import json
import os
import re
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import xxhash

from .. import __version__
from ..config import GameConfig

__all__ = ["BLOCK", "CorruptEntry", "EntrantRecord", "GradeCache", "entrant_key"]

#: bump when the layout, the meaning of a cached array or the key scheme changes (old entries
#: are then never matched, and are recomputed)
CACHE_FORMAT = 4

#: block length of the fixed-order sums (``teamleduc.evaluate.BLOCK``, repeated here so the
#: cache does not import the evaluator); checksums are kept per block
BLOCK = 4096


class CorruptEntry(Exception):
    """A cached array failed its check while being read; its entry has been deleted."""

    def __init__(self, key: str):
        super().__init__(f"cache entry {key[:12]} is corrupt")
        self.key = key


@dataclass(frozen=True)
class EntrantRecord:
    """What the cache knows of one entrant (arrays aside)."""

    key: str
    valid: bool
    message: str = ""
    signals: int = 0
    length: int = 0
    worst_case: tuple[float, float] | None = None
    blocks_a: tuple[int, ...] = ()  # the blocks of T_A kept (not all zero), ascending
    blocks_b: tuple[int, ...] = ()
    check_a: tuple[int, ...] = ()  # their XXH3-64 checksums, one per kept block
    check_b: tuple[int, ...] = ()

    def kept(self, which: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(blocks kept, their checksums)`` of array ``a`` or ``b``."""
        return (self.blocks_a, self.check_a) if which == "a" else (self.blocks_b, self.check_b)


# --------------------------------------------------------------------------- keys


_STRATEGY = re.compile(r"strategy\d{1,18}-player(\d{1,3})\.(csv|npy)")


def _field(h, *parts: object) -> None:
    """Parts of a key, each length-prefixed so that no two sequences hash alike."""
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogateescape")
        h.update(len(data).to_bytes(8, "little") + data)


def _read_limit(name: str, config: GameConfig) -> int | None:
    """The loader's size limit for member ``name``, or None if the loader never reads it."""
    from ..files.csv_format import CSV_FORMAT
    from ..files.format2025 import NPY_FORMAT
    from ..files.safeio import META_LIMIT, META_NAME
    from ..infosets import infoset_tables
    from ..tree import build_tree

    if name == META_NAME:
        return META_LIMIT
    m = _STRATEGY.fullmatch(name)
    if not m or not 1 <= int(m.group(1)) <= config.num_seats:
        return None
    size = infoset_tables(build_tree(config))[int(m.group(1)) - 1].size
    return (CSV_FORMAT if m.group(2) == "csv" else NPY_FORMAT).limit(size)


def _hash_container(h, container, config: GameConfig, depth: int = 0) -> None:
    """What the loader reads of an open container (see the module docstring): its kind and
    top folder, each member's name and size, and the files the loader reads, each within its
    limit (or why it cannot be read, which is what the loader reports); the team zips of a
    folder of team zips likewise. A zip's members are keyed as stored (:func:`_stored_fields`),
    without inflating them."""
    from ..files.findings import SubmissionError
    from ..files.format2025 import team_zip_name
    from ..files.safeio import open_container

    _field(h, "container", container.kind, container.top)
    teams = {team_zip_name(t) for t in config.teams} if depth == 0 else set()
    for name in container.names():
        _field(h, "member", name, container.size(name))
        if name in teams and container.kind == "folder":
            try:
                with open_container(container.members[name].ref, label=name) as inner:
                    _field(h, "team zip")
                    _hash_container(h, inner, config, depth + 1)
            except SubmissionError as e:
                _field(h, "refused", e.message)
            continue
        limit = _read_limit(name, config)
        if limit is None:
            continue
        if container.kind == "zip":
            stored = _stored_fields(container, name, limit)
            if stored is not None:
                _field(h, "stored", *stored)
                continue
        try:
            data = container.read(name, limit)
        except SubmissionError as e:
            _field(h, "refused", e.message)
            continue
        _field(h, "bytes", data)


def _stored_fields(container, name: str, limit: int) -> list | None:
    """The key's parts for zip member ``name`` read as stored, not inflated
    (:meth:`~teamleduc.files.safeio.Container.stored`): its central directory's fields and the
    SHA-256 of its bytes from its local header to the end of its compressed data, read in
    bounded chunks. They decide what inflating it gives, so they key it as the inflated bytes
    do (a member stored differently but inflating alike gets another key: a cache miss, never
    a wrong hit). None where the member cannot be read that way (above its limit, a zip bomb,
    a bad local header, overlapping entries, ...): the caller then reads it as the loader does
    and keys what the loader reports, as before."""
    from ..files.findings import SubmissionError

    digest = hashlib.sha256()
    try:
        fields, chunks = container.stored(name, limit)
        for chunk in chunks:
            digest.update(chunk)
    except SubmissionError:
        return None
    return [f"{k}={v}" for k, v in sorted(fields.items())] + [digest.digest()]


def _hash_submission(h, sub) -> None:
    h.update(np.ascontiguousarray(sub.probs, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(sub.signals, dtype=np.int64).tobytes())
    for seat in sorted(sub.strategies):
        a = np.ascontiguousarray(sub.strategies[seat], dtype=np.float64)
        h.update(f"seat {seat} {a.shape}".encode())
        h.update(a.tobytes())


def entrant_key(spec: object, config: GameConfig, baseline: bool = False) -> str | None:
    """The cache key of one entrant: a path, a baseline name (``baseline=True``) or a loaded
    submission (an object with ``probs`` and ``strategies``, or an Entrant holding one).

    None when ``spec`` is a path that does not exist or whose container is refused (nothing to
    cache; the loader reports why). A path is opened and read the way the loader reads it
    (:func:`_hash_container`), never followed into links, pipes or devices, every read bounded.
    """
    h = hashlib.sha256(f"teamleduc grade cache {CACHE_FORMAT} {__version__}\n{config!r}\n".encode())
    sub = getattr(spec, "submission", spec)
    if hasattr(sub, "strategies") and hasattr(sub, "probs"):
        h.update(b"submission\0")
        _hash_submission(h, sub)
    elif baseline:
        h.update(b"baseline\0" + str(spec).encode())
    else:
        from ..files.findings import SubmissionError
        from ..files.safeio import open_container

        try:
            with open_container(os.fspath(spec)) as container:
                h.update(b"container\0")
                _hash_container(h, container, config)
        except (SubmissionError, OSError, ValueError):
            return None
    return h.hexdigest()


# --------------------------------------------------------------------------- files


def _kept_blocks(a: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """``(indices, rows)``: the blocks of ``a`` (raveled, padded with zeros to whole blocks)
    whose bytes are not all zero, and those blocks as a (k, BLOCK) array. A block of -0.0
    is kept, so that the array read back is the same bytes."""
    a = np.ascontiguousarray(a, dtype=np.float64).ravel()
    blocks = np.zeros((-(-a.size // BLOCK), BLOCK))
    blocks.ravel()[: a.size] = a
    keep = np.flatnonzero(blocks.view(np.uint64).any(axis=1))
    return tuple(int(b) for b in keep), blocks[keep]


def _block_checksums(rows: np.ndarray) -> tuple[int, ...]:
    return tuple(_checksum(row) for row in rows)


def _checksum(block) -> int:
    """XXH3-64 of a block's bytes (an array row or a byte view)."""
    return xxhash.xxh3_64_intdigest(block)


def _seal(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


class GradeCache:
    """The cache folder of one preset (see the module docstring); safe to share between runs
    and between the grader's worker processes (every write is a rename)."""

    def __init__(self, root: str | os.PathLike[str], config: GameConfig):
        self.root = Path(root)
        self.config = config
        for sub in ("entrants", "pairs", "progress"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._entrants = str(self.root / "entrants")

    # ---------------------------------------------------------------- writing

    def _write(self, path: Path, data: bytes | np.ndarray) -> None:
        """``data`` (bytes, or an array saved as ``.npy``) to ``path``, through a temporary."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                if isinstance(data, np.ndarray):
                    np.save(f, np.ascontiguousarray(data, dtype=np.float64))
                else:
                    f.write(data)
            os.replace(tmp, path)
        except BaseException:
            _unlink(tmp)
            raise

    def remove_stale(self) -> None:
        """Delete temporary files left by processes that no longer run (a killed grading)."""
        for path in self.root.glob("*/.*.tmp"):
            try:
                pid = int(path.name.rsplit(".", 2)[-2])
                os.kill(pid, 0)
            except ProcessLookupError:
                _unlink(path)
            except (ValueError, IndexError, PermissionError, OSError):
                continue

    # ---------------------------------------------------------------- entrants

    def path(self, key: str, which: str) -> Path:
        """``entrants/KEY.json``, ``KEY.a.npy`` or ``KEY.b.npy`` (``which`` = json, a, b)."""
        if which == "json":
            return self.root / "entrants" / f"{key}.json"
        return Path(self._array_file(key, which))

    def _array_file(self, key: str, which: str) -> str:
        """``path(key, which)`` for an array, as a plain string: the pair products open the
        arrays tens of thousands of times, and building Path objects showed in profiles."""
        return f"{self._entrants}{os.sep}{key}.{which}.npy"

    def store(
        self, record: EntrantRecord, reach_a: np.ndarray | None = None, weights_b=None
    ) -> EntrantRecord:
        """Write an entrant's arrays (when given: their blocks that are not all zero) and then
        its record; returns the record with the blocks kept and their checksums. The record goes
        last, so a record on disk means its arrays are too."""
        if reach_a is not None:
            kept_a, rows_a = _kept_blocks(reach_a)
            kept_b, rows_b = _kept_blocks(weights_b)
            record = replace(
                record,
                length=int(reach_a.size),
                blocks_a=kept_a,
                blocks_b=kept_b,
                check_a=_block_checksums(rows_a),
                check_b=_block_checksums(rows_b),
            )
            self._write(self.path(record.key, "a"), rows_a)
            self._write(self.path(record.key, "b"), rows_b)
        body = asdict(record) | {"format": CACHE_FORMAT, "version": __version__}
        body["preset"] = self.config.name
        text = json.dumps({"body": body, "sha256": _seal(body)}, sort_keys=True)
        self._write(self.path(record.key, "json"), text.encode())
        return record

    def drop(self, key: str) -> None:
        """Forget one entrant (record first, so a half-deleted entry is never trusted)."""
        for which in ("json", "a", "b"):
            _unlink(self.path(key, which))

    def record(self, key: str, length: int) -> EntrantRecord | None:
        """The entrant's record, or None if there is none or it fails a check (then it is
        deleted): the record's seal, its key, format and version, and for a valid entrant
        ascending block lists within ``length`` values, one checksum per kept block, and two
        float64 ``.npy`` arrays of as many blocks. The arrays' contents are checked block by
        block when read (:meth:`read_blocks`)."""
        path = self.path(key, "json")
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            body = data["body"]
            if data["sha256"] != _seal(body):
                raise ValueError("seal")
            if (body["format"], body["version"], body["key"], body["preset"]) != (
                CACHE_FORMAT,
                __version__,
                key,
                self.config.name,
            ):
                raise ValueError("foreign record")
            worst = body["worst_case"]
            record = EntrantRecord(
                key=key,
                valid=bool(body["valid"]),
                message=str(body["message"]),
                signals=int(body["signals"]),
                length=int(body["length"]),
                worst_case=None if worst is None else (float(worst[0]), float(worst[1])),
                blocks_a=tuple(int(b) for b in body["blocks_a"]),
                blocks_b=tuple(int(b) for b in body["blocks_b"]),
                check_a=tuple(int(c) for c in body["check_a"]),
                check_b=tuple(int(c) for c in body["check_b"]),
            )
            if record.valid:
                if record.length != length:
                    raise ValueError("length")
                for which in ("a", "b"):
                    kept, checks = record.kept(which)
                    if len(checks) != len(kept) or list(kept) != sorted(set(kept)):
                        raise ValueError("blocks")
                    if kept and not 0 <= kept[0] <= kept[-1] < -(-length // BLOCK):
                        raise ValueError("blocks")
                    self._data_offset(key, which, len(kept))
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            self.drop(key)
            return None
        return record

    def _data_offset(self, key: str, which: str, blocks: int) -> int:
        """Byte offset of the data of an entrant's ``.npy`` array; ValueError unless it is a
        (blocks, BLOCK) little-endian float64 array of the right size."""
        path = self.path(key, which)
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version != (1, 0):
                raise ValueError("npy version")
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            offset = f.tell()
        if shape != (blocks, BLOCK) or dtype != np.dtype("<f8") or fortran:
            raise ValueError("npy header")
        if path.stat().st_size != offset + 8 * BLOCK * blocks:
            raise ValueError("npy size")
        return offset

    @staticmethod
    def _kept_range(record: EntrantRecord, which: str, first: int, stop: int) -> range:
        """Positions in the file of the kept blocks among ``first .. stop - 1``."""
        kept = record.kept(which)[0]
        return range(bisect.bisect_left(kept, first), bisect.bisect_left(kept, stop))

    def read_blocks(
        self,
        record: EntrantRecord,
        which: str,
        first: int,
        stop: int,
        out: np.ndarray,
        fill: bool = True,
    ) -> np.ndarray:
        """Read blocks ``first .. stop - 1`` of an entrant's array ``a`` or ``b`` into the
        start of ``out`` (a contiguous float64 row of at least ``(stop - first) * BLOCK``
        values; past the array's end come zeros), checking each kept block's checksum; the blocks
        left out are filled with zeros, unless not ``fill`` (then they are left as they were:
        for a caller that skips them). Returns which of the blocks are kept (bool, one per
        block): the others are all zero. Raises :class:`CorruptEntry` (after deleting the
        entry) if anything is wrong."""
        kept, checks = record.kept(which)
        rows = out[: (stop - first) * BLOCK].reshape(stop - first, BLOCK)
        mask = np.zeros(stop - first, dtype=bool)
        where = self._kept_range(record, which, first, stop)
        try:
            if where:
                mask[[kept[i] - first for i in where]] = True
                views = [memoryview(rows[kept[i] - first]).cast("B") for i in where]
                fd = os.open(self._array_file(record.key, which), os.O_RDONLY)
                try:
                    offset = self._header_length(fd)
                    got = os.preadv(fd, views, offset + 8 * BLOCK * where.start)
                finally:
                    os.close(fd)
                if got != 8 * BLOCK * len(where):
                    raise ValueError("short read")
                for i, view in zip(where, views, strict=True):
                    if _checksum(view) != checks[i]:
                        raise ValueError("checksum")
        except (OSError, ValueError, IndexError):
            self.drop(record.key)
            raise CorruptEntry(record.key) from None
        if fill:
            rows[~mask] = 0.0
        return mask

    def prefetch(self, record: EntrantRecord, which: str, first: int, stop: int) -> None:
        """Ask the operating system to start reading blocks ``first .. stop - 1`` of an
        entrant's array in the background (a hint: nothing happens where it is not supported),
        so that the disk reads of the next blocks overlap the products of these."""
        if not hasattr(os, "posix_fadvise"):
            return
        where = self._kept_range(record, which, first, stop)
        if not where:
            return
        try:
            fd = os.open(self._array_file(record.key, which), os.O_RDONLY)
            try:
                offset = self._header_length(fd) + 8 * BLOCK * where.start
                os.posix_fadvise(fd, offset, 8 * BLOCK * len(where), os.POSIX_FADV_WILLNEED)
            finally:
                os.close(fd)
        except (OSError, ValueError):
            pass  # the read that follows checks the entry and reports what is wrong

    @staticmethod
    def _header_length(fd: int) -> int:
        head = os.pread(fd, 10, 0)
        if len(head) != 10 or head[:8] != b"\x93NUMPY\x01\x00":
            raise ValueError("npy magic")
        return 10 + int.from_bytes(head[8:10], "little")

    def read_array(self, record: EntrantRecord, which: str) -> np.ndarray:
        """An entrant's whole array ``a`` or ``b``, checked (:class:`CorruptEntry` if not)."""
        blocks = -(-record.length // BLOCK)
        out = np.empty(blocks * BLOCK)
        self.read_blocks(record, which, 0, blocks, out)
        return out[: record.length]

    # ---------------------------------------------------------------- pair values

    def known_pairs(self, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(values, known)``, both (n, n): the cached team-A values among ``keys`` and where
        they are known. Rectangles that fail their checksum are deleted."""
        n = len(keys)
        values = np.zeros((n, n))
        known = np.zeros((n, n), dtype=bool)
        index = {k: i for i, k in enumerate(keys)}
        for path in sorted((self.root / "pairs").glob("*.npz")):
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() != path.stem:
                    raise ValueError("checksum")
                with np.load(io.BytesIO(data), allow_pickle=False) as z:
                    rows = [index.get(k, -1) for k in z["rows"].astype(str).tolist()]
                    cols = [index.get(k, -1) for k in z["cols"].astype(str).tolist()]
                    block = z["values"]
                if block.shape != (len(rows), len(cols)) or block.dtype != np.float64:
                    raise ValueError("shape")
            except (OSError, ValueError, KeyError, EOFError, zlib.error):
                _unlink(path)
                continue
            r = np.array(rows, dtype=np.int64)
            c = np.array(cols, dtype=np.int64)
            rs, cs = np.flatnonzero(r >= 0), np.flatnonzero(c >= 0)
            if rs.size and cs.size:
                values[np.ix_(r[rs], c[cs])] = block[np.ix_(rs, cs)]
                known[np.ix_(r[rs], c[cs])] = True
        return values, known

    @staticmethod
    def _npz_bytes(**arrays) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    def store_pairs(self, rows: Sequence[str], cols: Sequence[str], values: np.ndarray) -> None:
        """Keep a rectangle of computed team-A values."""
        data = self._npz_bytes(
            rows=np.array(rows, dtype="S64"),
            cols=np.array(cols, dtype="S64"),
            values=np.ascontiguousarray(values, dtype=np.float64),
        )
        self._write(self.root / "pairs" / f"{hashlib.sha256(data).hexdigest()}.npz", data)

    # ---------------------------------------------------------------- resume points

    @staticmethod
    def _rectangle_id(rows: Sequence[str], cols: Sequence[str], length: int) -> str:
        h = hashlib.sha256(f"{length} {BLOCK}\n".encode())
        h.update(("\n".join(rows) + "\n|\n" + "\n".join(cols)).encode())
        return h.hexdigest()[:32]

    def load_progress(
        self, rows: Sequence[str], cols: Sequence[str], length: int
    ) -> tuple[int, np.ndarray] | None:
        """``(blocks done, partial sums (len(rows), len(cols)))`` of an interrupted rectangle,
        or None. Resume points that fail their checksum are deleted."""
        best = None
        rid = self._rectangle_id(rows, cols, length)
        for path in (self.root / "progress").glob(f"{rid}.*.npz"):
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).hexdigest() != path.name.split(".")[1]:
                    raise ValueError("checksum")
                with np.load(io.BytesIO(data), allow_pickle=False) as z:
                    done, total = int(z["done"]), z["total"]
                if total.shape != (len(rows), len(cols)) or total.dtype != np.float64:
                    raise ValueError("shape")
            except (OSError, ValueError, KeyError, IndexError, EOFError, zlib.error):
                _unlink(path)
                continue
            if best is None or done > best[0]:
                best = (done, total)
        return best

    def save_progress(
        self, rows: Sequence[str], cols: Sequence[str], length: int, done: int, total: np.ndarray
    ) -> None:
        """Keep the partial sums of a rectangle after ``done`` blocks (older points go)."""
        rid = self._rectangle_id(rows, cols, length)
        data = self._npz_bytes(done=np.int64(done), total=np.ascontiguousarray(total))
        name = f"{rid}.{hashlib.sha256(data).hexdigest()}.npz"
        self._write(self.root / "progress" / name, data)
        for path in (self.root / "progress").glob(f"{rid}.*.npz"):
            if path.name != name:
                _unlink(path)

    def clear_progress(self, rows: Sequence[str], cols: Sequence[str], length: int) -> None:
        """Forget the resume points of a finished rectangle."""
        rid = self._rectangle_id(rows, cols, length)
        for path in (self.root / "progress").glob(f"{rid}.*.npz"):
            _unlink(path)
