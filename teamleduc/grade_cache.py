"""The grader's on-disk cache: each entrant's arrays computed once, pair values kept, resumable.

Grading n entrants needs, per entrant, its correlated reach as team A and its folded weights as
team B (:mod:`teamleduc.grade`): about 36 MB on team-leduc, too much to hold for a class of a
thousand. They are written here once, as plain ``.npy`` files, and streamed block by block
into the pair products; the pair values and the worst cases are kept too, so grading again after
late submissions computes only what is new, and an interrupted grading resumes. Layout::

    entrants/KEY.json    one entrant: valid or its first problem, signals, worst case, and the
                         CRC-32 of every block of its two arrays; sealed by its own SHA-256
    entrants/KEY.a.npy   team A's correlated reach T_A, raveled, (L,) float64
    entrants/KEY.b.npy   team B's folded weights W_B, raveled, (L,) float64
    pairs/SHA.npz        a rectangle of team-A values V[row key, column key]; SHA = its bytes'
    progress/ID.SHA.npz  the partial sums of a rectangle being computed (a resume point)

``KEY`` is the SHA-256 of the cache format, the toolkit version, the preset's rules and the
submission's content (every file's relative path and bytes for a folder, the bytes of a file,
the canonical name of a baseline), never of its path or name: renaming a folder keeps its
entry, changing one byte makes a new one. Every file is written under a temporary name and
renamed into place. Whatever fails a check (a short or foreign array, a block whose CRC differs,
a record or rectangle whose checksum differs) is deleted and recomputed, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from . import __version__
from .config import GameConfig

__all__ = ["BLOCK", "CorruptEntry", "EntrantRecord", "GradeCache", "entrant_key"]

#: bump when the layout or the meaning of a cached array changes
CACHE_FORMAT = 1

#: block length of the fixed-order sums (``teamleduc.evaluate.BLOCK``, repeated here so the
#: cache does not import the evaluator); CRCs are kept per block
BLOCK = 4096

_READ = 1 << 20


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
    crc_a: tuple[int, ...] = ()
    crc_b: tuple[int, ...] = ()


# --------------------------------------------------------------------------- keys


def _hash_file(h, path: Path) -> None:
    with open(path, "rb") as f:
        while chunk := f.read(_READ):
            h.update(chunk)


def _hash_tree(h, root: Path) -> None:
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix().encode("utf-8", "surrogateescape")
            h.update(b"\0file\0" + rel + b"\0")
            if path.is_symlink():
                h.update(b"link\0" + os.fsencode(os.readlink(path)))
            else:
                _hash_file(h, path)
        for name in dirs:  # empty folders and links to folders count too
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix().encode("utf-8", "surrogateescape")
            h.update(b"\0dir\0" + rel + b"\0")
            if path.is_symlink():
                h.update(b"link\0" + os.fsencode(os.readlink(path)))


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

    None when ``spec`` is a path that does not exist (nothing to cache; the loader reports it).
    """
    h = hashlib.sha256(f"teamleduc grade cache {CACHE_FORMAT} {__version__}\n{config!r}\n".encode())
    sub = getattr(spec, "submission", spec)
    if hasattr(sub, "strategies") and hasattr(sub, "probs"):
        h.update(b"submission\0")
        _hash_submission(h, sub)
    elif baseline:
        h.update(b"baseline\0" + str(spec).encode())
    else:
        path = Path(os.fspath(spec))
        if path.is_dir():
            h.update(b"folder\0")
            _hash_tree(h, path)
        elif path.is_file():
            h.update(b"file\0")
            _hash_file(h, path)
        else:
            return None
    return h.hexdigest()


# --------------------------------------------------------------------------- files


def _block_crcs(a: np.ndarray) -> tuple[int, ...]:
    view = memoryview(np.ascontiguousarray(a, dtype=np.float64)).cast("B")
    step = BLOCK * 8
    return tuple(zlib.crc32(view[i : i + step]) for i in range(0, len(view), step))


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

    # ---------------------------------------------------------------- writing

    def _write(self, path: Path, data: bytes | np.ndarray) -> None:
        """``data`` (bytes, or an array saved as ``.npy``) to ``path``, through a temporary."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                if isinstance(data, np.ndarray):
                    np.save(f, np.ascontiguousarray(data, dtype=np.float64).ravel())
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
        suffix = ".json" if which == "json" else f".{which}.npy"
        return self.root / "entrants" / f"{key}{suffix}"

    def store(
        self, record: EntrantRecord, reach_a: np.ndarray | None = None, weights_b=None
    ) -> EntrantRecord:
        """Write an entrant's arrays (when given) and then its record; returns the record with
        the arrays' CRCs. The record goes last, so a record on disk means its arrays are too."""
        if reach_a is not None:
            record = replace(
                record,
                length=int(reach_a.size),
                crc_a=_block_crcs(reach_a),
                crc_b=_block_crcs(weights_b),
            )
            self._write(self.path(record.key, "a"), reach_a)
            self._write(self.path(record.key, "b"), weights_b)
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
        deleted): the record's seal, its key, format and version, and for a valid entrant two
        float64 ``.npy`` arrays of ``length`` values. The arrays' contents are checked block
        by block when read (:meth:`read_blocks`)."""
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
                crc_a=tuple(int(c) for c in body["crc_a"]),
                crc_b=tuple(int(c) for c in body["crc_b"]),
            )
            if record.valid:
                blocks = -(-length // BLOCK)
                if record.length != length or len(record.crc_a) != blocks:
                    raise ValueError("length")
                if len(record.crc_b) != blocks:
                    raise ValueError("length")
                for which in ("a", "b"):
                    self._data_offset(key, which, length)
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            self.drop(key)
            return None
        return record

    def _data_offset(self, key: str, which: str, length: int) -> int:
        """Byte offset of the data of an entrant's ``.npy`` array; ValueError unless it is a
        (length,) little-endian float64 array of the right size."""
        path = self.path(key, which)
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version != (1, 0):
                raise ValueError("npy version")
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            offset = f.tell()
        if shape != (length,) or dtype != np.dtype("<f8") or fortran:
            raise ValueError("npy header")
        if path.stat().st_size != offset + 8 * length:
            raise ValueError("npy size")
        return offset

    def read_blocks(
        self, record: EntrantRecord, which: str, first: int, stop: int, out: np.ndarray
    ) -> None:
        """Read blocks ``first .. stop - 1`` of an entrant's array ``a`` or ``b`` into the
        start of ``out`` (a contiguous float64 row), checking each block's CRC. Raises
        :class:`CorruptEntry` (after deleting the entry) if anything is wrong."""
        key, length = record.key, record.length
        lo, hi = first * BLOCK, min(length, stop * BLOCK)
        crcs = record.crc_a if which == "a" else record.crc_b
        view = memoryview(out[: hi - lo]).cast("B")
        try:
            fd = os.open(self.path(key, which), os.O_RDONLY)
            try:
                offset = self._header_length(fd)
                got = os.preadv(fd, [view], offset + 8 * lo)
            finally:
                os.close(fd)
            if got != len(view):
                raise ValueError("short read")
            step = BLOCK * 8
            for b in range(first, stop):
                start = (b - first) * step
                if zlib.crc32(view[start : start + step]) != crcs[b]:
                    raise ValueError("crc")
        except (OSError, ValueError, IndexError):
            self.drop(key)
            raise CorruptEntry(key) from None

    def prefetch(self, record: EntrantRecord, which: str, first: int, stop: int) -> None:
        """Ask the operating system to start reading blocks ``first .. stop - 1`` of an
        entrant's array in the background (a hint: nothing happens where it is not supported),
        so that the disk reads of the next blocks overlap the products of these."""
        if not hasattr(os, "posix_fadvise"):
            return
        lo, hi = first * BLOCK, min(record.length, stop * BLOCK)
        if hi <= lo:
            return
        try:
            fd = os.open(self.path(record.key, which), os.O_RDONLY)
            try:
                offset = self._header_length(fd)
                os.posix_fadvise(fd, offset + 8 * lo, 8 * (hi - lo), os.POSIX_FADV_WILLNEED)
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
        out = np.empty(record.length)
        self.read_blocks(record, which, 0, len(record.crc_a), out)
        return out

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
