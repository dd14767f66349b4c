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


def positive_int(raw: str) -> int:
    """A positive integer (iterations, signals, runs)."""
    n = int(raw)
    if n < 1:
        raise ValueError
    return n


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


def _config(variable: str, preset: str, teams_of_two: bool):
    """``preset``'s GameConfig, or a one-line exit naming ``variable`` (an unknown preset; with
    ``teams_of_two``, one without a team of two to refine)."""
    from teamleduc.config import get_config

    try:
        config = get_config(preset)
    except ValueError as exc:
        raise SystemExit(f"{variable}: {exc}") from None
    if teams_of_two and any(len(team) != 2 for team in config.teams):
        raise SystemExit(f"{variable}: {preset} has no team of two to refine")
    return config


def team_preset(name: str, default: str):
    """The preset named by ``os.environ[name]`` (default ``default``), which must have a team
    of two to refine: its GameConfig, or a one-line exit naming the variable."""
    return _config(name, os.environ.get(name, default), True)


def preset_names(name: str, default: str, teams_of_two: bool = False) -> list[str]:
    """The comma-separated presets of ``os.environ[name]`` (default ``default``), each checked
    as :func:`team_preset` checks one (a team of two only with ``teams_of_two``)."""
    presets = setting(name, default, names)
    for preset in presets:
        _config(name, preset, teams_of_two)
    return presets


def pool_threads(name: str, default: str) -> list[int]:
    """The thread counts of ``os.environ[name]`` (default ``default``) that numba's thread pool
    holds; the others are named in one printed line and skipped."""
    import numba

    threads = setting(name, default, positive_ints)
    pool = numba.config.NUMBA_NUM_THREADS
    skipped = [n for n in threads if n > pool]
    if skipped:
        print(f"threads {skipped} skipped: numba's pool has {pool} (NUMBA_NUM_THREADS)")
    return [n for n in threads if n <= pool]


def dcfr_for(config, seconds: float):
    """The solver's own DCFR adapter run for ``seconds``: ``(alg, elapsed, measurement)``."""
    from teamleduc.solver.regret_algorithm import RegretAlgorithm

    alg = RegretAlgorithm(config, "dcfr")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        alg.rm.iterate(1)
    return alg, time.perf_counter() - t0, alg.rm.measure()
