"""The submission model: a correlated strategy per team, read, checked and written exactly.

A submission (spec section 3) is a meta-strategy (signal ids ``j`` drawn with probabilities
``p_j``) and, per signal and seat played, one row ``p_c, p_r, p_f`` per information set.
:class:`Submission` holds it as arrays::

    signals     (K,)            int64    signal ids, in the order of meta-strategy.csv
    probs       (K,)            float64  their probabilities
    seats       tuple[int, ...]          0-based seats played (all, or one team)
    strategies  {seat: (K, n_seat, 3)}   float64, columns c, r, f; row = information-set id

Reading is vectorised: a strategy CSV is checked byte-wise with numpy (allowed characters,
blank lines, exactly two commas per line), parsed by pandas' C reader (correctly rounded, so
``repr`` floats read back bit-identical) and checked by array comparisons (finite, in [0, 1],
rows summing to 1 within :data:`TOLERANCE`, 0 on illegal actions). Python looks at single
lines only to word the messages of the first few bad lines, or to find which token pandas
refused. Time is linear in the number of files; nothing is done per line in Python when a
file is valid.

Accepted with a warning (one reading is unambiguous): a UTF-8 byte-order mark, CRLF line
endings, a missing newline after the last line, spaces or tabs around values. Rejected: empty
files, binary data or UTF-16, blank lines, a field count other than 3, anything that is not
a decimal number (``nan``, ``inf``, ``1,5``), values outside [0, 1], rows not summing to 1,
non-zero probability on an illegal action, a line count other than the seat's number of
information sets.

Writing uses the shortest round-trip decimal (``repr`` of each float), through a temporary
file or folder renamed into place, so a reader never sees a partial submission.

:func:`merge_team_mixtures` puts two teams' mixtures on one meta-strategy (cutting [0, 1] at
the union of both cumulative distributions), as the 2025 format and the solver need.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .config import GameConfig, get_config
from .infosets import InfosetTable, format_rows, infoset_tables
from .safeio import (
    DEFAULT_CAP,
    META_LIMIT,
    META_NAME,
    Container,
    Finding,
    SubmissionError,
    csv_limit,
)
from .tree import build_tree

#: rows and the meta-strategy must sum to 1 within this
TOLERANCE = 1e-6
STRATEGY_CSV = "strategy{signal}-player{seat}.csv"
ACTION_NAMES = {"c": "call/check", "r": "raise", "f": "fold"}

_BOM = b"\xef\xbb\xbf"
_NUMBER_BYTES = b"0123456789.eE+-"
_BLANKS = b" \t"
_NONFINITE_WORDS = {
    b"nan",
    b"+nan",
    b"-nan",
    b"inf",
    b"+inf",
    b"-inf",
    b"infinity",
    b"+infinity",
    b"-infinity",
}

#: bytes that may appear in a strategy CSV after CRLF and BOM handling
_CSV_ALLOWED = np.zeros(256, bool)
_CSV_ALLOWED_BYTES = _NUMBER_BYTES + b",\n" + _BLANKS
_CSV_ALLOWED[np.frombuffer(_CSV_ALLOWED_BYTES, np.uint8)] = True
_LINE_SEPARATORS = np.frombuffer(b",,\n", np.uint8)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------


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

    def restrict(self, seats) -> Submission:
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


def uniform_submission(config, seats=None) -> Submission:
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


def merge_team_mixtures(probs_a, probs_b) -> MergedMixture:
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


# --------------------------------------------------------------------------------------------
# Checking one file
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


def _show(raw: bytes, limit: int = 60) -> str:
    """Printable ASCII form of (the start of) a line, for messages."""
    text = "".join(
        ch if 32 <= ord(ch) < 127 else ch.encode("unicode_escape").decode("ascii")
        for ch in raw[: 4 * limit].decode("utf-8", "backslashreplace")
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prepare_text(data: bytes, display: str, errors: list, warnings: list) -> bytes | None:
    """Normalise the bytes of a text file: None (and an error) if it is not usable text.

    Strips a UTF-8 BOM, turns CRLF into LF and adds a final newline, each with one warning.
    """
    if not data:
        errors.append(Finding(display, None, None, "empty file"))
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        errors.append(Finding(display, None, None, "UTF-16 text; save the file as UTF-8"))
        return None
    nul = data.find(b"\x00")
    if nul >= 0:
        errors.append(
            Finding(
                display,
                data.count(b"\n", 0, nul) + 1,
                None,
                "binary data, not text (a NUL byte); expected UTF-8 text",
            )
        )
        return None
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
        warnings.append(
            Finding(
                display, None, None, "starts with a UTF-8 byte-order mark: accepted and ignored"
            )
        )
        if not data:
            errors.append(Finding(display, None, None, "empty file (only a byte-order mark)"))
            return None
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
        warnings.append(Finding(display, None, None, "Windows (CRLF) line endings: accepted"))
    if not data.endswith(b"\n"):
        data += b"\n"
        warnings.append(Finding(display, None, None, "no newline after the last line: accepted"))
    return data


def parse_number(token: bytes, k: int) -> tuple[float | None, str | None]:
    """Value of field ``k`` (1-based) of a line, or the reason it is not a decimal number."""
    t = token.strip(_BLANKS)
    if not t:
        return None, f"value {k} is empty"
    if t.lower() in _NONFINITE_WORDS:
        return None, f"value {k} ('{_show(t)}') is not a finite number"
    for ch in t:
        if ch not in _NUMBER_BYTES:
            if ch == 13:
                return None, "carriage return without a line feed (lines must end with \\n)"
            if ch < 128:
                what = f"the unexpected character {chr(ch)!r}"
            else:
                text = t.decode("utf-8", "replace")
                odd = next(c for c in text if ord(c) >= 128)
                what = (
                    f"the byte 0x{t[t.index(ch)]:02x} (not UTF-8)"
                    if odd == "\ufffd"
                    else f"the non-ASCII character U+{ord(odd):04X}"
                )
            return None, f"value {k} ('{_show(t)}') contains {what}"
    try:
        return float(t), None
    except ValueError:
        return None, f"value {k} ('{_show(t)}') is not a decimal number"


def parse_line(raw: bytes, nfields: int) -> tuple[list[float] | None, str | None]:
    """Values of one line of ``nfields`` comma-separated numbers, or why it is not one."""
    if not raw:
        return None, "blank line"
    fields = raw.split(b",")
    if len(fields) != nfields:
        hint = ""
        if b";" in raw:
            hint = " (separate the values with commas, not semicolons)"
        elif len(fields) == 1 and (b" " in raw.strip() or b"\t" in raw.strip()):
            hint = " (separate the values with commas)"
        return (
            None,
            f"{len(fields)} value{'s' if len(fields) != 1 else ''} where {nfields} "
            f"comma-separated values are expected{hint}",
        )
    values = []
    for k, token in enumerate(fields, 1):
        v, why = parse_number(token, k)
        if why:
            return None, why
        values.append(v)
    return values, None


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


def _more(display: str, count: int, cap: int, what: str = "lines with errors") -> Finding:
    return Finding(display, None, None, f"{count:,} more {what} not listed (the first {cap} are)")


def _csv_pandas(data: bytes, num_lines: int) -> np.ndarray | None:
    """Parse well-formed CSV bytes (every line exactly three fields) to (L, 3) float64, or None
    if pandas refuses a token. pandas' C parser is correctly rounded."""
    import pandas as pd

    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            header=None,
            names=[0, 1, 2],
            dtype=np.float64,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=False,
            engine="c",
            low_memory=False,
        )
    except (ValueError, TypeError, pd.errors.ParserError):
        return None
    values = np.ascontiguousarray(frame.to_numpy(dtype=np.float64))
    return values if values.shape == (num_lines, 3) else None


def parse_strategy_csv(
    data: bytes, display: str, table: InfosetTable, cap: int = DEFAULT_CAP
) -> FileCheck:
    """Check the bytes of ``strategy{j}-player{i}.csv`` against seat ``table.seat``."""
    out = FileCheck(values=None)
    data = prepare_text(data, display, out.errors, out.warnings)
    if data is None:
        return out
    n = table.size
    num_lines = data.count(b"\n")
    if num_lines > 2 * n + 1000:  # far off: do not index millions of junk lines
        out.errors.append(
            Finding(
                display,
                None,
                None,
                f"{num_lines:,} lines where seat {table.seat + 1} of "
                f"{table.tree.config.name} has {n:,} information sets (one line each)",
            )
        )
        return out
    u = np.frombuffer(data, np.uint8)
    # structure: blank lines, characters that cannot occur, exactly two commas per line.
    # Fast test first: the separators, in order, must read ", , \n" on every line.
    structure_bad = np.zeros(num_lines, bool)
    separators = u[np.flatnonzero((u == 44) | (u == 10))]
    well_formed = (
        separators.size == 3 * num_lines
        and (separators.reshape(-1, 3) == _LINE_SEPARATORS).all()
        and not data.translate(None, _CSV_ALLOWED_BYTES)
    )
    if not well_formed:
        nl = np.flatnonzero(u == 10)
        starts = np.empty(num_lines, np.int64)
        starts[0] = 0
        starts[1:] = nl[:-1] + 1
        structure_bad |= starts == nl
        bad_at = np.flatnonzero(~_CSV_ALLOWED[u])
        structure_bad[np.searchsorted(nl, bad_at)] = True
        commas = np.flatnonzero(u == 44)
        structure_bad |= np.bincount(np.searchsorted(nl, commas), minlength=num_lines) != 2
    if b" " in data or b"\t" in data:
        out.warnings.append(Finding(display, None, None, "spaces or tabs around values: accepted"))

    values = None
    parse_bad = np.zeros(num_lines, bool)
    if not structure_bad.any():
        values = _csv_pandas(data, num_lines)
    if values is None:  # find the lines pandas refused (error path only)
        values = np.full((num_lines, 3), np.nan)
        lines = data.split(b"\n")
        for i in np.flatnonzero(~structure_bad).tolist():
            v, why = parse_line(lines[i], 3)
            if why:
                parse_bad[i] = True
            else:
                values[i] = v
    line_errors = structure_bad | parse_bad
    aligned = num_lines == n
    legal = table.legal if aligned else None
    value_bad = value_problems(values, legal, ~line_errors)
    bad = np.flatnonzero(line_errors | value_bad)
    out.bad_lines = bad + 1

    if not aligned:
        seat = table.seat + 1
        extra = f"; line {n + 1} is past the last information set" if num_lines > n else ""
        out.errors.append(
            Finding(
                display,
                None,
                None,
                f"{num_lines:,} lines where seat {seat} of "
                f"{table.tree.config.name} has {n:,} information sets "
                f"(one line each){extra}",
            )
        )
    if bad.size:
        strings = table.strings if aligned else None
        lines = data.split(b"\n")
        for i in bad[:cap].tolist():
            raw = lines[i]
            if line_errors[i]:
                why = parse_line(raw, 3)[1] or "malformed line"
            else:
                why = describe_values(values[i], legal[i] if aligned else None, "crf")
            out.errors.append(
                Finding(display, i + 1, strings[i] if strings else None, f'{why}: "{_show(raw)}"')
            )
        if bad.size > cap:
            out.errors.append(_more(display, int(bad.size - cap), cap))
    if not out.errors:
        out.values = values
    return out


# --------------------------------------------------------------------------------------------
# The meta-strategy
# --------------------------------------------------------------------------------------------


@dataclass
class MetaCheck:
    """The valid lines of ``meta-strategy.csv`` (signal, probability, line) and the findings."""

    signals: list[int] = field(default_factory=list)
    probs: list[float] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)


_SIGNAL = re.compile(rb"\d{1,18}")


def parse_meta(data: bytes, display: str = META_NAME, cap: int = DEFAULT_CAP) -> MetaCheck:
    """Check ``meta-strategy.csv``: lines ``j,p``, j unique non-negative integers, p finite in
    [0, 1], summing to 1 within :data:`TOLERANCE`. One Python step per line: the file has one
    line per signal, as many as there are strategy files to read."""
    out = MetaCheck()
    data = prepare_text(data, display, out.errors, out.warnings)
    if data is None:
        return out
    if b" " in data or b"\t" in data:
        out.warnings.append(Finding(display, None, None, "spaces or tabs around values: accepted"))
    seen: dict[int, int] = {}
    bad: list[tuple[int, str]] = []
    for number, raw in enumerate(data.split(b"\n")[:-1], 1):
        why = None
        fields = raw.split(b",")
        if not raw:
            why = "blank line"
        elif len(fields) != 2:
            why = f"{len(fields)} values where 2 ('j,p': signal, probability) are expected"
        else:
            j_raw = fields[0].strip(_BLANKS)
            p, why = parse_number(fields[1], 2)
            if not _SIGNAL.fullmatch(j_raw):
                why = (
                    f"signal '{_show(j_raw)}' is not a non-negative integer"
                    if len(j_raw) <= 18 or not j_raw.isdigit()
                    else "signal id is too large"
                )
            elif len(j_raw) > 1 and j_raw.startswith(b"0"):
                why = (
                    f"signal '{_show(j_raw)}': write it without leading zeros ({int(j_raw)}), "
                    f"as in its file names"
                )
            elif int(j_raw) in seen:
                why = f"signal {int(j_raw)} is listed twice (first on line {seen[int(j_raw)]})"
            elif why is None and not (0.0 <= p <= 1.0 and np.isfinite(p)):
                why = f"probability {p!r} is not a finite number in [0, 1]"
            if why is None:
                j = int(j_raw)
                seen[j] = number
                out.signals.append(j)
                out.probs.append(p)
                out.lines.append(number)
        if why:
            bad.append((number, f'{why}: "{_show(raw)}"'))
    for number, why in bad[:cap]:
        out.errors.append(Finding(display, number, None, why))
    if len(bad) > cap:
        out.errors.append(_more(display, len(bad) - cap, cap))
    if not bad:
        total = float(np.sum(out.probs))
        if abs(total - 1.0) > TOLERANCE:
            out.errors.append(
                Finding(
                    display,
                    None,
                    None,
                    f"the probabilities sum to {total!r}, not 1 (tolerance {TOLERANCE:g})",
                )
            )
    return out


def format_meta(signals, probs) -> str:
    """Text of ``meta-strategy.csv``: ``j,p`` lines, shortest round-trip decimals."""
    return "".join(
        f"{int(j)},{float(p)!r}\n"
        for j, p in zip(np.asarray(signals).tolist(), np.asarray(probs).tolist())
    )


# --------------------------------------------------------------------------------------------
# Reading a whole submission
# --------------------------------------------------------------------------------------------


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


CSV_FORMAT = StrategyFormat("csv", "csv", csv_limit, parse_strategy_csv)


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


def whole_teams(config: GameConfig, seats) -> tuple[int, ...]:
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


def _memory_budget() -> int:
    """Half the physical memory (bytes); loading more than that is refused up front."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def read_container(
    container: Container,
    config: GameConfig,
    fmt: StrategyFormat = CSV_FORMAT,
    seats=None,
    keep: bool = True,
    cap: int = DEFAULT_CAP,
) -> ReadResult:
    """Check (and with ``keep`` load) every file of an open submission.

    ``seats`` (0-based) are the seats whose files are required; None takes every team that
    has at least one strategy file. Problems are collected, never raised.
    """
    tables = infoset_tables(build_tree(config))
    out = ReadResult(format=fmt.name, warnings=list(container.warnings))
    names = set(container.members)
    lower = {n.lower(): n for n in names}

    def missing_hint(name: str) -> str:
        other = lower.get(name.lower())
        return f" (there is '{other}': names are case-sensitive)" if other and other != name else ""

    # 1. the meta-strategy
    meta = MetaCheck()
    meta_ok = False
    if META_NAME in names:
        try:
            meta = parse_meta(
                container.read(META_NAME, META_LIMIT, "the meta-strategy"),
                container.display(META_NAME),
                cap,
            )
            meta_ok = True
        except SubmissionError as e:
            out.errors.append(e.finding)
        out.errors += meta.errors
        out.warnings += meta.warnings
    else:
        out.errors.append(
            Finding(
                container.display(META_NAME),
                None,
                None,
                "missing: every submission needs meta-strategy.csv" + missing_hint(META_NAME),
            )
        )

    # 2. the strategy files present, and the seats to check
    pattern = re.compile(rf"strategy(0|[1-9]\d{{0,17}})-player([1-9]\d{{0,2}})\.{fmt.extension}")
    found: dict[tuple[int, int], str] = {}
    for name in names:
        m = pattern.fullmatch(name)
        if m and int(m.group(2)) <= config.num_seats:
            found[int(m.group(1)), int(m.group(2)) - 1] = name
    if seats is None:
        present = {s for _, s in found}
        seats = tuple(s for team in config.teams if present & set(team) for s in team)
        if not seats:
            out.errors.append(
                Finding(
                    None,
                    None,
                    None,
                    f"no strategy files (named like "
                    f"{fmt.file_name(0, 0)}) for any seat of {config.name}",
                )
            )
    out.seats = seats = tuple(sorted(seats))

    # 3. each listed signal (every one found if the meta file is missing) for each seat
    signals = meta.signals if meta_ok else sorted({j for j, _ in found})
    out.signals = tuple(signals)
    if keep:
        need = 24 * len(signals) * sum(tables[s].size for s in seats)
        if need > _memory_budget():
            out.errors.append(
                Finding(
                    None,
                    None,
                    None,
                    f"too large to load: {len(signals):,} signals need "
                    f"{need / 2**30:,.1f} GiB, more than half of this machine's "
                    f"memory (validation reads one file at a time and still works)",
                )
            )
            keep = False
    arrays = {s: np.empty((len(signals), tables[s].size, 3)) for s in seats} if keep else {}
    used = {META_NAME}
    missing: list[Finding] = []
    num_missing = 0
    for k, j in enumerate(signals):
        for s in seats:
            name = fmt.file_name(j, s)
            if name not in names:
                num_missing += 1
                if len(missing) < cap:
                    missing.append(
                        Finding(
                            container.display(name),
                            None,
                            None,
                            f"missing: signal {j} needs a strategy file for seat "
                            f"{s + 1}{missing_hint(name)}",
                        )
                    )
                continue
            used.add(name)
            out.files_checked += 1
            table = tables[s]
            try:
                data = container.read(
                    name, fmt.limit(table.size), f"{table.size:,} information sets"
                )
            except SubmissionError as e:
                out.errors.append(e.finding)
                continue
            check = fmt.parse(data, container.display(name), table, cap)
            del data
            out.errors += check.errors
            out.warnings += check.warnings
            if keep and check.values is not None:
                arrays[s][k] = check.values
    out.errors += missing
    if num_missing > cap:
        out.errors.append(_more(None, num_missing - cap, cap, "missing files"))

    # 4. files nothing uses
    listed = set(signals)
    for name in sorted(names - used):
        m = pattern.fullmatch(name)
        if m and int(m.group(2)) > config.num_seats:
            why = f"not read: {config.name} has no seat {m.group(2)}"
        elif m and int(m.group(1)) not in listed:
            why = f"not read: signal {m.group(1)} is not listed in {META_NAME}"
        elif m and int(m.group(2)) - 1 not in seats:
            why = (
                f"not read: seat {m.group(2)} is not checked (seats "
                f"{','.join(str(s + 1) for s in seats)})"
            )
        else:
            why = "not read: not a file of this submission format"
        out.warnings.append(Finding(container.display(name), None, None, why))

    if keep and not out.errors and signals:
        out.submission = Submission(
            np.array(signals, np.int64), np.array(meta.probs), seats, arrays
        )
    return out


def load_submission(path, config="team-leduc", seats=None) -> Submission:
    """Load and check a submission: a folder or ``.zip`` of CSV files, or (detected by its
    files) the 2025 format: one team zip, or a folder holding the team zips.

    ``seats`` (0-based, whole teams) are required; None takes every team with files.
    Raises :class:`SubmissionError` listing every problem if the submission is invalid
    (use :func:`teamleduc.validate.validate_submission` for the full report and warnings).
    """
    from .formats2025 import read_path  # formats2025 builds on this module

    config = get_config(config)
    result = read_path(path, config, seats=seats, keep=True)
    if result.errors:
        first = result.errors[0]
        more = f" (and {len(result.errors) - 1} more problems)" if len(result.errors) > 1 else ""
        raise SubmissionError(
            first.message + more,
            file=first.file,
            line=first.line,
            infoset=first.infoset,
            findings=result.errors,
        )
    return result.submission


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: deflate level 1: five times faster than the default 6 on strategy files, 7% larger
_ZIP_LEVEL = 1


class _ZipWriter:
    """Adds members with fixed dates and permissions, so equal input gives equal bytes."""

    def __init__(self, zf: zipfile.ZipFile):
        self.zf = zf

    def add(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        self.zf.writestr(info, data, compresslevel=_ZIP_LEVEL)


class _DirWriter:
    def __init__(self, root: Path):
        self.root = root

    def add(self, name: str, data: bytes) -> None:
        with open(self.root / name, "wb") as f:
            f.write(data)


@contextmanager
def atomic_output(path, overwrite: bool = False) -> Iterator:
    """Yield a writer (``.add(name, bytes)``) for a folder or, if ``path`` ends in ``.zip``, an
    archive; it appears at ``path`` only when the block ends without an exception."""
    path = Path(path)
    if path.exists() and not overwrite and not (path.is_dir() and not any(path.iterdir())):
        raise FileExistsError(f"{path} already exists (not overwritten)")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".zip":
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
                yield _ZipWriter(zf)
            if path.is_dir():
                raise IsADirectoryError(f"{path} is a folder")
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    else:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
        old = None
        try:
            yield _DirWriter(tmp)
            if path.exists():
                if path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
                else:
                    old = path.with_name(f".{path.name}.old-{os.getpid()}")
                    os.rename(path, old)
            os.rename(tmp, path)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
            if old is not None:
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    old.unlink(missing_ok=True)


def write_submission(
    sub: Submission, path, *, overwrite: bool = False, config: GameConfig | None = None
) -> Path:
    """Write ``sub`` as CSV files into a folder, or a ``.zip`` if ``path`` ends in ``.zip``.

    Floats are written as their shortest round-trip decimal, so :func:`load_submission`
    gives back identical arrays. ValueError if ``sub`` is invalid (checked against ``config``
    too when given); FileExistsError if ``path`` exists (unless an empty folder, or
    ``overwrite``). Returns ``path``.
    """
    sub.check(config)
    with atomic_output(path, overwrite) as out:
        out.add(META_NAME, format_meta(sub.signals, sub.probs).encode())
        for k, j in enumerate(sub.signals.tolist()):
            for s in sub.seats:
                out.add(
                    STRATEGY_CSV.format(signal=j, seat=s + 1),
                    format_rows(sub.strategies[s][k]).encode(),
                )
    return Path(path)
