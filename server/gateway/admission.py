"""The gateway's limits: connections per address, logins in progress, the pace of handshakes
per address, sessions in total, and the pace of new sessions.

Each session costs a process (tens of MiB) and its start costs CPU, so a flood of SSH clients
must queue or be turned away before it reaches the game: these counters run before any client
process exists. A connection only takes one of the ``max_total`` session slots
(``ssh_max_sessions``) once it has a running session (a connection that never opens one is
closed after a few seconds, server.py), so connections that log in and idle cannot hold every
slot.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

# Refused connections from one address that are kept open long enough to be told why: a
# client looping on connect gets its first few answers, then silence, and costs the server no
# key exchanges (the gateway shares the game server's process).
REFUSED_PER_ADDRESS = 2
# Addresses whose handshake buckets are kept at most; past this the full ones are forgotten.
MAX_TRACKED_ADDRESSES = 10_000


class Buckets:
    """A token bucket per key (an address): ``burst`` at first, refilled at ``rate`` a second."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self._levels: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def allow(self, key: str) -> bool:
        """Take a token for ``key``; False when its bucket is empty."""
        now = self.clock()
        tokens, when = self._levels.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        if tokens < 1.0:
            self._levels[key] = (tokens, now)
            return False
        self._levels[key] = (tokens - 1.0, now)
        if len(self._levels) > MAX_TRACKED_ADDRESSES:
            self._forget_full(now)
        return True

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled: they hold nothing a new one would not."""
        for key, (tokens, when) in list(self._levels.items()):
            if tokens + (now - when) * self.rate >= self.burst:
                del self._levels[key]


class Admission:
    """Counts SSH connections and sessions and spaces out handshakes and session starts."""

    def __init__(
        self,
        max_total: int,
        max_per_address: int,
        starts_per_second: float,
        start_burst: int,
        max_wait: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_logins: int = 32,
        handshakes_per_second: float = 2.0,
        handshake_burst: int = 10,
    ) -> None:
        self.max_total = max_total
        self.max_per_address = max_per_address
        self.rate = starts_per_second
        self.burst = float(start_burst)
        self.max_wait = max_wait
        self.max_logins = max_logins
        self.clock = clock
        self.per_address: Counter[str] = Counter()
        self.sessions = 0  # running sessions: what max_total counts
        self.logins = 0  # connections not yet authenticated
        self.handshakes = Buckets(handshakes_per_second, handshake_burst, clock)
        # Refused connections still open (each is told why after authenticating): past
        # REFUSED_PER_ADDRESS from one address, further ones are dropped before key exchange.
        self.refused: Counter[str] = Counter()
        self._tokens = float(start_burst)
        self._last = clock()

    def handshake(self, address: str) -> str | None:
        """A new TCP connection from ``address``: why it must be dropped before the key
        exchange (too many logins in progress, or too many new connections from the
        address), or None; a None is counted as a login until :meth:`logged_in`."""
        if self.logins >= self.max_logins:
            return "too many logins in progress"
        if not self.handshakes.allow(address):
            return "too many new connections from the address"
        self.logins += 1
        return None

    def logged_in(self) -> None:
        """A connection counted by :meth:`handshake` has authenticated, or ended."""
        self.logins -= 1

    def admit(self, address: str) -> str | None:
        """Count a new connection from ``address``; the reason it is refused, or None."""
        if self.per_address[address] >= self.max_per_address:
            return "too many SSH sessions from your address"
        self.per_address[address] += 1
        return None

    def release(self, address: str) -> None:
        """Forget a connection that has ended."""
        self.per_address[address] -= 1
        if self.per_address[address] <= 0:
            del self.per_address[address]

    def claim_session(self) -> str | None:
        """Take one of the ``max_total`` session slots; the reason there is none, or None."""
        if self.sessions >= self.max_total:
            return "the server has as many SSH players as it can take"
        self.sessions += 1
        return None

    def release_session(self) -> None:
        """Give back a slot taken by :meth:`claim_session`."""
        self.sessions -= 1

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
