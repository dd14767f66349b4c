"""The spec's CSV files: strategy files and ``meta-strategy.csv``, checked and parsed exactly.

A strategy CSV is checked byte-wise with numpy (allowed characters, blank lines, exactly two
commas per line), parsed by pandas' C reader (correctly rounded, so ``repr`` floats read back
bit-identical) and checked by array comparisons (finite, in [0, 1], rows summing to 1 within
:data:`~teamleduc.files.model.TOLERANCE`, 0 on illegal actions). Python looks at single lines
only to word the messages of the first few bad lines, or to find which token pandas refused.
Time is linear in the number of files; nothing is done per line in Python when a file is valid.

Accepted with a warning (one reading is unambiguous): a UTF-8 byte-order mark, CRLF line
endings, a missing newline after the last line, spaces or tabs around values. Rejected: empty
files, binary data or UTF-16, blank lines, a field count other than 3, anything that is not
a decimal number (``nan``, ``inf``, ``1,5``), values outside [0, 1], rows not summing to 1,
non-zero probability on an illegal action, a line count other than the seat's number of
information sets.

``meta-strategy.csv`` (lines ``j,p``) is the same in every format, the 2025 one included:
:func:`parse_meta` reads it and :func:`format_meta` writes it with the shortest round-trip
decimals.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..infosets import InfosetTable, count_hint
from .findings import DEFAULT_CAP, Finding, more_findings
from .model import (
    TOLERANCE,
    FileCheck,
    StrategyFormat,
    describe_values,
    value_problems,
)
from .safeio import META_NAME, csv_limit

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


def _show(raw: bytes, limit: int = 60) -> str:
    """Printable ASCII form of (the start of) a line, for messages."""
    text = "".join(
        ch if 32 <= ord(ch) < 127 else ch.encode("unicode_escape").decode("ascii")
        for ch in raw[: 4 * limit].decode("utf-8", "backslashreplace")
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prepare_text(
    data: bytes, display: str, errors: list[Finding], warnings: list[Finding]
) -> bytes | None:
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
    if b"\r" in data and b"\r\n" in data:  # memchr first: the pair search is 50 times slower
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


_INDEX_FIELD = re.compile(rb"\s*\d{1,12}\s*")


def pandas_defaults_hint(data: bytes, num_lines: int, n: int) -> str | None:
    """One diagnosis for a file written by pandas' ``to_csv`` with its index column (and its
    header row), instead of the same error on every line; None otherwise. It fires only when
    every line has four fields and the first fields of the first rows count 0, 1, 2 (or from
    1): a pandas index, not a stray edit."""
    if data.count(b",") != 3 * num_lines:
        return None
    header = num_lines == n + 1
    lines = data.split(b"\n", 5)[1 if header else 0 : 5]
    firsts = [line.split(b",", 1)[0] for line in lines if line]
    if len(firsts) < min(3, n) or not all(_INDEX_FIELD.fullmatch(f) for f in firsts):
        return None
    index = [int(f) for f in firsts]
    if index != list(range(index[0], index[0] + len(index))) or index[0] not in (0, 1):
        return None
    what = "a header row and an index column" if header else "an index column"
    return (
        f"this looks written by pandas' to_csv with {what}"
        f"{' (its defaults)' if header else ''}; a strategy file has no header and no index, "
        "just p_c,p_r,p_f on each line: write it with "
        "df.to_csv(path, header=False, index=False)"
    )


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

    def written_by_pandas() -> bool:
        """The one finding for pandas' index column and header row, if that is what it is."""
        hint = pandas_defaults_hint(data, num_lines, n)
        if hint is not None:
            out.errors.append(Finding(display, 1, None, hint))
        return hint is not None

    if num_lines > 2 * n + 1000:  # far off: do not index millions of junk lines
        if written_by_pandas():
            return out
        out.errors.append(
            Finding(
                display,
                None,
                None,
                f"{num_lines:,} lines where seat {table.seat + 1} of "
                f"{table.tree.config.name} has {n:,} information sets (one line each)"
                + count_hint(table.seat, num_lines, table.tree.config.name),
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
        # (only here: a well-formed file has two commas a line, not pandas' three)
        if written_by_pandas():
            return out
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
                f"(one line each){extra}"
                + count_hint(table.seat, num_lines, table.tree.config.name),
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
            out.errors.append(more_findings(display, int(bad.size - cap), cap))
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
        out.errors.append(more_findings(display, len(bad) - cap, cap))
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


def format_meta(signals: ArrayLike, probs: ArrayLike) -> str:
    """Text of ``meta-strategy.csv``: ``j,p`` lines, shortest round-trip decimals."""
    return "".join(
        f"{int(j)},{float(p)!r}\n"
        for j, p in zip(np.asarray(signals).tolist(), np.asarray(probs).tolist())
    )


CSV_FORMAT = StrategyFormat("csv", "csv", csv_limit, parse_strategy_csv)
