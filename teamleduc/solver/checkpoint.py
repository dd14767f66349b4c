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
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..dag import PureTeamStrategy
from ..errors import TeamLeducError
from ..outputs import replaced_atomically
from .candidates import Candidates
from .measurement import Measurement

CHECKPOINT_NAME = "checkpoint.npz"
FORMAT = 2  # 2: the current strategy is recomputed from the regrets, not stored
KINDS = ("br", "peel", "product", "column")
#: the most iterations and seconds a checkpoint may record: far beyond any run (leduc makes a
#: few thousand iterations a second), so a doctored count cannot stall a resume or the
#: progress lines
MAX_ITERATIONS = 10**9  # also below where t**3 weights overflow float32 cumulative strategies
MAX_SECONDS = 1e9


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
    with replaced_atomically(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, **arrays)
    return path


class CheckpointError(TeamLeducError):
    """A checkpoint that cannot be resumed: unreadable, truncated, from another game or
    version, or inconsistent (exit code 2). The message names the file and what is wrong."""


def _number(value, what: str, integer: bool = False, minimum: float | None = None) -> None:
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or isinstance(value, bool) or not math.isfinite(value):
        kind = "an integer" if integer else "a finite number"
        raise ValueError(f"{what} is {value!r}, not {kind}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} is {value!r}, below {minimum}")


def _check_meta(meta) -> None:
    """ValueError naming the first problem of the metadata object."""
    if not isinstance(meta, dict):
        raise ValueError(f"its metadata is a JSON {type(meta).__name__}, not an object")
    for key in ("format", "preset", "method", "iterations", "seconds", "history", "config"):
        if key not in meta:
            raise ValueError(f"its metadata has no {key!r}")
    if meta["format"] != FORMAT:
        raise ValueError(f"it has format {meta['format']!r}; this version reads format {FORMAT}")
    if not isinstance(meta["preset"], str) or not isinstance(meta["method"], str):
        raise ValueError("its metadata's preset and method are not strings")
    _number(meta["iterations"], "its iteration count", integer=True, minimum=0)
    _number(meta["seconds"], "its seconds", minimum=0)
    if meta["iterations"] > MAX_ITERATIONS or meta["seconds"] > MAX_SECONDS:
        raise ValueError(
            f"its {meta['iterations']} iterations in {meta['seconds']:.3g} s are more than a run "
            f"makes (at most {MAX_ITERATIONS:.0e} iterations, {MAX_SECONDS:.0e} s)"
        )
    if not isinstance(meta["history"], list):
        raise ValueError("its history is not a list")
    for i, h in enumerate(meta["history"]):
        where = f"history entry {i + 1}"
        if not isinstance(h, dict):
            raise ValueError(f"{where} is not an object")
        for key in ("iteration", "seconds", "lower", "upper", "what"):
            if key not in h:
                raise ValueError(f"{where} has no {key!r}")
        _number(h["iteration"], f"{where}'s iteration", integer=True, minimum=0)
        for key in ("seconds", "lower", "upper"):
            _number(h[key], f"{where}'s {key}")
        if not isinstance(h["what"], str):
            raise ValueError(f"{where}'s 'what' is not a string")


def _check_candidates(cand: dict, config, team: int) -> list | None:
    """The team's candidate arrays (one per member), kinds and batches, checked; None if the
    checkpoint holds none for that team."""
    from ..infosets import infoset_tables
    from ..tree import build_tree

    seats = tuple(sorted(config.teams[team]))
    name = f"team {'AB'[team]}'s candidates"
    present = [k for k in cand if k.startswith(f"cand{team}/")]
    if not present:
        return None
    parts = [cand.get(f"cand{team}/{k}") for k in range(len(seats))]
    kinds = cand.get(f"cand{team}/kind")
    if kinds is None or any(p is None for p in parts):
        raise ValueError(f"{name} are incomplete")
    # checkpoints written before batches existed: all in batch 0
    batches = cand.get(f"cand{team}/batch", np.zeros(len(kinds), np.int64))
    tables = infoset_tables(build_tree(config))
    for a in [kinds, batches, *parts]:
        if a.dtype.kind not in "iu":
            raise ValueError(f"{name} hold {a.dtype} values, not integers")
    if kinds.ndim != 1 or batches.shape != kinds.shape:
        raise ValueError(f"{name}' kinds and batches differ in shape")
    if len(kinds) and not (kinds.min() >= 0 and kinds.max() < len(KINDS)):
        raise ValueError(f"{name} hold an unknown kind")
    if len(batches) and batches.min() < 0:
        raise ValueError(f"{name} hold a negative batch")
    for seat, p in zip(seats, parts):
        n = tables[seat].size
        if p.shape != (len(kinds), n):
            raise ValueError(
                f"{name} for seat {seat + 1} have shape {p.shape}; {config.name} needs "
                f"({len(kinds)}, {n}): one action per information set"
            )
        if p.size and (p.min() < 0 or p.max() > 2):
            raise ValueError(f"{name} for seat {seat + 1} hold actions outside 0..2")
        if p.size and not tables[seat].legal[np.arange(n)[None, :], p].all():
            raise ValueError(f"{name} for seat {seat + 1} hold illegal actions")
    return [seats, parts, kinds, batches]


def progress_of(path) -> tuple[int, float]:
    """(iterations, seconds) of a checkpoint this run wrote itself (its metadata alone)."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
    return int(meta["iterations"]), float(meta["seconds"])


def load(path, config) -> Checkpoint:
    """Read a checkpoint (a file or the run folder holding ``checkpoint.npz``) for ``config``.

    The whole file is checked before anything runs: :class:`CheckpointError` names it and
    says what is wrong if it is missing, unreadable, truncated, from another game or format,
    or inconsistent (metadata, history, candidate actions and shapes). The algorithm's state
    arrays are checked against the algorithm with :func:`check_state`."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("it is a single array, not a .npz archive")
            if "meta" not in z.files:
                raise ValueError("it has no metadata ('meta')")
            meta = json.loads(str(z["meta"]))
            state = {k[4:]: z[k] for k in z.files if k.startswith("alg/")}
            cand = {k: z[k] for k in z.files if k.startswith("cand")}
        if "cum0" in state and "gamma" not in state:
            # a regret minimiser's checkpoint from before 0.4.7, whose averages all weighed
            # iteration t by t**2 (RegretMinimizer.load_state rescales them)
            state["gamma"] = np.array(2.0)
        _check_meta(meta)
        if meta["config"] != config.to_dict():
            raise ValueError(
                f"it belongs to preset {meta['preset']}, not {config.name} (or the rules differ)"
            )
        checked = [_check_candidates(cand, config, team) for team in (0, 1)]
    except CheckpointError:
        raise
    except Exception as e:  # a corrupt file may raise anything from zipfile, numpy or json
        raise CheckpointError(f"cannot resume from checkpoint {path}: {_reason(e)}") from None
    candidates = Candidates()
    for team, found in enumerate(checked):
        if found is None:
            continue
        seats, parts, kinds, batches = found
        for i in range(len(kinds)):
            acts = tuple(np.ascontiguousarray(p[i], dtype=np.int8) for p in parts)
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


def _reason(e: Exception) -> str:
    if isinstance(e, ValueError | TypeError) and not isinstance(e, json.JSONDecodeError):
        return str(e)
    return f"unreadable or truncated ({type(e).__name__}: {e})"


#: the largest averaging exponent a checkpoint may record (the solver's is 3)
MAX_GAMMA = 8.0

#: a regret minimiser's arrays that a checkpoint from before 0.4.8 lacks: the sums of the
#: iterates' terminal reaches and of their weights (``RegretMinimizer.load_state`` rebuilds
#: them from ``cum`` and the iteration count)
OPTIONAL_STATE = {"rsum0", "rsum1", "wsum"}


def file_of(path) -> Path:
    """The checkpoint file of ``path``: the path itself, or a run folder's ``checkpoint.npz``."""
    path = Path(path)
    return path / CHECKPOINT_NAME if path.is_dir() else path


def check_state(path, state: dict, expected: dict) -> None:
    """CheckpointError unless ``state`` has exactly the arrays of ``expected`` (an algorithm's
    fresh ``state()``; a regret minimiser's may lack :data:`OPTIONAL_STATE`), with their
    shapes and finite values, a regret minimiser's averaging exponent ``gamma`` in [0,
    :data:`MAX_GAMMA`] and its reach sums non-negative."""
    path = file_of(path)
    bad = f"cannot resume from checkpoint {path}: the algorithm's state"
    optional = OPTIONAL_STATE if "cum0" in expected else set()
    needed = set(expected) - optional
    if not needed <= set(state) <= set(expected):
        missing = sorted(needed - set(state)) or sorted(set(state) - set(expected))
        raise CheckpointError(f"{bad} does not match the method (array {missing[0]!r})")
    if optional & set(state) and not optional <= set(state):  # all of them or none
        missing = sorted(optional - set(state))
        raise CheckpointError(f"{bad} does not match the method (array {missing[0]!r})")
    for name, want in expected.items():
        if name not in state:
            continue
        got = state[name]
        if got.shape != np.shape(want) or got.dtype.kind not in "iuf":
            raise CheckpointError(
                f"{bad}: array {name!r} is {got.dtype} {got.shape}, expected "
                f"{np.asarray(want).dtype} {np.shape(want)}"
            )
        if got.dtype.kind == "f" and not np.isfinite(got).all():
            raise CheckpointError(f"{bad}: array {name!r} holds non-finite values")
        if name in OPTIONAL_STATE | {"t"} and got.size and not got.min() >= 0:
            raise CheckpointError(f"{bad}: array {name!r} holds negative values")
        if name == "t" and got.dtype.kind not in "iu":
            raise CheckpointError(f"{bad}: the iteration count 't' is {got.dtype}, not an integer")
        if name == "gamma" and not 0.0 <= float(got) <= MAX_GAMMA:
            raise CheckpointError(
                f"{bad}: averaging exponent {float(got)!r} is not in [0, {MAX_GAMMA:g}]"
            )
