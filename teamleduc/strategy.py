"""A strategy from code: build (and write) a checked submission from a policy.

:func:`build_submission` is the one entry point. A *policy* is any of

- a function ``policy(infoset, legal) -> (p_c, p_r, p_f)``: ``infoset`` is the information-set
  string (``/C:?K??/P1:r/``), ``legal`` the legal actions in the order c, r, f (``"crf"``,
  ``"cr"``, ``"cf"`` or ``"c"``); it is called once per information set of every seat built;
- a mapping ``{infoset string: (p_c, p_r, p_f)}`` (a dict, or a pandas DataFrame with the
  columns ``infoset``, ``p_c``, ``p_r``, ``p_f`` such as :func:`infoset_frame` gives);
- a mapping ``{seat: array}`` with seats numbered 1..S as in the handout, each array of shape
  (information sets of that seat, 3), rows in the order of the seat's file;

or a list of policies, one per signal of a correlated strategy, drawn with ``weights``.
Seats are numbered from 1 everywhere here. Every row is checked against the rules (finite,
in [0, 1], summing to 1, zero on illegal actions) and the first bad one is named by its
information set. Apart from calling a user's function, nothing loops over information sets in
Python: strings are looked up with a pandas index and rows are checked as arrays.
"""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .config import GameConfig, get_config
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .files.model import Submission, describe_values, real_array, value_problems, whole_teams
from .files.writing import write_submission
from .infosets import InfosetTable, tables_for

__all__ = ["build_submission", "infoset_frame", "infoset_table", "seats_of"]

Policy = (
    Callable[[str, str], Sequence[float]]
    | Mapping[str, Sequence[float]]
    | Mapping[int, np.ndarray]
    | pd.DataFrame
)
_COLUMNS = ["p_c", "p_r", "p_f"]


def infoset_table(config: GameConfig | str, seat: int) -> InfosetTable:
    """The information sets of seat ``seat`` (1..S): ``.strings``, ``.legal`` (n, 3) bool,
    ``.legal_strings``, ``.rank``, ``.node``, ``.parse(string) -> id``; row ``id`` is line
    ``id + 1`` of the seat's file."""
    config = get_config(config)
    return tables_for(config)[_seat_number(config, seat, "seat")]


def _seat_number(config: GameConfig, seat, what: str) -> int:
    """0-based seat of a 1-based seat number (an int or numpy integer, not a bool, a float
    such as 1.5 or a string); ArgumentTypeError / ArgumentValueError naming ``what``."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, numbers.Integral):
        raise ArgumentTypeError(
            f"{what} {seat!r}: a seat is an int 1..{config.num_seats} (numbered from 1, as in "
            f"the handout), not {type(seat).__name__}"
        )
    if not 1 <= seat <= config.num_seats:
        raise ArgumentValueError(
            f"{what} {seat}: {config.name} has seats 1..{config.num_seats} (numbered from 1)"
        )
    return int(seat) - 1


def infoset_frame(config: GameConfig | str, seats: Iterable[int] | str | None = None):
    """Every information set of ``seats`` (1-based; None: all) as a pandas DataFrame with the
    columns ``seat`` (1..S), ``line`` (1-based line of the seat's file), ``infoset``,
    ``rank`` (the owner's rank name), ``legal`` (``"crf"``, ...), ``can_raise``, ``can_fold``.
    Add columns ``p_c``, ``p_r``, ``p_f`` and pass it to :func:`build_submission`."""
    config = get_config(config)
    parts = []
    for s in seats_of(config, seats):
        t = tables_for(config)[s]
        parts.append(
            pd.DataFrame(
                {
                    "seat": np.full(t.size, s + 1),
                    "line": np.arange(1, t.size + 1),
                    "infoset": t.strings,
                    "rank": np.array(config.ranks, dtype=object)[t.rank],
                    "legal": t.legal_strings,
                    "can_raise": t.legal[:, 1],
                    "can_fold": t.legal[:, 2],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def seats_of(config: GameConfig, seats: Iterable[int] | str | None) -> tuple[int, ...]:
    """0-based seats from a user's 1-based choice: None or ``"all"`` (every seat), a team
    letter ``"a"``/``"b"``, ``"1,3"`` or an iterable of 1-based seats (whole teams only)."""
    if seats is None or (isinstance(seats, str) and seats.strip().lower() == "all"):
        return tuple(range(config.num_seats))
    if isinstance(seats, str):
        text = seats.strip().lower()
        letters = "abcdefghijklmnopqrstuvwxyz"[: len(config.teams)]
        if len(text) == 1 and text in letters:
            return tuple(config.teams[letters.index(text)])
        try:
            seats = [int(t) for t in text.split(",") if t.strip()]
        except ValueError:
            raise ArgumentValueError(
                f"seats {seats!r}: give 'all', a team letter or '1,3'"
            ) from None
    elif isinstance(seats, (bytes, Mapping)) or not isinstance(seats, Iterable):
        raise ArgumentTypeError(
            f"seats {seats!r}: give 'all', a team letter, '1,3' or a sequence of seats 1..S"
        )
    chosen = [_seat_number(config, s, "seats: seat") for s in seats]
    if len(set(chosen)) != len(chosen):
        raise ArgumentValueError(f"seats {[s + 1 for s in chosen]}: a seat is given twice")
    try:
        return whole_teams(config, chosen)
    except ValueError as e:
        raise ArgumentValueError(f"seats: {e}") from None


def _from_function(policy: Callable, table: InfosetTable) -> np.ndarray:
    rows = [policy(i, legal) for i, legal in zip(table.strings, table.legal_strings)]
    try:  # real numbers only: numpy would parse "0.5" and drop an imaginary part
        out = real_array(rows, "the policy's return values")
    except (TypeError, ValueError):
        out = None
    if out is None or out.shape != (table.size, 3):
        for i, r in enumerate(rows):  # the error path only: find the first bad return value
            try:
                ok = real_array(r, "").shape == (3,)
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise TeamLeducError(
                    f"the policy returned {r!r} at {table.strings[i]}; "
                    "expected three numbers (p_c, p_r, p_f)"
                )
    return out


@functools.lru_cache(maxsize=8)
def _all_strings(config: GameConfig) -> pd.Index:
    """Every seat's information-set strings, seat after seat, as one pandas index (built once
    per game: team-leduc has 590,640)."""
    return pd.Index([s for t in tables_for(config) for s in t.strings], dtype=object)


def _from_mapping(
    keys: Sequence[str],
    values: np.ndarray,
    config: GameConfig,
    seats: tuple[int, ...],
    missing: str,
) -> dict[int, np.ndarray]:
    tables = tables_for(config)
    offsets = np.cumsum([0] + [t.size for t in tables])
    where = _all_strings(config).get_indexer(pd.Index(keys, dtype=object))
    unknown = np.flatnonzero(where < 0)
    if unknown.size:
        raise TeamLeducError(
            f"{unknown.size:,} key(s) are not information sets of {config.name}, "
            f"e.g. {keys[int(unknown[0])]!r}"
        )
    if values.shape != (len(keys), 3):
        raise TeamLeducError("expected three probabilities (p_c, p_r, p_f) per information set")
    twice = pd.Index(where).duplicated()
    if twice.any():  # a DataFrame may repeat a row: which one wins would be an accident
        i = int(np.argmax(twice))
        first = int(np.flatnonzero(where == where[i])[0])
        raise ArgumentValueError(
            f"information set {keys[i]!r} is given twice (rows {first} and {i}); give each once"
        )
    out = {}
    for s in seats:
        t = tables[s]
        mine = (where >= offsets[s]) & (where < offsets[s + 1])
        arr = np.full((t.size, 3), np.nan)
        arr[where[mine] - offsets[s]] = values[mine]
        absent = np.isnan(arr).all(axis=1)
        if absent.any():
            if missing != "uniform":
                raise TeamLeducError(
                    f"seat {s + 1}: {int(absent.sum()):,} of {t.size:,} information sets have no "
                    f"probabilities, e.g. {t.strings[int(np.argmax(absent))]} (pass "
                    "missing='uniform' to play uniformly there)"
                )
            arr[absent] = t.uniform_strategy()[absent]
        out[s] = arr
    return out


def _signal_arrays(
    policy, config: GameConfig, seats: tuple[int, ...], missing: str
) -> dict[int, np.ndarray]:
    """{0-based seat: (n, 3)} of one signal's policy, unchecked."""
    tables = tables_for(config)
    if isinstance(policy, pd.DataFrame):
        absent = [c for c in ["infoset", *_COLUMNS] if c not in policy.columns]
        if absent:
            raise TeamLeducError(f"the DataFrame has no column(s) {', '.join(absent)}")
        if policy.columns.duplicated().any():
            raise ArgumentValueError("the DataFrame has a column name twice")
        values = real_array(policy[_COLUMNS].to_numpy(), "the DataFrame's p_c, p_r, p_f")
        return _from_mapping(policy["infoset"].tolist(), values, config, seats, missing)
    if callable(policy):
        return {s: _from_function(policy, tables[s]) for s in seats}
    if isinstance(policy, Mapping):
        keys = list(policy.keys())
        if keys and all(isinstance(k, str) for k in keys):
            values = real_array(list(policy.values()), "the policy's probabilities")
            if values.ndim != 2:
                raise ArgumentValueError(
                    "expected three probabilities (p_c, p_r, p_f) per information set"
                )
            return _from_mapping(keys, values, config, seats, missing)
        if keys and all(isinstance(k, numbers.Integral) for k in keys):
            given = [_seat_number(config, k, "policy key: seat") for k in keys]
            if len(set(given)) != len(given):  # 1 and np.int64(1) are one key to a dict
                raise ArgumentValueError("policy: a seat is given twice")
            out = {}
            for s in seats:
                if s + 1 not in policy:
                    raise TeamLeducError(
                        f"no array for seat {s + 1} (the keys are seats 1..{config.num_seats})"
                    )
                a = real_array(policy[s + 1], f"the array of seat {s + 1}")
                if a.shape != (tables[s].size, 3):
                    raise TeamLeducError(
                        f"seat {s + 1}: array of shape {a.shape}; expected "
                        f"({tables[s].size}, 3) for {config.name}"
                    )
                out[s] = a
            return out
    raise TeamLeducError(
        "a policy is a function (infoset, legal) -> (p_c, p_r, p_f), a mapping from "
        "information-set strings to probabilities, a DataFrame with columns infoset, p_c, p_r, "
        f"p_f, or a mapping from seats 1..S to arrays; got {type(policy).__name__}"
    )


def _check_rows(arrays: dict[int, np.ndarray], config: GameConfig, signal: str) -> None:
    tables = tables_for(config)
    for s, a in arrays.items():
        t = tables[s]
        bad = np.flatnonzero(value_problems(a, t.legal, np.ones(t.size, bool)))
        if bad.size:
            i = int(bad[0])
            more = f" ({bad.size - 1:,} more rows of seat {s + 1} too)" if bad.size > 1 else ""
            raise TeamLeducError(
                f"{signal}seat {s + 1}, line {i + 1}, {t.strings[i]} (legal {t.legal_strings[i]}):"
                f" {describe_values(a[i], t.legal[i], 'crf')}{more}"
            )


def build_submission(
    policy: Policy | Sequence[Policy],
    config: GameConfig | str = "team-leduc",
    *,
    seats: Iterable[int] | str | None = None,
    weights: Sequence[float] | None = None,
    missing: str = "error",
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> Submission:
    """Build a checked :class:`~teamleduc.files.model.Submission` from code, and write it.

    Parameters
    ----------
    policy : a policy (see the module docstring), or a list of policies: one per signal.
    config : GameConfig or preset name.
    seats : the seats to build, numbered 1..S: None or ``"all"`` (every seat), a team
        (``(1, 3)``, ``"1,3"`` or the team letter ``"a"``/``"b"``).
    weights : with a list of policies, the probability of each signal (equal if omitted).
    missing : for a mapping, ``"error"`` (every information set of the seats built must be
        given) or ``"uniform"`` (the ones not given play uniformly over their legal actions).
    out : if given, write the submission there (a folder, or a zip if it ends in ``.zip``).
    overwrite : replace ``out`` if it exists.

    Raises :class:`~teamleduc.errors.TeamLeducError` naming the first bad row (seat, line,
    information set and what is wrong) or the first missing information set.
    """
    config = get_config(config)
    chosen = seats_of(config, seats)
    if missing not in ("error", "uniform"):
        raise TeamLeducError(f"missing={missing!r}: use 'error' or 'uniform'")
    several = isinstance(policy, (list, tuple))
    policies = list(policy) if several else [policy]
    if not policies:
        raise TeamLeducError("no policy given (an empty list)")
    if weights is None:
        probs = np.full(len(policies), 1.0 / len(policies))
    else:
        probs = real_array(weights, "weights").reshape(-1)
        if probs.size != len(policies):
            raise TeamLeducError(f"{probs.size} weights for {len(policies)} policies")
        if not np.isfinite(probs).all() or (probs < 0).any() or abs(probs.sum() - 1) > 1e-6:
            raise TeamLeducError(f"weights {probs.tolist()} must be non-negative and sum to 1")
    per_signal = []
    for k, p in enumerate(policies):
        arrays = _signal_arrays(p, config, chosen, missing)
        _check_rows(arrays, config, f"signal {k}: " if several else "")
        per_signal.append(arrays)
    strategies = {s: np.stack([a[s] for a in per_signal]) for s in chosen}
    sub = Submission(np.arange(len(policies)), probs, chosen, strategies)
    if out is not None:
        if not isinstance(out, (str, os.PathLike)):
            raise ArgumentTypeError(f"out: a path (str or os.PathLike), not {type(out).__name__}")
        try:
            write_submission(sub, Path(out), overwrite=overwrite, config=config)
        except FileExistsError as e:
            raise TeamLeducError(f"{e}; pass overwrite=True to replace it") from None
    return sub
