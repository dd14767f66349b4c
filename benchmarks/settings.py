"""Benchmark settings from environment variables: one parser and one message for all of them.

A value that does not parse or is out of range ends the benchmark with one line naming the
variable, the value and the default (exit 1), never a traceback.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def setting(name: str, default: str, parse: Callable[[str], T]) -> T:
    """``parse(os.environ.get(name, default))``; a ValueError becomes a one-line exit."""
    raw = os.environ.get(name, default)
    try:
        return parse(raw)
    except ValueError:
        raise SystemExit(f"{name}: {raw!r} is not valid (default {default!r})") from None


def positive_seconds(raw: str) -> float:
    """A finite positive number of seconds."""
    s = float(raw)
    if not 0 < s < math.inf:
        raise ValueError
    return s


def positive_list(raw: str) -> list[float]:
    """Comma-separated finite positive numbers."""
    values = [float(v) for v in raw.split(",")]
    if not all(0 < v < math.inf for v in values):
        raise ValueError
    return values
