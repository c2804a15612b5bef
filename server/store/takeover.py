"""What a cluster's takeover reads of a room another node ran: its game with the decisions,
the server's own events, the held chat and the spectators, or its waiting room, and then its
members' players. The reads run in another thread (the leases' sideline,
``server.cluster.node``), and the event loop makes the room's stored form of their rows
(:meth:`Takeover.taken_over`). Part of :class:`server.store.store.Store`, which holds the
connection."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

from server.store.game_reads import GameReads
from server.store.records import (
    GAME_COLUMNS,
    WAITING_COLUMNS,
    CorruptRow,
    StoredGame,
    StoredWaiting,
    game_from_row,
    player_from_rows,
    waiting_from_row,
)
from server.store.spectating import SPECTATORS, Spectating, held_lines, spectators_from_rows
from server.store.waiting_rooms import WaitingRooms
from server.store.write_path import Row

if TYPE_CHECKING:
    from server.store.database import Database
    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")

# The players of a room taken over, by id (PostgreSQL: a takeover is a cluster's).
MEMBERS = "SELECT id, token, name FROM players WHERE id = ANY(%s)"


class Takeover(WaitingRooms, Spectating, GameReads):
    """A takeover's reads of a room, over the reads of games, waiting rooms and spectators
    it is restored from (a mixin of :class:`server.store.store.Store`)."""

    # the connection the store holds: what the waiting rooms and spectators write through,
    # and what the reads of games read from
    _db: Database | PostgresDatabase

    def takeover_reads(self, room: str, game: int | None) -> list[tuple[str, Row]]:
        """The reads a takeover restores room ``room`` from, to run in another thread (a
        cluster's leases' sideline): ``game`` with its decisions, events, held chat and
        spectators, or (None) the waiting room; :meth:`taken_over` reads their rows."""
        if game is None:
            return [(f"SELECT {WAITING_COLUMNS} FROM waiting_rooms WHERE room = ?", (room,))]
        return [
            (f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game,)),
            *self._parts(game),
            (self._held_chat, (game,)),
            (SPECTATORS, (game,)),
        ]

    def taken_over(
        self, game: int | None, rows: list[list[Row]], players: list[Row] | None = None
    ) -> StoredGame | StoredWaiting | None:
        """What :meth:`takeover_reads`' ``rows`` hold: the game (None if missing or
        unreadable), or the waiting room (None if gone); ``players``: the rows of
        :data:`MEMBERS`, read after them (the members' players, by id)."""
        found = _players(players or [])
        if game is None:
            waiting = self._waiting(rows[0])
            return dataclasses.replace(waiting[0], players=found) if waiting else None
        head, decisions, events, held, watching = rows
        if not head:
            return None
        try:
            stored = self._with_decisions(game_from_row(head[0]), decisions, events)
        except CorruptRow as exc:
            log.warning("%s", exc)
            return None
        stored.held_chat = held_lines(held)
        stored.spectators = spectators_from_rows(game, watching)
        stored.players = found
        return stored


def member_ids(game: int | None, rows: list[list[Row]]) -> list[str]:
    """Who may be a member of the room :meth:`Takeover.takeover_reads`' ``rows`` hold: the
    players of its game's seats and its spectators, or its waiting room's members (a row
    that cannot be read: none). Pure: a takeover runs it in the thread that read the rows,
    and reads their players (:data:`MEMBERS`) in the same go."""
    try:
        if game is None:
            return [member for row in rows[0] for member in waiting_from_row(row).members]
        head, watching = rows[0], rows[-1]
        if not head:
            return []
        seats = game_from_row(head[0]).seats
    except CorruptRow:
        return []  # the loop logs it, when it reads the rows (Takeover.taken_over)
    seated = [seat.get("player") for seat in seats]
    return [player for player in seated if isinstance(player, str)] + spectators_from_rows(
        game, watching
    )


def _players(rows: list[Row]) -> dict[str, tuple[str, str, str]]:
    """The players of :data:`MEMBERS`' ``rows`` by id (a row that cannot be used is logged
    and left out)."""
    found = {}
    for row in rows:
        player = player_from_rows([row])
        if player is not None:
            found[player[0]] = player
    return found
