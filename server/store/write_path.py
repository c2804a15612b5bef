"""What the write paths of both engines share (``server.store.database`` for SQLite,
``server.store.postgres``): writes batched per tick through :attr:`WritePath.on_write`, a tool's
transaction block, and an outage said once. Each engine supplies its commit, its own way of
keeping a batched row (:meth:`WritePath._batch`) and the name it says in the log."""

from __future__ import annotations

import abc
import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger("selfish.server")

Row = tuple[Any, ...]
# What a write belongs to, for a cluster's fencing (server.store.postgres): a game's id, or
# the code of a room whose game has not started (a waiting room's writes have no game).
Owner = int | str


@functools.lru_cache(maxsize=1024)
def placeholders(sql: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled); the store's
    statements are few and fixed, so each is translated once."""
    return sql.replace("%", "%%").replace("?", "%s")


def _later() -> None:
    """A write in :meth:`WritePath.transaction`: committed at the block's end."""


class WritePath(abc.ABC):
    """The part of a database wrapper that batches writes and says outages."""

    def __init__(self) -> None:
        # Set by the server to batch commits (server.net.outbox); None commits each write.
        self.on_write: Callable[[], None] | None = None
        self._dirty = False
        self.failed: str | None = None  # why the last write failed; None while writes work

    @property
    def writable(self) -> bool:
        """False from a failed write until :meth:`retry` (or a commit) succeeds again."""
        return self.failed is None

    @property
    def dirty(self) -> bool:
        """True while writes wait for :meth:`commit`."""
        return self._dirty

    @abc.abstractmethod
    def write(self, sql: str, params: Row, game: Owner | None = None) -> None:
        """Run one write in the open transaction (``game``: the game, or waiting room, it
        belongs to)."""

    @abc.abstractmethod
    def commit(self) -> None:
        """Commit every write made so far."""

    @abc.abstractmethod
    def retry(self) -> bool:
        """Replay what an outage kept; True once the database takes writes again."""

    @abc.abstractmethod
    def _batch(self, sql: str, params: Row, game: Owner | None) -> None:
        """Keep one row of ``sql`` for the tick's one ``executemany``."""

    @abc.abstractmethod
    def _name(self) -> str:
        """The database as the log names it."""

    def write_batched(self, sql: str, params: Row, game: Owner | None = None) -> None:
        """Like :meth:`write`, but the row joins the others of ``sql`` in this tick, inserted
        by one ``executemany`` (a busy server appends thousands of decisions a second, and one
        statement per decision cost more than the commit itself)."""
        if self.on_write is None or self.failed is not None:
            self.write(sql, params, game)
            return
        self._batch(sql, params, game)
        self._dirty = True
        self.on_write()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Writes inside the block join one transaction, committed at its end (a tool's batch:
        without it each write of a store without ``on_write`` commits at once). Inside the
        server's group commit it changes nothing: the tick commits them."""
        batching = self.on_write
        if batching is None:
            self.on_write = _later
        try:
            yield
        finally:
            if batching is None:
                self.on_write = None
                self.commit()

    def _written(self) -> None:
        if self.on_write is None:
            self.commit()
        else:
            self._dirty = True
            self.on_write()

    def _failure(self, exc: Exception) -> None:
        if self.failed is None:  # once per outage: a busy server would flood the log otherwise
            log.error(
                "%s is not writable (%s): requests that need a write are refused, and what "
                "players were already sent is kept in memory until a write succeeds",
                self._name(),
                exc,
            )
        self.failed = str(exc) or type(exc).__name__
