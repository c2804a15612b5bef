"""SQLite persistence: players, and each game as its setup plus an append-only decision list.

Every write commits at once, and the room commits a decision before it sends the resulting
state, so whatever a client has seen survives a crash. WAL mode keeps commits cheap. Choices are
stored as msgpack blobs, exactly as they travel on the wire.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import pack, unpack

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


class Store:
    """A thin synchronous wrapper over one SQLite connection (the server is single-threaded)."""

    def __init__(self, path: str = ":memory:", synchronous: str = "NORMAL") -> None:
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        # autocommit off; every public write method commits before returning
        self._db = sqlite3.connect(path, isolation_level="DEFERRED", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(SCHEMA)
        self._db.commit()

    def close(self) -> None:
        """Flush and close (idempotent)."""
        try:
            self._db.commit()
            self._db.close()
        except sqlite3.ProgrammingError:
            pass  # already closed

    # -- players -----------------------------------------------------------------------------

    def save_player(self, player: str, token: str, name: str) -> None:
        """Insert or rename a player."""
        self._db.execute(
            "INSERT INTO players (id, token, name, created) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name",
            (player, token, name, time.time()),
        )
        self._db.commit()

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
        """Record a new game's setup; returns its id."""
        cur = self._db.execute(
            "INSERT INTO games (room, edition, names, seats, settings, seed, version_base, "
            "status, started) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
            (room, edition, json.dumps(names), json.dumps(seats), json.dumps(settings),
             seed, version_base, time.time()),
        )  # fmt: skip
        self._db.commit()
        assert cur.lastrowid is not None
        return cur.lastrowid

    def append_decision(
        self, game: int, n: int, seat: int, choice: dict[str, Any], by: str
    ) -> None:
        """Append decision number ``n`` (0-based) and commit."""
        self._db.execute(
            "INSERT INTO decisions (game, n, seat, choice, by, at) VALUES (?, ?, ?, ?, ?, ?)",
            (game, n, seat, pack(choice), by, time.time()),
        )
        self._db.commit()

    def update_seats(self, game: int, seats: list[dict[str, Any]]) -> None:
        """Record a change of seat occupants (a player left and a bot took over)."""
        self._db.execute("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game))
        self._db.commit()

    def finish_game(self, game: int, status: str, winner: int | None, turns: int) -> None:
        """Mark a game over (or abandoned)."""
        self._db.execute(
            "UPDATE games SET status = ?, winner = ?, turns = ?, ended = ? WHERE id = ?",
            (status, winner, turns, time.time(), game),
        )
        self._db.commit()

    def _load(self, row: tuple[Any, ...], with_decisions: bool) -> StoredGame:
        game = StoredGame(
            id=row[0], room=row[1], edition=row[2], names=json.loads(row[3]),
            seats=json.loads(row[4]), settings=json.loads(row[5]), seed=row[6],
            version_base=row[7], status=row[8], winner=row[9], turns=row[10], ended=row[11],
        )  # fmt: skip
        if with_decisions:
            for seat, blob in self._db.execute(
                "SELECT seat, choice FROM decisions WHERE game = ? ORDER BY n", (game.id,)
            ):
                choice = unpack(blob)
                assert isinstance(choice, dict)
                game.decisions.append((seat, choice))
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
