"""One SQLite connection and its write path: group commit, and an outage that loses nothing.

Group commit: a write joins the open transaction and calls :attr:`Database.on_write`; the server
(``server.net.outbox.Outbox``) commits once per event-loop tick and only then sends the messages of
that tick, so whatever a client has seen survives a crash, and the server pays for one commit
per tick instead of one per write. Without ``on_write`` (tools, tests using the store
directly) every write commits at once.

A database that stops taking writes (read-only, disk full, I/O error) must not stop the server
nor lose what players saw: a failed write or commit is logged once as an error, the open
transaction is rolled back and its writes are kept, in order, in :attr:`Database.backlog`;
:attr:`Database.failed` says why. While it is set, writes join the backlog without touching the
database. :meth:`Database.retry` (the server calls it now and then) replays the backlog and
commits; once that succeeds the outage is over.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence

from server.store.write_path import Owner, Row, WritePath

log = logging.getLogger("selfish.server")

Connect = Callable[[str], sqlite3.Connection]
# One write kept for later: (statement, rows); more than one row runs it with executemany.
Write = tuple[str, Sequence[Row]]

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")


def connect(path: str) -> sqlite3.Connection:
    """The default connection: autocommit off, so writes collect in a transaction until
    :meth:`Database.commit`."""
    return sqlite3.connect(path, isolation_level="DEFERRED", check_same_thread=False)


def create_private(path: str) -> None:
    """Make the database file (and its directory) readable by the server's user only, if they
    do not exist yet: the file holds every player's name and games, the directory the SSH
    host key. SQLite gives the write-ahead log and its index the database file's mode."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, mode=0o700, exist_ok=True)  # the mode applies to a new directory
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return  # an existing file keeps the mode its operator gave it
    os.close(fd)


class Database(WritePath):
    """A thin synchronous wrapper over one SQLite connection (the server is single-threaded).

    ``connect`` opens the connection (tests pass one that fails writes on demand).
    """

    def __init__(self, path: str, synchronous: str = "NORMAL", connect: Connect = connect) -> None:
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        if path != ":memory:":
            create_private(path)
        super().__init__()
        self.path = path
        self._db = connect(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        # Rows of this tick for statements run by one executemany just before the commit: a
        # busy server appends thousands of decisions a second, and one statement per decision
        # cost more than the commit itself.
        self._batched: dict[str, list[Row]] = {}
        # The statements of the open transaction, kept until it commits: if the commit fails
        # they move to the backlog (a rollback would lose them).
        self._journal: list[Write] = []
        self.backlog: list[Write] = []  # writes of an outage, replayed by retry()

    def read(self, sql: str, params: Row = ()) -> list[Row]:
        """The rows of one read statement."""
        return self._db.execute(sql, params).fetchall()

    def read_many(self, reads: list[tuple[str, Row]]) -> list[list[Row]]:
        """The rows of each read, in order."""
        return [self.read(sql, params) for sql, params in reads]

    @contextlib.contextmanager
    def elsewhere(self) -> Iterator[None]:
        """Reads of what another node wrote (``server.store.postgres``); a SQLite database
        has one server, and its reads see its writes at once anyway."""
        yield

    def setup(self, script: str) -> None:
        """Run a script of statements and commit at once (the schema and its migrations)."""
        self._db.executescript(script)
        self._db.commit()

    def write(self, sql: str, params: Row, game: Owner | None = None) -> None:
        """Run one write statement in the open transaction; during an outage (or if the
        database refuses it) it waits in the backlog instead. ``game`` (the game the write
        belongs to) matters only to a cluster's fencing (server.store.postgres)."""
        if self.failed is not None:
            self.backlog.append((sql, [params]))
            return
        try:
            self._db.execute(sql, params)
        except sqlite3.Error as exc:
            self._failure(exc)
            self._to_backlog()
            self.backlog.append((sql, [params]))
            return
        self._journal.append((sql, [params]))
        self._written()

    def _batch(self, sql: str, params: Row, game: Owner | None) -> None:
        self._batched.setdefault(sql, []).append(params)

    def _name(self) -> str:
        return f"database {self.path}"

    def flush_batched(self) -> None:
        """Run the batched rows now, so that a read in the same tick sees them."""
        if self.failed is None:
            try:
                self._run_batched()
            except sqlite3.Error as exc:
                self._failure(exc)
                self._to_backlog()

    def commit(self) -> None:
        """Commit the open transaction, if any. A failed commit is logged (see the module
        docstring) and rolled back; its writes wait in the backlog."""
        if not self._dirty and not self._journal:
            return
        self._dirty = False
        try:
            self._run_batched()
            self._db.commit()
        except sqlite3.Error as exc:
            self._failure(exc)
            self._to_backlog()
            return
        self._journal = []

    def commit_later(self) -> None:
        """End the tick: commit at once (SQLite's commit is a local write, and the output of a
        tick that follows it never waits: see ``server.store.postgres`` for the other way)."""
        self.commit()

    def commit_now(self, sql: str, params: Row = ()) -> int:
        """Run one write and commit it at once, outside the group commit (migrations, the
        operator's tools); returns the number of rows it changed."""
        cursor = self._db.execute(sql, params)
        self._db.commit()
        return cursor.rowcount

    def retry(self) -> bool:
        """Replay the backlog and commit; True once the database takes writes again."""
        if self.failed is None:
            return True
        try:
            for sql, rows in self.backlog:
                self._db.executemany(sql, rows)
            self._db.commit()
        except sqlite3.Error as exc:
            self.failed = str(exc) or type(exc).__name__  # the outage goes on: logged already
            self._rollback()
            return False
        log.warning(
            "database %s is writable again: %d delayed writes saved", self.path, len(self.backlog)
        )
        self.backlog = []
        self.failed = None
        return True

    def close(self) -> None:
        """Flush and close (idempotent). What an outage kept in memory gets a last try."""
        try:
            self.commit()
            if not self.retry():
                log.error(
                    "database %s: %d writes could not be saved on shutdown",
                    self.path,
                    len(self.backlog),
                )
            self._db.close()
        except sqlite3.ProgrammingError:
            return  # already closed

    def _run_batched(self) -> None:
        # A statement's rows leave the batch only once run: if one fails they go to the backlog.
        while self._batched:
            sql, rows = next(iter(self._batched.items()))
            self._db.executemany(sql, rows)
            self._journal.append((sql, rows))
            del self._batched[sql]

    def _to_backlog(self) -> None:
        """Move the open transaction's writes to the backlog and roll it back."""
        self.backlog.extend(self._journal)
        self.backlog.extend(self._batched.items())
        self._journal, self._batched, self._dirty = [], {}, False
        self._rollback()

    def _rollback(self) -> None:
        try:
            self._db.rollback()
        except sqlite3.Error:
            log.exception("database rollback failed")
