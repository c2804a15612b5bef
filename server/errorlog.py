"""Logging of what clients cause, at a bounded rate.

A request that makes the server fail logs its traceback; a client repeating it must not turn
the log into a flood (one traceback per request can be 1.25 MB/s). At most ``per_minute``
tracebacks are written per minute; the rest are counted and summed up in one line when logging
resumes. The ordinary lines a client can cause (it connected, was refused or closed, said hello,
joined or left a room) share a budget of their own, ``lines_per_minute`` for all clients
together, counted and summed up the same way: opening connections in a loop, or joining and
leaving a room at the message rate, must not write the log at the attacker's pace.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from server.limits.bucket import TokenBucket

log = logging.getLogger("selfish.server")


class ErrorLog:
    """``exception()`` logs like ``log.exception``, ``line()`` like ``log.log``, unless the
    minute's budget of each is spent."""

    def __init__(
        self,
        per_minute: int,
        clock: Callable[[], float] = time.monotonic,
        lines_per_minute: int = 600,
    ) -> None:
        self._budget = TokenBucket(per_minute / 60.0, per_minute, clock)
        self._lines = TokenBucket(lines_per_minute / 60.0, lines_per_minute, clock)
        self.suppressed = 0  # tracebacks left out since the last one written
        self.suppressed_lines = 0  # lines left out since the last one written

    def exception(self, what: str, peer: str) -> None:
        """Log the exception being handled: ``what`` failed for ``peer``."""
        if not self._budget.allow():
            self.suppressed += 1
            return
        if self.suppressed:
            log.error("%d more failing requests were not logged", self.suppressed)
            self.suppressed = 0
        log.exception("%s: %s failed", peer, what)

    def line(self, level: int, message: str, *args: object) -> None:
        """Log ``message % args`` at ``level``: a line a client caused."""
        if not log.isEnabledFor(level):
            return
        if not self._lines.allow():
            self.suppressed_lines += 1
            return
        if self.suppressed_lines:
            log.warning(
                "%d log lines caused by clients were not written (log_lines_per_minute)",
                self.suppressed_lines,
            )
            self.suppressed_lines = 0
        log.log(level, message, *args)
