"""One PostgreSQL connection and its write path, with the promise ``server.store.database``
keeps for SQLite: group commit once per tick, and an outage that loses nothing.

The store speaks SQLite's ``?`` placeholders; they become psycopg's ``%s`` here, so one set of
statements serves both engines wherever their SQL agrees (``server.store.dialect`` holds the rest).

Fencing (``server.cluster.leases``): every write may name the game it belongs to. Before a
transaction runs its batched decisions and commits, :attr:`PostgresDatabase.fence` checks,
inside that transaction, that this node still holds the lease of every game written in it (the
lease rows are locked ``FOR SHARE``, so a node taking one over waits for this commit, or this
check sees its new epoch). The writes of a game whose lease was lost are dropped, the rest
commit, and :attr:`PostgresDatabase.on_lost` hears which games were lost (the server drops their
rooms and cuts their members off before the tick's output goes out): nothing of theirs is ever
written beside the new owner's, nor seen by anyone.

With a fence, an outage does not keep a game's writes for later as it does without one: the
games written in a transaction that fails are reported lost alike (their rooms are dropped, and
restored from what the database holds by whichever node takes their lease next), so that no
player ever sees a decision the database may not get. Writes of no game (players) wait in the
backlog as without a fence.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Collection, Iterator
from typing import Any

import psycopg

from server.store.database import Row

log = logging.getLogger("selfish.server")

# One write kept for later: (statement, rows, game the rows belong to or None).
Tagged = tuple[str, list[Row], int | None]
# Called in the transaction with the games written in it; returns those whose lease is lost.
Fence = Callable[[psycopg.Connection[Any], Collection[int]], set[int]]
# The statement that checks the same inside the commit's pipeline (failing with the SQLSTATE
# LOST), or None where only the Fence can tell.
Guard = Callable[[Collection[int]], "tuple[str, tuple[Any, ...]] | None"]
LOST = "SF001"


def _later() -> None:
    """A write in :meth:`PostgresDatabase.transaction`: committed at the block's end."""


def _placeholders(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresDatabase:
    """The same interface as ``server.store.database.Database``, over one psycopg connection."""

    def __init__(self, url: str) -> None:
        self.path = url
        self._url = url
        self._db = self._connect()
        self.on_write: Callable[[], None] | None = None
        self.fence: Fence | None = None
        self.guard: Guard | None = None
        self.on_lost: Callable[[set[int]], None] | None = None
        self._dirty = False
        self._batched: dict[str, list[tuple[Row, int | None]]] = {}
        self._journal: list[Tagged] = []  # sent in the open transaction, not yet committed
        # Writes not yet sent: a tick's statements go to the server together, in one pipeline,
        # before a read or the commit (one round trip each cost the event loop more than half
        # its time waiting on the socket at 400 clients).
        self._pending: list[Tagged] = []
        self.backlog: list[Tagged] = []
        self.failed: str | None = None
        self._lost: set[int] = set()  # fenced games whose writes failed, reported by commit()
        self._sql: dict[str, str] = {}

    def _connect(self) -> psycopg.Connection[Any]:
        # Not autocommit: writes collect in one transaction until commit(), as with SQLite.
        try:
            return psycopg.connect(self._url, autocommit=False)
        except psycopg.Error as exc:
            raise ConnectionError(f"cannot connect to PostgreSQL: {exc}") from exc

    @property
    def connection(self) -> psycopg.Connection[Any]:
        """The connection (the leases share it, so a lease check joins the tick's
        transaction)."""
        return self._db

    @property
    def writable(self) -> bool:
        """False from a failed write until :meth:`retry` (or a commit) succeeds again."""
        return self.failed is None

    @property
    def dirty(self) -> bool:
        """True while writes wait in an open transaction for :meth:`commit`."""
        return self._dirty

    def _translated(self, sql: str) -> str:
        text = self._sql.get(sql)
        if text is None:
            text = self._sql[sql] = _placeholders(sql)
        return text

    def read(self, sql: str, params: Row = ()) -> list[Row]:
        """The rows of one read statement (it sees this transaction's writes)."""
        self.flush_batched()
        idle = not self._dirty and not self._journal
        try:
            rows = self._db.execute(self._translated(sql), params).fetchall()
        except psycopg.Error:
            self._rollback()
            raise
        if idle:
            self._db.commit()  # ends the read's transaction: no session left idle in one
        return [tuple(row) for row in rows]

    def setup(self, script: str) -> None:
        """Run a script of statements and commit at once (the schema and its migrations)."""
        self._db.execute(script.encode())
        self._db.commit()

    def write(self, sql: str, params: Row, game: int | None = None) -> None:
        """Run one write statement in the open transaction; during an outage it waits in the
        backlog instead. ``game``: the game the write belongs to (fencing)."""
        if self.failed is not None:
            self._keep((sql, [params], game))
            return
        self._pending.append((sql, [params], game))
        self._written()

    def write_batched(self, sql: str, params: Row, game: int | None = None) -> None:
        """Like :meth:`write`, but the row joins the others of ``sql`` in this tick, inserted
        by one ``executemany`` just before the commit."""
        if self.on_write is None or self.failed is not None:
            self.write(sql, params, game)
            return
        self._batched.setdefault(sql, []).append((params, game))
        self._dirty = True
        self.on_write()

    def flush_batched(self) -> None:
        """Send the writes not yet sent now, so that a read in the same tick sees them."""
        if self.failed is None:
            try:
                self._send()
            except psycopg.Error as exc:
                self._failure(exc)
                self._to_backlog()

    def commit(self) -> None:
        """Fence, then commit the open transaction, if any. The writes of games whose lease is
        lost are dropped; a failed commit starts an outage (see the module docstring). Either
        way :attr:`on_lost` then hears of the games lost."""
        if self._dirty or self._journal or self._pending:
            self._dirty = False
            if self._guarded():
                self._journal = []
            else:
                self._commit_fenced()
        lost, self._lost = self._lost, set()
        if lost and self.on_lost is not None:
            self.on_lost(lost)

    def _guarded(self) -> bool:
        """The usual commit: the fence statement, the writes and the commit in one round trip.
        False (rolled back, every write pending again) when the fence failed or cannot be
        said as one statement: :meth:`_commit_fenced` then finds the lost games."""
        games = self._games() if self.guard is not None else set()
        guard = self.guard(games) if self.guard is not None and games else None
        if guard is None:
            return False
        try:
            with self._db.pipeline():
                self._db.execute(guard[0], guard[1])
                self._send()
                self._db.commit()
        except psycopg.Error as exc:
            self._rollback()
            if exc.sqlstate != LOST:
                self._failure(exc)
                self._to_backlog()
                return True
            self._pending, self._journal = self._journal + self._pending, []
            return False
        return True

    def _commit_fenced(self) -> None:
        """Find the games whose lease is lost (if a fence is set), leave their writes out,
        commit the rest."""
        try:
            lost = self._fenced()
            while lost:  # a rollback lets the lease rows go: fence the rest again
                sent = self._drop(lost)
                self._lost |= lost
                lost = self._fenced() if sent else set()
            self._send()
            self._db.commit()
        except psycopg.Error as exc:
            self._failure(exc)
            self._to_backlog()
        else:
            self._journal = []

    def _games(self) -> set[int]:
        """The games written in the open transaction (sent or not)."""
        games = {game for _, _, game in self._journal + self._pending}
        games.update(game for rows in self._batched.values() for _, game in rows)
        games.discard(None)
        return games  # type: ignore[return-value]

    def _fenced(self) -> set[int]:
        """The games of the transaction whose lease this node no longer holds."""
        games = self._games() if self.fence is not None else set()
        return self.fence(self._db, games) if self.fence is not None and games else set()

    def _drop(self, lost: set[int]) -> bool:
        """Leave out the writes of ``lost`` games; those already sent by rolling back and
        sending the rest again (True then: the lease rows were let go with the rollback)."""
        self._pending = [write for write in self._pending if write[2] not in lost]
        self._batched = {
            sql: [(row, game) for row, game in rows if game not in lost]
            for sql, rows in self._batched.items()
        }
        log.warning("lost the lease of games %s: their last writes are dropped", sorted(lost))
        if not any(game in lost for _, _, game in self._journal):
            return False
        kept = [write for write in self._journal if write[2] not in lost]
        self._db.rollback()
        self._journal, self._pending = [], kept + self._pending
        self._send()
        return True

    def _keep(self, write: Tagged) -> None:
        """A write that cannot be run now: for later, or, fenced and of a game, lost."""
        if self.fence is not None and write[2] is not None:
            self._lost.add(write[2])
        else:
            self.backlog.append(write)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Writes inside the block join one transaction, committed at its end (a tool's batch,
        as ``server.store.database.Database.transaction``)."""
        batching = self.on_write
        if batching is None:
            self.on_write = _later
        try:
            yield
        finally:
            if batching is None:
                self.on_write = None
                self.commit()

    def commit_now(self, sql: str, params: Row = ()) -> int:
        """Run one write and commit it at once, outside the group commit; returns the number
        of rows it changed."""
        self.commit()  # what waits goes first, fenced
        cursor = self._db.execute(self._translated(sql), params)
        self._db.commit()
        return int(cursor.rowcount)

    def retry(self) -> bool:
        """Replay the backlog and commit; True once the database takes writes again."""
        if self.failed is None:
            return True
        try:
            if self._db.closed or self._db.broken:
                self._db = self._connect()
            for sql, rows, _ in self.backlog:
                self._db.cursor().executemany(self._translated(sql), rows)
            self._db.commit()
        except (psycopg.Error, ConnectionError) as exc:
            self.failed = str(exc) or type(exc).__name__
            self._rollback()
            return False
        log.warning("database is writable again: %d delayed writes saved", len(self.backlog))
        self.backlog = []
        self.failed = None
        return True

    def close(self) -> None:
        """Flush and close (idempotent). What an outage kept in memory gets a last try."""
        if self._db.closed:
            return
        self.commit()
        if not self.retry():
            log.error("database: %d writes could not be saved on shutdown", len(self.backlog))
        self._db.close()

    def _written(self) -> None:
        if self.on_write is None:
            self.commit()
        else:
            self._dirty = True
            self.on_write()

    def _send(self) -> None:
        """Send the writes not yet sent, in order and then the batched ones, in one pipeline
        (one round trip). They join the journal first: if the server refuses one, the whole
        transaction is rolled back and they all go to the backlog (or are lost, fenced)."""
        if not self._pending and not self._batched:
            return
        writes = self._pending
        for sql, tagged in self._batched.items():
            by_game: dict[int | None, list[Row]] = {}
            for row, game in tagged:
                by_game.setdefault(game, []).append(row)
            writes.extend((sql, group, game) for game, group in by_game.items())
        self._pending, self._batched = [], {}
        self._journal.extend(writes)
        with self._db.pipeline():
            cursor = self._db.cursor()
            for sql, rows, _ in writes:
                if len(rows) == 1:
                    cursor.execute(self._translated(sql), rows[0])
                else:
                    cursor.executemany(self._translated(sql), rows)

    def _failure(self, exc: psycopg.Error) -> None:
        if self.failed is None:
            log.error(
                "database is not writable (%s): requests that need a write are refused, and "
                "what players were already sent is kept in memory until a write succeeds",
                exc,
            )
        self.failed = str(exc) or type(exc).__name__

    def _to_backlog(self) -> None:
        for write in self._journal + self._pending:
            self._keep(write)
        for sql, tagged in self._batched.items():
            for row, game in tagged:
                self._keep((sql, [row], game))
        self._journal, self._pending, self._batched, self._dirty = [], [], {}, False
        self._rollback()

    def _rollback(self) -> None:
        try:
            self._db.rollback()
        except psycopg.Error:
            log.warning("database rollback failed (the connection is gone)")
