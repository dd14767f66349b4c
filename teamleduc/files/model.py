"""The submission model: a correlated strategy per team, and the rules its values obey.

A submission (spec section 3) is a meta-strategy (signal ids ``j`` drawn with probabilities
``p_j``) and, per signal and seat played, one row ``p_c, p_r, p_f`` per information set.
:class:`Submission` holds it as arrays::

    signals     (K,)            int64    signal ids, in the order of meta-strategy.csv
    probs       (K,)            float64  their probabilities
    seats       tuple[int, ...]          0-based seats played (all, or one team)
    strategies  {seat: (K, n_seat, 3)}   float64, columns c, r, f; row = information-set id

Every file format reads into and writes from this model, so it knows no file: it holds the
value rules (:func:`value_problems`, :func:`describe_values`, :data:`TOLERANCE`) that each
format applies to its rows, and the records a reader fills (:class:`FileCheck` for one file,
:class:`ReadResult` for a whole submission, :class:`StrategyFormat` for how a format names and
parses its strategy files).

:func:`merge_team_mixtures` puts two teams' mixtures on one meta-strategy (cutting [0, 1] at
the union of both cumulative distributions), as the 2025 format and the solver need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..config import GameConfig, get_config
from ..infosets import InfosetTable, infoset_tables
from ..tree import build_tree
from .safeio import Finding

#: rows and the meta-strategy must sum to 1 within this
TOLERANCE = 1e-6
STRATEGY_CSV = "strategy{signal}-player{seat}.csv"
ACTION_NAMES = {"c": "call/check", "r": "raise", "f": "fold"}


@dataclass(frozen=True, eq=False)
class Submission:
    """A correlated strategy for the seats played (see the module docstring for the layout).

    Treat the arrays as immutable. :meth:`check` verifies the values; the constructor only
    normalises dtypes and checks shapes.
    """

    signals: np.ndarray
    probs: np.ndarray
    seats: tuple[int, ...]
    strategies: Mapping[int, np.ndarray]

    def __post_init__(self) -> None:
        signals = np.asarray(self.signals, dtype=np.int64).reshape(-1)
        probs = np.asarray(self.probs, dtype=np.float64).reshape(-1)
        seats = tuple(sorted(int(s) for s in self.seats))
        if signals.shape != probs.shape or signals.size == 0:
            raise ValueError(
                f"signals {signals.shape} and probs {probs.shape} must be equal, non-empty"
            )
        if len(set(seats)) != len(seats) or set(seats) != set(self.strategies):
            raise ValueError(f"seats {seats} and strategy keys {sorted(self.strategies)} differ")
        strategies = {}
        for s in seats:
            a = np.asarray(self.strategies[s], dtype=np.float64)
            if a.ndim != 3 or a.shape[0] != signals.size or a.shape[2] != 3:
                raise ValueError(
                    f"strategy of seat {s + 1} has shape {a.shape}; expected ({signals.size}, n, 3)"
                )
            strategies[s] = a
        object.__setattr__(self, "signals", signals)
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "strategies", strategies)

    @property
    def num_signals(self) -> int:
        return int(self.signals.size)

    def restrict(self, seats: Iterable[int]) -> Submission:
        """The same meta-strategy with only ``seats`` (0-based), e.g. one team."""
        seats = tuple(sorted(seats))
        missing = set(seats) - set(self.seats)
        if missing:
            raise ValueError(f"seats {sorted(s + 1 for s in missing)} are not in this submission")
        return Submission(self.signals, self.probs, seats, {s: self.strategies[s] for s in seats})

    def problems(self, config: GameConfig | None = None) -> list[str]:
        """Everything wrong with the values (empty when valid); with ``config`` also row
        counts and illegal actions."""
        out = []
        if np.unique(self.signals).size != self.signals.size:
            out.append("signal ids are not unique")
        if (self.signals < 0).any():
            out.append("signal ids must be non-negative")
        p = self.probs
        if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
            out.append("signal probabilities must be finite and in [0, 1]")
        elif abs(p.sum() - 1.0) > TOLERANCE:
            out.append(f"signal probabilities sum to {float(p.sum())!r}, not 1")
        tables = infoset_tables(build_tree(config)) if config is not None else None
        for s in self.seats:
            a = self.strategies[s]
            if tables is not None and (s >= len(tables) or a.shape[1] != tables[s].size):
                want = tables[s].size if s < len(tables) else "no such seat"
                out.append(f"seat {s + 1}: {a.shape[1]} rows, expected {want}")
                continue
            if not np.isfinite(a).all() or (a < 0).any() or (a > 1).any():
                out.append(f"seat {s + 1}: probabilities must be finite and in [0, 1]")
            elif (np.abs(a.sum(axis=2) - 1.0) > TOLERANCE).any():
                out.append(f"seat {s + 1}: some rows do not sum to 1")
            if tables is not None and (a[:, ~tables[s].legal] != 0).any():
                out.append(f"seat {s + 1}: non-zero probability on an illegal action")
        return out

    def check(self, config: GameConfig | None = None) -> None:
        """Raise ValueError naming the first problem, if any (see :meth:`problems`)."""
        problems = self.problems(config)
        if problems:
            raise ValueError("invalid submission: " + "; ".join(problems))


def uniform_submission(config: GameConfig | str, seats: Iterable[int] | None = None) -> Submission:
    """One signal, every seat uniform over its legal actions (the handout's example)."""
    config = get_config(config)
    tables = infoset_tables(build_tree(config))
    seats = tuple(range(config.num_seats)) if seats is None else tuple(seats)
    return Submission(
        np.array([0]),
        np.array([1.0]),
        seats,
        {s: tables[s].uniform_strategy()[None] for s in seats},
    )


@dataclass(frozen=True)
class MergedMixture:
    """Two teams' mixtures on one meta-strategy.

    Signal m of the merged meta-strategy has probability ``probs[m]``; team A then plays its
    strategy ``index_a[m]`` and team B its strategy ``index_b[m]`` (0-based positions in the
    inputs). Each team's marginal equals its input distribution up to rounding.
    """

    probs: np.ndarray  # (M,) float64, M <= K_A + K_B - 1
    index_a: np.ndarray  # (M,) int64
    index_b: np.ndarray  # (M,) int64


def _cumulative(p: np.ndarray, which: str) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    if p.size == 0 or not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1) > TOLERANCE:
        raise ValueError(f"mixture {which} must be non-empty, finite, non-negative and sum to 1")
    c = np.minimum(np.cumsum(p), 1.0)
    c[-1] = 1.0
    return c


def merge_team_mixtures(probs_a: ArrayLike, probs_b: ArrayLike) -> MergedMixture:
    """Merge team A's mixture (K_A,) and team B's (K_B,) into one meta-strategy.

    [0, 1] is cut at the union of both cumulative distributions; each cell (e_k, e_{k+1}] is a
    signal whose probability is its width, and it maps to the strategy of each team whose
    cumulative interval contains it. Since each team only ever uses its own marginal, the joint
    play is unchanged; zero-probability strategies get no signal. The result has at most
    K_A + K_B - 1 signals.
    """
    ca = _cumulative(probs_a, "A")
    cb = _cumulative(probs_b, "B")
    edges = np.union1d(ca, cb)  # sorted, unique, ends at 1.0
    lower = np.concatenate([[0.0], edges[:-1]])
    width = edges - lower
    keep = width > 0
    right = edges[keep]
    # cell (lower, right] lies in team A's interval i with ca[i-1] < right <= ca[i]
    return MergedMixture(
        probs=width[keep],
        index_a=np.searchsorted(ca, right, side="left").astype(np.int64),
        index_b=np.searchsorted(cb, right, side="left").astype(np.int64),
    )


def combine_teams(a: Submission, b: Submission) -> Submission:
    """One submission from two with disjoint seats (e.g. the two 2025 team zips).

    Identical meta-strategies are kept as they are; otherwise they are merged with
    :func:`merge_team_mixtures` and the signals renumbered 0..M-1.
    """
    if set(a.seats) & set(b.seats):
        raise ValueError(f"seats overlap: {a.seats} and {b.seats}")
    strategies = {}
    if np.array_equal(a.signals, b.signals) and np.array_equal(a.probs, b.probs):
        signals, probs = a.signals, a.probs
        strategies.update(a.strategies)
        strategies.update(b.strategies)
    else:
        m = merge_team_mixtures(a.probs, b.probs)
        signals, probs = np.arange(m.probs.size, dtype=np.int64), m.probs
        for s in a.seats:
            strategies[s] = a.strategies[s][m.index_a]
        for s in b.seats:
            strategies[s] = b.strategies[s][m.index_b]
    return Submission(signals, probs, tuple(sorted(strategies)), strategies)


def value_problems(values: np.ndarray, legal: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    """(L,) bool: rows (among ``rows``) whose values break a rule: not finite, outside [0, 1],
    not summing to 1, or non-zero where ``legal`` is False."""
    c = [values[:, k] for k in range(3)]
    with np.errstate(invalid="ignore"):
        total = c[0] + c[1] + c[2]
        bad = ~np.isfinite(total)  # any nan or inf makes the sum non-finite
        bad |= np.minimum(np.minimum(c[0], c[1]), c[2]) < 0
        bad |= np.maximum(np.maximum(c[0], c[1]), c[2]) > 1
        bad |= np.abs(total - 1.0) > TOLERANCE
        if legal is not None:
            for k in range(3):
                bad |= (c[k] != 0) & ~legal[:, k]
    return bad & rows


def describe_values(v: np.ndarray, legal: np.ndarray | None, columns: str) -> str:
    """Words for what is wrong with one row ``v`` (3,) whose columns are named ``columns``."""
    reasons = []
    for k, ch in enumerate(columns):
        x = float(v[k])
        if not np.isfinite(x):
            reasons.append(f"p_{ch} = {x!r} is not a finite number")
        elif x < 0:
            reasons.append(f"p_{ch} = {x!r} is negative")
        elif x > 1:
            reasons.append(f"p_{ch} = {x!r} is above 1")
    if not reasons:
        total = float(v.sum())
        if abs(total - 1.0) > TOLERANCE:
            reasons.append(f"the values sum to {total!r}, not 1 (tolerance {TOLERANCE:g})")
    if legal is not None:
        for k, ch in enumerate(columns):
            if not legal[k] and v[k] != 0:
                reasons.append(
                    f"p_{ch} = {float(v[k])!r} on an illegal action "
                    f"({ACTION_NAMES[ch.lower()]} is not legal here; it must be 0)"
                )
    return "; ".join(reasons)


# --------------------------------------------------------------------------------------------
# What reading finds
# --------------------------------------------------------------------------------------------


@dataclass
class FileCheck:
    """What checking one file found.

    ``values`` is the (n, 3) array in spec order (c, r, f) when the file is valid, else None.
    ``bad_lines`` lists every bad line (1-based; 0-based rows for .npy), not only the first
    ones that ``errors`` words; it stays empty when a CSV has more than twice the expected
    number of lines (only the count is reported then).
    """

    values: np.ndarray | None
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    bad_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


@dataclass(frozen=True)
class StrategyFormat:
    """How the strategy files of one submission format are named, bounded and parsed."""

    name: str  # "csv" or "npy2025"
    extension: str  # "csv" or "npy"
    limit: Callable[[int], int]  # bytes allowed for n information sets
    parse: Callable[[bytes, str, InfosetTable, int], FileCheck]

    def file_name(self, signal: int, seat: int) -> str:
        """File of 0-based ``seat`` under ``signal``."""
        return f"strategy{signal}-player{seat + 1}.{self.extension}"


@dataclass
class ReadResult:
    """Everything reading a submission found; ``submission`` is set when asked for and valid."""

    format: str
    seats: tuple[int, ...] = ()
    signals: tuple[int, ...] = ()
    files_checked: int = 0
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    submission: Submission | None = None


def whole_teams(config: GameConfig, seats: Iterable[int]) -> tuple[int, ...]:
    """``seats`` (0-based) if they form whole teams, else ValueError."""
    seats = tuple(sorted(set(seats)))
    bad = [s for s in seats if not 0 <= s < config.num_seats]
    if bad or not seats:
        raise ValueError(f"seats must be among 1..{config.num_seats}")
    for team in config.teams:
        inside = set(team) & set(seats)
        if inside and inside != set(team):
            teams = " and ".join(",".join(str(s + 1) for s in t) for t in config.teams)
            raise ValueError(
                f"seats {','.join(str(s + 1) for s in seats)} do not form whole "
                f"teams (the teams of {config.name} are {teams})"
            )
    return seats
