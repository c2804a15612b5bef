"""Rate limits that hold per address and per identity, whatever the number of connections.

A connection's own bucket resets when it reconnects, so each limit a client could reset that way
is also charged to a bucket kept here, keyed by the client's IP address or player id, for as long
as the server runs. :class:`KeyedBuckets` keeps memory bounded: a bucket back at its full burst
knows nothing a new one would not, so full buckets are forgotten when the map grows large.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from server.config import ServerConfig
from server.limits.bucket import TokenBucket

Clock = Callable[[], float]

# Buckets kept per map before the full ones are dropped (a few hundred bytes each).
MAX_KEYS = 10_000


class KeyedBuckets:
    """One token bucket per key, all with the same rate and burst."""

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, key: str) -> bool:
        """Take one token from ``key``'s bucket if it has one."""
        return self.take(key, 1.0)

    def take(self, key: str, amount: float) -> bool:
        """Take ``amount`` tokens from ``key``'s bucket if it has that many."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_KEYS:
                self._buckets = {k: b for k, b in self._buckets.items() if not b.full()}
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self._clock)
        return bucket.take(amount)

    def __len__(self) -> int:
        return len(self._buckets)


@dataclass
class Limits:
    """Every limit that outlives a connection (see docs/operations.md, Threats and limits)."""

    messages: KeyedBuckets  # per address: every frame of every connection from it
    frame_bytes: KeyedBuckets  # per address: the bytes of the frames it had decoded
    connections: KeyedBuckets  # per address: connections opened
    hellos: KeyedBuckets  # per address: hello with a token (resumes)
    resumes: KeyedBuckets  # per identity: hello with its token, from anywhere
    new_players: KeyedBuckets  # per address: hello without a token (new identities)
    rooms: KeyedBuckets  # per address and per identity: rooms created
    chat: KeyedBuckets  # per identity: chat lines
    address_chat: KeyedBuckets  # per address: chat lines
    replays: KeyedBuckets  # per address and per identity: finished games, records, ratings
    reviews: KeyedBuckets  # per identity: shared review requests
    syncs: KeyedBuckets  # per identity: sync requests (each resends a game's whole history)
    address_syncs: KeyedBuckets  # per address: sync requests

    @classmethod
    def from_config(cls, config: ServerConfig, clock: Clock = time.monotonic) -> Limits:
        """The limits ``config`` sets, all on ``clock``."""
        c = config

        def buckets(rate: float, burst: int) -> KeyedBuckets:
            return KeyedBuckets(rate, burst, clock)

        return cls(
            messages=buckets(c.address_rate_per_second, c.address_rate_burst),
            frame_bytes=buckets(c.address_bytes_per_second, c.address_bytes_burst),
            connections=buckets(c.connections_per_second, c.connections_burst),
            hellos=buckets(c.address_resumes_per_second, c.address_resumes_burst),
            resumes=buckets(c.resumes_per_second, c.resumes_burst),
            new_players=buckets(c.new_players_per_second, c.new_players_burst),
            rooms=buckets(c.rooms_per_second, c.rooms_burst),
            chat=buckets(c.chat_per_second, c.chat_burst),
            address_chat=buckets(c.address_chat_per_second, c.address_chat_burst),
            replays=buckets(c.replays_per_second, c.replays_burst),
            reviews=buckets(c.review_per_second, c.review_burst),
            syncs=buckets(c.syncs_per_second, c.syncs_burst),
            address_syncs=buckets(c.address_syncs_per_second, c.address_syncs_burst),
        )
