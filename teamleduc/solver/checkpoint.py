"""Checkpoints of a solver run: one ``checkpoint.npz`` written atomically.

Layout of the archive (numpy ``.npz``, no pickles):

==========================  ===========================================================
``meta``                    0-d unicode array: JSON with ``format``, ``version``,
                            ``preset``, ``method``, ``iterations``, ``seconds``,
                            ``history`` (measurements) and ``config`` (the rules)
``alg/<name>``              the algorithm's state arrays (regrets, cumulative strategy, ...)
``cand<team>/<k>``          (n_candidates, n_seat) int8 actions of member k of every pure
                            candidate strategy of team ``team``
``cand<team>/kind``         (n_candidates,) int8 where each came from (index in ``KINDS``)
==========================  ===========================================================

:func:`save` writes to a temporary file in the same folder and renames it over the old
checkpoint, so an interruption (Ctrl-C, a crash) never leaves a partial file behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..dag import PureTeamStrategy
from ..errors import TeamLeducError
from .common import Candidates, Measurement

CHECKPOINT_NAME = "checkpoint.npz"
FORMAT = 1
KINDS = ("br", "peel", "product", "column")


@dataclass
class Checkpoint:
    """What a run needs to continue: method, progress, algorithm state and candidates."""

    preset: str
    method: str
    iterations: int
    seconds: float
    history: list
    state: dict
    candidates: Candidates
    config: dict

    @property
    def meta(self) -> dict:
        return {
            "format": FORMAT,
            "version": __version__,
            "preset": self.preset,
            "method": self.method,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "history": [m.to_dict() for m in self.history],
            "config": self.config,
        }


def save(path, ck: Checkpoint) -> Path:
    """Write ``ck`` to ``path`` (a file, or a folder that receives ``checkpoint.npz``)."""
    path = Path(path)
    if path.is_dir() or path.suffix != ".npz":
        path = path / CHECKPOINT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"meta": np.array(json.dumps(ck.meta))}
    for k, v in ck.state.items():
        arrays[f"alg/{k}"] = np.asarray(v)
    for team in (0, 1):
        c = ck.candidates
        pairs = [
            (s, k, b)
            for s, k, b in zip(c.items[team], c.kinds[team], c.batches[team])
            if isinstance(s, PureTeamStrategy)
        ]
        if pairs:
            for k in range(len(pairs[0][0].actions)):
                arrays[f"cand{team}/{k}"] = np.stack([s.actions[k] for s, _, _ in pairs])
            arrays[f"cand{team}/kind"] = np.array([KINDS.index(k) for _, k, _ in pairs], np.int8)
            arrays[f"cand{team}/batch"] = np.array([b for _, _, b in pairs], np.int64)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def load(path, config) -> Checkpoint:
    """Read a checkpoint (a file or the run folder holding ``checkpoint.npz``) for ``config``.

    Raises :class:`TeamLeducError` if it is missing, unreadable or from another game."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.exists():
        raise TeamLeducError(f"no checkpoint at {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            state = {k[4:]: z[k] for k in z.files if k.startswith("alg/")}
            cand = {k: z[k] for k in z.files if k.startswith("cand")}
    except (OSError, ValueError, KeyError) as e:
        raise TeamLeducError(f"cannot read checkpoint {path}: {e}") from None
    if meta.get("format") != FORMAT:
        raise TeamLeducError(
            f"checkpoint {path} has format {meta.get('format')}, expected {FORMAT}"
        )
    if meta["config"] != config.to_dict():
        raise TeamLeducError(
            f"checkpoint {path} belongs to preset {meta['preset']}, "
            f"not {config.name} (or the rules differ)"
        )
    candidates = Candidates()
    for team in (0, 1):
        seats = tuple(sorted(config.teams[team]))
        parts = [cand.get(f"cand{team}/{k}") for k in range(len(seats))]
        if parts[0] is None:
            continue
        kinds = cand.get(f"cand{team}/kind")
        bad = f"cannot read checkpoint {path}: team {'AB'[team]}'s candidate arrays"
        if kinds is None or any(p is None for p in parts):
            raise TeamLeducError(f"{bad} are incomplete")
        # checkpoints written before batches existed: all in batch 0
        batches = cand.get(f"cand{team}/batch", np.zeros(len(kinds), np.int64))
        if any(len(a) != len(kinds) for a in parts + [batches]):
            raise TeamLeducError(f"{bad} differ in length")
        if len(kinds) and not (kinds.min() >= 0 and kinds.max() < len(KINDS)):
            raise TeamLeducError(f"{bad} hold an unknown kind")
        for i in range(parts[0].shape[0]):
            acts = tuple(np.ascontiguousarray(p[i]) for p in parts)
            candidates.add(
                team,
                PureTeamStrategy(seats, acts, np.zeros(0, np.int64)),
                KINDS[int(kinds[i])],
                batch=int(batches[i]),
            )
        candidates.batch = max(candidates.batch, int(batches.max(initial=0)))
    history = [
        Measurement(h["iteration"], h["seconds"], h["lower"], h["upper"], h["what"])
        for h in meta["history"]
    ]
    return Checkpoint(
        preset=meta["preset"],
        method=meta["method"],
        iterations=meta["iterations"],
        seconds=meta["seconds"],
        history=history,
        state=state,
        candidates=candidates,
        config=meta["config"],
    )
