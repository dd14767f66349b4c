"""Ctrl-C during a solve run: a flag the run checks at its safe points (:class:`StopFlag`)."""

from __future__ import annotations

import signal
import threading

from ..interrupts import keyboard_interrupt


class StopFlag:
    """Ctrl-C sets the flag (the run stops at the next safe point); a second one aborts, and
    so does the first once ``graceful`` is False (a big game after its main phase). Installed
    only in the main thread, and only with ``install``."""

    def __init__(self, install: bool):
        self.set = False
        self.graceful = True
        self._old = None
        self._install = install and threading.current_thread() is threading.main_thread()

    def requested(self) -> bool:
        """Has a Ctrl-C asked the run to stop?"""
        return self.set

    def _handle(self, signum, frame) -> None:
        if self.set or not self.graceful:
            keyboard_interrupt(signum, frame)
            return
        self.set = True

    def __enter__(self):
        if self._install:
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self._install:
            signal.signal(signal.SIGINT, self._old)
        return False
