"""SQLite persistence: players, and each game as its setup plus an append-only decision list.

Group commit: a write joins the open transaction and calls :attr:`Store.on_write`; the server
(``server.outbox.Outbox``) commits once per event-loop tick and only then sends the messages of
that tick, so whatever a client has seen survives a crash, and the server pays for one commit
per tick instead of one per write. Without ``on_write`` (tools, tests using the store
directly) every write commits at once. Choices are stored as msgpack blobs, exactly as they
travel on the wire.

A database that stops taking writes (read-only, disk full, I/O error) must not stop the server:
a failed write or commit is logged once as an error, :attr:`Store.failed` says why, and the
games go on in memory (what was not stored is lost at the next restart). Only
:meth:`Store.create_game` raises (:class:`StoreUnavailable`): a new game is refused rather than
played unrecorded. The first commit that succeeds again clears :attr:`Store.failed`.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import unpack
from server.wire import encode_body

log = logging.getLogger("selfish.server")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL,
    edition TEXT NOT NULL,
    names TEXT NOT NULL,          -- JSON list, seat order
    seats TEXT NOT NULL,          -- JSON list of seat occupants (see room.Seat.to_record)
    settings TEXT NOT NULL,       -- JSON: public, timer, autostart
    seed INTEGER NOT NULL,
    version_base INTEGER NOT NULL,
    status TEXT NOT NULL,         -- playing | over | abandoned
    winner INTEGER,
    turns INTEGER,
    started REAL NOT NULL,
    ended REAL
);
CREATE TABLE IF NOT EXISTS decisions (
    game INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    choice BLOB NOT NULL,
    by TEXT NOT NULL,             -- human | bot | timeout | away
    at REAL NOT NULL,
    PRIMARY KEY (game, n)
);
CREATE TABLE IF NOT EXISTS server_events (  -- the room's own log lines: timeout, away, bot
    game INTEGER NOT NULL REFERENCES games(id),
    position INTEGER NOT NULL,    -- length of the game's log when it was said
    event TEXT NOT NULL           -- JSON: kind, text, to, public_text, seat
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
"""


@dataclass
class StoredGame:
    """One game as stored: enough to rebuild it with the engine and resume the room."""

    id: int
    room: str
    edition: str
    names: list[str]
    seats: list[dict[str, Any]]
    settings: dict[str, Any]
    seed: int
    version_base: int
    status: str
    winner: int | None
    turns: int | None
    ended: float | None
    decisions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # the server's own events (position in the game's log, event record), in order
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


class StoreUnavailable(Exception):
    """The database refuses writes: a new game cannot be recorded."""


class Store:
    """A thin synchronous wrapper over one SQLite connection (the server is single-threaded)."""

    def __init__(self, path: str = ":memory:", synchronous: str = "NORMAL") -> None:
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        # autocommit off: writes collect in a transaction until _written() or commit()
        self._db = sqlite3.connect(path, isolation_level="DEFERRED", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(SCHEMA)
        self._db.commit()
        # Set by the server to batch commits (see the module docstring); None commits each write.
        self.on_write: Callable[[], None] | None = None
        self._dirty = False
        # Decisions of this tick, inserted by one executemany just before the commit: a busy
        # server appends thousands a second, and one statement per decision cost more than
        # the commit itself.
        self._decisions: list[tuple[int, int, int, bytes, str, float]] = []
        self.failed: str | None = None  # why the last write failed; None while writes work

    @property
    def writable(self) -> bool:
        """False from a failed write until a commit succeeds again."""
        return self.failed is None

    def _failure(self, exc: sqlite3.Error) -> None:
        if self.failed is None:  # once per outage: a busy server would flood the log otherwise
            log.error(
                "database %s is not writable (%s): running games go on in memory only "
                "and new games are refused until a write succeeds again",
                self.path,
                exc,
            )
        self.failed = str(exc) or type(exc).__name__

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor | None:
        """Run one write statement; None (logged, :attr:`failed` set) if the database refuses
        it. A failed statement leaves the rest of the open transaction as it was."""
        try:
            cur = self._db.execute(sql, params)
            self._written()
        except sqlite3.Error as exc:
            self._failure(exc)
            return None
        return cur

    @property
    def dirty(self) -> bool:
        """True while writes wait in an open transaction for :meth:`commit`."""
        return self._dirty

    def _written(self) -> None:
        if self.on_write is None:
            self._commit()
        else:
            self._dirty = True
            self.on_write()

    def commit(self) -> None:
        """Commit the open transaction, if any. A failed commit is logged (see the module
        docstring) and rolled back: its writes are lost, the server goes on."""
        if self._dirty:
            self._dirty = False
            try:
                self._insert_decisions()
                self._commit()
            except sqlite3.Error as exc:
                self._failure(exc)
                try:
                    self._db.rollback()
                except sqlite3.Error:
                    log.exception("database rollback failed")

    def _insert_decisions(self) -> None:
        rows, self._decisions = self._decisions, []
        if rows:
            self._db.executemany(
                "INSERT INTO decisions (game, n, seat, choice, by, at) VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    def _commit(self) -> None:
        self._db.commit()
        if self.failed is not None:
            log.warning("database %s is writable again", self.path)
            self.failed = None

    def rollback(self) -> None:
        """Drop the open transaction (after a failed :meth:`commit`)."""
        self._dirty = False
        self._decisions = []
        self._db.rollback()

    def close(self) -> None:
        """Flush and close (idempotent)."""
        try:
            self._insert_decisions()
            self._db.commit()
        except sqlite3.ProgrammingError:
            return  # already closed
        except sqlite3.Error as exc:
            self._failure(exc)  # nothing more can be saved: close anyway
        self._db.close()

    # -- players -----------------------------------------------------------------------------

    def save_player(self, player: str, token: str, name: str) -> None:
        """Insert or rename a player."""
        self._write(
            "INSERT INTO players (id, token, name, created) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name",
            (player, token, name, time.time()),
        )

    def players(self) -> list[tuple[str, str, str]]:
        """Every known (id, token, name)."""
        return list(self._db.execute("SELECT id, token, name FROM players"))

    # -- games -------------------------------------------------------------------------------

    def create_game(
        self,
        room: str,
        edition: str,
        names: list[str],
        seats: list[dict[str, Any]],
        settings: dict[str, Any],
        seed: int,
        version_base: int,
    ) -> int:
        """Record a new game's setup; returns its id. Raises StoreUnavailable if the database
        refuses the write."""
        cur = self._write(
            "INSERT INTO games (room, edition, names, seats, settings, seed, version_base, "
            "status, started) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
            (
                room,
                edition,
                json.dumps(names),
                json.dumps(seats),
                json.dumps(settings),
                seed,
                version_base,
                time.time(),
            ),
        )
        if cur is None or cur.lastrowid is None:
            raise StoreUnavailable(self.failed or "the game could not be recorded")
        return cur.lastrowid

    def append_decision(
        self, game: int, n: int, seat: int, choice: dict[str, Any], by: str
    ) -> None:
        """Append decision number ``n`` (0-based); committed with the tick's other writes."""
        row = (game, n, seat, encode_body(choice), by, time.time())
        if self.on_write is None:
            self._write(
                "INSERT INTO decisions (game, n, seat, choice, by, at) VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
        else:
            self._decisions.append(row)
            self._dirty = True
            self.on_write()

    def append_event(self, game: int, position: int, event: dict[str, Any]) -> None:
        """Record one of the server's own events (a timeout, away, bot line) of ``game``, said
        when its log had ``position`` lines, so the history sent after a restart holds it."""
        self._write(
            "INSERT INTO server_events (game, position, event) VALUES (?, ?, ?)",
            (game, position, json.dumps(event)),
        )

    def update_seats(self, game: int, seats: list[dict[str, Any]]) -> None:
        """Record a change of seat occupants (a player left and a bot took over)."""
        self._write("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game))

    def finish_game(self, game: int, status: str, winner: int | None, turns: int) -> None:
        """Mark a game over (or abandoned)."""
        self._write(
            "UPDATE games SET status = ?, winner = ?, turns = ?, ended = ? WHERE id = ?",
            (status, winner, turns, time.time(), game),
        )

    def _load(self, row: tuple[Any, ...], with_decisions: bool) -> StoredGame:
        game = StoredGame(
            id=row[0],
            room=row[1],
            edition=row[2],
            names=json.loads(row[3]),
            seats=json.loads(row[4]),
            settings=json.loads(row[5]),
            seed=row[6],
            version_base=row[7],
            status=row[8],
            winner=row[9],
            turns=row[10],
            ended=row[11],
        )
        if with_decisions:
            try:
                self._insert_decisions()  # this tick's decisions belong to the game too
            except sqlite3.Error as exc:
                self._failure(exc)
            for seat, blob in self._db.execute(
                "SELECT seat, choice FROM decisions WHERE game = ? ORDER BY n", (game.id,)
            ):
                choice = unpack(blob)
                assert isinstance(choice, dict)
                game.decisions.append((seat, choice))
            for position, event in self._db.execute(
                "SELECT position, event FROM server_events WHERE game = ? ORDER BY rowid",
                (game.id,),
            ):
                game.events.append((position, json.loads(event)))
        return game

    _COLUMNS = (
        "id, room, edition, names, seats, settings, seed, version_base, status, winner, turns, "
        "ended"
    )

    def unfinished_games(self) -> list[StoredGame]:
        """Every game still being played, with its decisions, oldest first."""
        rows = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE status = 'playing' ORDER BY id"
        ).fetchall()
        return [self._load(row, True) for row in rows]

    def finished_games(self, limit: int = 50) -> list[StoredGame]:
        """The latest finished games (without decisions), newest first."""
        rows = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE status = 'over' ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [self._load(row, False) for row in rows]

    def game(self, game: int) -> StoredGame | None:
        """One game with its decisions, or None."""
        row = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE id = ?", (game,)
        ).fetchone()
        return None if row is None else self._load(row, True)
