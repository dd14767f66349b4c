"""Resolving a submission argument: a baseline name, a folder or ``.zip``, or a loaded object.

Every command that takes submissions (``evaluate``, ``match``, ``grade``, ``best-response``,
``exploitability``) resolves them here, so names, precedence and messages are the same
everywhere: a baseline name wins over a folder of the same name (write ``./uniform`` for the
folder), and a path is displayed by its folder name or its file name without ``.zip``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import get_config
from .errors import TeamLeducError

__all__ = ["Entrant", "entrant_name", "load_entrant"]


@dataclass(frozen=True, eq=False)
class Entrant:
    """A named submission: a path or a baseline name, resolved to a loaded Submission."""

    name: str
    source: str  # the path, "baseline", or "object"
    submission: (
        object  # teamleduc.submission.Submission (duck-typed: signals, probs, seats, strategies)
    )

    @property
    def num_signals(self) -> int:
        return int(len(self.submission.signals))


def load_entrant(spec, config, seats=None) -> Entrant:
    """Resolve one submission argument.

    ``spec`` is a baseline name (``uniform``, ``always-call``, ``aggressive``, ``cautious``,
    ``random-pure``, ``random-pure:SEED`` or ``cfr:N``), a path to a submission folder or ``.zip``, an
    :class:`Entrant`, or an already loaded Submission. A baseline name wins over a folder of
    the same name; write ``./uniform`` for the folder. ``seats`` (0-based) limits loading to the
    seats that will play.
    """
    from . import baselines

    config = get_config(config)
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
            f"{text}: no such submission folder or .zip, and not a baseline "
            f"(baselines: {', '.join(baselines.BASELINES)}, random-pure:SEED, cfr:N)"
        )
    from .submission import load_submission

    sub = load_submission(path, config, seats=None if seats is None else tuple(seats))
    return Entrant(name=entrant_name(path), source=str(path), submission=sub)


def entrant_name(path) -> str:
    """Display name of a submission path: the folder name, or the file name without ``.zip``."""
    path = Path(path)
    name = path.name if path.name else path.resolve().name
    return name[:-4] if name.lower().endswith(".zip") else name
