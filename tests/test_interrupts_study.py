"""One Ctrl-C ends ``study agents`` while the Q-learner trains in its compiled kernel.

A kernel call does not return to Python until it ends, and Python runs its SIGINT handler only
then: a billion-episode training used to hold Ctrl-C off for its whole length (more than 30 s
on team-leduc, about 15 minutes here). The Q-learner now returns to Python after every slice
of episodes (:data:`teamleduc.agents.qlearning.SLICE`). The signal is sent once the process
has spent a CPU second in the training (not after a wall-clock delay), so it lands inside the
kernel however loaded the machine is; promptness is measured in CPU seconds
(``tests/interrupting.py``)."""

from __future__ import annotations

import csv
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from . import interrupting

TEAMLEDUC = str(Path(sys.executable).with_name("teamleduc"))
#: CPU seconds from SIGINT to the end of the process
DEADLINE = 2.0
#: CPU seconds the training runs before the signal (the kernel is running by then)
TRAINING_CPU = 1.0

pytestmark = pytest.mark.skipif(
    not os.path.exists(TEAMLEDUC) or not os.path.isdir("/proc"),
    reason="needs Linux and the command",
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def interrupt_during_training(argv, cwd, line: str) -> interrupting.Interrupted:
    """Start ``teamleduc argv``; once its output has shown ``line`` and its processes have
    used :data:`TRAINING_CPU` more CPU seconds, SIGINT its group and wait for its end."""
    cpu_start = _children_cpu()
    proc = subprocess.Popen(
        [TEAMLEDUC, *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    seen = []
    try:
        for text in proc.stdout:
            seen.append(text)
            if line.encode() in text:
                break
        else:
            pytest.fail("the study ended before training: " + b"".join(seen).decode())
        base = interrupting.group_cpu_seconds(proc.pid)
        give_up = time.monotonic() + 300
        while interrupting.group_cpu_seconds(proc.pid) < base + TRAINING_CPU:
            assert proc.poll() is None, b"".join(seen).decode()
            assert time.monotonic() < give_up, "the training did not run"
            time.sleep(0.02)
        at_signal = interrupting.group_cpu_seconds(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        rest, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - sent
    return interrupting.Interrupted(
        code=proc.returncode,
        out=(b"".join(seen) + rest).decode(errors="replace"),
        err="",
        finished_before=False,
        cpu_seconds=max(0.0, _children_cpu() - cpu_start - at_signal),
        wall_seconds=wall,
    )


def test_ctrl_c_inside_the_q_learning_kernel(tmp_path):
    """A billion episodes against one bot (about 15 minutes in one kernel call before the
    slices): Ctrl-C after a CPU second of training ends the command within the deadline,
    exit code 130, no traceback, the curve so far (its first point) written as CSV."""
    run = interrupt_during_training(
        ["study", "agents", "--preset", "tiny-team-leduc", "--agents", "qlearning"]
        + ["--bots", "uniform", "--seats", "1", "--episodes", "1000000000", "--out", "out"],
        tmp_path,
        "Q-learning against uniform",
    )
    assert "Traceback" not in run.out and "internal error" not in run.out, run.out
    assert "Exception ignored" not in run.out, run.out
    assert run.code == 130, run.out
    run.assert_prompt(DEADLINE)
    assert run.out.strip().splitlines()[-1].startswith("interrupted"), run.out
    with open(tmp_path / "out" / "uniform.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["agent"], r["step"]) for r in rows] == [("qlearning", "0")]
    assert not (tmp_path / "out" / "uniform.png").exists()  # no pictures after a Ctrl-C
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
