"""Per-tick batching of the store commit and of every client's output (group commit).

Requests handled in one event-loop tick write to the store without committing and queue their
frames here. One callback, scheduled with ``call_soon`` by the first write or send of the tick,
then commits the store once and only afterwards has each connection write its frames
(``Session.flush``: one ``transport.write`` for a single frame, else one ``writelines``, which
uvloop sends as one ``writev``). So a state never reaches a client before the decision that
produced it is committed, yet a busy server pays one commit per tick instead of one per
decision, and one send system call per connection per tick instead of one per message.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from server.store.store import Store

log = logging.getLogger("selfish.server")


class Flushable(Protocol):
    """A connection with queued output."""

    def flush(self) -> None:
        """Write the queued frames to the transport."""


class Outbox:
    """Commits the store, then flushes the connections that queued output, once per tick."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: dict[Flushable, None] = {}  # a dict keeps queueing order, unlike a set
        self._scheduled = False
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
        """Commit, then write every queued connection's output (also called directly before a
        connection closes, so that its last frames go out first)."""
        self._scheduled = False
        # A failed commit is logged and rolled back by the store; the messages still go out:
        # the games go on in memory, holding them back would stall every table.
        self.store.commit()
        pending = self._pending
        if not pending:
            return
        self._pending = {}
        for conn in pending:
            conn.flush()
