"""Files parsed or formatted on a few threads, their results taken in order.

:func:`in_order` serves the reading of a submission (each file read here, parsed on a thread:
:func:`teamleduc.files.container.read_container`) and its writing (each strategy formatted on
a thread, written here: :func:`teamleduc.files.writing.write_submission`). The results, and so
the messages of the findings and the bytes written, are those of one file after the other.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .findings import Finding

#: files are parsed or formatted on up to this many threads (pandas' parser, numpy's checks
#: and the writing kernels release the GIL)
MAX_THREADS = 4
#: ... with at most this many bytes of files read and not yet parsed and taken (always one
#: file), so that memory stays a few files' worth
MAX_BYTES_IN_FLIGHT = 128 * 2**20
#: a file above this many bytes is parsed alone, in the reading thread, once the files before
#: it are taken: checking a malformed file needs many times its size (index arrays, split
#: lines), and valid files are far smaller (team-leduc's: under 9 MB with 17-digit decimals)
ALONE_BYTES = 16 * 2**20
#: threads per process that parse, if set; None: :func:`threads_to_use`. Grading's loading
#: workers set their share (:func:`teamleduc.grade.workers.worker_parse_threads`)
THREADS: int | None = None


def cpu_count() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads_to_use() -> int:
    """Threads that parse or format strategy files: :data:`THREADS` if set, else the CPUs
    this process may use, at most :data:`MAX_THREADS`."""
    if THREADS is not None:
        return max(1, THREADS)
    return max(1, min(MAX_THREADS, cpu_count()))


def in_order(
    items: Iterable[tuple],
    read: Callable[..., bytes | Finding],
    parse: Callable[..., object],
    threads: int | None = None,
) -> Iterator[tuple[tuple, object]]:
    """``(item, result)`` for each item, in the items' order: ``read(*item)`` (bytes, or an
    array to format when writing) in this thread, then ``parse(data, *item)`` on ``threads``
    threads (default :func:`threads_to_use`); a :class:`Finding` that ``read`` returns is
    passed on unparsed. The results, and so the order
    of the findings, are those of reading and parsing one file after the other.

    Memory: besides the file just read, at most ``2 * threads`` files and
    :data:`MAX_BYTES_IN_FLIGHT` bytes wait (one at least), and a file above
    :data:`ALONE_BYTES` is parsed alone, here (when writing, the sizes are the arrays', which
    are the submission's own; each formatted file waiting to be written adds about as much
    again). If a thread cannot be started, the rest is
    parsed here. When the caller stops early (an error, Ctrl-C), the parses under way are not
    waited for: their results are not wanted."""
    threads = threads_to_use() if threads is None else threads
    pool = (
        ThreadPoolExecutor(threads, thread_name_prefix="teamleduc-files") if threads > 1 else None
    )
    pending: deque = deque()  # (item, Finding or future, bytes)
    in_flight = 0

    def take():
        nonlocal in_flight
        item0, done, size = pending.popleft()
        in_flight -= size
        return item0, done if isinstance(done, Finding) else done.result()

    finished = False
    try:
        for item in items:
            data = read(*item)
            if isinstance(data, Finding):
                pending.append((item, data, 0))
                continue
            size = data.nbytes if isinstance(data, np.ndarray) else len(data)
            future = None
            if pool is not None and size <= ALONE_BYTES:
                try:
                    future = pool.submit(parse, data, *item)
                except RuntimeError:  # no thread can be started (e.g. a process limit)
                    pool.shutdown(wait=True)
                    pool = None
            if future is None:  # parsed here, after the files before it (one thread: all)
                while pending:
                    yield take()
                yield item, parse(data, *item)
                continue
            pending.append((item, future, size))
            in_flight += size
            del data
            while len(pending) > 2 * threads or (
                len(pending) > 1 and in_flight > MAX_BYTES_IN_FLIGHT
            ):
                yield take()
        while pending:
            yield take()
        finished = True
    finally:
        if pool is not None:
            pool.shutdown(wait=finished, cancel_futures=True)
