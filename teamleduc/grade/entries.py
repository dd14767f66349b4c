"""The entries of a grading: what each argument is (a baseline, a path, a loaded submission)
and the name it is graded under, repeats made unique. Internal to :mod:`teamleduc.grade`."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from ..entrants import Entrant, NamedPath, baseline_or_path, entrant_name
from ..names import display_name


def unique_names(names: list[str]) -> list[str]:
    """The names, each repeat given the first suffix `` (k)``, k = 2, 3, ..., that no other
    name has (``alice, alice, alice (2)`` gives ``alice, alice (3), alice (2)``): in input
    order, so deterministic. Names that look the same are repeats too: equal once NFC
    normalised and shown (:func:`teamleduc.names.display_name`). TypeError for a name that is
    not a str."""

    def key(name: str) -> str:
        return display_name(unicodedata.normalize("NFC", name))

    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise TypeError(f"entrant {i + 1}: its name must be a str, not {type(n).__name__}")
    keys = [key(n) for n in names]
    taken = set(keys)
    next_suffix: dict[str, int] = {}  # per name seen: the next suffix to try
    out = []
    for n, k in zip(names, keys, strict=True):
        if k not in next_suffix:
            next_suffix[k] = 2
            out.append(n)
            continue
        suffix = next_suffix[k]
        while key(f"{n} ({suffix})") in taken:
            suffix += 1
        next_suffix[k] = suffix + 1
        taken.add(key(f"{n} ({suffix})"))
        out.append(f"{n} ({suffix})")
    return out


def describe_entry(spec) -> tuple:
    """``(spec, name, source)`` of one entrant argument; the spec of a baseline is its
    canonical name (a ``str``), that of a path a ``Path``, so that the workers never take one
    for the other (:func:`teamleduc.entrants.baseline_or_path` decides, refusing a baseline
    name that is also an existing path)."""
    if isinstance(spec, Entrant):
        return spec, spec.name, spec.source
    if isinstance(spec, NamedPath):  # graded under its name; loaded and cached by its path
        name = baseline_or_path(spec.path)
        if name is not None:
            return name, spec.name, "baseline"
        return Path(spec.path), spec.name, spec.path
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        return spec, "submission", "object"
    name = baseline_or_path(spec)
    if name is not None:
        return name, name, "baseline"
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(
            f"submissions: expected paths, baseline names, NamedPath, Entrant or loaded "
            f"submissions, not {type(spec).__name__}"
        )
    return Path(spec), entrant_name(spec), str(spec)
