"""Writing a submission: CSV files into a folder or a ``.zip``, atomically and reproducibly.

Floats are written as their shortest round-trip decimal (``repr`` of each float), so reading
gives back identical arrays. Everything goes through a temporary file or folder renamed into
place (:func:`atomic_output`), so a reader never sees a partial submission; zip members get
fixed dates and permissions, so equal submissions give equal bytes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..config import GameConfig
from ..infosets import format_rows
from .csv_format import format_meta
from .model import STRATEGY_CSV, Submission
from .safeio import META_NAME

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: deflate level 1: five times faster than the default 6 on strategy files, 7% larger
_ZIP_LEVEL = 1


class _ZipWriter:
    """Adds members with fixed dates and permissions, so equal input gives equal bytes."""

    def __init__(self, zf: zipfile.ZipFile):
        self.zf = zf

    def add(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        self.zf.writestr(info, data, compresslevel=_ZIP_LEVEL)


class _DirWriter:
    def __init__(self, root: Path):
        self.root = root

    def add(self, name: str, data: bytes) -> None:
        with open(self.root / name, "wb") as f:
            f.write(data)


@contextmanager
def atomic_output(
    path: str | os.PathLike[str], overwrite: bool = False
) -> Iterator[_ZipWriter | _DirWriter]:
    """Yield a writer (``.add(name, bytes)``) for a folder or, if ``path`` ends in ``.zip``, an
    archive; it appears at ``path`` only when the block ends without an exception."""
    path = Path(path)
    if path.exists() and not overwrite and not (path.is_dir() and not any(path.iterdir())):
        raise FileExistsError(f"{path} already exists (not overwritten)")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".zip":
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
                yield _ZipWriter(zf)
            if path.is_dir():
                raise IsADirectoryError(f"{path} is a folder")
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    else:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
        old = None
        try:
            yield _DirWriter(tmp)
            if path.exists():
                if path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
                else:
                    old = path.with_name(f".{path.name}.old-{os.getpid()}")
                    os.rename(path, old)
            os.rename(tmp, path)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
            if old is not None:
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    old.unlink(missing_ok=True)


def write_submission(
    sub: Submission,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    config: GameConfig | None = None,
) -> Path:
    """Write ``sub`` as CSV files into a folder, or a ``.zip`` if ``path`` ends in ``.zip``.

    Floats are written as their shortest round-trip decimal, so :func:`load_submission`
    gives back identical arrays. ValueError if ``sub`` is invalid (checked against ``config``
    too when given); FileExistsError if ``path`` exists (unless an empty folder, or
    ``overwrite``). Returns ``path``.
    """
    sub.check(config)
    with atomic_output(path, overwrite) as out:
        out.add(META_NAME, format_meta(sub.signals, sub.probs).encode())
        for k, j in enumerate(sub.signals.tolist()):
            for s in sub.seats:
                out.add(
                    STRATEGY_CSV.format(signal=j, seat=s + 1),
                    format_rows(sub.strategies[s][k]).encode(),
                )
    return Path(path)
