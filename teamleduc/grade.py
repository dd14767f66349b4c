"""Round-robin grading: every submission against every other, in both seatings, exactly.

For n entrants the grader computes each entrant's correlated reach as team A, ``T_A^X``, and its
team-B weights ``W_B^Y = sum_xB C T_B^Y`` once (one tree pass per seat and signal, see
:mod:`teamleduc.evaluate`), then every team-A value:

    V[X, Y] = <T_A^X, W_B^Y>            (X as team A against Y as team B)

an n x n matrix of dot products, so a tournament costs n loads plus one matrix product.

It scales to a whole class in bounded memory (:mod:`teamleduc.grade_cache`):

* loading runs in ``jobs`` worker processes, each writing its entrant's two arrays (about 36 MB
  on team-leduc) to the on-disk cache and returning only a small record; with ``worst_case``
  on, the entrant's exact worst cases as team A and as team B (two exact team best responses)
  are computed there too and kept in the record;
* the pair products stream the cached arrays block by block, as many rows and columns at once as
  ``memory`` allows, through a compiled kernel that sums every pair in one fixed order (below);
* the cache is keyed by content, preset and toolkit version, and keeps the pair values: grading
  again computes only the arrays of new or changed submissions and their pairs; an interrupted
  grading resumes (loaded entrants are kept, and the products save a resume point every
  :data:`SAVE_EVERY` seconds).

Fixed order: every value is ``sum over blocks of 4,096 terms, in block order, of (the block's
terms in index order, each a fused multiply-add s = a * b + s with one rounding)``, exactly the
order of :func:`teamleduc.evaluate.evaluate_reach` (:mod:`teamleduc.fused`). The kernel
vectorises across pairs, never within a sum, so a grade matrix entry equals ``evaluate``'s
value bit for bit whatever ``jobs``, the memory budget, the number of threads or the machine
(no BLAS call: its summation order is its own and depends on the shape of the product).

Invalid submissions (anything :func:`teamleduc.files.reading.load_submission` refuses, which is
what ``teamleduc validate`` reports) are listed with their first problem and left out of the
round robin; one bad submission never stops the run. :mod:`teamleduc.standings` ranks the result;
:mod:`teamleduc.leaderboard` writes its files.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import tempfile
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np
from numba import njit, prange

from .baselines import PREFIX, parse_baseline, solver_average
from .config import GameConfig, get_config
from .entrants import Entrant, NamedPath, baseline_or_path, entrant_name, load_entrant
from .errors import TeamLeducError
from .evaluate import BLOCK, team_b_weights, team_seats
from .fused import COLS, ROWS, tile_fma
from .grade_cache import BLOCK as CACHE_BLOCK
from .grade_cache import CorruptEntry, EntrantRecord, GradeCache, entrant_key
from .leaderboard import write_outputs
from .reach import coalition_weights, kernel_array, team_reach
from .standings import GradeResult, InvalidEntry, Standing, rank_standings
from .tree import build_tree

__all__ = [
    "DEFAULT_MEMORY",
    "GradeResult",
    "default_cache",
    "InvalidEntry",
    "Standing",
    "grade",
    "pair_values",
    "parse_memory",
    "write_outputs",
]

assert CACHE_BLOCK == BLOCK  # the cache's CRC blocks are the sums' blocks

#: default memory budget of a grading (the main process; each loading worker holds one entrant)
DEFAULT_MEMORY = 2 << 30
#: seconds between two resume points of the pair products
SAVE_EVERY = 20.0
#: blocks read at once at most (more does not go faster)
MAX_CHUNK_BLOCKS = 16
#: products per kernel call at most, so that Ctrl-C is seen within a fraction of a second
MAX_TERMS_PER_CALL = 1 << 29
#: a loading worker is replaced after this many entrants (returns its memory)
TASKS_PER_WORKER = 16
#: threads reading the cached arrays of a chunk at once: a class's cache is larger than the page
#: cache, and the disk delivers more with several reads in flight
READ_THREADS = 4

# --------------------------------------------------------------------------- kernel

_ROWS = ROWS  # rows of A per register tile (packed with zeros to a multiple)
_COLS = COLS  # columns of B per register tile (packed with zeros to a multiple)


#: cache blocking of the tiles: a work item is a block of _BAND row tiles x a group of _GROUP
#: column tiles, taken in passes of _DEPTH terms; in a pass a row tile's 14 x 256 values of A
#: (28 KB) stay in L1 while they meet the group, the group's 16 x 32 KB of B stay in L2 for
#: the band's rows. The chains are carried from pass to pass: the same order as in one pass
_DEPTH = 256
_BAND = 4
_GROUP = 16


@njit(cache=True, parallel=True)
def _pack(X, rows, lo, hi, width, out):
    # out[t, l * width + k] = X[rows[t * width + k], lo + l] (0 past the last of rows)
    n = rows.shape[0]
    m = hi - lo
    for t in prange(out.shape[0]):
        full = min(width, n - t * width)
        for k in range(full, width):
            for l in range(m):
                out[t, l * width + k] = 0.0
        # a cache line of each row at a time: rows whose stride is a power of two (the read
        # buffers) share L1 sets, and 14 of them side by side would evict each other's lines
        for c in range(0, m, 8):
            e = min(m, c + 8)
            for k in range(full):
                x = rows[t * width + k]
                for l in range(c, e):
                    out[t, l * width + k] = X[x, lo + l]


@njit(cache=True, parallel=True)
def _tile_products(ap, bp, m, total, nc):
    # total[i, j] += sum_l ap[i // R, l * R + i % R] * bp[j // C, l * C + j % C], each sum a
    # chain of fused multiply-adds from +0.0, l ascending, added to total at the end
    ni = ap.shape[0]
    nj = bp.shape[0]
    bands = -(-ni // _BAND)
    groups = -(-nj // _GROUP)
    band = -(-ni // bands)  # items of (nearly) equal sizes
    group = -(-nj // groups)
    for w in prange(bands * groups):
        i0 = (w // groups) * band
        j0 = (w % groups) * group
        i1 = min(ni, i0 + band)
        j1 = min(nj, j0 + group)
        sums = np.zeros((i1 - i0, j1 - j0, _ROWS * _COLS))
        for l0 in range(0, m, _DEPTH):
            d = min(_DEPTH, m - l0)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    tile_fma(ap[i], l0 * _ROWS, bp[j], l0 * _COLS, d, sums[i - i0, j - j0])
        for i in range(i0, i1):
            for j in range(j0, j1):
                for jj in range(min(_COLS, nc - j * _COLS)):
                    for ii in range(_ROWS):
                        total[i * _ROWS + ii, j * _COLS + jj] += sums[
                            i - i0, j - j0, ii * _COLS + jj
                        ]


def _padded_rows(n: int) -> int:
    return -(-n // _ROWS) * _ROWS


class _Scratch:
    """Packing buffers kept from block to block: a fresh array of tens of MB is new memory
    from the system each time, one page fault per 4 KB."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def array(self, name: str, shape: tuple[int, int], zero: bool = False) -> np.ndarray:
        size = shape[0] * shape[1]
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(size)
        out = buffer[:size].reshape(shape)
        if zero:
            out.fill(0.0)
        return out


def _add_block(
    A: np.ndarray,
    B: np.ndarray,
    lo: int,
    hi: int,
    total: np.ndarray,
    rows: np.ndarray | None = None,
    cols: np.ndarray | None = None,
    scratch: _Scratch | None = None,
) -> None:
    """``total[:, :len(B)] += A[:, lo:hi] . B[:, lo:hi]^T`` in the fixed order: B's block
    packed once, then a few rows of A per kernel call (each call is short, so that Ctrl-C is
    not delayed). ``total`` has :func:`_padded_rows` rows.

    With ``rows`` and ``cols`` (ascending indices, both or neither), only those pairs: the
    others' blocks are all zero on one side, so their block sums are +0.0 and would leave their
    totals as they are. The pairs' sums go through a zeroed buffer (0.0 + s is s) into
    ``total``, so every total gets the same bytes as from the full product."""
    scratch = scratch or _Scratch()
    if rows is None:
        _add_rows(A, B, lo, hi, total, np.arange(A.shape[0]), np.arange(B.shape[0]), scratch)
    elif rows.size and cols.size:
        sums = scratch.array("sums", (_padded_rows(rows.size), cols.size), zero=True)
        _add_rows(A, B, lo, hi, sums, rows, cols, scratch)
        total[np.ix_(rows, cols)] += sums[: rows.size]


def _add_rows(A, B, lo, hi, total, rows, cols, scratch) -> None:
    """``total[i, j] += A[rows[i], lo:hi] . B[cols[j], lo:hi]`` in the fixed order."""
    m = hi - lo
    nc = cols.size
    bp = scratch.array("b", (-(-nc // _COLS), m * _COLS))
    step = max(_ROWS, (MAX_TERMS_PER_CALL // max(1, nc * m)) // _ROWS * _ROWS)
    ap = scratch.array("a", (-(-min(step, rows.size) // _ROWS), m * _ROWS))  # rows of one call
    _pack(B, cols, lo, hi, _COLS, bp)
    for r0 in range(0, rows.size, step):
        part_rows = rows[r0 : r0 + step]
        part = ap[: -(-part_rows.size // _ROWS)]
        _pack(A, part_rows, lo, hi, _ROWS, part)
        _tile_products(part, bp, m, total[r0 : r0 + step], nc)


def pair_values(reach_a: np.ndarray, weights_b: np.ndarray) -> np.ndarray:
    """(n, m) ``V[i, j] = <reach_a[i], weights_b[j]>`` for stacked (n, L) and (m, L) arrays.

    Summed block by block in a fixed order, bit-identical to
    :func:`teamleduc.evaluate.evaluate_reach` on the same pair, whatever the number of threads.
    """
    ta = kernel_array(reach_a)
    w = kernel_array(weights_b)
    if ta.ndim != 2 or w.ndim != 2 or ta.shape[1] != w.shape[1]:
        raise ValueError(f"shapes {ta.shape} and {w.shape} must be (n, L) and (m, L)")
    n, L = ta.shape
    total = np.zeros((_padded_rows(n), w.shape[0]))
    scratch = _Scratch()
    for lo in range(0, L, BLOCK):
        _add_block(ta, w, lo, min(L, lo + BLOCK), total, scratch=scratch)
    return total[:n] + 0.0


# --------------------------------------------------------------------------- memory


def parse_memory(text: str | int | None) -> int:
    """Bytes of a memory budget: an integer, or a number with K, M, G or T (powers of 1024;
    ``2G``, ``512MiB``, ``1.5g``). None gives :data:`DEFAULT_MEMORY`."""
    if text is None:
        return DEFAULT_MEMORY
    if isinstance(text, int):
        value = text
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(?:i?b)?\s*", str(text), re.I)
        if not m:
            raise TeamLeducError(
                f"memory budget {text!r}: give bytes or a number with K, M, G or T, e.g. 2G"
            )
        power = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}[m.group(2).lower()]
        value = int(float(m.group(1)) * 1024**power)
    if value < 64 << 20:
        raise TeamLeducError(f"memory budget {text!r}: at least 64M")
    return value


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 512 << 20


def _tile_plan(rows: int, cols: int, budget: int) -> tuple[int, int, int]:
    """``(rows per tile, columns per tile, blocks per read)`` whose buffers fit ``budget``
    bytes: the rows of A and columns of B of one read, their packed copies of one block, and
    the tile's partial sums and the sums of one block's pairs that are not zero."""

    def need(r: int, c: int, blocks: int) -> int:
        r = _padded_rows(r)
        return ((r + c) * (blocks + 1) + _COLS) * BLOCK * 8 + 2 * r * c * 8 + (r + c) * 256

    r, c = rows, cols
    while need(r, c, 1) > budget and (r > _ROWS or c > _COLS):
        if r >= c and r > _ROWS:
            r = -(-r // 2)
        else:
            c = -(-c // 2)
    blocks = 1
    while blocks < MAX_CHUNK_BLOCKS and need(r, c, blocks * 2) <= budget:
        blocks *= 2
    return r, c, blocks


# --------------------------------------------------------------------------- loading


def _unique_names(names: list[str]) -> list[str]:
    """The names, each repeat given the first suffix `` (k)``, k = 2, 3, ..., that no other
    name has (``alice, alice, alice (2)`` gives ``alice, alice (3), alice (2)``): in input
    order, so deterministic. Names that look the same are repeats too: equal once NFC
    normalised and shown (:func:`teamleduc.names.display_name`). TypeError for a name that is
    not a str."""
    import unicodedata

    from .names import display_name

    def key(name: str) -> str:
        return display_name(unicodedata.normalize("NFC", name))

    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise TypeError(f"entrant {i + 1}: its name must be a str, not {type(n).__name__}")
    keys = [key(n) for n in names]
    taken = set(keys)
    next_suffix: dict[str, int] = {}  # per name seen: the next suffix to try
    out = []
    for n, k in zip(names, keys, strict=True):
        if k not in next_suffix:
            next_suffix[k] = 2
            out.append(n)
            continue
        suffix = next_suffix[k]
        while key(f"{n} ({suffix})") in taken:
            suffix += 1
        next_suffix[k] = suffix + 1
        taken.add(key(f"{n} ({suffix})"))
        out.append(f"{n} ({suffix})")
    return out


def _describe(spec) -> tuple:
    """``(spec, name, source)`` of one entrant argument; the spec of a baseline is its
    canonical name (a ``str``), that of a path a ``Path``, so that the workers never take one
    for the other (:func:`teamleduc.entrants.baseline_or_path` decides, refusing a baseline
    name that is also an existing path)."""
    if isinstance(spec, Entrant):
        return spec, spec.name, spec.source
    if isinstance(spec, NamedPath):  # graded under its name; loaded and cached by its path
        name = baseline_or_path(spec.path)
        if name is not None:
            return name, spec.name, "baseline"
        return Path(spec.path), spec.name, spec.path
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        return spec, "submission", "object"
    name = baseline_or_path(spec)
    if name is not None:
        return name, name, "baseline"
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(
            f"submissions: expected paths, baseline names, NamedPath, Entrant or loaded "
            f"submissions, not {type(spec).__name__}"
        )
    return Path(spec), entrant_name(spec), str(spec)


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
        # every team with files, checked below; a str is a baseline's name (_describe), said
        # explicitly so that a folder of that name in the current folder is no ambiguity here
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
    from .belief import max_dp, team_beliefs

    tree = build_tree(config)
    A, B = team_seats(config)
    width = config.num_ranks ** len(A)
    ta = cache.read_array(record, "a").reshape(-1, width)
    wb = cache.read_array(record, "b").reshape(-1, width)
    br_a = max_dp(tree, team_beliefs(tree, A), wb).value
    br_b = max_dp(tree, team_beliefs(tree, B), coalition_weights(tree, B, [(A, ta)])).value
    return (-br_b, -br_a)


def _warm_kernels(worst_case: bool) -> None:
    """Load the compiled kernels once in the parent, so that forked workers inherit them."""
    from .baselines import baseline

    config = get_config("tiny-team")
    tree = build_tree(config)
    A, B = team_seats(config)
    sub = baseline("uniform", config)
    ta = team_reach(tree, sub, A)
    wb = team_b_weights(tree, team_reach(tree, sub, B))
    if worst_case:
        from .belief import max_dp, team_beliefs

        max_dp(tree, team_beliefs(tree, A), wb)
        max_dp(tree, team_beliefs(tree, B), coalition_weights(tree, B, [(A, ta)]))


def _prepare(task):
    """One entrant, from the cache when it is there (worker side).

    Returns ``(index, record, loaded, worst_computed)``; never raises for a bad submission:
    the record is then invalid and says why."""
    index, spec, config, worst_case, cache_root, length = task
    cache = GradeCache(cache_root, config)
    loaded = worst_done = False
    try:
        # a str is a baseline's canonical name, a path is a Path (_describe)
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


def _load_estimate(spec) -> int:
    """Bytes a worker is expected to hold while loading ``spec``: its arrays and working space,
    and the submission at about 2.5 times its size on disk (CSV text to float64 arrays): the
    declared sizes of the container's members, listed the way the loader lists them (nothing
    read, no link, pipe or device opened)."""
    from .files.safeio import SubmissionError, open_container

    base = 192 << 20
    if not isinstance(spec, os.PathLike):  # a baseline or a loaded submission
        return base
    try:
        with open_container(spec) as container:
            size = sum(container.size(n) for n in container.names())
    except (SubmissionError, OSError, ValueError):
        return base
    return base + int(2.5 * size)


# --------------------------------------------------------------------------- worker processes


def _worker_main(conn, parent_end) -> None:
    """A loading worker: ignores Ctrl-C (the parent ends it), runs tasks until told to stop or
    until the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent_end.close()
    try:
        while True:
            task = conn.recv()
            if task is None:
                break
            conn.send(_prepare(task))
    except BaseException:  # the parent went away or ended us: leave quietly
        pass
    finally:
        os._exit(0)


class _Workers:
    """A minimal process pool for the loading phase: one pipe per worker, so that ending it
    (Ctrl-C in the parent) is a kill and a join, with no shared queue lock to wait for.

    A task starts when a worker is free and its estimated memory fits beside the running ones
    in ``budget`` (one task always runs), so that big submissions load one at a time."""

    def __init__(self, jobs: int, budget: int):
        self.ctx = multiprocessing.get_context("fork")
        self.jobs = jobs
        self.budget = budget
        self.busy: dict = {}  # connection -> (process, task, tasks done, estimate)

    def _spawn(self):
        parent_end, child_end = self.ctx.Pipe()
        # SIGINT blocked across the fork: the child starts with it blocked, ignores it, then
        # unblocks; the parent gets any Ctrl-C of that instant once unblocked
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process = self.ctx.Process(
                target=_worker_main, args=(child_end, parent_end), daemon=True
            )
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        child_end.close()
        return parent_end, process

    def _next(self, pending: list, estimates: list) -> int | None:
        """Index in ``pending`` of the first task that fits now, or None."""
        if len(self.busy) >= self.jobs:
            return None
        used = sum(v[3] for v in self.busy.values())
        for k, task in enumerate(pending):
            if not self.busy or used + estimates[task[0]] <= self.budget:
                return k
        return None

    def run(self, tasks: list, on_result, estimates: list) -> None:
        pending = list(tasks)
        idle: list = []
        try:
            while pending or self.busy:
                while pending and (k := self._next(pending, estimates)) is not None:
                    conn, process, done = idle.pop() if idle else (*self._spawn(), 0)
                    task = pending.pop(k)
                    conn.send(task)
                    self.busy[conn] = (process, task, done, estimates[task[0]])
                for conn in multiprocessing.connection.wait(list(self.busy)):
                    process, task, done, _estimate = self.busy.pop(conn)
                    try:
                        result = conn.recv()
                    except (EOFError, OSError):
                        result = (task[0], _died(process), False, False)
                        done = TASKS_PER_WORKER
                    on_result(result)
                    if done + 1 >= TASKS_PER_WORKER or not pending:
                        self._stop(conn, process)
                    else:
                        idle.append((conn, process, done + 1))
        except BaseException:  # Ctrl-C or an error: end every worker now, then re-raise
            everyone = [(c, v[0]) for c, v in self.busy.items()] + [(c, p) for c, p, _d in idle]
            for _conn, process in everyone:
                process.kill()
            for conn, process in everyone:
                process.join()
                conn.close()
            self.busy.clear()
            raise
        for conn, process, _done in idle:
            self._stop(conn, process)

    @staticmethod
    def _stop(conn, process) -> None:
        with contextlib.suppress(OSError):
            conn.send(None)
        conn.close()
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join()


def _died(process) -> EntrantRecord:
    process.join(timeout=1)
    code = process.exitcode
    how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return EntrantRecord(
        key="",
        valid=False,
        message=f"internal error: the loading process ended ({how}); out of memory?",
    )


def _progress(total: int, desc: str, enabled: bool, unit: str = "sub"):
    from tqdm import tqdm

    # disable=None: shown on a terminal only, so redirected output stays clean
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=None if enabled else True,
        leave=False,
        dynamic_ncols=True,
    )


def _resolve_jobs(jobs: int | None) -> int:
    if jobs is None or jobs <= 0:
        return max(1, os.cpu_count() or 1)
    return int(jobs)


# --------------------------------------------------------------------------- pair products


def _complete_set(known: np.ndarray) -> list[int]:
    """A large set of entrants whose pairs (self-play included) are all known: the entrants
    with the most known pairs first, each kept if it completes the set."""
    n = known.shape[0]
    both = known & known.T
    order = sorted(range(n), key=lambda i: (-int(both[i].sum()), i))
    chosen: list[int] = []
    for i in order:
        if both[i, i] and both[i, chosen].all():
            chosen.append(i)
    return sorted(chosen)


class _Products:
    """The pair products of one grading: cached arrays streamed through the kernel."""

    def __init__(self, cache, records, length, budget, recompute, bar, work, readers):
        self.cache = cache
        self.records = records  # key -> EntrantRecord (replaced when recomputed)
        self.length = length
        self.budget = budget
        self.recompute = recompute
        self.bar = bar
        self.work = work
        self.readers = readers  # a thread pool for the reads

    def _read_all(self, keys, which, first, stop, X, kept) -> None:
        """Blocks ``first .. stop - 1`` of every entrant's array into the rows of ``X``, read
        concurrently (the reads and checksums release the GIL); an entry that fails its
        checks is read again, recomputed if need be, in this thread."""

        def read(i: int):
            try:
                return self._read_once(keys[i], which, first, stop, X[i])
            except CorruptEntry:
                return None

        for i, mask in enumerate(self.readers.map(read, range(len(keys)))):
            if mask is None:
                mask = self._read(keys[i], which, first, stop, X[i])
            kept[i, : stop - first] = mask

    def _read_once(self, key: str, which: str, first: int, stop: int, out: np.ndarray):
        """One attempt at :meth:`_read` (:class:`CorruptEntry` if the entry fails its checks)."""
        # blocks left out are skipped by the products, never read: no need to zero them
        return self.cache.read_blocks(self.records[key], which, first, stop, out, fill=False)

    def _read(self, key: str, which: str, first: int, stop: int, out: np.ndarray) -> np.ndarray:
        """Blocks ``first .. stop - 1`` into ``out``; which of them are kept (not all zero)."""
        for _attempt in range(3):
            try:
                return self._read_once(key, which, first, stop, out)
            except CorruptEntry:
                self.records[key] = self.recompute(key)
                self.work["entrants_loaded"] += 1
        raise TeamLeducError(f"the grading cache {self.cache.root} keeps failing its checks")

    def rectangle(self, rows: list[str], cols: list[str]) -> np.ndarray:
        """(len(rows), len(cols)) team-A values, tile by tile within the memory budget."""
        out = np.empty((len(rows), len(cols)))
        tr, tc, blocks = _tile_plan(len(rows), len(cols), self.budget)
        for r0 in range(0, len(rows), tr):
            for c0 in range(0, len(cols), tc):
                rk, ck = rows[r0 : r0 + tr], cols[c0 : c0 + tc]
                out[r0 : r0 + tr, c0 : c0 + tc] = self.tile(rk, ck, blocks)
                self.cache.store_pairs(rk, ck, out[r0 : r0 + tr, c0 : c0 + tc])
                self.cache.clear_progress(rk, ck, self.length)
                self.work["pairs_computed"] += len(rk) * len(ck)
        return out

    def tile(self, rows: list[str], cols: list[str], blocks: int) -> np.ndarray:
        L = self.length
        nblocks = -(-L // BLOCK)
        total = np.zeros((_padded_rows(len(rows)), len(cols)))
        done = 0
        resume = self.cache.load_progress(rows, cols, L)
        if resume is not None:
            done, partial = resume
            total[: len(rows)] = partial
            self.work["blocks_resumed"] += done
            self.bar.update(done)
        A = np.empty((len(rows), blocks * BLOCK))
        B = np.empty((len(cols), blocks * BLOCK))
        kept_a = np.empty((len(rows), blocks), dtype=bool)
        kept_b = np.empty((len(cols), blocks), dtype=bool)
        scratch = _Scratch()
        saved = time.monotonic()
        for b0 in range(done, nblocks, blocks):
            b1 = min(nblocks, b0 + blocks)
            self._read_all(rows, "a", b0, b1, A, kept_a)
            self._read_all(cols, "b", b0, b1, B, kept_b)
            if b1 < nblocks:  # the disk reads the next blocks while the kernel works on these
                b2 = min(nblocks, b1 + blocks)
                for key in rows:
                    self.cache.prefetch(self.records[key], "a", b1, b2)
                for key in cols:
                    self.cache.prefetch(self.records[key], "b", b1, b2)
            base = b0 * BLOCK
            for b in range(b0, b1):
                lo = b * BLOCK - base
                hi = min(L, (b + 1) * BLOCK) - base
                ra, cb = kept_a[:, b - b0], kept_b[:, b - b0]
                if ra.all() and cb.all():
                    _add_block(A, B, lo, hi, total, scratch=scratch)
                else:  # pairs with an all-zero block on either side add +0.0: skipped
                    rows_kept, cols_kept = np.flatnonzero(ra), np.flatnonzero(cb)
                    _add_block(A, B, lo, hi, total, rows_kept, cols_kept, scratch)
            done = b1
            self.bar.update(b1 - b0)
            # a resume point only here, where total holds exactly the blocks before `done`
            if done < nblocks and time.monotonic() - saved >= SAVE_EVERY:
                self.cache.save_progress(rows, cols, L, done, total[: len(rows)])
                saved = time.monotonic()
        return total[: len(rows)]


def _pair_matrix(cache, keys, records, length, budget, recompute, progress, work) -> np.ndarray:
    """(n, n) team-A values among the entrants ``keys`` (distinct), from the cache where known,
    computed for the rest: the rows of the new entrants against everyone, and everyone else's
    rows against the new entrants' columns."""
    values, known = cache.known_pairs(keys)
    base = _complete_set(known)
    fresh = sorted(set(range(len(keys))) - set(base))
    work["pairs_cached"] = len(base) ** 2
    if not fresh:
        return values
    rects = [(fresh, list(range(len(keys))))]
    if base:
        rects.append((base, fresh))
    nblocks = -(-length // BLOCK)
    steps = 0
    for rows, cols in rects:
        tr, tc, _ = _tile_plan(len(rows), len(cols), budget)
        steps += -(-len(rows) // tr) * -(-len(cols) // tc) * nblocks
    bar = _progress(steps, "pairs", progress, unit="block")
    readers = concurrent.futures.ThreadPoolExecutor(READ_THREADS, thread_name_prefix="read")
    try:
        products = _Products(cache, records, length, budget, recompute, bar, work, readers)
        for rows, cols in rects:
            block = products.rectangle([keys[i] for i in rows], [keys[j] for j in cols])
            values[np.ix_(rows, cols)] = block
    finally:
        # the reads in flight take milliseconds; no thread is left behind for a later fork
        readers.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return values


# --------------------------------------------------------------------------- API


def grade(
    submissions: Iterable = (),
    config: GameConfig | str = "team-leduc",
    *,
    baselines: Iterable[str] | str = (),
    jobs: int | None = 1,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    heatmap: bool = True,
    worst_case: bool = True,
    overwrite: bool = False,
    cache: str | os.PathLike[str] | bool | None = None,
    memory: int | str | None = None,
) -> GradeResult:
    """Grade every pair of entrants in both seatings by exact expected team utility.

    Parameters
    ----------
    submissions : submission paths (folders or ``.zip``); baseline names are accepted too, and
        :class:`~teamleduc.entrants.NamedPath` for a path graded under a given name.
    config : GameConfig or preset name.
    baselines : baseline names added to the round robin (``"all"`` for all five).
    jobs : processes that load submissions in parallel, and threads of the pair products (0 or
        None: one per CPU; needs the ``fork`` start method, else loading is sequential); the
        output does not depend on it.
    out : if given, the folder to write ``leaderboard.csv``, ``leaderboard.md``,
        ``matrix.csv``, ``values.csv``, ``matrix.png`` and ``grade.json`` into.
        The folder is written as one unit; an existing non-empty one is refused unless
        ``overwrite`` (:func:`teamleduc.leaderboard.write_outputs`).
    progress : show progress bars on the terminal (stderr).
    worst_case : also compute each entrant's exact worst case as team A and as team B (two
        exact team best responses per entrant; about 1 s each on team-leduc).
    cache : folder of the grading cache (:mod:`teamleduc.grade_cache`); None: ``<out>.cache``
        beside ``out`` (a temporary folder when ``out`` is None); False: a temporary folder.
    memory : budget of the main process in bytes, or text such as ``"2G"`` (default 2 GiB): the
        pair products read as many arrays at once as fit.

    Returns
    -------
    GradeResult; its ``standings`` are the leaderboard, its ``work`` counts what was computed
    (``entrants_loaded``, ``worst_cases_computed``, ``pairs_computed``, ``pairs_cached``,
    ``blocks_resumed``) and names the ``cache``.
    """
    from .baselines import BASELINES, canonical_name

    t0 = time.perf_counter()
    config = get_config(config)
    team_seats(config)
    budget = parse_memory(memory)
    if isinstance(baselines, str):
        baselines = baselines.split(",")
    blist: list[str] = []
    for b in baselines:
        b = b.strip()
        for c in BASELINES if b.lower() == "all" else () if b.lower() in ("", "none") else (b,):
            c = canonical_name(c)
            if c not in blist:
                blist.append(c)
    entries = [_describe(s) for s in submissions] + [(b, b, "baseline") for b in blist]
    specs = [e[0] for e in entries]
    names_all = _unique_names([e[1] for e in entries])
    sources_all = [e[2] for e in entries]

    if cache is None and out is not None:
        cache = default_cache(out)
    with tempfile.TemporaryDirectory(prefix="teamleduc-grade-") as scratch:
        root = Path(scratch) if cache in (None, False) else Path(os.fspath(cache))
        result = _grade(
            specs, names_all, sources_all, config, jobs, progress, worst_case, root, budget
        )
    result = replace(result, seconds=time.perf_counter() - t0)
    if out is not None:
        write_outputs(result, out, heatmap=heatmap, overwrite=overwrite)
    return result


def default_cache(out: str | os.PathLike[str]) -> Path:
    """The cache folder of a grading written to ``out``: ``OUT.cache`` beside it (not inside:
    the output folder is replaced as a whole by every run)."""
    path = Path(os.fspath(out)).resolve()
    return path.parent / f"{path.name or 'grading'}.cache"


def _grade(specs, names_all, sources_all, config, jobs, progress, worst_case, root, budget):
    tree = build_tree(config)
    L = len(tree.terminals) * config.num_ranks ** len(team_seats(config)[0])
    try:
        store = GradeCache(root, config)
    except OSError as e:
        raise TeamLeducError(
            f"cannot use {root} as the grading cache ({e.strerror or e}); "
            "choose another folder with --cache DIR, or --no-cache"
        ) from None
    store.remove_stale()
    n_all = len(specs)
    records: list = [None] * n_all
    work = {
        "entrants_loaded": 0,
        "worst_cases_computed": 0,
        "pairs_computed": 0,
        "pairs_cached": 0,
        "blocks_resumed": 0,
        "cache": str(root),
    }
    jobs = _resolve_jobs(jobs)
    tasks = [(i, s, config, worst_case, str(root), L) for i, s in enumerate(specs)]

    def collect(r) -> None:
        index, record, loaded, worst_done = r
        records[index] = record
        work["entrants_loaded"] += int(loaded)
        work["worst_cases_computed"] += int(worst_done)
        bar.update(1)

    bar = _progress(n_all, "loading", progress)
    try:
        if jobs > 1 and n_all > 1 and "fork" in multiprocessing.get_all_start_methods():
            # fork: workers inherit the built tree and the compiled kernels
            _warm_kernels(worst_case)
            # cfr:N baselines run the solver (parallel kernels): run it here, once, so the
            # workers inherit its cached result instead of starting threads after a fork
            for spec in specs:
                if isinstance(spec, str) and spec.startswith("cfr:"):
                    # a preset it does not apply to: the worker reports the entry invalid
                    with contextlib.suppress(TeamLeducError):
                        solver_average(config, parse_baseline(spec)[1])
            budget_loads = max(256 << 20, budget - _resident_bytes())
            estimates = [_load_estimate(s) for s in specs]
            _Workers(min(jobs, n_all), budget_loads).run(tasks, collect, estimates)
        else:
            for t in tasks:
                collect(_prepare(t))
    finally:
        bar.close()

    valid = [i for i in range(n_all) if records[i].valid]
    invalid = tuple(
        InvalidEntry(names_all[i], sources_all[i], records[i].message)
        for i in range(n_all)
        if not records[i].valid
    )
    keys = list(dict.fromkeys(records[i].key for i in valid))
    by_key = {records[i].key: records[i] for i in valid}
    spec_of = {records[i].key: specs[i] for i in valid}

    def recompute(key: str) -> EntrantRecord:
        _index, record, _loaded, _worst = _prepare((0, spec_of[key], config, False, str(root), L))
        if not record.valid or record.key != key:
            raise TeamLeducError(f"{spec_of[key]} changed while it was being graded; grade again")
        return record

    import numba

    numba.set_num_threads(max(1, min(jobs, numba.config.NUMBA_NUM_THREADS)))
    budget = max(64 << 20, budget - _resident_bytes())
    unique = _pair_matrix(store, keys, by_key, L, budget, recompute, progress, work)
    at = [keys.index(records[i].key) for i in valid]
    values = unique[np.ix_(at, at)] + 0.0
    names = tuple(names_all[i] for i in valid)
    sources = tuple(sources_all[i] for i in valid)
    signals = tuple(int(records[i].signals) for i in valid)
    worst = [records[i].worst_case or (np.nan, np.nan) for i in valid]
    return GradeResult(
        preset=config.name,
        names=names,
        sources=sources,
        signals=signals,
        values=values,
        standings=rank_standings(names, sources, signals, values, worst),
        invalid=invalid,
        work=work,
    )


def _warmup() -> None:
    """Compile the matrix kernel once."""
    pair_values(np.ones((2, 5)), np.ones((3, 5)))
