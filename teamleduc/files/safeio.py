"""Reading a submission container (a folder or a ``.zip``) without trusting it.

Students upload archives; the grader must neither crash, hang, run out of memory nor write
outside its own files because of one. A :class:`Container` lists the files of a submission by
base name and reads one file at a time with a size limit that is checked *before* reading:

- the files sit at the top of the folder or archive, or all inside exactly one top folder
  (what "compress this folder" produces); anything deeper is refused;
- zip entry names that are absolute (``/x``, ``C:\\x``) or contain ``..`` are refused, as are
  duplicate names, symbolic links, encrypted entries and corrupt archives;
- a file larger than its limit is refused from its declared size; in an archive, an entry whose
  compression ratio exceeds :data:`MAX_COMPRESSION_RATIO` (beyond what deflate can produce, so
  only a crafted entry has it) is refused as a zip bomb, and reading never goes past the declared
  size (``zipfile`` checks the CRC at the end);
- in a folder, only regular files are read (a FIFO would block, a device never end); the
  path itself, when not a folder, must be a regular file too, checked on the open file;
- an archive's central directory is bounded (:data:`MAX_ENTRIES`, :data:`MAX_DIRECTORY`)
  before ``zipfile`` reads it, so a crafted (or huge sparse) file cannot fill the memory;
- macOS metadata (``__MACOSX/``) and hidden files (``.DS_Store``) are ignored with a warning.

The limits derive from the expected sizes: :func:`csv_limit` allows 456 bytes per line (six
times a line of three 24-character shortest-repr floats, about 64 MiB for a ``team-leduc``
strategy file), :func:`npy_limit` the exact array plus 64 KiB of header.

A problem that stops reading raises :class:`~teamleduc.files.findings.SubmissionError`; what is
ignored is kept as :class:`~teamleduc.files.findings.Finding` warnings.
"""

from __future__ import annotations

import bisect
import lzma
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .findings import Finding, SubmissionError, SubmissionNotFoundError

KIB = 1 << 10
MIB = 1 << 20

META_NAME = "meta-strategy.csv"
#: limit of ``meta-strategy.csv``: about 100,000 signals
META_LIMIT = 4 * MIB
#: bytes allowed per line of a strategy CSV (a canonical line is at most about 76)
CSV_BYTES_PER_LINE = 456
#: no text file limit is below this
MIN_LIMIT = 1 * MIB
#: header allowance of a ``.npy`` file on top of its array data
NPY_HEADER_LIMIT = 64 * KIB
#: deflate cannot exceed about 1032:1; larger ratios come from crafted entries (zip bombs)
MAX_COMPRESSION_RATIO = 1100
#: the ratio is only checked on entries larger than this (tiny files compress arbitrarily)
RATIO_CHECK_MIN_SIZE = 1 * MIB
#: archives with more entries are refused before any is read
MAX_ENTRIES = 100_000
#: archives whose central directory (the list of entries, read whole into memory by
#: ``zipfile``) declares more bytes are refused before it is read: 100,000 entries with names
#: of up to 600 bytes fit
MAX_DIRECTORY = 64 * MIB


def csv_limit(num_lines: int) -> int:
    """Largest strategy CSV accepted for a seat with ``num_lines`` information sets."""
    return max(MIN_LIMIT, CSV_BYTES_PER_LINE * int(num_lines))


def npy_limit(num_rows: int) -> int:
    """Largest ``.npy`` strategy accepted for ``num_rows`` information sets (float64, 3 columns)."""
    return NPY_HEADER_LIMIT + 24 * int(num_rows)


@dataclass(frozen=True)
class _Member:
    name: str  # base name
    display: str  # path inside the container, as shown to the user
    size: int  # declared size in bytes
    ref: object  # Path (folder) or ZipInfo (zip)


_ABSOLUTE = re.compile(r"^(?:[/\\]|[A-Za-z]:)")
_METADATA_DIRS = {"__MACOSX"}


def _ignorable(parts: list[str]) -> bool:
    return parts[0] in _METADATA_DIRS or any(p.startswith(".") for p in parts)


@dataclass
class Container:
    """A submission folder or zip archive, opened for bounded reads.

    ``members`` maps each file's base name to its entry; ``warnings`` holds what was ignored.
    Use as a context manager (an archive stays open until closed).
    """

    path: Path
    kind: str  # "folder" or "zip"
    label: str  # prefix of displayed names ("" or e.g. "team13.zip")
    top: str  # the one top folder holding the files, "" at the root
    members: dict[str, _Member]
    warnings: list[Finding] = field(default_factory=list)
    _zip: zipfile.ZipFile | None = None
    _file: object = None  # the archive's open file (closed with the container)

    def __enter__(self) -> Container:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def names(self) -> list[str]:
        """Base names of the files, sorted."""
        return sorted(self.members)

    def display(self, name: str) -> str:
        """How the file ``name`` (present or not) is called in messages."""
        if name in self.members:
            return self.members[name].display
        return _join(self.label, self.top, name)

    def size(self, name: str) -> int:
        return self.members[name].size

    def read(self, name: str, limit: int, what: str = "this file") -> bytes:
        """The bytes of member ``name``; :class:`SubmissionError` if it is above ``limit`` bytes,
        unreadable or corrupt. The size is checked before anything is read."""
        m = self._member_within(name, limit, what)
        if self.kind == "zip":
            return self._read_zip(m, limit)
        return self._read_file(m, limit)

    def _member_within(self, name: str, limit: int, what: str) -> _Member:
        """Member ``name``, checked before any of it is read: a zip entry's compression
        ratio, then its declared size against ``limit`` (:meth:`read` and :meth:`stored`)."""
        m = self.members[name]
        if self.kind == "zip":
            self._check_ratio(m)
        if m.size > limit:
            raise SubmissionError(
                f"refused: {m.size:,} bytes, above the limit of {limit:,} bytes for {what}",
                file=m.display,
            )
        return m

    def _read_file(self, m: _Member, limit: int) -> bytes:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(m.ref, flags)
        except OSError as e:
            raise SubmissionError(f"cannot open: {e.strerror}", file=m.display) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise SubmissionError("not a regular file", file=m.display)
            if st.st_size > limit:
                raise SubmissionError(
                    f"refused: {st.st_size:,} bytes, above the limit of {limit:,} bytes",
                    file=m.display,
                )
            with os.fdopen(fd, "rb", closefd=False) as f:
                # a buffer the file's size, not the limit's (a 67 MB buffer for a 3.6 MB file
                # cost ten times the read); a file that grew meanwhile is read on to the limit
                data = f.read(st.st_size + 1)
                if len(data) > st.st_size:
                    data += f.read(limit + 1 - len(data))
        except OSError as e:
            raise SubmissionError(f"cannot read: {e.strerror or e}", file=m.display) from None
        finally:
            os.close(fd)
        if len(data) > limit:
            raise SubmissionError(f"refused: more than {limit:,} bytes", file=m.display)
        return data

    @staticmethod
    def _check_ratio(m: _Member) -> None:
        info: zipfile.ZipInfo = m.ref
        if info.file_size > RATIO_CHECK_MIN_SIZE:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > MAX_COMPRESSION_RATIO:
                raise SubmissionError(
                    f"refused as a zip bomb: {info.compress_size:,} compressed bytes expand to "
                    f"{info.file_size:,} (ratio {ratio:,.0f}:1, limit {MAX_COMPRESSION_RATIO}:1)",
                    file=m.display,
                )

    def _read_zip(self, m: _Member, limit: int) -> bytes:
        info: zipfile.ZipInfo = m.ref
        try:
            with self._zip.open(info) as f:
                data = f.read(limit + 1)
        except (
            zipfile.BadZipFile,
            zlib.error,
            lzma.LZMAError,
            EOFError,
            OSError,
            ValueError,
            NotImplementedError,
            RuntimeError,
        ) as e:
            raise SubmissionError(f"corrupt archive entry: {e}", file=m.display) from None
        if len(data) > limit or len(data) != info.file_size:
            raise SubmissionError(
                f"corrupt archive entry: {len(data):,} bytes where "
                f"{info.file_size:,} were declared",
                file=m.display,
            )
        return data

    def stored(
        self, name: str, limit: int, what: str = "this file", chunk: int = MIB
    ) -> tuple[dict[str, object], Iterator[bytes]]:
        """Member ``name`` of a zip as stored, not inflated: ``(fields, chunks)``.

        ``fields`` are what decides the inflated bytes besides the stored ones, from the
        central directory: the entry's name in the archive, flag bits, compression method,
        CRC-32, compressed and declared sizes. ``chunks`` yields the bytes from the entry's
        local header to the end of its compressed data, ``chunk`` bytes at most at a time; read
        them before closing the container. The grading cache hashes these instead of inflating
        (the same stored bytes inflate the same way, or fail the same way).

        Checked before anything is yielded: what :meth:`read` checks first (the compression
        ratio, then ``limit``, with the same :class:`SubmissionError`), and what ``zipfile``
        checks when it opens an entry (a local header, with the central directory's name; a
        method and flags it can read); and beyond it, so that each read is bounded and no two
        entries share bytes: compressed data that run into the next entry (overlapping
        entries) or past the end of the file, or more compressed bytes than the declared size
        can need (``size + size/32 + 64 KiB``: stored, deflate, bzip2 and lzma data fit). Any of
        these, or a short read while yielding, raises :class:`SubmissionError`; a caller that
        needs the loader's own verdict then calls :meth:`read`.
        """
        if self.kind != "zip":
            raise ValueError(
                f"stored: {self.members[name].display} is a file of a folder, not of a zip"
            )
        m = self._member_within(name, limit, what)
        info: zipfile.ZipInfo = m.ref

        def bad(why: str) -> SubmissionError:
            return SubmissionError(f"corrupt archive entry: {why}", file=m.display)

        if info.flag_bits & 0x60:  # bits 5 and 6, as zipfile.ZipFile.open refuses them
            raise bad("compressed patched data or strong encryption")
        try:
            zipfile._check_compression(info.compress_type)
        except (NotImplementedError, RuntimeError) as e:
            raise bad(str(e)) from None
        if info.compress_size > info.file_size + info.file_size // 32 + 64 * KIB:
            raise bad(f"{info.compress_size:,} compressed bytes for {info.file_size:,} declared")
        fd = self._file.fileno()
        start = info.header_offset
        try:
            head = os.pread(fd, 30, start)
            if len(head) != 30 or head[:4] != b"PK\x03\x04":
                raise bad("bad local header")
            (flags,) = struct.unpack_from("<H", head, 6)
            name_length, extra_length = struct.unpack_from("<2H", head, 26)
            raw_name = os.pread(fd, name_length, start + 30)
            file_end = os.fstat(fd).st_size
        except (OSError, OverflowError, ValueError) as e:  # an offset beyond 2**63 or below 0
            raise bad(f"cannot read: {getattr(e, 'strerror', None) or e}") from None
        encoding = "utf-8" if flags & 0x800 else (self._zip.metadata_encoding or "cp437")
        try:
            local_name = raw_name.decode(encoding)
        except UnicodeDecodeError:
            local_name = None
        if local_name != info.orig_filename:
            raise bad(f"the local header names {raw_name!r}, the directory {info.orig_filename!r}")
        # where the next entry (or the central directory) begins, as zipfile 3.12 checks
        bounds = getattr(self, "_stored_bounds", None)
        if bounds is None:
            offsets = {i.header_offset for i in self._zip.infolist()}
            bounds = self._stored_bounds = sorted(offsets | {self._zip.start_dir})
        at = bisect.bisect_right(bounds, start)
        end = start + 30 + name_length + extra_length + info.compress_size
        if at < len(bounds) and end > bounds[at]:
            raise bad("overlaps the next entry")
        if end > file_end:
            raise bad("truncated")
        fields = {
            "name": info.orig_filename,
            "flags": info.flag_bits,
            "method": info.compress_type,
            "crc": info.CRC,
            "compress_size": info.compress_size,
            "file_size": info.file_size,
        }

        def chunks() -> Iterator[bytes]:
            pos = start
            while pos < end:
                try:
                    data = os.pread(fd, min(chunk, end - pos), pos)
                except (OSError, OverflowError, ValueError) as e:
                    raise bad(f"cannot read: {getattr(e, 'strerror', None) or e}") from None
                if not data:
                    raise bad("truncated")
                pos += len(data)
                yield data

        return fields, chunks()


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


def _layout(
    files: dict[str, tuple[list[str], object, int]], dirs: set[str], where: str, label: str
) -> tuple[str, dict[str, _Member]]:
    """Pick the top folder: all files at the root, or all inside one folder. Returns
    ``(top, members by base name)``, each member displayed under ``label``.

    ``where`` names the folder or archive in messages."""
    rule = "the files must be at the top or all inside one top folder"
    depths = {len(parts) for parts, _, _ in files.values()}
    tops = {parts[0] for parts, _, _ in files.values() if len(parts) > 1}
    if not files:
        raise SubmissionError("holds no files", file=where)
    if max(depths) > 2:
        deep = min(k for k, (parts, _, _) in files.items() if len(parts) > 2)
        raise SubmissionError(f"refused: nested folders ('{deep}'); {rule}", file=where)
    if depths == {1}:
        top = ""
        if dirs:
            raise SubmissionError(
                f"refused: folder '{sorted(dirs)[0]}/' next to the files; {rule}", file=where
            )
    elif depths == {2} and len(tops) == 1:
        top = tops.pop()
        extra = sorted(d for d in dirs if d != top)
        if extra:
            raise SubmissionError(f"refused: nested folders ('{extra[0]}/'); {rule}", file=where)
    else:
        first = sorted(tops)[0] + "/"
        what = "several top folders" if len(tops) > 1 else "files both at the top and in a folder"
        raise SubmissionError(f"refused: {what} ('{first}'); {rule}", file=where)
    members = {
        parts[-1]: _Member(parts[-1], _join(label, key), size, ref)
        for key, (parts, ref, size) in files.items()
    }
    return top, members


def open_container(path, label: str = "") -> Container:
    """Open a submission folder or ``.zip`` archive (see the module docstring for the rules).

    Raises :class:`SubmissionError` for anything refused, :class:`SubmissionNotFoundError` (a
    FileNotFoundError) if ``path`` does not exist.
    """
    path = Path(path)
    where = label or path.name or str(path)
    if not os.path.exists(path):
        link = " (a broken or looping symbolic link)" if os.path.lexists(path) else ""
        raise SubmissionNotFoundError(f"no such file or folder: {path}{link}")
    if path.is_dir():
        return _open_folder(path, label)
    f = _open_regular(path, where)
    try:
        if zipfile.is_zipfile(f):
            return _open_zip(path, label, f)
    except BaseException:
        f.close()
        raise
    f.close()
    if path.suffix.lower() == ".zip":
        raise SubmissionError("not a valid zip archive (corrupt or truncated)", file=where)
    raise SubmissionError("not a folder or a .zip archive", file=where)


def _open_regular(path: Path, where: str):
    """``path`` opened for reading if it is a regular file (checked on the open file, so it
    cannot be swapped for a pipe meanwhile; O_NONBLOCK: opening a FIFO does not wait)."""
    not_regular = "not a folder or a .zip archive (not a regular file: a pipe, socket or device)"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SubmissionError(not_regular, file=where)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise SubmissionError(f"cannot open: {e.strerror or e}", file=where) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SubmissionError(not_regular, file=where)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_directory(f, where: str) -> None:
    """Refuse an archive whose end record declares too many entries or too large a central
    directory, from the end record alone (``zipfile`` would read the directory whole)."""
    try:
        end = zipfile._EndRecData(f)  # the end record (zip64 too), as zipfile reads it
    except (OSError, ValueError, struct.error, zipfile.BadZipFile):
        return  # zipfile reports it
    if not end:
        return
    entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]
    if entries > MAX_ENTRIES:
        raise SubmissionError(f"refused: {entries:,} entries (limit {MAX_ENTRIES:,})", file=where)
    if size > MAX_DIRECTORY:
        raise SubmissionError(
            f"refused: a central directory of {size:,} bytes (limit {MAX_DIRECTORY:,})",
            file=where,
        )


def _ignored_warning(ignored: list[str], label: str) -> list[Finding]:
    if not ignored:
        return []
    shown = ", ".join(ignored[:3]) + (f" and {len(ignored) - 3} more" if len(ignored) > 3 else "")
    return [
        Finding(
            label or None,
            None,
            None,
            f"ignored {len(ignored)} hidden or macOS metadata entr"
            f"{'y' if len(ignored) == 1 else 'ies'}: {shown}",
        )
    ]


def _scan_dir(
    path: Path, rel: list[str], files: dict, dirs: set, ignored: list, depth: int
) -> None:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as e:
        raise SubmissionError(f"cannot list folder {path}: {e.strerror}") from None
    for entry in entries:
        parts = rel + [entry.name]
        key = "/".join(parts)
        if _ignorable(parts):
            ignored.append(key + ("/" if entry.is_dir(follow_symlinks=False) else ""))
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as e:  # gone since listed, or not accessible
            raise SubmissionError(f"cannot read: {e.strerror or e}", file=key) from None
        if stat.S_ISLNK(st.st_mode):
            raise SubmissionError("refused: symbolic link", file=key)
        if stat.S_ISDIR(st.st_mode):
            dirs.add(key)
            if depth < 2:  # one level is allowed; the second is listed to be refused
                _scan_dir(Path(entry.path), parts, files, dirs, ignored, depth + 1)
            else:
                files[key + "/..."] = (parts + ["..."], None, 0)
        elif stat.S_ISREG(st.st_mode):
            files[key] = (parts, Path(entry.path), st.st_size)
        else:
            raise SubmissionError(
                "refused: not a regular file (a pipe, socket or device)", file=key
            )


def _open_folder(path: Path, label: str) -> Container:
    files: dict = {}
    dirs: set = set()
    ignored: list[str] = []
    _scan_dir(path, [], files, dirs, ignored, 1)
    top, members = _layout(files, dirs, label or path.name or str(path), label)
    warnings = _ignored_warning(ignored, label)
    return Container(path, "folder", label, top, members, warnings)


def _open_zip(path: Path, label: str, f) -> Container:
    where = label or path.name
    _check_directory(f, where)
    try:
        zf = zipfile.ZipFile(f)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,
    ) as e:
        raise SubmissionError(f"not a readable zip archive: {e}", file=where) from None
    try:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise SubmissionError(
                f"refused: {len(infos):,} entries (limit {MAX_ENTRIES:,})", file=where
            )
        files: dict = {}
        dirs: set = set()
        ignored: list[str] = []
        for info in infos:
            name = info.filename
            if any(ord(ch) < 32 for ch in name):
                raise SubmissionError(
                    f"refused: entry name with control characters {name!r}", file=where
                )
            if _ABSOLUTE.match(name):
                raise SubmissionError(f"refused: absolute path '{name}' in the archive", file=where)
            parts = [p for p in re.split(r"[/\\]", name) if p not in ("", ".")]
            if ".." in parts:
                raise SubmissionError(f"refused: path '{name}' leaves the archive (..)", file=where)
            if not parts:
                raise SubmissionError(f"refused: entry with an empty name {name!r}", file=where)
            key = "/".join(parts)
            if _ignorable(parts):
                ignored.append(key + ("/" if info.is_dir() else ""))
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                raise SubmissionError(f"refused: symbolic link '{key}' in the archive", file=where)
            if info.is_dir() or name.endswith(("/", "\\")):
                dirs.add(key)
                continue
            if info.flag_bits & 0x1:
                raise SubmissionError(
                    f"refused: '{key}' is encrypted (password-protected "
                    f"archives are not supported)",
                    file=where,
                )
            if key in files:
                raise SubmissionError(
                    f"refused: duplicate entry '{key}' in the archive", file=where
                )
            files[key] = (parts, info, info.file_size)
        # folders implied by file paths count as folders too
        for parts, _, _ in files.values():
            for k in range(1, len(parts)):
                dirs.add("/".join(parts[:k]))
        top, members = _layout(files, dirs, where, label)
    except BaseException:
        zf.close()
        raise
    warnings = _ignored_warning(ignored, label or path.name)
    return Container(path, "zip", label, top, members, warnings, _zip=zf, _file=f)
