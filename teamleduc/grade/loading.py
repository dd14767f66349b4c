"""Loading one entrant into the grading cache (the worker side of a grading): its two arrays,
its worst cases, or why it is invalid. Internal to :mod:`teamleduc.grade`.

An entrant's arrays are its correlated reach as team A, ``T_A``, and its team-B weights
``W_B = sum_xB C T_B`` (one tree pass per seat and signal, see :mod:`teamleduc.evaluate`);
with ``worst_case`` on, its exact worst cases as team A and as team B (two exact team best
responses) are computed too and kept in its record. A bad submission never raises here: its
record is invalid and says why.
"""

from __future__ import annotations

import os
from dataclasses import replace

from ..baselines import PREFIX
from ..config import GameConfig, get_config
from ..entrants import load_entrant
from ..errors import TeamLeducError
from ..evaluate import team_b_weights, team_seats
from ..files.findings import SubmissionError
from ..files.safeio import open_container
from ..reach import coalition_weights, team_reach
from ..tree import build_tree
from .cache import CorruptEntry, EntrantRecord, GradeCache, entrant_key


def _problem(e: BaseException) -> str:
    findings = getattr(e, "findings", None)
    message = str(findings[0]) if findings else str(e)
    more = len(findings) - 1 if findings else 0
    if more > 0:
        message += f" (and {more} more problem{'s' * (more != 1)})"
    return message


def _compute(spec, config: GameConfig, key: str | None, cache: GradeCache) -> EntrantRecord:
    """Load one entrant, compute its two arrays and store them; a refused submission gives an
    invalid record (kept in the cache too: it depends on the content alone)."""
    tree = build_tree(config)
    A, B = team_seats(config)
    try:
        # every team with files, checked below; a str is a baseline's name (describe_entry),
        # said explicitly so that a folder of that name in the current folder is no ambiguity
        explicit = f"{PREFIX}{spec}" if isinstance(spec, str) else spec
        entrant = load_entrant(explicit, config)
    except TeamLeducError as e:
        record = EntrantRecord(key=key or "", valid=False, message=_problem(e))
        return cache.store(record) if key else record
    sub = entrant.submission
    missing = sorted(set(A + B) - set(sub.seats))
    if missing:
        message = (
            "plays seats "
            + ",".join(str(s + 1) for s in sub.seats)
            + " only; grading plays every submission in both seatings, which needs seats "
            + ",".join(str(s + 1) for s in sorted(A + B))
        )
        record = EntrantRecord(key=key or "", valid=False, message=message)
        return cache.store(record) if key else record
    ta = team_reach(tree, sub, A).ravel()
    wb = team_b_weights(tree, team_reach(tree, sub, B)).ravel()
    if key is None:  # it existed when loaded, not when hashed
        raise TeamLeducError(f"{spec} changed while it was being graded; grade again")
    record = EntrantRecord(key=key, valid=True, signals=entrant.num_signals)
    return cache.store(record, ta, wb)


def _worst_cases(record: EntrantRecord, config: GameConfig, cache: GradeCache) -> tuple:
    """``(-BR_B(x), -BR_A(y))``: what the entrant guarantees as team A and as team B."""
    from ..best_response_dp import max_dp
    from ..dag import team_beliefs

    tree = build_tree(config)
    A, B = team_seats(config)
    width = config.num_ranks ** len(A)
    ta = cache.read_array(record, "a").reshape(-1, width)
    wb = cache.read_array(record, "b").reshape(-1, width)
    br_a = max_dp(tree, team_beliefs(tree, A), wb).value
    br_b = max_dp(tree, team_beliefs(tree, B), coalition_weights(tree, B, [(A, ta)])).value
    return (-br_b, -br_a)


def warm_kernels(worst_case: bool) -> None:
    """Load the compiled kernels once in the parent, so that forked workers inherit them."""
    from ..baselines import baseline

    config = get_config("tiny-team")
    tree = build_tree(config)
    A, B = team_seats(config)
    sub = baseline("uniform", config)
    ta = team_reach(tree, sub, A)
    wb = team_b_weights(tree, team_reach(tree, sub, B))
    if worst_case:
        from ..best_response_dp import max_dp
        from ..dag import team_beliefs

        max_dp(tree, team_beliefs(tree, A), wb)
        max_dp(tree, team_beliefs(tree, B), coalition_weights(tree, B, [(A, ta)]))


def prepare(task):
    """One entrant, from the cache when it is there (worker side). ``task`` is ``(index, spec,
    config, worst_case, cache folder, array length)``, ``spec`` as from
    :func:`~teamleduc.grade.entries.describe_entry`.

    Returns ``(index, record, loaded, worst_computed)``; never raises for a bad submission:
    the record is then invalid and says why."""
    index, spec, config, worst_case, cache_root, length = task
    cache = GradeCache(cache_root, config)
    loaded = worst_done = False
    try:
        # a str is a baseline's canonical name, a path is a Path (describe_entry)
        key = entrant_key(spec, config, baseline=isinstance(spec, str))
        record = cache.record(key, length) if key else None
        for _attempt in range(2):
            if record is None:
                record = _compute(spec, config, key, cache)
                loaded = True
            if not (record.valid and worst_case and record.worst_case is None):
                break
            try:
                record = cache.store(
                    replace(record, worst_case=_worst_cases(record, config, cache))
                )
                worst_done = True
                break
            except CorruptEntry:
                record = None  # deleted: compute it again
        return index, record, loaded, worst_done
    except TeamLeducError as e:
        return index, EntrantRecord(key="", valid=False, message=_problem(e)), loaded, worst_done
    except (OSError, ValueError, MemoryError) as e:
        message = f"{type(e).__name__}: {e}"
        return index, EntrantRecord(key="", valid=False, message=message), loaded, worst_done
    except Exception as e:  # a bug must not stop a class's grading: report it on that entry
        message = f"internal error: {type(e).__name__}: {e}"
        return index, EntrantRecord(key="", valid=False, message=message), loaded, worst_done


def load_estimate(spec) -> int:
    """Bytes a worker is expected to hold while loading ``spec``: its arrays and working space,
    and the submission at about 2.5 times its size on disk (CSV text to float64 arrays): the
    declared sizes of the container's members, listed the way the loader lists them (nothing
    read, no link, pipe or device opened)."""
    base = 192 << 20
    if not isinstance(spec, os.PathLike):  # a baseline or a loaded submission
        return base
    try:
        with open_container(spec) as container:
            size = sum(container.size(n) for n in container.names())
    except (SubmissionError, OSError, ValueError):
        return base
    return base + int(2.5 * size)
