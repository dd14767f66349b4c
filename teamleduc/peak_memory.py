"""The peak resident memory of this process, as ``solve`` reports it.

Why not ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` alone: on Linux it is kept across
``fork`` and ``exec``, so a program started by a large process (``subprocess.run`` from a Python
session holding gigabytes, a benchmark runner) reported its parent's peak as its own: a
``teamleduc solve`` of team-leduc-2025 that used 0.6 GiB reported 4.7 GiB when the benchmark
process that started it held that much. Linux's ``VmHWM`` (``/proc/self/status``) starts again
at each ``exec``. Elsewhere ``ru_maxrss`` is used, in its platform's unit (bytes on macOS,
KiB on Linux and the BSDs).
"""

from __future__ import annotations

import resource
import sys


def _vm_hwm(status: bytes) -> int | None:
    """Bytes of the ``VmHWM:`` line of a ``/proc/PID/status`` text (kB), if there is one."""
    for line in status.splitlines():
        if line.startswith(b"VmHWM:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None


def peak_resident_bytes() -> int:
    """Peak resident memory of this process since it started (its ``exec``), in bytes.

    In a Python session that did other work first, that work's peak counts too."""
    try:
        with open("/proc/self/status", "rb") as f:
            peak = _vm_hwm(f.read())
        if peak is not None:
            return peak
    except OSError:
        pass
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(usage) if sys.platform == "darwin" else int(usage) * 1024
