"""Checks of what a public entry point is given: seeds, flags, paths, and how a message quotes
what someone typed.

One home for the rules every boundary shares (the commands, :mod:`teamleduc.api`,
:mod:`teamleduc.envs`), so that a seed, a flag or a path is refused the same way, naming the
argument, everywhere. Cheap to import (no numpy): the CLI's option types use it too.
"""

from __future__ import annotations

import numbers
import os

from .errors import ArgumentTypeError, ArgumentValueError
from .names import display_name

#: seeds are below 2**63: numpy's generators take any non-negative integer, but a seed also
#: reaches the compiled kernels (int64) and the reports; one bound for every seed
SEED_LIMIT = 2**63
#: characters of a typed argument that a message shows (the rest is counted, not echoed)
EXCERPT_CHARS = 80


def check_seed(
    seed: object, what: str = "seed", *, high: int | None = SEED_LIMIT, optional: bool = False
) -> int | None:
    """``seed`` as a Python int (numpy integers included), ``0 <= seed < high`` (no upper
    bound when ``high`` is None); None only when ``optional``. TypeError for a bool, a float
    or a string, ValueError out of range, both naming ``what``."""
    if seed is None and optional:
        return None
    if (
        isinstance(seed, bool)
        or type(seed).__name__ == "bool_"
        or (not isinstance(seed, numbers.Integral))
    ):
        kind = "an int or None" if optional else "an int"
        raise ArgumentTypeError(f"{what} must be {kind}, not {type(seed).__name__} {seed!r}")
    if seed < 0 or (high is not None and seed >= high):
        top = "" if high is None else f" to 2**{high.bit_length() - 1} - 1"
        raise ArgumentValueError(f"{what} must be from 0{top}, not {int(seed)}")
    return int(seed)


def check_flag(value: object, what: str) -> bool:
    """``value`` if it is a bool (numpy's included); TypeError naming ``what`` otherwise (a
    string such as ``"no"`` would be true)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ArgumentTypeError(f"{what} must be True or False, not {type(value).__name__} {value!r}")


def check_path(path: object, what: str = "path") -> str | os.PathLike:
    """``path`` if it is a ``str`` or ``os.PathLike`` without a NUL character; else the
    toolkit's TypeError or ValueError naming ``what``."""
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"{what} must be a path (str or os.PathLike), not {type(path).__name__}"
        )
    text = os.fspath(path)
    if ("\0" if isinstance(text, str) else b"\0") in text:
        raise ArgumentValueError(f"{what} holds a NUL character")
    return path


def excerpt(text: object, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted as a message shows what someone typed: control and format characters
    escaped (:func:`teamleduc.names.display_name`: an escape sequence can neither recolour nor
    clear the terminal), and at most ``limit`` characters of it followed by ``... (N
    characters)``: a megabyte argument is never echoed whole."""
    text = str(text)
    if len(text) <= limit:
        return f"'{display_name(text)}'"
    return f"'{display_name(text[:limit])}'... ({len(text):,} characters)"
