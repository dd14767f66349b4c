"""Writing a command's outputs as one unit: all of them or none, with the user's permissions.

Every command that writes (``infosets``, ``convert``, ``baseline``, ``best-response --export``,
``grade``, ``solve``) follows one rule and one mechanism:

- **the rule** (:func:`check_target`): an existing non-empty target is refused unless
  ``overwrite``; an empty folder is used as if it did not exist. A target that is the current
  folder, holds it, or holds one of the command's own inputs is refused even with
  ``overwrite`` (replacing it would delete what the command reads, or pull the folder from
  under the shell), and so is a named pipe, device or socket;
- **the mechanism** (:func:`staged_folder`, :func:`staged_file`): everything is written into a
  temporary sibling (``.NAME.XXXX.tmp``, same file system) that is renamed into place when the
  block ends without an exception; on any exception, Ctrl-C included, the sibling is removed
  and the target is untouched. A Ctrl-C waits while the sibling is created and its removal
  registered, while it is removed and while it is swapped in, so none is left halfway;
- **one file** (:func:`write_bytes_atomic`, :func:`write_text_atomic`, :func:`save_png`): the
  same temporary sibling and rename for a single file inside a folder being written (no rule:
  the caller owns the folder); a PNG is saved without the matplotlib version, so the same
  figure gives the same bytes on every run;
- **permissions**: ``tempfile`` creates folders 0700 and files 0600; the outputs get what the
  umask gives any other tool (0755 and 0644 under the usual 022).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import TeamLeducError


class OutputExistsError(TeamLeducError, FileExistsError):
    """The target of a command exists and is not empty (exit code 2)."""

    exit_code = 2

    def __init__(self, message: str):
        TeamLeducError.__init__(self, message)


def umask() -> int:
    """The process's umask (read without changing it for more than an instant)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def follow_umask(path: str | os.PathLike[str]) -> None:
    """Give ``path`` the mode a plain ``mkdir``/``open`` would: 0777 or 0666 minus the umask."""
    full = 0o777 if os.path.isdir(path) else 0o666
    os.chmod(path, full & ~umask())


def _is_within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def lies_within(inner: str | os.PathLike[str], outer: str | os.PathLike[str]) -> bool:
    """True if ``inner`` is ``outer`` or lies below it, as written or once symbolic links are
    followed (``outer`` a link to a folder included); neither needs to exist. What ``grade``
    and ``convert`` check so that an output never lands inside what they read."""

    def absolute(p) -> Path:
        return Path(os.path.abspath(os.fspath(p)))

    def real(p) -> Path:
        return Path(os.path.realpath(absolute(p)))

    return _is_within(absolute(inner), absolute(outer)) or _is_within(real(inner), real(outer))


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)


def _special_kind(path: Path) -> str | None:
    """What ``path`` is if it is neither a regular file, a folder nor a symbolic link (which
    is replaced itself, its target untouched): replacing a device such as /dev/null, which
    root may do, would break the system."""
    mode = path.lstat().st_mode
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return None


def check_target(
    path: str | os.PathLike[str],
    overwrite: bool = False,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    allow: str | os.PathLike[str] | None = None,
) -> Path:
    """Check that ``path`` may be written; returns it as an absolute path.

    :class:`OutputExistsError` if it exists, is not an empty folder and ``overwrite`` is
    false (unless it is ``allow``, e.g. the run folder a solver run continues);
    :class:`TeamLeducError` if its parent is a file, if it is the current folder, holds it,
    or holds one of ``inputs``, or if it is a named pipe, device or socket (``overwrite``
    would replace it: ``--out /dev/null --overwrite`` as root would remove /dev/null).
    """
    target = Path(os.path.abspath(path))
    if target.parent == target:
        raise TeamLeducError(f"{path}: cannot write over the root of the file system")
    shown = str(path)
    for parent in [target.parent, *target.parent.parents]:
        if parent.exists() and not parent.is_dir():
            raise TeamLeducError(f"{shown}: cannot create it: {parent} is a file, not a folder")
        if parent.is_dir():
            break
    cwd = Path(os.path.abspath(os.getcwd()))
    if _is_within(cwd, target):
        raise TeamLeducError(
            f"{shown}: refused: it is or holds the current folder; give a new folder's name"
        )
    for item in inputs:
        if not os.path.exists(item):
            continue
        source = Path(os.path.abspath(item))
        if _is_within(source, target) or (target.is_file() and target == source):
            raise TeamLeducError(f"{shown}: refused: it is or holds the input {item}")
    if not (target.exists() or target.is_symlink()):
        return target
    special = _special_kind(target)
    if special is not None:
        raise TeamLeducError(
            f"{shown}: refused: it is a {special}, not a file or folder; "
            "give a new file or folder's name"
        )
    if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
        return target
    if allow is not None and target == Path(os.path.abspath(allow)):
        return target
    if not overwrite:
        what = "folder" if target.is_dir() else "file"
        raise OutputExistsError(
            f"{shown} already exists (a non-empty {what}); pass --overwrite to replace it"
        )
    return target


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """A Ctrl-C waits until the block ends (in the main thread), so a swap of two renames or
    a temporary's creation and clean-up is never left halfway. The SIGINT handler is swapped
    for one that only notes the signal, which is raised again once the handler is back:
    Python runs handlers in the main thread whichever thread the system delivered the signal
    to, whereas blocking SIGINT in the main thread's signal mask (as before) let it reach
    another thread (numba's workers, a test's threads) and raise all the same."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is None  # set outside Python: not restorable
    ):
        yield
        return
    noted = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if noted:
            signal.raise_signal(signal.SIGINT)


def remove(path: Path) -> None:
    """Remove the file, link or folder ``path`` if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _swap_in(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target``, replacing what is there (a Ctrl-C waits meanwhile)."""
    with _sigint_deferred():
        old = None
        if target.is_dir() and not target.is_symlink():
            if any(target.iterdir()):
                old = target.with_name(f".{target.name}.{os.getpid()}.old")
                remove(old)
                os.rename(target, old)
            else:
                target.rmdir()
        elif tmp.is_dir() and (target.exists() or target.is_symlink()):
            old = target.with_name(f".{target.name}.{os.getpid()}.old")
            os.rename(target, old)
        os.replace(tmp, target)
        if old is not None:
            remove(old)


def link_or_copy(src: Path, dst: Path) -> None:
    """``dst`` as a copy of the file or folder ``src``: hard links where the file system
    allows (instant, no space; every writer here replaces files, never edits them in
    place), else a copy."""
    if src.is_dir():
        shutil.copytree(src, dst, copy_function=_link_or_copy_file)
    else:
        _link_or_copy_file(src, dst)


def _link_or_copy_file(src, dst) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _prefix(target: Path) -> str:
    """The temporary sibling's name prefix: ``.NAME.``, NAME cut so that prefix, random part
    and ``.tmp`` fit a file name of 255 bytes whatever the target's (legal) name."""
    name = target.name
    while len(f".{name}.".encode("utf-8", "surrogateescape")) > 230:
        name = name[:-1]
    return f".{name}."


@contextlib.contextmanager
def _cannot_write(target: Path) -> Iterator[None]:
    """An OSError creating the temporary sibling of ``target`` (a read-only folder or file
    system) says so about ``target``: the sibling's hidden name means nothing to the user."""
    try:
        yield
    except OSError as e:
        if e.errno is None:
            raise
        raise OSError(e.errno, f"cannot write {target}: {e.strerror}") from None


@contextlib.contextmanager
def _naming(target: Path) -> Iterator[None]:
    """Give an OSError raised while writing ``target`` the target's name when it has none: a
    write that fills the disk says ``[Errno 28] No space left on device`` and no file, and
    the user should learn which output it was."""
    try:
        yield
    except OSError as e:
        if e.filename is None and e.errno in _WRITE_ERRORS:
            e.filename = str(target)
        raise


#: what writing a file can fail with, and nothing else (a broken pipe to the terminal, say,
#: is not the output's fault): no space, over quota, too large, read-only, an I/O error
_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO}


@contextlib.contextmanager
def staged_folder(
    path: str | os.PathLike[str],
    overwrite: bool = False,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    allow: str | os.PathLike[str] | None = None,
) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path``; it becomes ``path`` when the block ends
    without an exception and is removed otherwise. The rule of :func:`check_target` applies."""
    target = check_target(path, overwrite, inputs=inputs, allow=allow)
    target.parent.mkdir(parents=True, exist_ok=True)

    def make() -> Path:
        with _cannot_write(target):
            return Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".tmp", dir=target.parent))

    with _temporary(make) as tmp, _naming(target):
        follow_umask(tmp)
        yield tmp
        _swap_in(tmp, target)


@contextlib.contextmanager
def _temporary(make: Callable[[], Path]) -> Iterator[Path]:
    """Yield the temporary file or folder ``make()`` creates, removed when the block ends
    (a no-op once it was renamed into place). A Ctrl-C waits while it is created and its
    removal registered, and while it is removed: a Ctrl-C landing between the creation and
    the clean-up (``infosets`` interrupted 0.15 s after its start, once in a test run) left
    the hidden ``.NAME.XXXX.tmp`` beside the output, and one landing in the removal a part of
    it."""
    with contextlib.ExitStack() as cleanup:
        with _sigint_deferred():
            tmp = make()
            cleanup.callback(_remove_uninterrupted, tmp)
        yield tmp


def _remove_uninterrupted(path: Path) -> None:
    """:func:`remove` with a Ctrl-C waiting until it is done."""
    with _sigint_deferred():
        remove(path)


@contextlib.contextmanager
def _sibling_file(target: Path) -> Iterator[Path]:
    """A new temporary file beside ``target`` (same file system, mode per the umask), removed
    when the block ends unless it was renamed into place."""

    def make() -> Path:
        with _cannot_write(target):
            fd, name = tempfile.mkstemp(prefix=_prefix(target), suffix=".tmp", dir=target.parent)
        os.close(fd)
        return Path(name)

    with _temporary(make) as tmp:
        follow_umask(tmp)
        yield tmp


@contextlib.contextmanager
def staged_file(
    path: str | os.PathLike[str],
    overwrite: bool = False,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; the file becomes ``path`` when the block
    ends without an exception and is removed otherwise. The rule of :func:`check_target`
    applies."""
    target = check_target(path, overwrite, inputs=inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _sibling_file(target) as tmp, _naming(target):
        yield tmp
        _swap_in(tmp, target)


@contextlib.contextmanager
def replaced_atomically(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary file beside ``path`` (its folder must exist) to write; when the block
    ends without an exception it replaces ``path`` by a rename, so a reader sees the old file
    or the new one, never a partial one; otherwise it is removed. For large files written
    as a stream (a checkpoint); :func:`write_bytes_atomic` for bytes in hand."""
    path = Path(path)
    with _sibling_file(path) as tmp, _naming(path):
        yield tmp
        os.replace(tmp, path)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` (its folder must exist) through a temporary sibling and a
    rename: a reader sees the old file or the new one, never a partial one."""
    with replaced_atomically(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`write_bytes_atomic` of ``text`` in UTF-8, line endings as given."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def save_png(fig, path: str | os.PathLike[str], **savefig) -> Path:
    """Save the matplotlib figure ``fig`` as a PNG at ``path`` atomically (as
    :func:`write_bytes_atomic`) and byte-reproducibly (no ``Software`` chunk naming the
    matplotlib version; matplotlib writes no date into a PNG), then close it. ``savefig``:
    more arguments of ``Figure.savefig`` (``dpi``)."""
    import matplotlib.pyplot as plt

    path = Path(path)
    try:
        with _sibling_file(path) as tmp:
            fig.savefig(tmp, format="png", metadata={"Software": None}, **savefig)
            os.replace(tmp, path)
    finally:
        plt.close(fig)
    return path
