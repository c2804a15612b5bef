"""Per-tick batching of the store commit and of every client's output (group commit).

Requests handled in one event-loop tick write to the store without committing and queue their
frames here. One callback, scheduled with ``call_soon`` by the first write or send of the tick,
then ends the tick's writes (``Store.commit_later``) and only once they are committed has each
connection write its frames (``Session.flush``: one ``transport.write`` for a single frame, else
one ``writelines``, which uvloop sends as one ``writev``). So a state never reaches a client
before the decision that produced it is committed, yet a busy server pays one commit per tick
instead of one per decision, and one send system call per connection per tick instead of one
per message.

SQLite commits at once. PostgreSQL commits in a thread of its own (``server.store.postgres``):
the tick's frames are then taken from their connections and held, in order, until the commit
is done, while later ticks run; a tick's output never overtakes an earlier tick's, so once one
is held, those after it are held behind it even when they wrote nothing.
"""

from __future__ import annotations

import asyncio
import collections
import logging
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


class Outbox:
    """Commits the store, then flushes the connections that queued output, once per tick."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: dict[Flushable, None] = {}  # a dict keeps queueing order, unlike a set
        self._scheduled = False
        self._held: collections.deque[Held] = collections.deque()
        store.on_write = self._schedule

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def queue(self, conn: Flushable) -> None:
        """``conn`` has output to write at the end of this tick."""
        self._pending[conn] = None
        if not self._scheduled:
            self._schedule()

    def flush(self) -> None:
        """End the tick: commit, then write every queued connection's output (held until the
        commit is done when it is not done at once)."""
        self._scheduled = False
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
