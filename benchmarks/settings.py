"""Benchmark settings from environment variables: one parser and one message for all of them.

A value that does not parse or is out of range ends the benchmark with one line naming the
variable, the value and the default (exit 1), never a traceback.
"""

from __future__ import annotations

import math
import os
import time
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


def positive_ints(raw: str) -> list[int]:
    """Comma-separated positive integers (thread counts, repeats)."""
    values = [int(v) for v in raw.split(",")]
    if not values or min(values) < 1:
        raise ValueError
    return values


def names(raw: str) -> list[str]:
    """Comma-separated non-empty names (presets)."""
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        raise ValueError
    return values


def team_preset(name: str, default: str):
    """The preset named by ``os.environ[name]`` (default ``default``), which must have a team
    of two to refine: its GameConfig, or a one-line exit naming the variable."""
    from teamleduc.config import get_config

    preset = os.environ.get(name, default)
    try:
        config = get_config(preset)
    except ValueError as exc:
        raise SystemExit(f"{name}: {exc}") from None
    if any(len(team) != 2 for team in config.teams):
        raise SystemExit(f"{name}: {preset} has no team of two to refine")
    return config


def dcfr_for(config, seconds: float):
    """The solver's own DCFR adapter run for ``seconds``: ``(alg, elapsed, measurement)``."""
    from teamleduc.solver.regret_algorithm import RegretAlgorithm

    alg = RegretAlgorithm(config, "dcfr")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        alg.rm.iterate(1)
    return alg, time.perf_counter() - t0, alg.rm.measure()
