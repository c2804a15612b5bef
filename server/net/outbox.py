"""Batching of the store commit and of every client's output (group commit).

Requests write to the store without committing and queue their frames here. One callback,
scheduled by the first write or send after a flush, then ends the writes made so far
(``Store.commit_later``) and only once they are committed has each connection write its frames
(``Session.flush``: one ``transport.write`` for a single frame, else one ``writelines``, which
uvloop sends as one ``writev``). So a state never reaches a client before the decision that
produced it is committed, yet a busy server pays one commit per flush instead of one per
decision, and one send system call per connection per flush instead of one per message.

The callback runs at the end of the event-loop tick (``call_soon``) if the last flush was at
least ``window`` seconds ago (``commit_window``), else once it is that old (``call_at``): an
idle server answers at once, a busy one commits at most once per window. At 2,000 clients
(``bench/load.py``) the loop ticks about 320 times a second with 1.6 decisions each, and each
commit costs SQLite its WAL locks (six ``fcntl``), its page writes and a transaction; a window of
a few milliseconds lets several ticks share one.

SQLite commits at once. PostgreSQL commits in a thread of its own (``server.store.postgres``):
the tick's frames are then taken from their connections and held, in order, until the commit
is done, while later ticks run; a tick's output never overtakes an earlier tick's, so once one
is held, those after it are held behind it even when they wrote nothing.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
from collections.abc import Callable
from typing import Protocol

from server.store.store import Store

log = logging.getLogger("selfish.server")


class Flushable(Protocol):
    """A connection with queued output."""

    def flush(self) -> None:
        """Write the queued frames to the transport."""

    def take(self) -> list[bytes]:
        """The queued frames, no longer queued (to be written later, by :meth:`write`)."""

    def write(self, frames: list[bytes]) -> None:
        """Write frames taken earlier to the transport (nothing if it closed meanwhile)."""


# A tick's output held for its commit: the future it waits for (None: nothing) and the frames.
Held = tuple["asyncio.Future[None] | None", list[tuple[Flushable, list[bytes]]]]


class Loop(Protocol):
    """What the outbox asks of the event loop (a fake one in tests)."""

    def time(self) -> float:
        """Now, on the loop's clock."""

    def call_soon(self, callback: Callable[[], None]) -> object:
        """Run ``callback`` at the end of this tick."""

    def call_at(self, when: float, callback: Callable[[], None]) -> object:
        """Run ``callback`` at ``when``."""


class Outbox:
    """Commits the store, then flushes the connections that queued output: at the end of the
    tick, or ``window`` seconds after the last flush if that is later."""

    def __init__(self, store: Store, window: float = 0.0, loop: Loop | None = None) -> None:
        self.store = store
        self.window = window
        self._loop = loop
        self._pending: dict[Flushable, None] = {}  # a dict keeps queueing order, unlike a set
        self._scheduled = False
        self._flushed = -math.inf  # loop time of the last flush
        self._held: collections.deque[Held] = collections.deque()
        store.on_write = self._schedule

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop = self._loop or asyncio.get_running_loop()
            due = self._flushed + self.window
            if due > loop.time():
                loop.call_at(due, self.flush)
            else:
                loop.call_soon(self.flush)

    def queue(self, conn: Flushable) -> None:
        """``conn`` has output to write at the end of this tick."""
        self._pending[conn] = None
        if not self._scheduled:
            self._schedule()

    def flush(self) -> None:
        """End the tick: commit, then write every queued connection's output (held until the
        commit is done when it is not done at once)."""
        if not self._scheduled:
            return  # flushed meanwhile (flush_now)
        self._scheduled = False
        self._flushed = (self._loop or asyncio.get_running_loop()).time()
        # A failed commit is logged and rolled back by the store; the messages still go out:
        # the games go on in memory, holding them back would stall every table.
        done = self.store.commit_later()
        pending, self._pending = self._pending, {}
        if done is None and not self._held:
            for conn in pending:
                conn.flush()
            return
        self._held.append((done, [(conn, conn.take()) for conn in pending]))
        if done is None:
            self._release()
        else:
            done.add_done_callback(lambda _: self._release())

    def flush_now(self) -> None:
        """Commit and write every connection's output now, waiting for the commit (before a
        connection closes, so that its last frames go out first)."""
        self.store.commit()
        self.flush()

    def _release(self) -> None:
        """Write the held output whose commit is done, oldest first."""
        held = self._held
        while held and (held[0][0] is None or held[0][0].done()):
            _, frames = held.popleft()
            for conn, out in frames:
                conn.write(out)
