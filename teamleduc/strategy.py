"""A strategy from code: a checked submission from a policy, in one place.

:func:`submission_from_policy` does the work for both public entry points,
:func:`build_submission` (``teamleduc.api``: rows must be exact probabilities) and
:func:`teamleduc.envs.policy_submission` (rows renormalised, gaps played by a baseline). A
*policy* is any of

- a function ``policy(infoset, legal) -> (p_c, p_r, p_f)``: ``infoset`` is the information-set
  string (``/C:?K??/P1:r/``), ``legal`` the legal actions in the order c, r, f (``"crf"``,
  ``"cr"``, ``"cf"`` or ``"c"``); it is called once per information set of every seat built;
- a mapping ``{infoset string: (p_c, p_r, p_f)}`` (a dict, or a pandas DataFrame with the
  columns ``infoset``, ``p_c``, ``p_r``, ``p_f`` such as :func:`infoset_frame` gives);
- a mapping ``{seat: table}``: a seat is numbered 1..S as in the handout (``1``) or named as
  the environments' agent (``"player_1"``); a table is an array of shape (information sets of
  that seat, 3), rows in the order of the seat's file, or a mapping from that seat's
  information-set strings to probabilities;

or a list of policies, one per signal of a correlated strategy, drawn with ``weights``.
Seats are numbered from 1 everywhere here; 0 is refused, never shifted. Apart from calling a
user's function, nothing loops over information sets in Python: strings are looked up with a
pandas index and rows are checked or renormalised as arrays.
"""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .arguments import check_flag, check_path, excerpt
from .config import GameConfig, get_config
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .files.model import Submission, describe_values, real_array, value_problems, whole_teams
from .files.writing import write_submission
from .infosets import InfosetTable, tables_for

__all__ = [
    "build_submission",
    "infoset_frame",
    "infoset_table",
    "seat_of_key",
    "seats_of",
    "submission_from_policy",
]

Policy = (
    Callable[[str, str], Sequence[float]]
    | Mapping[str, Sequence[float]]
    | Mapping[int | str, np.ndarray | Mapping[str, Sequence[float]]]
    | pd.DataFrame
)
#: The rows a lenient policy leaves open, for one 0-based seat: an (n, 3) strategy.
FillRows = Callable[[int], np.ndarray]
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


def seat_of_key(config: GameConfig, key, what: str = "policy key") -> int:
    """0-based seat of a policy key: a seat number 1..S or an agent name ``"player_k"``. A
    float, a bool, another string or 0 is refused (``int(1.5)`` would have been seat 2, and a
    0 read as the first seat would shift every seat by one)."""
    if isinstance(key, str):
        digits = key[7:] if key.startswith("player_") else ""
        if not (digits.isascii() and digits.isdigit()):
            raise ArgumentValueError(
                f"{what} {key!r}: a seat is a number 1..{config.num_seats} or an agent name "
                "such as 'player_1'"
            )
        number = int(digits)
    elif isinstance(key, (bool, np.bool_)) or not isinstance(key, numbers.Integral):
        raise ArgumentTypeError(
            f"{what} {key!r}: a seat is an int 1..{config.num_seats} or an agent name such as "
            f"'player_1' (numbered from 1, as in the handout), not {type(key).__name__}"
        )
    else:
        number = int(key)
    if not 1 <= number <= config.num_seats:
        raise ArgumentValueError(
            f"{what} {key!r}: seat {number}: {config.name} has seats 1..{config.num_seats}; "
            "seats are numbered from 1 (player_1 or 1)"
        )
    return number - 1


def _is_seat_key(key) -> bool:
    """Whether ``key`` is meant as a seat (an integer or ``player_...``), not an information
    set: information-set strings start with ``/``."""
    if isinstance(key, str):
        return key.startswith("player_")
    return isinstance(key, numbers.Number)


def seat_mapping(config: GameConfig, mapping, what: str = "policy") -> dict:
    """``{0-based seat: value}`` of a mapping keyed by seats (:func:`seat_of_key`); a seat given
    twice (``1`` and ``"player_1"``) is refused rather than one of them silently dropped."""
    if not isinstance(mapping, Mapping):
        raise ArgumentTypeError(
            f"{what}: expected a mapping {{seat: table}}, not {type(mapping).__name__}"
        )
    out, given = {}, {}
    for key, value in mapping.items():
        seat = seat_of_key(config, key)
        if seat in out:
            raise ArgumentValueError(
                f"{what}: player_{seat + 1} is given twice (keys {given[seat]!r} and {key!r})"
            )
        out[seat], given[seat] = value, key
    return out


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
            error = ArgumentValueError
            try:
                ok = real_array(r, "").shape == (3,)
            except TypeError:  # strings, complex numbers, None
                ok, error = False, ArgumentTypeError
            except ValueError:
                ok = False
            if not ok:
                raise error(
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
    keys: Sequence[str], values: np.ndarray, config: GameConfig, seats: Sequence[int]
) -> dict[int, np.ndarray]:
    """{0-based seat: (n, 3)} of information-set strings and their rows; NaN rows where a
    string of the seat is not given."""
    tables = tables_for(config)
    offsets = np.cumsum([0] + [t.size for t in tables])
    where = _all_strings(config).get_indexer(pd.Index(keys, dtype=object))
    unknown = np.flatnonzero(where < 0)
    if unknown.size:
        raise ArgumentValueError(
            f"{unknown.size:,} key(s) are not information sets of {config.name}, "
            f"e.g. {keys[int(unknown[0])]!r}"
        )
    if values.shape != (len(keys), 3):
        raise ArgumentValueError("expected three probabilities (p_c, p_r, p_f) per information set")
    twice = pd.Index(where).duplicated()
    if twice.any():  # a DataFrame may repeat a row: which one wins would be an accident
        i = int(np.argmax(twice))
        first = int(np.flatnonzero(where == where[i])[0])
        raise ArgumentValueError(
            f"information set {keys[i]!r} is given twice (rows {first} and {i}); give each once"
        )
    out = {}
    for s in seats:
        mine = (where >= offsets[s]) & (where < offsets[s + 1])
        arr = np.full((tables[s].size, 3), np.nan)
        arr[where[mine] - offsets[s]] = values[mine]
        out[s] = arr
    return out


def _seat_rows(config: GameConfig, seat: int, table) -> tuple[np.ndarray, bool]:
    """One seat's (n, 3) rows from an array or a mapping of the seat's information-set
    strings, and whether they came from a mapping (NaN rows: not given)."""
    t = tables_for(config)[seat]
    what = f"the policy of seat {seat + 1}, player_{seat + 1}"
    if isinstance(table, Mapping):
        keys = list(table)
        if keys and not all(isinstance(k, str) for k in keys):
            raise ArgumentTypeError(f"{what}: the keys are information-set strings")
        where = pd.Index(t.strings, dtype=object).get_indexer(pd.Index(keys, dtype=object))
        if (where < 0).any():
            key = keys[int(np.argmax(where < 0))]
            raise ArgumentValueError(
                f"{key!r} is not an information set of player_{seat + 1} in {config.name}"
            )
        values = real_array(list(table.values()), what)
        if values.shape != (len(keys), 3):
            raise ArgumentValueError(
                f"{what}: expected three probabilities (p_c, p_r, p_f) per information set"
            )
        out = np.full((t.size, 3), np.nan)
        out[where] = values
        return out, True
    if isinstance(table, (str, bytes)):
        raise ArgumentTypeError(f"{what}: expected an (n, 3) array, not {table!r}"[:200])
    out = real_array(table, what)
    if out.shape != (t.size, 3):
        raise ArgumentValueError(
            f"{what}: shape {out.shape}; expected ({t.size}, 3) for {config.name} (one row "
            "per information set, columns c, r, f)"
        )
    return out, False


class _Signal(NamedTuple):
    """One signal's policy as arrays, unchecked."""

    rows: dict[int, np.ndarray]  # {0-based seat: (n, 3)}
    by_seat: bool  # the policy named its seats (a mapping keyed by seats)
    gaps: frozenset[int]  # seats whose all-NaN rows mean "not given" (from a string mapping)


def _signal_rows(policy, config: GameConfig, seats: tuple[int, ...] | None) -> _Signal:
    """One signal's policy as arrays. ``seats`` None: the seats a seat mapping names, else
    every seat."""
    tables = tables_for(config)
    every = tuple(range(config.num_seats))
    if isinstance(policy, pd.DataFrame):
        absent = [c for c in ["infoset", *_COLUMNS] if c not in policy.columns]
        if absent:
            raise ArgumentValueError(f"the DataFrame has no column(s) {', '.join(absent)}")
        if policy.columns.duplicated().any():
            raise ArgumentValueError("the DataFrame has a column name twice")
        values = real_array(policy[_COLUMNS].to_numpy(), "the DataFrame's p_c, p_r, p_f")
        rows = _from_mapping(policy["infoset"].tolist(), values, config, seats or every)
        return _Signal(rows, False, frozenset(rows))
    if callable(policy):
        return _Signal(
            {s: _from_function(policy, tables[s]) for s in seats or every}, False, frozenset()
        )
    if isinstance(policy, Mapping) and policy:
        keys = list(policy.keys())
        if all(_is_seat_key(k) for k in keys):
            given = seat_mapping(config, policy)
            if seats is None:
                seats = tuple(sorted(given))
            missing = [s + 1 for s in seats if s not in given]
            if missing:
                raise ArgumentValueError(
                    f"no table for seat {missing[0]} (the keys are seats 1..{config.num_seats} "
                    "or player_1..)"
                )
            tables_of = {s: _seat_rows(config, s, given[s]) for s in seats}
            rows = {s: a for s, (a, _) in tables_of.items()}
            return _Signal(rows, True, frozenset(s for s, (_, m) in tables_of.items() if m))
        if all(isinstance(k, str) for k in keys):
            values = real_array(list(policy.values()), "the policy's probabilities")
            if values.ndim != 2:
                raise ArgumentValueError(
                    "expected three probabilities (p_c, p_r, p_f) per information set"
                )
            rows = _from_mapping(keys, values, config, seats or every)
            return _Signal(rows, False, frozenset(rows))
    raise ArgumentTypeError(
        "a policy is a function (infoset, legal) -> (p_c, p_r, p_f), a mapping from "
        "information-set strings to probabilities, a DataFrame with columns infoset, p_c, p_r, "
        f"p_f, or a mapping from seats 1..S to tables; got {type(policy).__name__}"
    )


def _exact_rows(signal: _Signal, config: GameConfig, missing: str, name: str) -> dict:
    """The rows as given, checked against the rules (the first bad row named); rows a mapping
    does not give are an error, or uniform with ``missing="uniform"``."""
    tables = tables_for(config)
    arrays = dict(signal.rows)
    for s, a in arrays.items():
        t = tables[s]
        absent = np.isnan(a).all(axis=1) if s in signal.gaps else np.zeros(t.size, bool)
        if absent.any():
            if missing != "uniform":
                raise ArgumentValueError(
                    f"{name}seat {s + 1}: {int(absent.sum()):,} of {t.size:,} information "
                    f"sets have no probabilities, e.g. {t.strings[int(np.argmax(absent))]} "
                    "(pass missing='uniform' to play uniformly there)"
                )
            arrays[s] = a = np.where(absent[:, None], t.uniform_strategy(), a)
        bad = np.flatnonzero(value_problems(a, t.legal, np.ones(t.size, bool)))
        if bad.size:
            i = int(bad[0])
            more = f" ({bad.size - 1:,} more rows of seat {s + 1} too)" if bad.size > 1 else ""
            raise ArgumentValueError(
                f"{name}seat {s + 1}, line {i + 1}, {t.strings[i]} (legal {t.legal_strings[i]}):"
                f" {describe_values(a[i], t.legal[i], 'crf')}{more}"
            )
    return arrays


def _renormalised_rows(
    arrays: dict[int, np.ndarray], config: GameConfig, seats: tuple[int, ...], fill: FillRows
) -> dict[int, np.ndarray]:
    """Rows renormalised over the legal actions (mass on an illegal action dropped); rows not
    given, NaN rows, rows without mass on a legal action and seats not given from ``fill``."""
    tables = tables_for(config)
    out = {}
    for s in seats:
        fill_rows = fill(s)
        if s not in arrays:
            out[s] = fill_rows
            continue
        a, legal = arrays[s], tables[s].legal
        given = ~np.isnan(a).any(axis=1)
        if (a[given] < 0).any() or not np.isfinite(a[given]).all():
            raise ArgumentValueError(
                f"policy of player_{s + 1}: probabilities must be >= 0 and finite"
            )
        a = np.where(legal, np.nan_to_num(a), 0.0)
        total = a.sum(axis=1, keepdims=True)
        empty = (total[:, 0] <= 0) | ~given
        out[s] = np.where(empty[:, None], fill_rows, a / np.where(total > 0, total, 1.0))
    return out


def _signal_weights(weights, n: int, what: str) -> np.ndarray:
    if weights is None:
        return np.full(n, 1.0 / n)
    probs = real_array(weights, what).reshape(-1)
    if probs.size != n:
        raise ArgumentValueError(f"{what}: {probs.size} probabilities for {n} signals")
    if not np.isfinite(probs).all() or (probs < 0).any() or abs(probs.sum() - 1) > 1e-6:
        raise ArgumentValueError(f"{what} {probs.tolist()} must be non-negative and sum to 1")
    return probs


def check_missing(missing: object) -> str:
    """``missing`` if it is ``"error"`` or ``"uniform"``; else the error naming ``missing``."""
    if not isinstance(missing, str):
        raise ArgumentTypeError(
            f"missing must be 'error' or 'uniform', not {type(missing).__name__} {missing!r}"[:200]
        )
    if missing not in ("error", "uniform"):
        raise ArgumentValueError(f"missing={excerpt(missing)}: use 'error' or 'uniform'")
    return missing


def submission_from_policy(
    policy: Policy | Sequence[Policy],
    config: GameConfig,
    *,
    seats: tuple[int, ...] | None = None,
    weights: Sequence[float] | None = None,
    missing: str = "error",
    fill: FillRows | None = None,
    weights_name: str = "weights",
) -> Submission:
    """A Submission of ``policy`` (one policy, or a list: one per signal, drawn with
    ``weights``) for the 0-based ``seats``.

    Without ``fill`` the rows must be exact probabilities (the first bad row is named) and
    ``seats`` default to every seat; rows a mapping leaves out follow ``missing`` (``"error"``
    or ``"uniform"``). With ``fill`` (0-based seat -> (n, 3) rows) the rows are renormalised
    over the legal actions, every gap is played by ``fill``, ``seats`` default to the whole
    teams the policy names, and every signal must name the same seats. ``weights_name``
    names the weights in messages.
    """
    check_missing(missing)
    several = isinstance(policy, (list, tuple))
    policies = list(policy) if several else [policy]
    if not policies:
        raise ArgumentValueError("the policy has no signal (an empty list)")
    probs = _signal_weights(weights, len(policies), weights_name)
    chosen = seats if fill is not None or seats is not None else tuple(range(config.num_seats))
    per_signal = [_signal_rows(p, config, chosen) for p in policies]
    if fill is None:
        strategies = [
            _exact_rows(signal, config, missing, f"signal {k}: " if several else "")
            for k, signal in enumerate(per_signal)
        ]
    else:
        if len({frozenset(p.rows) for p in per_signal if p.by_seat}) > 1:
            raise ArgumentValueError("every signal of the policy must give the same seats")
        if chosen is None:
            played = set().union(*[set(p.rows) for p in per_signal])
            chosen = tuple(sorted({s for t in config.teams if played & set(t) for s in t}))
        strategies = [_renormalised_rows(p.rows, config, chosen, fill) for p in per_signal]
    sub = Submission(
        np.arange(len(policies)),
        probs,
        chosen,
        {s: np.stack([a[s] for a in strategies]) for s in chosen},
    )
    if fill is not None:
        problems = sub.problems(config)
        if problems:
            raise ArgumentValueError("invalid policy: " + "; ".join(problems))
    return sub


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

    Raises :class:`~teamleduc.errors.ArgumentValueError` (a TeamLeducError and a ValueError)
    naming the first bad row (seat, line, information set and what is wrong) or the first
    missing information set; :class:`~teamleduc.errors.ArgumentTypeError` for a policy or an
    argument of the wrong type.
    """
    config = get_config(config)
    chosen = seats_of(config, seats)
    if out is not None:  # before the (long) building: nothing is built for a bad target
        if not isinstance(out, (str, os.PathLike)):
            raise ArgumentTypeError(f"out: a path (str or os.PathLike), not {type(out).__name__}")
        check_path(out, "out")
    check_flag(overwrite, "overwrite")
    check_missing(missing)
    sub = submission_from_policy(policy, config, seats=chosen, weights=weights, missing=missing)
    if out is not None:
        write_converted(sub, out, config, overwrite)
    return sub


def write_converted(sub: Submission, out, config: GameConfig, overwrite: bool) -> None:
    """Write a submission converted from a policy to ``out``; an existing target without
    ``overwrite`` is one :class:`~teamleduc.errors.TeamLeducError` saying how to replace it."""
    try:
        write_submission(sub, Path(out), overwrite=overwrite, config=config)
    except FileExistsError as e:
        raise TeamLeducError(f"{e}; pass overwrite=True to replace it") from None
