"""Where a command's peak memory is reached: ``python -m benchmarks.peak_trace [--top N] --
ARGS`` runs ``teamleduc ARGS`` in this process while a thread reads Linux's ``VmHWM`` every
5 ms and, each time the peak has risen by 8 MiB or more, notes the time and the main
thread's innermost calls. At the end it prints where the peak last rose (the call sites
that set it) and each call site's share of the rises.

Why: ``solve`` reports its peak, not when it happens; a resident-memory sample every half
second missed the short spikes that set it (``docs/history/solver.md``, "The peak of make
run's solve"). A numba kernel holds the thread it runs on, so a rise inside one is noted
when the kernel returns, at the next line of Python. Linux only. Not a ``bench_`` module:
``make bench`` does not run it.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

from teamleduc.peak_memory import peak_resident_bytes

#: a rise of the peak by at least this many MiB is noted
STEP_MIB = 8
#: seconds between readings
PERIOD = 0.005


def _site(frame, depth: int = 4) -> str:
    """The innermost ``depth`` calls of ``frame`` as ``file:line:function`` (outermost first)."""
    calls = traceback.extract_stack(frame)[-depth:]
    return " > ".join(f"{Path(c.filename).name}:{c.lineno}:{c.name}" for c in calls)


def trace(argv: list[str]) -> tuple[list[tuple[float, int, str]], int]:
    """Run ``teamleduc argv``; returns the rises ``(seconds, VmHWM MiB, call site)`` and the
    command's exit code."""
    from teamleduc.cli import main

    rises: list[tuple[float, int, str]] = []
    main_thread = threading.get_ident()
    done = threading.Event()
    t0 = time.perf_counter()

    def watch() -> None:
        last = 0
        while not done.is_set():
            hwm = peak_resident_bytes() >> 20
            if hwm >= last + STEP_MIB:
                last = hwm
                frame = sys._current_frames().get(main_thread)
                site = _site(frame) if frame is not None else "?"
                rises.append((time.perf_counter() - t0, hwm, site))
            time.sleep(PERIOD)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    code = 0
    try:
        main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        done.set()
        watcher.join()
    return rises, code


def report(rises: list[tuple[float, int, str]], top: int = 8) -> str:
    """The last rises (what set the peak) and the call sites with the most MiB of rises."""
    if not rises:
        return "the peak never rose by 8 MiB"
    lines = [f"peak {rises[-1][1]:,} MiB; the last rises (seconds, VmHWM MiB, call site):"]
    lines += [f"  {t:8.2f} s {h:7,} MiB  {site}" for t, h, site in rises[-top:]]
    grown = Counter()
    for (_, h0, _), (_, h1, site) in zip(rises, rises[1:]):
        grown[site] += h1 - h0
    lines.append("MiB of rises by call site:")
    lines += [f"  {mib:7,} MiB  {site}" for site, mib in grown.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    top = 8
    if argv[:1] == ["--top"]:
        if len(argv) < 2 or not argv[1].isdigit():
            print("--top needs a number of lines, e.g. --top 8", file=sys.stderr)
            return 2
        top, argv = int(argv[1]), argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__.strip())
        return 2
    rises, code = trace(argv)
    print(report(rises, top), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
