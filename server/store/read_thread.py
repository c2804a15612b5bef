"""The store's reads of finished games, records and ratings, made in PostgreSQL's read thread
(``server.store.sideline``) with its connection: the records requests' (replays, profiles, the
leaderboard, "play this deal"), which the event loop need not wait for
(:meth:`server.store.store.Store.reads_later`).

:class:`ThreadReads` is :class:`~server.store.game_reads.GameReads` with its
:class:`~server.store.standings.Standings`, over the thread's connection instead of the loop's:
the same statements, read the same way, and nothing written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import psycopg

from server.store.dialect import Dialect
from server.store.game_reads import GameReads
from server.store.standings import Standings
from server.store.write_path import Row, placeholders

if TYPE_CHECKING:
    from server.store.postgres import PostgresDatabase


class ConnectionReads:
    """The read side of ``server.store.postgres.PostgresDatabase`` over one connection of
    the thread it runs in. The thread's caller saw this node's writes committed first
    (``PostgresDatabase.read_settled``): nothing is pending here."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def read(self, sql: str, params: Row = ()) -> list[Row]:
        """The rows of one read statement."""
        return [tuple(row) for row in self._conn.execute(placeholders(sql), params).fetchall()]

    def read_many(self, reads: list[tuple[str, Row]]) -> list[list[Row]]:
        """The rows of each read, in order, all in one round trip (a pipeline)."""
        with self._conn.pipeline():
            cursors = [self._conn.execute(placeholders(sql), params) for sql, params in reads]
        return [[tuple(row) for row in cursor.fetchall()] for cursor in cursors]

    def flush_batched(self) -> None:
        """Nothing to do: no write is made here."""


class ThreadReads(GameReads):
    """Games, records and ratings read with ``conn``, in the thread that holds it."""

    def __init__(self, conn: psycopg.Connection[Any], dialect: Dialect) -> None:
        reads = ConnectionReads(conn)
        self._db = reads
        self.dialect = dialect
        # Games read here are shown, never resumed: none is noted for the fence.
        self.game_rooms = {}
        # Standings reads through ``read`` alone (of, changes, board, games_of), which
        # ConnectionReads has: it is typed for the store's databases, which write too.
        self.standings = Standings(cast("PostgresDatabase", reads))
