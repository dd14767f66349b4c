"""Resolving a submission argument: a baseline name, a folder or ``.zip``, or a loaded object.

Every command that takes submissions (``evaluate``, ``match``, ``grade``, ``best-response``,
``exploitability``) resolves them here, so names, precedence and messages are the same
everywhere (:func:`baseline_or_path`): ``baseline:NAME`` is always a baseline, a bare baseline
name (``cautious``, ``random-pure:3``, ``cfr:10``) is one unless a file or folder of that name
exists, in which case the argument is refused with how to write each (``./cautious`` for the
folder, ``baseline:cautious`` for the baseline); anything else is a path. A path is displayed
by its folder name or its file name without ``.zip``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import baselines
from .config import GameConfig, require_config
from .errors import TeamLeducError
from .files.findings import SubmissionError
from .files.model import Submission, check_submission
from .files.preset_detection import choose_preset
from .files.reading import load_submission
from .names import (
    MAX_NAME_CHARS,
    MAX_NAMES_FILE_BYTES,
    MAX_PATH_CHARS,
    check_named_path,
    display_name,
)

__all__ = [
    "Entrant",
    "NamedPath",
    "baseline_or_path",
    "entrant_name",
    "load_entrant",
    "read_names_file",
    "repeated_paths",
    "resolve_preset",
]


@dataclass(frozen=True, eq=False)
class Entrant:
    """A named submission: a path or a baseline name, resolved to a loaded Submission."""

    name: str
    source: str  # the path, "baseline", or "object"
    submission: Submission  # or any object with signals, probs, seats and strategies

    @property
    def num_signals(self) -> int:
        return int(len(self.submission.signals))


@dataclass(frozen=True)
class NamedPath:
    """A submission path (or baseline name) with the name it is graded under
    (``grade alice=subs/a.zip`` or a line of a names file).

    Both are stripped and checked (:func:`teamleduc.names.check_named_path`): an empty name, a
    name over 1,000 characters, a path over 4,096 or holding NUL is a TeamLeducError.
    """

    name: str
    path: str

    def __post_init__(self) -> None:
        path = os.fspath(self.path) if isinstance(self.path, os.PathLike) else self.path
        name, path = check_named_path(self.name, path, "NamedPath")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "path", path)

    @classmethod
    def parse(cls, text: str) -> NamedPath | str:
        """``NAME=PATH`` as a NamedPath; anything else (an existing path with ``=`` in its
        name included) as it is. TeamLeducError for ``NAME=PATH`` with an empty, blank or too
        long name, or a path too long."""
        name, sep, path = text.partition("=")
        if not sep or "\0" in text or _exists(text):
            return text
        if not path.strip():
            return text  # "x=": not a name and a path; graded (and refused) as a path
        name, path = check_named_path(name, path, f"argument '{display_name(text[:80])}'")
        return cls(name, path)


def _exists(text: str) -> bool:
    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def read_names_file(path: str | os.PathLike[str]) -> list[NamedPath]:
    """The rows ``name,path`` of a CSV names file (a first row ``name,path`` is a header);
    relative paths are taken from the file's folder. TeamLeducError naming the file and the
    bad line: a row without two fields, an empty or blank name, a name over 1,000 characters,
    a path over 4,096; also a file that is not a regular file (a pipe or a device is never
    read, so never hangs), over 16 MiB (refused from its size), or not UTF-8.

    Fields are read by the CSV rules: a quoted field may hold commas, quotes, CR and LF (the
    line named is the row's first line).
    """
    import csv
    import io
    import stat

    path = Path(path)
    shown = display_name(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as e:
        raise TeamLeducError(f"{shown}: cannot read the names file: {e}") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise TeamLeducError(f"{shown}: the names file is not a regular file")
        if info.st_size > MAX_NAMES_FILE_BYTES:
            raise TeamLeducError(
                f"{shown}: the names file has {info.st_size:,} bytes "
                f"(at most {MAX_NAMES_FILE_BYTES:,})"
            )
        try:
            data = f.read(MAX_NAMES_FILE_BYTES + 1)
        except OSError as e:
            raise TeamLeducError(f"{shown}: cannot read the names file: {e}") from None
    if len(data) > MAX_NAMES_FILE_BYTES:
        raise TeamLeducError(f"{shown}: the names file has over {MAX_NAMES_FILE_BYTES:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise TeamLeducError(f"{shown}, line {line}: not UTF-8 text ({e.reason})") from None
    out = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    number = 1  # the line where the next row starts
    while True:
        start = number
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            why = f"not CSV: {e}"
            if "unexpected end of data" in why:
                why = "a quoted field is never closed (a '\"' missing)"
            if "field larger than field limit" in why:
                why = (
                    f"a field over {csv.field_size_limit():,} characters (a name may have "
                    f"{MAX_NAME_CHARS:,}, a path {MAX_PATH_CHARS:,})"
                )
            raise TeamLeducError(f"{shown}, line {number}: {why}") from None
        where, number = f"{shown}, line {start}", reader.line_num + 1
        cells = [c.strip() for c in row]
        if not any(cells) or (start == 1 and [c.lower() for c in cells] == ["name", "path"]):
            continue
        if len(cells) != 2:
            got = display_name(repr([c[:80] for c in row[:4]]))
            raise TeamLeducError(f"{where}: expected 'name,path' (two non-empty fields), got {got}")
        name, target = check_named_path(cells[0], cells[1], where)
        try:  # a baseline name that is also a file or folder beside the names file: refused
            baseline = baseline_or_path(target, base=path.parent)
        except TeamLeducError as e:
            raise TeamLeducError(f"{where}: {e}") from None
        if baseline is not None:  # the baseline, whatever the current folder holds
            target = baselines.PREFIX + baseline
        elif not Path(target).is_absolute():
            target = str(path.parent / target)
        out.append(NamedPath(name, target))
    if not out:
        raise TeamLeducError(f"{shown}: no 'name,path' rows")
    return out


def baseline_or_path(spec: object, base: str | os.PathLike[str] | None = None) -> str | None:
    """The canonical baseline name that ``spec`` stands for, or None when it is a path (or an
    object).

    Only a ``str`` names a baseline: ``baseline:NAME`` always (TeamLeducError if NAME is not
    one); a bare baseline name unless a file or folder of that name exists in ``base`` (default:
    the current folder), which is refused as ambiguous with how to write each. A path object
    (``Path("cautious")``) is always a path."""
    if not isinstance(spec, str):
        return None
    if spec.strip().lower().startswith(baselines.PREFIX):
        return baselines.canonical_name(spec)
    if not baselines.is_baseline(spec):
        return None
    name = baselines.canonical_name(spec)
    where = Path(spec) if base is None else Path(base, spec)
    if os.path.lexists(where):
        kind = "folder" if where.is_dir() else "file"
        raise TeamLeducError(
            f"'{spec}' is both a baseline and a {kind} in {where.parent.resolve()}: write "
            f"./{spec} for the {kind}, or baseline:{name} for the baseline"
        )
    return name


def _existing_path(spec: object) -> Path | None:
    """``spec`` as a Path if it is a path (not a baseline) that exists, else None."""
    if not isinstance(spec, (str, os.PathLike)) or baseline_or_path(spec) is not None:
        return None
    return Path(spec) if os.path.exists(spec) else None


def repeated_paths(specs: Iterable[object]) -> list[tuple[str, list[str]]]:
    """``(path, names)`` for every submission path given more than once (resolved, so
    ``a`` and ``./a`` are the same), in order of first appearance."""
    seen: dict[Path, tuple[str, list[str]]] = {}
    for spec in specs:
        name, target = (spec.name, spec.path) if isinstance(spec, NamedPath) else (None, spec)
        path = _existing_path(target)
        if path is None:
            continue
        try:
            key = path.resolve()
        except (OSError, RuntimeError):  # a link changed meanwhile: the loader reports it
            continue
        entry = seen.setdefault(key, (str(target), []))
        entry[1].append(name or entrant_name(target))
    return [(p, names) for p, names in seen.values() if len(names) > 1]


#: what every function taking a submission accepts: a path (folder or ``.zip``), a baseline
#: name, a loaded Submission or an Entrant
EntrantSpec = str | os.PathLike | Submission | Entrant


def load_entrant(
    spec: EntrantSpec,
    config: GameConfig,
    seats: Iterable[int] | None = None,
    *,
    role: str | None = None,
    require: Iterable[int] | None = None,
) -> Entrant:
    """Resolve one submission argument.

    ``spec`` is a baseline name (``uniform``, ``always-call``, ``aggressive``, ``cautious``,
    ``random-pure``, ``random-pure:SEED`` or ``cfr:N``, each also as ``baseline:NAME``), a path
    to a submission folder or ``.zip``, an :class:`Entrant`, or an already loaded Submission. A
    bare baseline name that is also an existing file or folder is refused as ambiguous
    (:func:`baseline_or_path`): write ``./uniform`` for the folder, ``baseline:uniform`` for the
    baseline. ``seats`` (0-based) limits loading to the seats that will play; ``require``
    (default ``seats``) are the seats it must play.

    Every error names the submission (its path, after ``role`` such as ``"team B's
    submission"`` when given), so a command taking two submissions says which one is at fault.
    """
    require_config(config)
    entrant = _resolve(spec, config, seats, role)
    need = seats if require is None else require
    if need is not None:
        missing = sorted(set(need) - set(entrant.submission.strategies))
        if missing:
            raise TeamLeducError(
                f"{_who(spec, role)}: plays seats "
                f"{','.join(str(s + 1) for s in sorted(entrant.submission.strategies))}, not "
                f"{','.join(str(s + 1) for s in missing)} (needed here)"
            )
    return entrant


def _who(spec: object, role: str | None) -> str:
    if isinstance(spec, Entrant):
        text = spec.source if spec.source not in ("baseline", "object") else spec.name
    elif hasattr(spec, "strategies") and hasattr(spec, "probs"):
        text = "the submission object"
    else:
        text = str(spec)
        if len(text) > MAX_PATH_CHARS:  # no file system holds it: never echoed whole
            from .arguments import excerpt

            text = excerpt(text)
    return f"{role} {text}" if role else text


def _resolve(spec: object, config: GameConfig, seats, role: str | None) -> Entrant:
    if isinstance(spec, Entrant):
        return spec
    if isinstance(spec, NamedPath):
        inner = load_entrant(spec.path, config, seats)
        return Entrant(name=spec.name, source=inner.source, submission=inner.submission)
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        sub = check_submission(spec, config, _who(spec, role))  # no kernel sees unchecked rows
        return Entrant(name="submission", source="object", submission=sub)
    name = baseline_or_path(spec)
    if name is not None:
        return Entrant(
            name=name, source="baseline", submission=baselines.baseline(name, config, seats=seats)
        )
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(
            f"{role or 'submission'}: expected a path, a baseline name, an Entrant or a loaded "
            f"Submission, not {type(spec).__name__}"
        )
    path = Path(spec)
    if not os.path.exists(path):  # False for a broken or looping link, a NUL byte, a long name
        link = " (a broken or looping symbolic link)" if os.path.lexists(path) else ""
        names = (  # a mistyped baseline name comes as text; a path object is a path
            f", and not a baseline (baselines: {', '.join(baselines.BASELINES)}, "
            "random-pure:SEED, cfr:N)"
            if isinstance(spec, str)
            else ""
        )
        raise TeamLeducError(f"{_who(spec, role)}: no such submission folder or .zip{link}{names}")
    try:
        sub = load_submission(path, config, seats=None if seats is None else tuple(seats))
    except SubmissionError as e:
        # the file inside the submission is in str(e); the submission itself goes first
        raise SubmissionError(str(e), file=_who(spec, role), findings=e.findings) from None
    except OSError as e:  # gone or changed since it was checked
        raise TeamLeducError(f"{_who(spec, role)}: cannot read: {e.strerror or e}") from None
    return Entrant(name=entrant_name(path), source=str(path), submission=sub)


def entrant_name(path: str | os.PathLike[str]) -> str:
    """Display name of a submission path: the folder name, or the file name without ``.zip``."""
    path = Path(path)
    name = path.name if path.name else path.resolve().name
    return name[:-4] if name.lower().endswith(".zip") and len(name) > 4 else name


def resolve_preset(
    preset: GameConfig | None, specs: Iterable[object], default: str | None = None
) -> GameConfig:
    """``preset`` (a GameConfig) when given, else the preset of the submission paths among ``specs`` (baseline
    names, loaded submissions and missing paths are skipped: they fit any preset). A baseline
    name that is also an existing path is refused here too (:func:`baseline_or_path`)."""
    specs = [s.path if isinstance(s, NamedPath) else s for s in specs]
    paths = [p for p in map(_existing_path, specs) if p is not None]
    if preset is not None:
        return require_config(preset)
    return choose_preset(paths, default)
