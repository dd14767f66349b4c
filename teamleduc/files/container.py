"""Reading one open container: every file of a submission checked, and loaded when asked.

:func:`read_container` is the same for every format: the meta-strategy first, then the strategy
files the seats need (named, bounded and parsed by a
:class:`~teamleduc.files.model.StrategyFormat`), then a warning for each file nothing uses.
Problems are collected as findings, never raised, so one pass reports all of them. Loading
more than half of the machine's memory is refused up front (validation, which keeps nothing,
still works).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

import numpy as np

from ..config import GameConfig
from ..infosets import infoset_tables
from ..tree import build_tree
from .csv_format import CSV_FORMAT, MetaCheck, parse_meta
from .findings import DEFAULT_CAP, Finding, SubmissionError, more_findings
from .model import ReadResult, StrategyFormat, Submission
from .safeio import META_LIMIT, META_NAME, Container
from .threads import in_order

#: files nothing uses are named up to this many, then counted
UNUSED_SHOWN = 5


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
    seats: Iterable[int] | None = None,
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

    def files():
        """(k, seat, name) of every strategy file to check, in signal order; the missing
        ones become findings here."""
        nonlocal num_missing
        for k, j in enumerate(signals):
            for s in seats:
                name = fmt.file_name(j, s)
                if name in names:
                    yield k, s, name
                    continue
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

    def read(k, s, name):
        """The file's bytes (or the finding that it cannot be read)."""
        used.add(name)
        out.files_checked += 1
        table = tables[s]
        try:
            return container.read(name, fmt.limit(table.size), f"{table.size:,} information sets")
        except SubmissionError as e:
            return e.finding

    def parse(data, k, s, name):
        """The file's check; its values copied into place here, on the parsing thread (each
        file has its own slice), where the copy and the first touch of the pages run beside
        the other threads' work."""
        check = fmt.parse(data, container.display(name), tables[s], cap)
        if keep and check.values is not None:
            arrays[s][k] = check.values
        check.values = None
        return check

    for _, check in in_order(files(), read, parse):
        if isinstance(check, Finding):
            out.errors.append(check)
            continue
        out.errors += check.errors
        out.warnings += check.warnings
    out.errors += missing
    if num_missing > cap:
        out.errors.append(more_findings(None, num_missing - cap, cap, "missing files"))

    # 4. files nothing uses (the first few named, the rest counted)
    listed = set(signals)
    unused = sorted(names - used)
    for name in unused[:UNUSED_SHOWN]:
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
    if len(unused) > UNUSED_SHOWN:
        out.warnings.append(
            more_findings(
                container.label or None, len(unused) - UNUSED_SHOWN, UNUSED_SHOWN, "unused files"
            )
        )

    if keep and not out.errors and signals:
        out.submission = Submission(
            np.array(signals, np.int64), np.array(meta.probs), seats, arrays
        )
    return out
