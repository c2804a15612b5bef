"""What an unfinished game keeps of its spectators: who watches it (so that they come back to
it after a restart or a takeover), and the chat lines they said during it, held for its
players until the game is over. Part of :class:`server.store.store.Store`, which holds the
connection."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from server.store.dialect import Dialect
from server.store.records import json_text
from server.store.write_path import Row

if TYPE_CHECKING:
    from server.store.database import Database
    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")

SPECTATORS = "SELECT players FROM spectators WHERE game = ?"


class Spectating:
    """The spectators of unfinished games and their held chat (a mixin of
    :class:`server.store.store.Store`)."""

    _db: Database | PostgresDatabase
    dialect: Dialect

    def save_spectators(self, game: int, players: list[str]) -> None:
        """Record who watches ``game`` now (none: the row goes)."""
        if players:
            self._db.write(
                "INSERT INTO spectators (game, players) VALUES (?, ?) "
                "ON CONFLICT (game) DO UPDATE SET players = excluded.players",
                (game, json.dumps(players)),
                game,
            )
        else:
            self._db.write("DELETE FROM spectators WHERE game = ?", (game,), game)

    def spectators(self, game: int) -> list[str]:
        """Who watched ``game`` when it was last recorded (a row that does not decode: none)."""
        return spectators_from_rows(game, self._db.read(SPECTATORS, (game,)))

    @property
    def _held_chat(self) -> str:
        return f"SELECT line FROM held_chat WHERE game = ? ORDER BY {self.dialect.order}"

    def hold_chat(self, game: int, line: dict[str, Any]) -> None:
        """Keep a spectator's chat ``line`` of the unfinished ``game`` for its players."""
        self._db.write(
            "INSERT INTO held_chat (game, line) VALUES (?, ?)", (game, json.dumps(line)), game
        )

    def held_chat(self, game: int) -> list[dict[str, Any]]:
        """The lines held for the players of ``game``, in the order said (a line that does
        not decode is left out)."""
        return held_lines(self._db.read(self._held_chat, (game,)))

    def release_chat(self, game: int) -> None:
        """Forget the lines held for ``game`` (they were delivered, or the game is gone)."""
        self._db.write("DELETE FROM held_chat WHERE game = ?", (game,), game)


def spectators_from_rows(game: int, rows: list[Row]) -> list[str]:
    """Who :data:`SPECTATORS`' ``rows`` say watched ``game`` (a row that does not decode:
    none)."""
    try:
        players = json_text(rows[0][0], "spectators") if rows else []
    except ValueError as exc:
        log.error("game %d: %s; its spectators are not restored", game, exc)
        return []
    if not isinstance(players, list):
        return []
    return [player for player in players if isinstance(player, str)]


def held_lines(rows: list[Row]) -> list[dict[str, Any]]:
    """The held chat lines of ``rows``, in order (a line that does not decode is left out)."""
    lines = []
    for (text,) in rows:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict):
            lines.append(line)
    return lines
