"""Ctrl-C in the tests: SIGINT to a command's process group, and how long it took to end.

A test that can fail on a loaded machine will one day reject a good submission, so the
promptness of a command is measured in **CPU seconds** spent by its processes after the signal
(read from ``/proc`` at the signal and from the reaped children's resource usage at the end):
that does not grow when other programs share the cores. Wall-clock time gets a bound of its
own, several times larger, which catches a command that waits instead of working (a lost
Ctrl-C while it sleeps, a hung thread). The figures for a quiet machine come from
``python -m benchmarks interrupts``, not from the tests.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass

import pytest

#: clock ticks per second of /proc/PID/stat's times
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: wall seconds allowed per CPU second of the deadline (two busy loops on two cores leave a
#: command about half a core; page faults and start-up of threads add more)
WALL_FACTOR = 5.0


def group_cpu_seconds(pgid: int) -> float:
    """CPU seconds used so far by the live processes of process group ``pgid`` (each one's
    user and system time, and that of its children it has reaped)."""
    total = 0
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    text = f.read()
            except OSError:  # ended meanwhile
                continue
            fields = text[text.rindex(b")") + 2 :].split()
            if int(fields[2]) == pgid:  # field 5, pgrp; fields 14-17, utime stime cutime cstime
                total += sum(int(x) for x in fields[11:15])
    return total / _TICKS


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Interrupted:
    """What a command did with a Ctrl-C: exit code, output, whether it had ended before the
    signal, and how long it took to end after it (CPU and wall seconds)."""

    code: int
    out: str
    err: str
    finished_before: bool
    cpu_seconds: float
    wall_seconds: float

    def assert_prompt(self, cpu_deadline: float) -> None:
        """The command ended within ``cpu_deadline`` CPU seconds of the signal, and within
        :data:`WALL_FACTOR` times that in wall seconds. With ``TEAMLEDUC_TEST_TIMINGS=FILE``
        each check appends its CPU and wall seconds and the deadline to FILE (for a stress run)."""
        log = os.environ.get("TEAMLEDUC_TEST_TIMINGS")
        if log:
            with open(log, "a") as f:
                f.write(f"{self.cpu_seconds:.3f} {self.wall_seconds:.3f} {cpu_deadline}\n")
        assert self.cpu_seconds < cpu_deadline, (self.cpu_seconds, self.err)
        assert self.wall_seconds < WALL_FACTOR * cpu_deadline, (self.wall_seconds, self.err)


def interrupt(argv, delay: float | None, cwd, *, until: str | None = None, timeout: float = 60):
    """Start ``argv`` in its own session and SIGINT its group after ``delay`` seconds, or as
    soon as a line of its merged output contains ``until``; wait for its end (SIGKILL after
    ``timeout``). Returns :class:`Interrupted`; no process of the group may be left."""
    cpu_start = _children_cpu_seconds()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if until else subprocess.PIPE,
        start_new_session=True,
    )
    lines = []
    if until is not None:
        for line in proc.stdout:
            lines.append(line)
            if until.encode() in line:
                break
    else:
        time.sleep(delay)
    finished_before = proc.poll() is not None
    cpu_at_signal = 0.0
    if not finished_before:
        cpu_at_signal = group_cpu_seconds(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - sent
    cpu = max(0.0, _children_cpu_seconds() - cpu_start - cpu_at_signal)
    deadline = time.monotonic() + 2.0  # children killed by the command: reaped by now
    while time.monotonic() < deadline and _group_alive(proc.pid):
        time.sleep(0.02)
    assert not _group_alive(proc.pid), "a process of the command's group is left"
    out = b"".join(lines) + out
    return Interrupted(
        code=proc.returncode,
        out=out.decode(errors="replace"),
        err=(err or b"").decode(errors="replace"),
        finished_before=finished_before,
        cpu_seconds=0.0 if finished_before else cpu,
        wall_seconds=0.0 if finished_before else wall,
    )


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def until_it_lands(attempt, delay: float, tries: int = 8) -> Interrupted:
    """``attempt(delay)`` (which interrupts a command after ``delay`` seconds, checks what it
    must and returns :class:`Interrupted`) again with half the delay each time the signal
    did not interrupt the command (it had ended, or it was exiting with its work done, exit
    0), until one run is interrupted: a fast machine never lets a test pass without the
    interrupt path having run. Returns that run."""
    for _ in range(tries):
        run = attempt(delay)
        if not run.finished_before and run.code != 0:
            return run
        delay /= 2
    pytest.fail(
        f"the command ended before every signal ({tries} tries, the last after {delay:.4f} s)"
    )
