"""A Ctrl-C that is never lost: a SIGINT handler like Python's own, except where Python would
swallow its KeyboardInterrupt.

Python ignores an exception raised inside a ctypes callback: it prints "Exception ignored on
calling ctypes callback function" and goes on. numba loads its cached kernels through such
callbacks of llvmlite, so a Ctrl-C that landed there was lost, and the command went on to its
end (2 of 60 ``solve`` runs on tiny-team-leduc interrupted at random moments of their first
1.6 s). :func:`keyboard_interrupt` sees
that the interrupted code is llvmlite's and delivers the signal again a moment later, when it
can raise.
"""

from __future__ import annotations

import os
import signal
import threading

#: code whose exceptions Python may ignore (ctypes callbacks), by a part of its file's path
IGNORING_CODE = (f"{os.sep}llvmlite{os.sep}",)
#: frames looked at, from the interrupted one outwards
FRAMES_LOOKED_AT = 4
#: seconds until a deferred Ctrl-C is delivered again
REDELIVER_SECONDS = 0.02


def in_ignoring_code(frame) -> bool:
    """True if ``frame`` or one of its next callers runs code of :data:`IGNORING_CODE`."""
    for _ in range(FRAMES_LOOKED_AT):
        if frame is None:
            return False
        if any(part in frame.f_code.co_filename for part in IGNORING_CODE):
            return True
        frame = frame.f_back
    return False


def deliver_again_soon() -> None:
    """Send this process SIGINT again after :data:`REDELIVER_SECONDS` (from a daemon thread)."""
    timer = threading.Timer(REDELIVER_SECONDS, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()


def keyboard_interrupt(signum, frame) -> None:
    """SIGINT handler: raise KeyboardInterrupt, unless ``frame`` is in code whose exceptions
    Python ignores; then the signal comes again in a moment."""
    if in_ignoring_code(frame):
        deliver_again_soon()
        return
    raise KeyboardInterrupt
