"""Finished and unfinished games read back from the store: one game with its decisions and
the server's own events (a resume, a takeover, a replay), and the pages of finished games the
replay list shows; a player's stored token; and what the retention sweep reads
(``server.store.retention``). Part of :class:`server.store.store.Store`, which holds the
connection, and of ``server.store.read_thread.ThreadReads`` (the same reads in PostgreSQL's
read thread)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from server.store.dialect import Dialect
from server.store.records import (
    GAME_COLUMNS,
    TOKEN_OF,
    CorruptRow,
    StoredGame,
    choice_from_blob,
    event_from_row,
    game_from_row,
    token_from_rows,
)
from server.store.write_path import Row

if TYPE_CHECKING:
    from server.store.standings import Standings

log = logging.getLogger("selfish.server")

_MAX_ID = 2**63 - 1  # SQLite's largest integer: a cursor older than every game

# The abandoned games that ended before (?): what the retention sweep deletes.
ABANDONED = "SELECT id FROM games WHERE status = 'abandoned' AND ended < ?"


class Reader(Protocol):
    """What the reads of games need of a database: ``server.store.database.Database``,
    ``server.store.postgres.PostgresDatabase``, or ``server.store.read_thread``'s connection
    in a thread of its own."""

    def read(self, sql: str, params: Row = ()) -> list[Row]:
        """The rows of one read statement."""

    def read_many(self, reads: list[tuple[str, Row]]) -> list[list[Row]]:
        """The rows of each read, in order."""

    def flush_batched(self) -> None:
        """Hand the batched writes made so far to the transaction (reads then see them)."""


class GameReads:
    """The reads of games (a mixin of :class:`server.store.store.Store`)."""

    _db: Reader
    dialect: Dialect
    game_rooms: dict[int, str]  # see Store.game_rooms: unfinished games read back are noted
    #: records and ratings (server.store.standings): read by the records requests
    standings: Standings

    def finished_games(
        self, limit: int = 50, player: str | None = None, before: int | None = None
    ) -> list[StoredGame]:
        """Up to ``limit`` finished games (without decisions), newest first, older than game
        ``before`` if given: the public ones, and the private ones ``player`` held a seat in.
        Unreadable rows are left out."""
        return self.games_by_id(self._replay_ids(limit, player, before))

    def replay_page(
        self, size: int, player: str | None, before: int | None = None
    ) -> tuple[list[StoredGame], int | None]:
        """One page of :meth:`finished_games` and the cursor of the next page (the ``before``
        that continues the list; None when this page ends it)."""
        ids = self._replay_ids(size + 1, player, before)
        more = len(ids) > size
        ids = ids[:size]
        return self.games_by_id(ids), ids[-1] if more else None

    def _replay_ids(self, limit: int, player: str | None, before: int | None) -> list[int]:
        """The ids of a page: two index ranges of ``limit`` rows at most, whatever the number
        of games stored (server.store.schema's replays)."""
        cursor = _MAX_ID if before is None else before
        ids: set[int] = set()
        for viewer in ("", player) if player else ("",):
            ids.update(
                int(game)
                for (game,) in self._db.read(
                    "SELECT game FROM replays WHERE viewer = ? AND game < ? "
                    "ORDER BY game DESC LIMIT ?",
                    (viewer, cursor, limit),
                )
            )
        return sorted(ids, reverse=True)[:limit]

    def games_by_id(self, ids: list[int]) -> list[StoredGame]:
        """These games (without decisions), newest first; unreadable rows are left out."""
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        rows = self._db.read(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id IN ({marks}) ORDER BY id DESC", tuple(ids)
        )
        games = []
        for row in rows:
            try:
                games.append(game_from_row(row))
            except CorruptRow as exc:
                log.warning("%s; not listed", exc)
        return games

    def token_of(self, player: str) -> str | None:
        """The stored token hash of ``player`` (None once revoked or pruned): a hello's,
        to see that the operator did not revoke it."""
        return token_from_rows(self._db.read(TOKEN_OF, (player,)))

    def abandoned(self, ended_before: float) -> int:
        """How many abandoned games ended before ``ended_before`` (the retention sweep's)."""
        ((count,),) = self._db.read(f"SELECT count(*) FROM ({ABANDONED}) AS old", (ended_before,))
        return int(count)

    def stale_players(self, seen_before: float) -> list[str]:
        """Identities not seen since ``seen_before`` that hold no seat in an unfinished game
        (the retention sweep's)."""
        rows = self._db.read(self.dialect.stale_players, (seen_before,))
        return [str(row[0]) for row in rows]

    def game(self, game: int) -> StoredGame | None:
        """One game with its decisions, or None (also for a row that cannot be read)."""
        self._db.flush_batched()  # this tick's decisions belong to the game too
        # one round trip for the three (a takeover reads hundreds of games at once)
        rows, decisions, events = self._db.read_many(
            [(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game,)), *self._parts(game)]
        )
        if not rows:
            return None
        try:
            return self._with_decisions(game_from_row(rows[0]), decisions, events)
        except CorruptRow as exc:
            log.warning("%s", exc)
            return None

    def _parts(self, game: int) -> list[tuple[str, Row]]:
        """The reads of a game's decisions and of the server's own events, in order."""
        return [
            ("SELECT seat, choice FROM decisions WHERE game = ? ORDER BY n", (game,)),
            (
                "SELECT position, event FROM server_events WHERE game = ? "
                f"ORDER BY {self.dialect.order}",
                (game,),
            ),
        ]

    def _with_decisions(
        self, game: StoredGame, decisions: list[Row] | None = None, events: list[Row] | None = None
    ) -> StoredGame:
        """``game`` with its decisions and the server's own events (read here unless given);
        raises CorruptRow. An unfinished game read back is one this node may resume: its room
        is noted (fencing)."""
        if self.dialect.fenced and game.status == "playing":
            self.game_rooms[game.id] = game.room
        if decisions is None or events is None:
            self._db.flush_batched()  # this tick's decisions belong to the game too
            decisions, events = self._db.read_many(self._parts(game.id))
        for n, (seat, blob) in enumerate(decisions):
            if not isinstance(seat, int):
                raise CorruptRow(f"game {game.id}, decision {n}: the seat is not an integer")
            game.decisions.append((seat, choice_from_blob(game.id, n, blob)))
        for position, event in events:
            game.events.append(event_from_row(game.id, position, event))
        return game
