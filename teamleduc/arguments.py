"""Checks of what a public entry point is given: seeds, flags, paths, and how a message quotes
what someone typed.

One home for the rules every boundary shares (the commands, :mod:`teamleduc.api`,
:mod:`teamleduc.envs`), so that a seed, a flag or a path is refused the same way, naming the
argument, everywhere. Cheap to import (no numpy): the CLI's option types use it too.
"""

from __future__ import annotations

import math
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
    """``path`` if it is a ``str`` or ``os.PathLike``, not empty and without a NUL character;
    else the toolkit's TypeError or ValueError naming ``what`` (an empty string is not taken
    for the current folder: write ``.`` for that)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"{what} must be a path (str or os.PathLike), not {type(path).__name__}"
        )
    text = os.fspath(path)
    if not text:
        raise ArgumentValueError(f"{what} is empty: give a file or folder name")
    if ("\0" if isinstance(text, str) else b"\0") in text:
        raise ArgumentValueError(f"{what} holds a NUL character")
    return path


def check_paths(paths: object, what: str) -> list:
    """``paths`` as a list of paths (:func:`check_path` each): an iterable of them, or one
    path standing for a list of it (a string is never taken letter by letter)."""
    if isinstance(paths, (str, os.PathLike)):
        return [check_path(paths, what)]
    if isinstance(paths, (bytes, dict)) or not hasattr(paths, "__iter__"):
        raise ArgumentTypeError(
            f"{what} must be a path or a list of paths, not {type(paths).__name__}"
        )
    return [check_path(p, f"{what}: each") for p in paths]


def _is_int(value: object) -> bool:
    """A Python or numpy integer, not a bool (``True`` is no count)."""
    return (
        isinstance(value, numbers.Integral)
        and not isinstance(value, bool)
        and type(value).__name__ != "bool_"
    )


def check_count(
    value: object,
    what: str,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    optional: bool = False,
) -> int | None:
    """``value`` as a Python int ``>= minimum`` (and ``<= maximum`` when given; numpy
    integers included); None only when ``optional``. TypeError for a bool, a float or a
    string, ValueError out of range, both naming ``what``."""
    if value is None and optional:
        return None
    if not _is_int(value):
        kind = "an int or None" if optional else "an int"
        raise ArgumentTypeError(f"{what} must be {kind}, not {type(value).__name__} {shown(value)}")
    if maximum is not None and not minimum <= value <= maximum:
        raise ArgumentValueError(
            f"{what} must be between {minimum} and {maximum}, not {int(value)}"
        )
    if value < minimum:
        raise ArgumentValueError(f"{what} must be {minimum} or more, not {int(value)}")
    return int(value)


def check_number(
    value: object,
    what: str,
    *,
    minimum: float | None = None,
    positive: bool = False,
    optional: bool = False,
    finite: bool = True,
) -> float | None:
    """``value`` as a finite float (an int, a float or a numpy number; not a bool or a
    string), ``> 0`` when ``positive``, ``>= minimum`` when given; None only when
    ``optional``. TypeError / ValueError naming ``what``. NaN is refused, and so is inf
    unless not ``finite`` (a time limit of inf would never stop; an interval of inf may
    mean never)."""
    if value is None and optional:
        return None
    if (
        isinstance(value, bool)
        or type(value).__name__ == "bool_"
        or not isinstance(value, numbers.Real)
    ):
        kind = "a number or None" if optional else "a number"
        raise ArgumentTypeError(f"{what} must be {kind}, not {type(value).__name__} {shown(value)}")
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)):
        kind = "a finite number" if finite else "a number, not NaN"
        raise ArgumentValueError(f"{what} must be {kind}, not {number}")
    if positive and not number > 0:
        raise ArgumentValueError(f"{what} must be > 0, not {number:g}")
    if minimum is not None and number < minimum:
        raise ArgumentValueError(f"{what} must be {minimum:g} or more, not {number:g}")
    return number


def check_callable(value: object, what: str, *, optional: bool = True) -> object:
    """``value`` if it can be called (or None when ``optional``); TypeError naming ``what``."""
    if (value is None and optional) or callable(value):
        return value
    kind = "a function or None" if optional else "a function"
    raise ArgumentTypeError(f"{what} must be {kind}, not {type(value).__name__}")


def check_seats(seats: object, num_seats: int, what: str = "seats") -> tuple[int, ...]:
    """``seats`` as a tuple of Python ints, each a **0-based** seat ``0..num_seats - 1`` (seat
    1 of the files is 0), none twice; TypeError for a string, a number or a float seat,
    ValueError out of range or repeated, each naming ``what`` and the numbering."""
    if isinstance(seats, (str, bytes, dict)) or not hasattr(seats, "__iter__"):
        raise ArgumentTypeError(
            f"{what}: a sequence of 0-based seats (ints 0..{num_seats - 1}), not "
            f"{type(seats).__name__} {shown(seats)}"
        )
    out = []
    for s in seats:
        if not _is_int(s):
            raise ArgumentTypeError(
                f"{what}: a seat is a 0-based int 0..{num_seats - 1}, not "
                f"{type(s).__name__} {shown(s)}"
            )
        if not 0 <= s < num_seats:
            raise ArgumentValueError(
                f"{what}: 0-based seat {int(s)} is not in 0..{num_seats - 1} (seats are "
                "numbered from 0 here: seat 1 of the files is 0)"
            )
        out.append(int(s))
    if len(set(out)) != len(out):
        raise ArgumentValueError(f"{what} {out}: a seat is given twice")
    return tuple(out)


def excerpt(text: object, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted as a message shows what someone typed: control and format characters
    escaped (:func:`teamleduc.names.display_name`: an escape sequence can neither recolour nor
    clear the terminal), and at most ``limit`` characters of it followed by ``... (N
    characters)``: a megabyte argument is never echoed whole."""
    text = str(text)
    if len(text) <= limit:
        return f"'{display_name(text)}'"
    return f"'{display_name(text[:limit])}'... ({len(text):,} characters)"


def shown(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)`` as a message shows an argument it refuses: escaped like
    :func:`excerpt`, at most ``limit`` characters followed by ``... (N characters)``."""
    text = repr(value)
    if len(text) <= limit:
        return display_name(text)
    return f"{display_name(text[:limit])}... ({len(text):,} characters)"
