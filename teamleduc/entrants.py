"""Resolving a submission argument: a baseline name, a folder or ``.zip``, or a loaded object.

Every command that takes submissions (``evaluate``, ``match``, ``grade``, ``best-response``,
``exploitability``) resolves them here, so names, precedence and messages are the same
everywhere: a baseline name wins over a folder of the same name (write ``./uniform`` for the
folder), and a path is displayed by its folder name or its file name without ``.zip``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import baselines
from .config import ConfigLike, GameConfig, get_config
from .errors import TeamLeducError
from .files.model import Submission
from .files.preset_detection import choose_preset
from .files.reading import load_submission
from .files.safeio import SubmissionError

__all__ = [
    "Entrant",
    "NamedPath",
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
    (``grade alice=subs/a.zip`` or a line of a names file)."""

    name: str
    path: str

    @classmethod
    def parse(cls, text: str) -> NamedPath | str:
        """``NAME=PATH`` as a NamedPath; anything else (an existing path with ``=`` in its
        name included) as it is."""
        name, sep, path = text.partition("=")
        if not sep or Path(text).exists() or not name.strip() or not path.strip():
            return text
        return cls(name.strip(), path.strip())


def read_names_file(path: str | os.PathLike[str]) -> list[NamedPath]:
    """The rows ``name,path`` of a CSV names file (a first row ``name,path`` is a header);
    relative paths are taken from the file's folder. TeamLeducError naming a bad line."""
    import csv

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise TeamLeducError(f"{path}: cannot read the names file: {e}") from None
    out = []
    for number, row in enumerate(csv.reader(text.splitlines()), 1):
        cells = [c.strip() for c in row]
        if not any(cells) or (number == 1 and [c.lower() for c in cells] == ["name", "path"]):
            continue
        if len(cells) != 2 or not all(cells):
            raise TeamLeducError(
                f"{path}, line {number}: expected 'name,path' (two non-empty fields), got {row}"
            )
        target = cells[1]
        if not baselines.is_baseline(target) and not Path(target).is_absolute():
            target = str(path.parent / target)
        out.append(NamedPath(cells[0], target))
    if not out:
        raise TeamLeducError(f"{path}: no 'name,path' rows")
    return out


def repeated_paths(specs: Iterable[object]) -> list[tuple[str, list[str]]]:
    """``(path, names)`` for every submission path given more than once (resolved, so
    ``a`` and ``./a`` are the same), in order of first appearance."""
    seen: dict[Path, tuple[str, list[str]]] = {}
    for spec in specs:
        name, target = (spec.name, spec.path) if isinstance(spec, NamedPath) else (None, spec)
        if not isinstance(target, (str, os.PathLike)) or not Path(target).exists():
            continue
        key = Path(target).resolve()
        entry = seen.setdefault(key, (str(target), []))
        entry[1].append(name or entrant_name(target))
    return [(p, names) for p, names in seen.values() if len(names) > 1]


#: what every function taking a submission accepts: a path (folder or ``.zip``), a baseline
#: name, a loaded Submission or an Entrant
EntrantSpec = str | os.PathLike | Submission | Entrant


def load_entrant(
    spec: EntrantSpec,
    config: ConfigLike,
    seats: Iterable[int] | None = None,
    *,
    role: str | None = None,
    require: Iterable[int] | None = None,
) -> Entrant:
    """Resolve one submission argument.

    ``spec`` is a baseline name (``uniform``, ``always-call``, ``aggressive``, ``cautious``,
    ``random-pure``, ``random-pure:SEED`` or ``cfr:N``), a path to a submission folder or ``.zip``, an
    :class:`Entrant`, or an already loaded Submission. A baseline name wins over a folder of
    the same name; write ``./uniform`` for the folder. ``seats`` (0-based) limits loading to the
    seats that will play; ``require`` (default ``seats``) are the seats it must play.

    Every error names the submission (its path, after ``role`` such as ``"team B's
    submission"`` when given), so a command taking two submissions says which one is at fault.
    """
    config = get_config(config)
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
    return f"{role} {text}" if role else text


def _resolve(spec: object, config: GameConfig, seats, role: str | None) -> Entrant:
    if isinstance(spec, Entrant):
        return spec
    if isinstance(spec, NamedPath):
        inner = load_entrant(spec.path, config, seats)
        return Entrant(name=spec.name, source=inner.source, submission=inner.submission)
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        return Entrant(name="submission", source="object", submission=spec)
    text = str(spec)
    if isinstance(spec, str) and baselines.is_baseline(text):
        return Entrant(
            name=baselines.canonical_name(text),
            source="baseline",
            submission=baselines.baseline(text, config, seats=seats),
        )
    path = Path(spec)
    if not path.exists():
        raise TeamLeducError(
            f"{_who(spec, role)}: no such submission folder or .zip, and not a baseline "
            f"(baselines: {', '.join(baselines.BASELINES)}, random-pure:SEED, cfr:N)"
        )
    try:
        sub = load_submission(path, config, seats=None if seats is None else tuple(seats))
    except SubmissionError as e:
        # the file inside the submission is in str(e); the submission itself goes first
        raise SubmissionError(str(e), file=_who(spec, role), findings=e.findings) from None
    return Entrant(name=entrant_name(path), source=str(path), submission=sub)


def entrant_name(path: str | os.PathLike[str]) -> str:
    """Display name of a submission path: the folder name, or the file name without ``.zip``."""
    path = Path(path)
    name = path.name if path.name else path.resolve().name
    return name[:-4] if name.lower().endswith(".zip") else name


def resolve_preset(
    preset: GameConfig | str | None, specs: Iterable[object], default: str | None = None
) -> GameConfig:
    """``preset`` when given, else the preset of the submission paths among ``specs`` (baseline
    names, loaded submissions and missing paths are skipped: they fit any preset)."""
    if preset is not None:
        return get_config(preset)
    specs = [s.path if isinstance(s, NamedPath) else s for s in specs]
    paths = [
        Path(s)
        for s in specs
        if isinstance(s, (str, os.PathLike))
        and not (isinstance(s, str) and baselines.is_baseline(s))
        and Path(s).exists()
    ]
    return choose_preset(paths, default)
