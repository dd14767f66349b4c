"""The pair products of a grading: the cached arrays streamed block by block through the pair
kernel, tile by tile within the memory budget, with resume points. Internal to
:mod:`teamleduc.grade`.

Pair values already in the cache are taken from it: only the rows of new entrants against
everyone, and everyone else's rows against the new entrants' columns, are computed. The arrays of
a chunk of blocks are read by a few threads at once (a class's cache is larger than the page
cache, and the disk delivers more with several reads in flight) while the next blocks are
prefetched; an entry that fails its checks is recomputed. A resume point is saved every
:data:`SAVE_EVERY` seconds, so an interrupted grading continues where it stopped.
"""

from __future__ import annotations

import concurrent.futures
import time

import numpy as np

from ..errors import TeamLeducError
from ..evaluate import BLOCK
from .cache import BLOCK as CACHE_BLOCK
from .cache import CorruptEntry
from .kernel import Scratch, add_block, padded_rows
from .memory import tile_plan
from .progress import progress_bar

assert CACHE_BLOCK == BLOCK  # the cache's checksummed blocks are the sums' blocks

#: seconds between two resume points of the pair products
SAVE_EVERY = 20.0
#: threads reading the cached arrays of a chunk at once: a class's cache is larger than the page
#: cache, and the disk delivers more with several reads in flight
READ_THREADS = 4


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
        tr, tc, blocks = tile_plan(len(rows), len(cols), self.budget)
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
        total = np.zeros((padded_rows(len(rows)), len(cols)))
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
        scratch = Scratch()
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
                    add_block(A, B, lo, hi, total, scratch=scratch)
                else:  # pairs with an all-zero block on either side add +0.0: skipped
                    rows_kept, cols_kept = np.flatnonzero(ra), np.flatnonzero(cb)
                    add_block(A, B, lo, hi, total, rows_kept, cols_kept, scratch)
            done = b1
            self.bar.update(b1 - b0)
            # a resume point only here, where total holds exactly the blocks before `done`
            if done < nblocks and time.monotonic() - saved >= SAVE_EVERY:
                self.cache.save_progress(rows, cols, L, done, total[: len(rows)])
                saved = time.monotonic()
        return total[: len(rows)]


def pair_matrix(cache, keys, records, length, budget, recompute, progress, work) -> np.ndarray:
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
        tr, tc, _ = tile_plan(len(rows), len(cols), budget)
        steps += -(-len(rows) // tr) * -(-len(cols) // tc) * nblocks
    bar = progress_bar(steps, "pairs", progress, unit="block")
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
