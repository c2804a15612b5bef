"""Logging of failing requests at a bounded rate.

A request that makes the server fail logs its traceback; a client repeating it must not turn
the log into a flood (one traceback per request was 1.25 MB/s). At most ``per_minute``
tracebacks are written per minute; the rest are counted and summed up in one line when logging
resumes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from server.limits import TokenBucket

log = logging.getLogger("selfish.server")


class ErrorLog:
    """``exception()`` logs like ``log.exception`` unless the minute's budget is spent."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._budget = TokenBucket(per_minute / 60.0, per_minute, clock)
        self.suppressed = 0  # tracebacks left out since the last one written

    def exception(self, what: str, peer: str) -> None:
        """Log the exception being handled: ``what`` failed for ``peer``."""
        if not self._budget.allow():
            self.suppressed += 1
            return
        if self.suppressed:
            log.error("%d more failing requests were not logged", self.suppressed)
            self.suppressed = 0
        log.exception("%s: %s failed", peer, what)
