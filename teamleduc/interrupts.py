"""A Ctrl-C that is never lost: a SIGINT handler like Python's own, except where Python would
swallow its KeyboardInterrupt.

Python ignores an exception raised inside a ctypes callback: it prints "Exception ignored on
calling ctypes callback function" and goes on. numba loads its cached kernels through such
callbacks of llvmlite, so a Ctrl-C that landed there was lost, and the command went on to its
end (2 of 60 ``solve`` runs on tiny-team-leduc interrupted at random moments of their first
1.6 s). :func:`keyboard_interrupt` sees
that the interrupted code is llvmlite's and delivers the signal again a moment later, when it
can raise.

Imports are the other such place: the initialisation of a compiled module may call Python code
and clear the exception it raises. A Ctrl-C that landed in ``abc.__subclasscheck__`` while
scipy's ``_ccallback_c`` was being initialised (numba imports scipy, and ``solve`` imports
numba lazily) was lost that way, 1 in 45 ``solve`` runs interrupted at random moments of
their first 0.4 s on a loaded machine. Deferring until the import ends would cost seconds
(numba's import is long), so the handler raises at once, as usual, and watches: if the
outermost import it interrupted is still running :data:`WATCH_SECONDS` later, the
KeyboardInterrupt was swallowed (had it propagated, it would have ended that import), and the
signal is delivered again. Inside a compiled module's own initialisation (its loader's
``create_module`` or ``exec_module``, milliseconds) the handler does not raise at all but
delivers the signal again a moment later: there the module's C code may print the
KeyboardInterrupt's traceback and replace it by an ImportError (numba's ``_dispatcher``:
"numba._devicearray failed to import", once in ``infosets`` interrupted 1.6 s after its start
beside two busy loops), which no later check can take back.

Everywhere else that Python ignores an exception (a weak reference's callback, such as the
import system's module-lock clean-up ``_get_module_lock.<locals>.cb``, a ``__del__`` method, a
ctypes callback), it hands the exception to :data:`sys.unraisablehook` and prints "Exception
ignored in ..." with a traceback: a Ctrl-C landing there was lost, and its traceback shown
(once in ``convert``, interrupted 0.15 s after its start on a loaded machine).
:func:`unraisable` takes such a KeyboardInterrupt quietly and delivers the signal again a
moment later, where it can raise; other exceptions go to Python's own hook.
:func:`install` sets both the handler and the hook.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
from importlib.machinery import ExtensionFileLoader

#: code whose exceptions Python may ignore (ctypes callbacks), by a part of its file's path
IGNORING_CODE = (f"{os.sep}llvmlite{os.sep}",)
#: frames looked at, from the interrupted one outwards
FRAMES_LOOKED_AT = 4
#: seconds until a deferred Ctrl-C is delivered again
REDELIVER_SECONDS = 0.02
#: the import machinery's code: its frames on the stack mean a module is being imported
IMPORTING_CODE = "<frozen importlib._bootstrap>"
#: seconds after which an import interrupted by Ctrl-C and still running means a lost Ctrl-C
WATCH_SECONDS = 0.3
#: the loader methods that run a compiled module's initialisation
EXTENSION_INIT = ("create_module", "exec_module")


def _stack(frame):
    """``frame``, then its callers up to the root of its stack."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def in_ignoring_code(frame) -> bool:
    """True if ``frame`` or one of its next callers runs code of :data:`IGNORING_CODE`."""
    return any(
        part in f.f_code.co_filename
        for f in itertools.islice(_stack(frame), FRAMES_LOOKED_AT)
        for part in IGNORING_CODE
    )


def in_extension_init(frame) -> bool:
    """True if ``frame`` runs inside a compiled module's initialisation: a frame of an
    :class:`importlib.machinery.ExtensionFileLoader`'s ``create_module`` or ``exec_module``
    on its stack."""
    return any(
        f.f_code.co_name in EXTENSION_INIT
        and isinstance(f.f_locals.get("self"), ExtensionFileLoader)
        for f in _stack(frame)
    )


def deliver_again_soon() -> None:
    """Send this process SIGINT again after :data:`REDELIVER_SECONDS` (from a daemon thread)."""
    timer = threading.Timer(REDELIVER_SECONDS, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()


def outermost_import(frame):
    """The frame of the import machinery closest to the root of ``frame``'s stack, or None if
    no module is being imported."""
    found = None
    for f in _stack(frame):
        if f.f_code.co_filename == IMPORTING_CODE:
            found = f
    return found


def on_main_stack(frame) -> bool:
    """True if ``frame`` is still running in the main thread (on its current stack)."""
    current = sys._current_frames().get(threading.main_thread().ident)
    return any(f is frame for f in _stack(current))


def deliver_again_if_still_running(frame) -> None:
    """After :data:`WATCH_SECONDS`, send this process SIGINT again if ``frame`` is still on
    the main thread's stack (from a daemon thread)."""

    def check() -> None:
        if on_main_stack(frame):
            os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(WATCH_SECONDS, check)
    timer.daemon = True
    timer.start()


def behind(error: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    """The first exception of ``kind`` that is ``error`` or behind it (its cause or context
    chain), else None."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kind):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def caused_by_ctrl_c(error: BaseException | None) -> bool:
    """True if a KeyboardInterrupt is ``error`` or behind it: Python wraps one that arrives
    in some places, e.g. a class's ``__set_name__``, in a RuntimeError."""
    return behind(error, KeyboardInterrupt) is not None


def unraisable(info) -> None:
    """:data:`sys.unraisablehook`: a KeyboardInterrupt that Python is about to ignore (raised
    in a weak reference's callback, a ``__del__`` or a ctypes callback) is delivered again in a
    moment, without a word; anything else goes to Python's own hook."""
    if (info.exc_type is not None and issubclass(info.exc_type, KeyboardInterrupt)) or (
        caused_by_ctrl_c(info.exc_value)
    ):
        deliver_again_soon()
        return
    sys.__unraisablehook__(info)


def install() -> None:
    """Make Ctrl-C a KeyboardInterrupt that is never lost (:func:`keyboard_interrupt`) nor
    printed as an ignored exception (:func:`unraisable`); from the main thread only."""
    sys.unraisablehook = unraisable
    signal.signal(signal.SIGINT, keyboard_interrupt)


def keyboard_interrupt(signum, frame) -> None:
    """SIGINT handler: raise KeyboardInterrupt, unless ``frame`` is in code whose exceptions
    Python ignores or in a compiled module's initialisation; then the signal comes again in
    a moment. Inside an import, the signal comes again too if the import is still running a
    moment later (the exception was lost)."""
    if in_ignoring_code(frame) or in_extension_init(frame):
        deliver_again_soon()
        return
    importing = outermost_import(frame)
    if importing is not None:
        deliver_again_if_still_running(importing)
    raise KeyboardInterrupt
