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

import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..config import GameConfig, get_config, require_config
from ..errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from ..infosets import InfosetTable, infoset_tables, tables_for
from ..tree import build_tree
from .findings import Finding

#: rows and the meta-strategy must sum to 1 within this
TOLERANCE = 1e-6
STRATEGY_CSV = "strategy{signal}-player{seat}.csv"
ACTION_NAMES = {"c": "call/check", "r": "raise", "f": "fold"}


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real)


def real_array(value, what: str) -> np.ndarray:
    """``value`` as a float64 array (no copy when it already is one); ArgumentTypeError naming
    ``what`` when it holds anything but real numbers or booleans (strings, complex numbers,
    None), ArgumentValueError when it is ragged. numpy would silently drop an imaginary part
    and parse ``"0.5"``; neither is a probability."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as e:  # ragged nested sequences
        raise ArgumentValueError(f"{what}: not an array of numbers ({e})") from None
    if a.dtype.kind in "biuf":
        return a.astype(np.float64, copy=False)
    if a.dtype.kind == "O":  # e.g. a pandas object column: every element must be a real number
        real = np.asarray(np.frompyfunc(_is_real, 1, 1)(a), dtype=bool)
        if real.all():
            return a.astype(np.float64)
        bad = a.ravel()[int(np.argmin(real.ravel()))]
        raise ArgumentTypeError(f"{what}: expected real numbers, found {bad!r}")
    raise ArgumentTypeError(
        f"{what}: expected real numbers, got an array of dtype {a.dtype}"
        + (f" ({a.ravel()[0]!r}, ...)" if a.size else "")
    )


def _signal_ids(value) -> np.ndarray:
    a = real_array(value, "Submission signals").reshape(-1)
    ints = a.astype(np.int64)
    if not np.array_equal(ints, a):  # 0.5 (or nan) would become signal 0
        raise ArgumentValueError(f"Submission signals must be integers, got {a.tolist()[:5]}")
    return ints


def _seat_index(s, what: str) -> int:
    """A 0-based seat (int or numpy integer, not a bool or a float such as 1.5)."""
    if isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)):
        if s < 0:
            raise ArgumentValueError(f"{what}: seat {s} is negative (seats are 0-based here)")
        return int(s)
    raise ArgumentTypeError(f"{what}: a seat is a 0-based int, not {type(s).__name__} {s!r}")


@dataclass(frozen=True, eq=False)
class Submission:
    """A correlated strategy for the seats played (see the module docstring for the layout).

    Treat the arrays as immutable. :meth:`check` verifies the values (and :func:`check_submission`
    a whole object against a game); the constructor normalises dtypes and checks types and
    shapes: ArgumentTypeError (a TypeError) for strings, complex numbers, float or bool seats,
    ArgumentValueError (a ValueError) for shapes that do not fit.
    """

    signals: np.ndarray
    probs: np.ndarray
    seats: tuple[int, ...]
    strategies: Mapping[int, np.ndarray]

    def __post_init__(self) -> None:
        signals = _signal_ids(self.signals)
        probs = real_array(self.probs, "Submission probs").reshape(-1)
        if isinstance(self.seats, (str, bytes)) or not isinstance(self.seats, Iterable):
            raise ArgumentTypeError(
                f"Submission seats must be a sequence of 0-based seats, not {self.seats!r}"
            )
        seats = tuple(sorted(_seat_index(s, "Submission seats") for s in self.seats))
        if not isinstance(self.strategies, Mapping):
            raise ArgumentTypeError(
                "Submission strategies must be a mapping {0-based seat: (K, n, 3) array}, not "
                f"{type(self.strategies).__name__}"
            )
        keys = [_seat_index(k, "Submission strategies key") for k in self.strategies]
        if signals.shape != probs.shape or signals.size == 0:
            raise ArgumentValueError(
                f"signals {signals.shape} and probs {probs.shape} must be equal, non-empty"
            )
        if len(set(seats)) != len(seats) or set(seats) != set(keys) or len(keys) != len(seats):
            raise ArgumentValueError(f"seats {seats} and strategy keys {sorted(keys)} differ")
        strategies = {}
        for s in seats:
            a = real_array(self.strategies[s], f"Submission strategy of seat {s + 1}")
            if a.ndim != 3 or a.shape[0] != signals.size or a.shape[2] != 3:
                raise ArgumentValueError(
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
        seats = tuple(sorted(_seat_index(s, "restrict") for s in seats))
        missing = set(seats) - set(self.seats)
        if missing:
            raise ArgumentValueError(
                f"seats {sorted(s + 1 for s in missing)} are not in this submission"
            )
        return Submission(self.signals, self.probs, seats, {s: self.strategies[s] for s in seats})

    def problems(self, config: GameConfig | None = None) -> list[str]:
        """Everything wrong with the values (empty when valid); with ``config`` also the seats,
        the row counts and illegal actions. Each problem names its first bad row (seat, signal,
        line and, with ``config``, the information set). Vectorised: one pass per seat.
        ``config``: a GameConfig or a preset name."""
        config = None if config is None else get_config(config)
        out = []
        if np.unique(self.signals).size != self.signals.size:
            out.append("signal ids are not unique")
        if (self.signals < 0).any():
            out.append("signal ids must be non-negative")
        p = self.probs
        if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
            out.append(f"signal probabilities must be finite and in [0, 1], got {p.tolist()[:5]}")
        elif abs(p.sum() - 1.0) > TOLERANCE:
            out.append(f"signal probabilities sum to {float(p.sum())!r}, not 1")
        tables = tables_for(config) if config is not None else None
        for s in self.seats:
            a = self.strategies[s]
            legal = None
            if tables is not None:
                if s >= len(tables):
                    out.append(
                        f"seat {s + 1}: no such seat ({config.name} has seats 1..{len(tables)})"
                    )
                    continue
                if a.shape[1] != tables[s].size:
                    out.append(
                        f"seat {s + 1}: {a.shape[1]:,} rows, expected {tables[s].size:,} "
                        f"(the information sets of seat {s + 1} in {config.name}: a submission "
                        "for another preset?)"
                    )
                    continue
                legal = tables[s].legal
            K, n = a.shape[:2]
            flat = a.reshape(-1, 3)
            bad = value_problems(
                flat, None if legal is None else np.tile(legal, (K, 1)), np.ones(K * n, bool)
            )
            if bad.any():
                first = int(np.argmax(bad))
                k, i = divmod(first, n)
                where = f"line {i + 1}" + (
                    f" ({tables[s].strings[i]})" if tables is not None else ""
                )
                count = int(bad.sum())
                more = f" ({count - 1:,} more bad rows)" if count > 1 else ""
                out.append(
                    f"seat {s + 1}, signal {int(self.signals[k])}, {where}: "
                    + describe_values(flat[first], None if legal is None else legal[i], "crf")
                    + more
                )
        return out

    def check(self, config: GameConfig | None = None) -> None:
        """Raise ArgumentValueError (a ValueError) naming the problems, if any (see
        :meth:`problems`)."""
        problems = self.problems(config)
        if problems:
            raise ArgumentValueError("invalid submission: " + "; ".join(problems), exit_code=1)


def check_submission(obj, config: GameConfig, what: str = "the submission") -> Submission:
    """``obj`` (a Submission, or any object with ``signals``, ``probs``, ``seats`` and
    ``strategies``) as a Submission valid for ``config``: every seat in the game, each seat's
    array of the preset's shape, finite, in [0, 1], rows summing to 1 within
    :data:`TOLERANCE`, nothing on an illegal action, the signal probabilities a distribution.

    The one check of a loaded object at every boundary that takes one (the submission
    resolver, the environments, the simulator, evaluate, match, the best responses): a
    compiled kernel indexes the arrays by the preset's information-set ids, so an array for
    another preset or a NaN would run it past its tables or return garbage. Raises
    :class:`ArgumentValueError` (a ValueError, exit code 1) or :class:`ArgumentTypeError`
    naming ``what`` and the first bad row of each seat. Vectorised: a few passes per seat.
    """
    if not isinstance(obj, Submission):
        missing = [f for f in ("signals", "probs", "seats", "strategies") if not hasattr(obj, f)]
        if missing:
            raise ArgumentTypeError(
                f"{what}: a {type(obj).__name__} is not a submission (no {', '.join(missing)})"
            )
        try:
            obj = Submission(obj.signals, obj.probs, obj.seats, obj.strategies)
        except TeamLeducError as e:
            raise type(e)(f"{what}: {e}") from None
    problems = obj.problems(config)
    if problems:
        raise ArgumentValueError(
            f"{what}: not a valid submission for {config.name}: " + "; ".join(problems),
            exit_code=1,
        )
    return obj


def uniform_submission(config: GameConfig, seats: Iterable[int] | None = None) -> Submission:
    """One signal, every seat uniform over its legal actions (the handout's example)."""
    require_config(config)
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
