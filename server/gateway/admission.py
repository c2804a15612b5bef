"""The gateway's limits: connections per address and in total, and the pace of new sessions.

Each session costs a process (tens of MiB) and its start costs CPU, so a flood of SSH clients
must queue or be turned away before it reaches the game: these counters run before any client
process exists.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

# Refused connections from one address that are kept open long enough to be told why: a
# client looping on connect gets its first few answers, then silence, and costs the server no
# key exchanges (the gateway shares the game server's process).
REFUSED_PER_ADDRESS = 2


class Admission:
    """Counts SSH connections and spaces out session starts."""

    def __init__(
        self,
        max_total: int,
        max_per_address: int,
        starts_per_second: float,
        start_burst: int,
        max_wait: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.rate = starts_per_second
        self.burst = float(start_burst)
        self.max_wait = max_wait
        self.clock = clock
        self.per_address: Counter[str] = Counter()
        self.total = 0
        # Refused connections still open (each is told why after authenticating): past
        # REFUSED_PER_ADDRESS from one address, further ones are dropped before key exchange.
        self.refused: Counter[str] = Counter()
        self._tokens = float(start_burst)
        self._last = clock()

    def admit(self, address: str) -> str | None:
        """Count a new connection from ``address``; the reason it is refused, or None."""
        if self.total >= self.max_total:
            return "the server has as many SSH players as it can take"
        if self.per_address[address] >= self.max_per_address:
            return "too many SSH sessions from your address"
        self.total += 1
        self.per_address[address] += 1
        return None

    def release(self, address: str) -> None:
        """Forget a connection that has ended."""
        self.total -= 1
        self.per_address[address] -= 1
        if self.per_address[address] <= 0:
            del self.per_address[address]

    def refuse(self, address: str) -> bool:
        """Count a refused connection that stays open to hear why; False when ``address`` has
        enough of those already (the connection should be dropped at once)."""
        if self.refused[address] >= REFUSED_PER_ADDRESS:
            return False
        self.refused[address] += 1
        return True

    def forget_refused(self, address: str) -> None:
        """A refused connection has ended."""
        self.refused[address] -= 1
        if self.refused[address] <= 0:
            del self.refused[address]

    def start_delay(self) -> float | None:
        """Reserve a start: seconds to wait first (0 = now), or None when the queue is longer
        than ``max_wait``. A token bucket that may go into debt: each start in debt waits for
        the refill that pays it."""
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        delay = 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.rate
        if delay > self.max_wait:
            return None
        self._tokens -= 1.0
        return delay
