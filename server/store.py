"""SQLite persistence: players, and each game as its setup plus an append-only decision list.

Group commit: a write joins the open transaction and calls :attr:`Store.on_write`; the server
(``server.outbox.Outbox``) commits once per event-loop tick and only then sends the messages of
that tick, so whatever a client has seen survives a crash, and the server pays for one commit
per tick instead of one per write. Without ``on_write`` (tools, tests using the store
directly) every write commits at once. Choices are stored as msgpack blobs, exactly as they
travel on the wire.

A database that stops taking writes (read-only, disk full, I/O error) must not stop the server
nor lose what players saw: a failed write or commit is logged once as an error, the open
transaction is rolled back and its writes are kept, in order, in :attr:`Store.backlog`;
:attr:`Store.failed` says why. While it is set, writes join the backlog without touching the
database, :meth:`Store.create_game` raises :class:`StoreUnavailable`, and the server refuses every
request that needs a write (``store_unavailable``). :meth:`Store.retry` (the server calls it now
and then) replays the backlog and commits; once that succeeds the outage is over. Game ids are
handed out from a counter in memory, never from the database, so a transaction that was rolled
back cannot give its id to another game.

Tokens are stored as their SHA-256 (:func:`token_hash`): the database alone does not let anyone
speak as a player. A row that cannot be read (bad JSON, a decision that is not a msgpack map)
marks its game abandoned with a log line instead of stopping the server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import unpack
from server.wire import encode_body

log = logging.getLogger("selfish.server")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,   -- token_hash() of the token; the token itself is not kept
    name TEXT NOT NULL,
    created REAL NOT NULL,
    seen REAL                     -- last hello (retention prunes identities unseen for long)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL,
    edition TEXT NOT NULL,
    names TEXT NOT NULL,          -- JSON list, seat order
    seats TEXT NOT NULL,          -- JSON list of seat occupants (see room.Seat.to_record)
    settings TEXT NOT NULL,       -- JSON: public, timer, autostart, variants
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
CREATE TABLE IF NOT EXISTS spectators (  -- who watches an unfinished game (back after a restart)
    game INTEGER PRIMARY KEY REFERENCES games(id),
    players TEXT NOT NULL         -- JSON list of player ids, in join order
);
"""

# Older databases: columns added since, each with the statement that adds it.
MIGRATIONS = (("players", "seen", "ALTER TABLE players ADD COLUMN seen REAL"),)

Connect = Callable[[str], sqlite3.Connection]
# One write kept for later: (statement, rows); more than one row runs it with executemany.
Write = tuple[str, Sequence[tuple[Any, ...]]]

_INSERT_DECISION = "INSERT INTO decisions (game, n, seat, choice, by, at) VALUES (?, ?, ?, ?, ?, ?)"


def token_hash(token: str) -> str:
    """What the database keeps of a token: its SHA-256, in hex (64 characters)."""
    return hashlib.sha256(token.encode()).hexdigest()


def _connect(path: str) -> sqlite3.Connection:
    # autocommit off: writes collect in a transaction until _written() or commit()
    return sqlite3.connect(path, isolation_level="DEFERRED", check_same_thread=False)


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

    @property
    def variants(self) -> list[str]:
        """The game's variants (rule ids of RULES V), kept in its settings; none in games
        stored before variants existed."""
        return [str(rule) for rule in self.settings.get("variants", [])]


class StoreUnavailable(Exception):
    """The database refuses writes: a new game cannot be recorded."""


class CorruptRow(ValueError):
    """A stored game whose row or decisions cannot be read back."""


class Store:
    """A thin synchronous wrapper over one SQLite connection (the server is single-threaded).

    ``connect`` opens the connection (tests pass one that fails writes on demand).
    """

    def __init__(
        self, path: str = ":memory:", synchronous: str = "NORMAL", connect: Connect = _connect
    ) -> None:
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        self._db = connect(path)
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(SCHEMA)
        self._migrate()
        self._db.commit()
        # Set by the server to batch commits (see the module docstring); None commits each write.
        self.on_write: Callable[[], None] | None = None
        self._dirty = False
        # Decisions of this tick, inserted by one executemany just before the commit: a busy
        # server appends thousands a second, and one statement per decision cost more than
        # the commit itself.
        self._decisions: list[tuple[int, int, int, bytes, str, float]] = []
        # The statements of the open transaction, kept until it commits: if the commit fails
        # they move to the backlog (a rollback would lose them).
        self._journal: list[Write] = []
        self.backlog: list[Write] = []  # writes of an outage, replayed by retry()
        self.failed: str | None = None  # why the last write failed; None while writes work
        row = self._db.execute(
            "SELECT max(m) FROM (SELECT max(id) AS m FROM games "
            "UNION ALL SELECT seq FROM sqlite_sequence WHERE name = 'games')"
        ).fetchone()
        self._next_game = int(row[0] or 0) + 1

    def _migrate(self) -> None:
        for table, column, statement in MIGRATIONS:
            columns = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                self._db.execute(statement)
        # Tokens of databases from before they were hashed (a hash is 64 hex digits).
        for pid, token in self._db.execute(
            "SELECT id, token FROM players WHERE length(token) != 64"
        ).fetchall():
            self._db.execute("UPDATE players SET token = ? WHERE id = ?", (token_hash(token), pid))

    @property
    def writable(self) -> bool:
        """False from a failed write until :meth:`retry` (or a commit) succeeds again."""
        return self.failed is None

    def _failure(self, exc: sqlite3.Error) -> None:
        if self.failed is None:  # once per outage: a busy server would flood the log otherwise
            log.error(
                "database %s is not writable (%s): requests that need a write are refused, "
                "and what players were already sent is kept in memory until a write succeeds",
                self.path,
                exc,
            )
        self.failed = str(exc) or type(exc).__name__

    def _to_backlog(self) -> None:
        """Move the open transaction's writes to the backlog and roll it back."""
        self.backlog.extend(self._journal)
        if self._decisions:
            self.backlog.append((_INSERT_DECISION, self._decisions))
        self._journal, self._decisions, self._dirty = [], [], False
        try:
            self._db.rollback()
        except sqlite3.Error:
            log.exception("database rollback failed")

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        """Run one write statement in the open transaction; during an outage (or if the
        database refuses it) it waits in the backlog instead."""
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

    @property
    def dirty(self) -> bool:
        """True while writes wait in an open transaction for :meth:`commit`."""
        return self._dirty

    def _written(self) -> None:
        if self.on_write is None:
            self.commit()
        else:
            self._dirty = True
            self.on_write()

    def commit(self) -> None:
        """Commit the open transaction, if any. A failed commit is logged (see the module
        docstring) and rolled back; its writes wait in the backlog."""
        if not self._dirty and not self._journal:
            return
        self._dirty = False
        try:
            self._insert_decisions()
            self._db.commit()
        except sqlite3.Error as exc:
            self._failure(exc)
            self._to_backlog()
            return
        self._journal = []

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
            try:
                self._db.rollback()
            except sqlite3.Error:
                log.exception("database rollback failed")
            return False
        log.warning(
            "database %s is writable again: %d delayed writes saved", self.path, len(self.backlog)
        )
        self.backlog = []
        self.failed = None
        return True

    def _insert_decisions(self) -> None:
        rows = self._decisions
        if rows:
            self._db.executemany(_INSERT_DECISION, rows)
            self._journal.append((_INSERT_DECISION, rows))
            self._decisions = []

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

    # -- players -----------------------------------------------------------------------------

    def save_player(self, player: str, token: str, name: str) -> None:
        """Insert a player (``token`` is hashed here), or rename one and note it was seen."""
        now = time.time()
        self._write(
            "INSERT INTO players (id, token, name, created, seen) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name, seen = excluded.seen",
            (player, token_hash(token), name, now, now),
        )

    def players(self) -> list[tuple[str, str, str]]:
        """Every known (id, token hash, name)."""
        return list(self._db.execute("SELECT id, token, name FROM players"))

    def token_of(self, player: str) -> str | None:
        """The stored token hash of ``player`` (None once revoked or pruned)."""
        row = self._db.execute("SELECT token FROM players WHERE id = ?", (player,)).fetchone()
        return None if row is None or len(row[0]) != 64 else str(row[0])

    def revoke(self, player: str) -> bool:
        """Make ``player``'s token unusable (the identity and its games stay); True if found."""
        cur = self._db.execute(
            "UPDATE players SET token = 'revoked:' || id WHERE id = ?", (player,)
        )
        self._db.commit()
        return cur.rowcount > 0

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
        """Record a new game's setup; returns its id. Raises StoreUnavailable during an
        outage: a game is refused rather than played unrecorded."""
        if self.failed is not None:
            raise StoreUnavailable(self.failed)
        game = self._next_game
        self._next_game += 1  # taken even if the write fails: an id is never handed out twice
        self._write(
            "INSERT INTO games (id, room, edition, names, seats, settings, seed, version_base, "
            "status, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
            (
                game,
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
        if self.failed is not None:
            raise StoreUnavailable(self.failed)
        return game

    def append_decision(
        self, game: int, n: int, seat: int, choice: dict[str, Any], by: str
    ) -> None:
        """Append decision number ``n`` (0-based); committed with the tick's other writes."""
        row = (game, n, seat, encode_body(choice), by, time.time())
        if self.on_write is None or self.failed is not None:
            self._write(_INSERT_DECISION, row)
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

    def save_spectators(self, game: int, players: list[str]) -> None:
        """Record who watches ``game`` now (none: the row goes)."""
        if players:
            self._write(
                "INSERT OR REPLACE INTO spectators (game, players) VALUES (?, ?)",
                (game, json.dumps(players)),
            )
        else:
            self._write("DELETE FROM spectators WHERE game = ?", (game,))

    def spectators(self, game: int) -> list[str]:
        """Who watched ``game`` when it was last recorded (a row that does not decode: none)."""
        row = self._db.execute("SELECT players FROM spectators WHERE game = ?", (game,)).fetchone()
        try:
            players = _json_list(row[0]) if row is not None else []
        except ValueError:
            return []
        return [str(player) for player in players]

    def finish_game(self, game: int, status: str, winner: int | None, turns: int) -> None:
        """Mark a game over (or abandoned)."""
        self._write(
            "UPDATE games SET status = ?, winner = ?, turns = ?, ended = ? WHERE id = ?",
            (status, winner, turns, time.time(), game),
        )

    def _load(self, row: tuple[Any, ...], with_decisions: bool) -> StoredGame:
        """A game from its row; raises CorruptRow if a column or a decision does not decode."""
        try:
            game = StoredGame(
                id=row[0],
                room=row[1],
                edition=row[2],
                names=_json_list(row[3]),
                seats=_json_list(row[4]),
                settings=_json_map(row[5]),
                seed=row[6],
                version_base=row[7],
                status=row[8],
                winner=row[9],
                turns=row[10],
                ended=row[11],
            )
        except ValueError as exc:
            raise CorruptRow(f"game {row[0]}: {exc}") from exc
        if with_decisions:
            if self.failed is None:
                try:
                    self._insert_decisions()  # this tick's decisions belong to the game too
                except sqlite3.Error as exc:
                    self._failure(exc)
                    self._to_backlog()
            for n, (seat, blob) in enumerate(
                self._db.execute(
                    "SELECT seat, choice FROM decisions WHERE game = ? ORDER BY n", (game.id,)
                )
            ):
                try:
                    choice = unpack(blob)
                except ValueError as exc:
                    raise CorruptRow(f"game {game.id}, decision {n}: {exc}") from exc
                if not isinstance(choice, dict):
                    raise CorruptRow(f"game {game.id}, decision {n} is not a map")
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
        """Every game still being played, with its decisions, oldest first. A game that cannot
        be read is marked abandoned (logged) and left out."""
        rows = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE status = 'playing' ORDER BY id"
        ).fetchall()
        games = []
        for row in rows:
            try:
                games.append(self._load(row, True))
            except CorruptRow as exc:
                log.error("%s; marking it abandoned", exc)
                self.finish_game(row[0], "abandoned", None, 0)
        self.commit()
        return games

    def finished_games(self, limit: int = 50, player: str | None = None) -> list[StoredGame]:
        """The latest finished games (without decisions), newest first: the public ones, and
        the private ones ``player`` held a seat in. Unreadable rows are left out."""
        rows = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE status = 'over' AND ("
            "coalesce(json_extract(settings, '$.public'), 1) OR EXISTS (SELECT 1 FROM "
            "json_each(games.seats) WHERE json_extract(value, '$.player') = ?)) "
            "ORDER BY id DESC LIMIT ?",
            (player, limit),
        ).fetchall()
        games = []
        for row in rows:
            try:
                games.append(self._load(row, False))
            except CorruptRow as exc:
                log.warning("%s; not listed", exc)
        return games

    def game(self, game: int) -> StoredGame | None:
        """One game with its decisions, or None (also for a row that cannot be read)."""
        row = self._db.execute(
            f"SELECT {self._COLUMNS} FROM games WHERE id = ?", (game,)
        ).fetchone()
        if row is None:
            return None
        try:
            return self._load(row, True)
        except CorruptRow as exc:
            log.warning("%s", exc)
            return None

    # -- retention (server.retention) -------------------------------------------------------

    def prune_games(self, ended_before: float) -> int:
        """Delete abandoned games (and their decisions) that ended before ``ended_before``;
        return how many."""
        old = "SELECT id FROM games WHERE status = 'abandoned' AND ended < ?"
        count = int(
            self._db.execute(f"SELECT count(*) FROM ({old})", (ended_before,)).fetchone()[0]
        )
        if count:
            self._write(f"DELETE FROM decisions WHERE game IN ({old})", (ended_before,))
            self._write(
                "DELETE FROM games WHERE status = 'abandoned' AND ended < ?", (ended_before,)
            )
        return int(count)

    def stale_players(self, seen_before: float) -> list[str]:
        """Identities not seen since ``seen_before`` that hold no seat in an unfinished game."""
        rows = self._db.execute(
            "SELECT id FROM players WHERE coalesce(seen, created) < ? AND id NOT IN ("
            "SELECT json_extract(value, '$.player') FROM games, json_each(games.seats) "
            "WHERE games.status = 'playing' AND json_valid(games.seats) "
            "AND json_extract(value, '$.player') IS NOT NULL)",  # NOT IN with a NULL is empty
            (seen_before,),
        )
        return [str(row[0]) for row in rows]

    def delete_players(self, players: list[str]) -> None:
        """Forget these identities (their finished games keep the names they played under)."""
        for pid in players:
            self._write("DELETE FROM players WHERE id = ?", (pid,))

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one read statement (the operator's tools)."""
        return list(self._db.execute(sql, params))

    def size(self) -> tuple[int, int, int]:
        """(players, games, decisions) rows, for the log and the bench scripts."""
        row = self._db.execute(
            "SELECT (SELECT count(*) FROM players), (SELECT count(*) FROM games), "
            "(SELECT count(*) FROM decisions)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])


def _json_list(text: str) -> list[Any]:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError("not a JSON list")
    return value


def _json_map(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON map")
    return value
