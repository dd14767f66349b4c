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
from .files.reading import load_submission
from .files.safeio import SubmissionError

__all__ = ["Entrant", "entrant_name", "load_entrant"]


@dataclass(frozen=True, eq=False)
class Entrant:
    """A named submission: a path or a baseline name, resolved to a loaded Submission."""

    name: str
    source: str  # the path, "baseline", or "object"
    submission: Submission  # or any object with signals, probs, seats and strategies

    @property
    def num_signals(self) -> int:
        return int(len(self.submission.signals))


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
