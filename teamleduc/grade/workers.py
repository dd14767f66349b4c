"""The process pool of the loading phase: forked workers that each load entrants into the
cache (:func:`~teamleduc.grade.loading.prepare`) and return small records. Internal to
:mod:`teamleduc.grade`."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal

from .. import reach
from ..files import threads as file_threads
from .cache import EntrantRecord
from .loading import prepare

#: a loading worker is replaced after this many entrants (returns its memory)
TASKS_PER_WORKER = 16


def worker_parse_threads(jobs: int) -> int:
    """Threads on which each of ``jobs`` loading workers parses its files: its share of the
    CPUs, but at least 2, so that a worker loading the one big entrant while the others are
    idle (or done) still parses on two threads (with ``jobs`` up to the number of CPUs, at
    most twice as many parsing threads as CPUs)."""
    return min(file_threads.MAX_THREADS, max(2, file_threads.cpu_count() // max(jobs, 1)))


def worker_reach_threads(jobs: int) -> int:
    """Threads on which each of ``jobs`` loading workers computes a team's reach
    (:data:`teamleduc.reach.THREADS`): its share of the CPUs, at least 1 (pure computation:
    more threads than CPUs would only wait on each other)."""
    return max(1, file_threads.cpu_count() // max(jobs, 1))


def _worker_main(conn, parent_end, parse_threads: int, reach_threads: int) -> None:
    """A loading worker: ignores Ctrl-C (the parent ends it), runs tasks until told to stop or
    until the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent_end.close()
    file_threads.THREADS = parse_threads
    reach.THREADS = reach_threads
    try:
        while True:
            task = conn.recv()
            if task is None:
                break
            conn.send(prepare(task))
    except BaseException:  # the parent went away or ended us: leave quietly
        pass
    finally:
        os._exit(0)


class Workers:
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
                target=_worker_main,
                args=(
                    child_end,
                    parent_end,
                    worker_parse_threads(self.jobs),
                    worker_reach_threads(self.jobs),
                ),
                daemon=True,
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
