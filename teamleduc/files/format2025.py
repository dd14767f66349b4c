"""The 2025 course formats: information-set files, ``.npy`` strategies and team zips.

The 2025 edition of the course (preset ``team-leduc-2025``) used other files:

- ``player_{i}_infosets.txt``: line k (0-based) is ``f"{k:5d} {name:<111}{actions}"`` and
  ``\\n``. ``name`` is the spec's information-set string without the leading ``/C:`` and the
  trailing ``/``, actions upper-case (``J???/P1:C/P2:C/P3:C/P4:C/C:J``, ``?J??/P1:C``);
  ``actions`` lists the legal ones in the order C, F, R (e.g. ``CFR``). The lines are sorted by
  name (plain lexicographic order, Python's ``sorted``).
- strategies are ``.npy`` float64 arrays of shape (n, 3) with columns **C, F, R**, rows in
  that sorted order;
- one zip per team (``team13.zip``, ``team24.zip``) holds ``meta-strategy.csv`` and
  ``strategy{j}-player{i}.npy`` at its root.

An :class:`Order2025` per seat holds the permutation between the two orders: row k of a 2025
array is information set ``perm[k]`` of the spec, and its columns are the spec's columns
``(0, 2, 1)`` (c, f, r). Both directions are one fancy index, so conversion is exact.

``.npy`` files are read without pickles: the header is parsed first, the dtype (float64;
float32 and float16 widen exactly and are accepted with a warning) and shape are checked
before any array is built, and the data length must match the header.

Reading a folder of team zips is :func:`teamleduc.files.reading.read_path`'s job, converting
:func:`teamleduc.files.convert.convert`'s; this module knows only the 2025 files themselves.
"""

from __future__ import annotations

import functools
import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..config import GameConfig, require_config
from ..errors import TeamLeducError
from ..infosets import InfosetTable, count_hint, infoset_tables
from ..outputs import write_text_atomic
from ..tree import PublicTree, build_tree
from .csv_format import format_meta
from .findings import DEFAULT_CAP, Finding, SubmissionError, more_findings
from .model import (
    FileCheck,
    StrategyFormat,
    Submission,
    describe_values,
    value_problems,
    whole_teams,
)
from .safeio import META_NAME, npy_limit
from .writing import atomic_output

INFOSETS_2025 = "player_{seat}_infosets.txt"
#: width of the name field of ``player_{i}_infosets.txt``
NAME_WIDTH = 111
#: spec columns (c, r, f) of the 2025 columns (C, F, R); the permutation is its own inverse
COLUMNS_2025 = np.array([0, 2, 1])


def name_2025(spec_string: str) -> str:
    """The 2025 name of a spec information-set string: ``/C:J???/P1:c/`` -> ``J???/P1:C``."""
    if not (spec_string.startswith("/C:") and spec_string.endswith("/")):
        raise ValueError(f"not an information-set string: {spec_string!r}")
    return re.sub(
        r"(?<=/)(P\d+:)([crf])(?=/|$)", lambda m: m.group(1) + m.group(2).upper(), spec_string[3:-1]
    )


def _names_2025(strings: list[str], ranks: tuple[str, ...]) -> list[str]:
    if any(r in ("c", "r", "f") for r in ranks):  # ":c/" could then be a community card
        return [name_2025(s) for s in strings]
    out = []
    for s in strings:
        s = s.replace(":c/", ":C/").replace(":r/", ":R/").replace(":f/", ":F/")
        out.append(s[3:-1])
    return out


@dataclass(frozen=True, eq=False)
class Order2025:
    """One seat's 2025 order.

    Attributes
    ----------
    seat : 0-based seat.
    names : 2025 names in file order (sorted).
    perm : (n,) int64 spec id of 2025 row k.
    inverse : (n,) int64 2025 row of spec id i.
    legal : (n, 3) bool legal actions of the 2025 rows, columns C, F, R.
    """

    seat: int
    names: tuple[str, ...]
    perm: np.ndarray
    inverse: np.ndarray
    legal: np.ndarray

    @property
    def size(self) -> int:
        return int(self.perm.size)

    def to_2025(self, values: np.ndarray) -> np.ndarray:
        """(..., n, 3) spec rows and columns -> 2025 rows and columns (a copy)."""
        return np.asarray(values)[..., self.perm, :][..., COLUMNS_2025]

    def from_2025(self, values: np.ndarray) -> np.ndarray:
        """(..., n, 3) 2025 rows and columns -> spec rows and columns (a copy)."""
        return np.asarray(values)[..., self.inverse, :][..., COLUMNS_2025]

    def lines(self) -> list[str]:
        """The lines of ``player_{i}_infosets.txt`` (without ``\\n``)."""
        acts = ["".join(ch for ch, ok in zip("CFR", row) if ok) for row in self.legal.tolist()]
        return [
            f"{k:5d} {name:<{NAME_WIDTH}}{a}" for k, (name, a) in enumerate(zip(self.names, acts))
        ]


def _order(table: InfosetTable) -> Order2025:
    names = _names_2025(table.strings, table.tree.config.ranks)
    perm = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size)
    legal = np.ascontiguousarray(table.legal[perm][:, COLUMNS_2025])
    for a in (perm, inverse, legal):
        a.setflags(write=False)
    return Order2025(
        seat=table.seat,
        names=tuple(names[i] for i in perm.tolist()),
        perm=perm,
        inverse=inverse,
        legal=legal,
    )


@functools.lru_cache(maxsize=8)
def orders_2025(tree: PublicTree) -> tuple[Order2025, ...]:
    """One :class:`Order2025` per seat (cached per tree)."""
    return tuple(_order(t) for t in infoset_tables(tree))


def write_infosets_2025(tree: PublicTree, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``player_{i}_infosets.txt`` for every seat; returns the paths written.

    TeamLeducError if a name is longer than the 111-character field (``team-leduc`` has names
    of up to 163 characters: its lines would be ambiguous; the format is ``team-leduc-2025``'s).
    """
    orders = orders_2025(tree)
    longest = max((len(n) for o in orders for n in o.names), default=0)
    if longest > NAME_WIDTH:
        raise TeamLeducError(
            f"the 2025 format has a {NAME_WIDTH}-character name field; "
            f"{tree.config.name} has names of up to {longest} characters "
            f"(the 2025 files exist for team-leduc-2025)"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for order in orders:
        path = out / INFOSETS_2025.format(seat=order.seat + 1)
        write_text_atomic(path, "".join(line + "\n" for line in order.lines()))
        written.append(path)
    return written


def read_infosets_2025(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Names and action strings of a ``player_{i}_infosets.txt`` file, checking its layout
    (numbering, fixed width, sorted names). SubmissionError names the first bad line."""
    display = Path(path).name
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError("not UTF-8 text", file=display) from None
    if not text.endswith("\n"):
        raise SubmissionError("the last line has no newline", file=display)
    names, actions = [], []
    for k, line in enumerate(text[:-1].split("\n")):
        m = re.fullmatch(rf"( *\d+) (.{{{NAME_WIDTH}}})(C?F?R?)", line)
        if not m or int(m.group(1)) != k or len(m.group(1)) < 5 or not m.group(3):
            raise SubmissionError(
                f'expected "{k:5d} <name padded to {NAME_WIDTH}><actions>": "{line[:80]}"',
                file=display,
                line=k + 1,
            )
        names.append(m.group(2).rstrip(" "))
        actions.append(m.group(3))
    if names != sorted(names):
        first = next(k for k in range(1, len(names)) if names[k] < names[k - 1])
        raise SubmissionError("the names are not in sorted order", file=display, line=first + 1)
    return names, actions


# --------------------------------------------------------------------------------------------
# .npy strategies
# --------------------------------------------------------------------------------------------


#: one token of a plain .npy header: a quoted string, an integer, a name, or punctuation
_HEADER_TOKEN = re.compile(
    r"""\s*(?:'[^'\\\n]{0,64}'|"[^"\\\n]{0,64}"|-?\d{1,20}(?!\d)L?|True|False|None|[{}()\[\],:])"""
)
#: a plain header is one dict, at most this deep (a structured dtype's list of tuples is 3)
_HEADER_DEPTH = 4


def _plain_header(data: bytes, version: tuple[int, int]) -> str | None:
    """None if the header of ``data`` (after the magic) is a plain, small Python literal: a
    dict of quoted strings, integers, True/False/None, tuples and lists, nested at most
    :data:`_HEADER_DEPTH` deep. Otherwise the reason it is not: numpy would hand anything
    else to ``ast.literal_eval``, where thousands of nested unary minus signs or brackets
    raise RecursionError or MemoryError."""
    width = 2 if version == (1, 0) else 4
    start = 6 + 2 + width
    if len(data) < start:
        return "corrupt .npy header: truncated"
    length = int.from_bytes(data[8:start], "little")
    text = data[start : start + length].decode("latin1")
    if len(data) < start + length:
        return "corrupt .npy header: truncated"
    pos, depth, end = 0, 0, len(text.rstrip())
    while pos < end:
        m = _HEADER_TOKEN.match(text, pos)
        if m is None:
            return (
                f"corrupt .npy header: not a plain literal at character {pos + 1} "
                f"({text[pos : pos + 12]!r})"
            )
        token = m.group().strip()
        depth += 1 if token in ("{", "(", "[") else -1 if token in ("}", ")", "]") else 0
        if depth > _HEADER_DEPTH or depth < 0:
            return f"corrupt .npy header: brackets nested or closed wrongly at character {pos + 1}"
        pos = m.end()
    if depth != 0:
        return "corrupt .npy header: a bracket is not closed"
    return None


def _npy_header(data: bytes):
    """(shape, fortran_order, dtype, data offset) of .npy bytes, or the reason they are not."""
    fp = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(fp)
    except ValueError:
        return "not a .npy file (no NumPy magic string)"
    if version not in ((1, 0), (2, 0)):
        return f"unsupported .npy format version {version[0]}.{version[1]}"
    problem = _plain_header(data, version)
    if problem is not None:
        return problem
    try:
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
    except (ValueError, SyntaxError, TypeError, EOFError, RecursionError, MemoryError) as e:
        return f"corrupt .npy header: {e}"
    return shape, fortran, dtype, fp.tell()


def parse_strategy_npy(
    data: bytes, display: str, table: InfosetTable, cap: int = DEFAULT_CAP
) -> FileCheck:
    """Check the bytes of ``strategy{j}-player{i}.npy`` (2025 order) for seat ``table.seat``;
    ``values`` come back in spec order."""
    out = FileCheck(values=None)
    if not data:
        out.errors.append(Finding(display, None, None, "empty file"))
        return out
    header = _npy_header(data)
    if isinstance(header, str):
        out.errors.append(Finding(display, None, None, header))
        return out
    shape, fortran, dtype, offset = header
    order = orders_2025(table.tree)[table.seat]
    n = order.size
    if (
        dtype.hasobject
        or dtype.fields is not None
        or dtype.subdtype is not None
        or dtype.kind != "f"
        or dtype.itemsize > 8
    ):
        out.errors.append(Finding(display, None, None, f"dtype {dtype}; expected float64"))
        return out
    if dtype.itemsize != 8:
        out.warnings.append(
            Finding(display, None, None, f"dtype {dtype.name} widened exactly to float64: accepted")
        )
    if tuple(shape) != (n, 3):
        out.errors.append(
            Finding(
                display,
                None,
                None,
                f"shape {tuple(shape)}; seat {table.seat + 1} of "
                f"{table.tree.config.name} needs ({n}, 3): one row per "
                f"information set, columns C, F, R"
                + (
                    count_hint(table.seat, int(shape[0]), table.tree.config.name)
                    if len(shape) == 2 and shape[1] == 3
                    else ""
                ),
            )
        )
        return out
    expected = n * 3 * dtype.itemsize
    if len(data) - offset != expected:
        what = "truncated" if len(data) - offset < expected else "trailing bytes after the array"
        out.errors.append(
            Finding(
                display,
                None,
                None,
                f"{what}: {len(data) - offset:,} bytes of data where the header needs {expected:,}",
            )
        )
        return out
    values = np.frombuffer(data, dtype=dtype, count=n * 3, offset=offset)
    values = values.reshape((n, 3), order="F" if fortran else "C").astype(np.float64)
    bad = np.flatnonzero(value_problems(values, order.legal, np.ones(n, bool)))
    out.bad_lines = bad
    for k in bad[:cap].tolist():
        out.errors.append(
            Finding(display, k, order.names[k], describe_values(values[k], order.legal[k], "CFR"))
        )
    if bad.size > cap:
        out.errors.append(more_findings(display, int(bad.size - cap), cap, "rows with errors"))
    if not out.errors:
        out.values = np.ascontiguousarray(order.from_2025(values))
    return out


NPY_FORMAT = StrategyFormat("npy2025", "npy", npy_limit, parse_strategy_npy)


def npy_bytes(values: np.ndarray) -> bytes:
    """The .npy file of an (n, 3) float64 array (format 1.0, no pickle)."""
    buf = io.BytesIO()
    np.lib.format.write_array(
        buf, np.ascontiguousarray(values, dtype=np.float64), version=(1, 0), allow_pickle=False
    )
    return buf.getvalue()


def team_zip_name(team: Iterable[int]) -> str:
    """``team13.zip`` for the 0-based team (0, 2)."""
    return "team" + "".join(str(s + 1) for s in team) + ".zip"


def write_team_zip(
    sub: Submission,
    path: str | os.PathLike[str],
    config: GameConfig,
    team: Iterable[int],
    *,
    overwrite: bool = False,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> Path:
    """Write one team of ``sub`` as a 2025 team zip (meta-strategy.csv + .npy files)."""
    require_config(config)
    orders = orders_2025(build_tree(config))
    part = sub.restrict(team)
    part.check(config)
    with atomic_output(Path(path), overwrite, inputs=inputs) as out:
        out.add(META_NAME, format_meta(part.signals, part.probs).encode())
        for k, j in enumerate(part.signals.tolist()):
            for s in part.seats:
                out.add(
                    NPY_FORMAT.file_name(j, s), npy_bytes(orders[s].to_2025(part.strategies[s][k]))
                )
    return Path(path)


def write_submission_2025(
    sub: Submission,
    out_dir: str | os.PathLike[str],
    config: GameConfig,
    *,
    overwrite: bool = False,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> list[Path]:
    """Write a team zip for every team whose seats ``sub`` plays into the folder ``out_dir``
    (created atomically: it appears complete or not at all). Returns the zips' paths."""
    require_config(config)
    teams = [t for t in config.teams if set(t) <= set(sub.seats)]
    whole_teams(config, sub.seats)
    sub.check(config)
    out_dir = Path(out_dir)
    with atomic_output(out_dir, overwrite, inputs=inputs) as out:
        for team in teams:
            write_team_zip(sub, out.root / team_zip_name(team), config, team)
    return [out_dir / team_zip_name(t) for t in teams]
