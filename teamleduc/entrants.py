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
from .config import GameConfig, get_config
from .errors import TeamLeducError
from .files.model import Submission
from .files.preset_detection import choose_preset
from .files.reading import load_submission

__all__ = ["Entrant", "entrant_name", "load_entrant", "resolve_preset"]


@dataclass(frozen=True, eq=False)
class Entrant:
    """A named submission: a path or a baseline name, resolved to a loaded Submission."""

    name: str
    source: str  # the path, "baseline", or "object"
    submission: Submission  # or any object with signals, probs, seats and strategies

    @property
    def num_signals(self) -> int:
        return int(len(self.submission.signals))


def load_entrant(
    spec: object, config: GameConfig | str, seats: Iterable[int] | None = None
) -> Entrant:
    """Resolve one submission argument.

    ``spec`` is a baseline name (``uniform``, ``always-call``, ``aggressive``, ``cautious``,
    ``random-pure`` or ``random-pure:SEED``), a path to a submission folder or ``.zip``, an
    :class:`Entrant`, or an already loaded Submission. A baseline name wins over a folder of
    the same name; write ``./uniform`` for the folder. ``seats`` (0-based) limits loading to the
    seats that will play.
    """
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
            f"(baselines: {', '.join(baselines.BASELINES)}, random-pure:SEED)"
        )
    sub = load_submission(path, config, seats=None if seats is None else tuple(seats))
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
    paths = [
        Path(s)
        for s in specs
        if isinstance(s, (str, os.PathLike))
        and not (isinstance(s, str) and baselines.is_baseline(s))
        and Path(s).exists()
    ]
    return choose_preset(paths, default)
