"""One Ctrl-C on the big presets: how long ``teamleduc solve`` takes to end, and what it leaves.

Why: a Ctrl-C should end every command within 2 s (issue 21). The small games export and
write within that; the big ones (team-leduc-2025, team-leduc) keep the solver's state alone,
a checkpoint from which ``--resume`` goes on (``teamleduc.solver.result.CheckpointKept``).
The tests check the logic on a small game treated as big; this benchmark times the real
thing: SIGINT to the process group of ``teamleduc solve --preset P --time-limit T`` after
each given delay (one run per delay), then the seconds until it exits, its exit code, the
files in ``--out`` and the checkpoint's size.

Environment: ``BENCH_INTERRUPTS_PRESET`` (default team-leduc-2025),
``BENCH_INTERRUPTS_LIMIT`` seconds of the run (default 60), ``BENCH_INTERRUPTS_AT`` delays in
seconds (default ``20,45``: in the main phase, and in the refinement). For team-leduc:
``BENCH_INTERRUPTS_PRESET=team-leduc BENCH_INTERRUPTS_LIMIT=300 BENCH_INTERRUPTS_AT=100,250``
(about 6 minutes).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .settings import positive_list, positive_seconds, setting


def _preset(raw: str) -> str:
    from teamleduc.config import get_config

    get_config(raw)
    return raw


def main() -> None:
    preset = setting("BENCH_INTERRUPTS_PRESET", "team-leduc-2025", _preset)
    limit = setting("BENCH_INTERRUPTS_LIMIT", "60", positive_seconds)
    delays = setting("BENCH_INTERRUPTS_AT", "20,45", positive_list)
    exe = Path(sys.executable).with_name("teamleduc")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "teamleduc"]
    print(f"{preset}: solve --time-limit {limit:g}, one SIGINT after each of {delays} s")
    for delay in delays:
        with tempfile.TemporaryDirectory(prefix="teamleduc-bench-int-") as tmp:
            out = Path(tmp) / "run"
            proc = subprocess.Popen(
                command
                + ["solve", "--preset", preset, "--time-limit", f"{limit:g}", "--out", str(out)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGINT)
            sent = time.monotonic()
            text, _ = proc.communicate()
            seconds = time.monotonic() - sent
            files = sorted(p.name for p in out.iterdir()) if out.is_dir() else "untouched"
            checkpoint = out / "checkpoint.npz"
            size = (
                f", checkpoint {checkpoint.stat().st_size / 2**20:.0f} MiB"
                if checkpoint.exists()
                else ""
            )
            lines = [line for line in text.splitlines() if line.strip()]
            last = lines[-2] if len(lines) > 1 else ""
            print(
                f"  SIGINT at {delay:g} s: exit {proc.returncode} after {seconds:.2f} s; "
                f"--out: {files}{size}; the line before the last: {last.strip()[:90]}",
                flush=True,
            )
