"""Small rate limiter used for per-connection message and chat limits (and, counting bytes
for tokens, the bytes of decoded frames)."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """Allows ``burst`` events at once, refilled at ``rate`` per second."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._clock = clock
        self._last = clock()

    def allow(self) -> bool:
        """Take one token if there is one."""
        return self.take(1.0)

    def take(self, amount: float) -> bool:
        """Take ``amount`` tokens if there are that many (nothing otherwise)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= amount:
            self._tokens -= amount
            return True
        return False

    def full(self) -> bool:
        """True when the bucket has refilled to its whole burst."""
        now = self._clock()
        return self._tokens + (now - self._last) * self.rate >= self.burst
