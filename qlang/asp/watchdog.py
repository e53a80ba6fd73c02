"""The deadline of a search: one thread per process interrupts clingo when a question's time is up.

Searching in the calling thread, watched from this one, costs less than clingo's asynchronous
solving, which starts a thread per call."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import clingo


class Watchdog:
    """The thread that interrupts a search at its deadline.  It wakes at the deadline armed, or
    once a second: arming wakes it only for a deadline before that, so that back-to-back
    questions do not pay a thread switch each."""

    #: seconds the thread sleeps when nothing closer is armed
    IDLE = 1.0

    def __init__(self) -> None:
        self._start()
        # a forked worker starts afresh: its copy of the lock may have been held by the thread
        os.register_at_fork(after_in_child=self._start)

    def _start(self) -> None:
        self._changed = threading.Condition()
        self._armed: tuple[clingo.Control, float] | None = None
        self._wake = 0.0
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, ctl: clingo.Control, deadline: float) -> Iterator[None]:
        """Interrupt `ctl` if the block is still running at `deadline` (monotonic seconds)."""
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="qlang-deadline", daemon=True)
                self._thread.start()
            self._armed = (ctl, deadline)
            if deadline < self._wake:
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._armed = None

    def _watch(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                if self._armed is not None and self._armed[1] <= now:
                    # if the search has just ended: see `qlang.asp.session.Session.search`
                    self._armed[0].interrupt()
                    self._armed = None
                self._wake = min(self._armed[1], now + self.IDLE) if self._armed else now + self.IDLE
                self._changed.wait(self._wake - now)


#: The process's watchdog: every search of every Control is watched by its one thread.
WATCHDOG = Watchdog()
