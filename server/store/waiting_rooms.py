"""Rooms whose game has not started, kept so that a restart, or another node of a cluster,
opens them again as their members saw them: one row per room with its seats, its members and
its settings. Part of :class:`server.store.store.Store`, which holds the connection."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from server.store.records import WAITING_COLUMNS, CorruptRow, StoredWaiting, waiting_from_row

if TYPE_CHECKING:
    from server.store.database import Database
    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")


class WaitingRooms:
    """The waiting rooms (a mixin of :class:`server.store.store.Store`)."""

    _db: Database | PostgresDatabase

    def save_waiting_room(
        self,
        room: str,
        edition: str,
        seats: list[dict[str, Any] | None],
        members: dict[str, str],
        settings: dict[str, Any],
    ) -> None:
        """Record room ``room``, whose game has not started, as it is now: ``seats`` (every
        seat in order, None for a free one), ``members`` (player id -> role, in join order)
        and ``settings``. It commits with the tick, before anyone is sent the change, so that
        a restart, or another node of a cluster, opens the room again as its members saw it."""
        self._db.write(
            "INSERT INTO waiting_rooms (room, edition, seats, members, settings) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (room) DO UPDATE SET edition = excluded.edition, "
            "seats = excluded.seats, members = excluded.members, settings = excluded.settings",
            (room, edition, json.dumps(seats), json.dumps(members), json.dumps(settings)),
            room,
        )

    def forget_waiting_room(self, room: str) -> None:
        """Room ``room`` waits no more: its game started (in the transaction that records
        the game), or it closed."""
        self._db.write("DELETE FROM waiting_rooms WHERE room = ?", (room,), room)

    def waiting_rooms(self) -> list[StoredWaiting]:
        """Every stored waiting room. One that cannot be read is deleted, with a log line."""
        return self._waiting(self._db.read(f"SELECT {WAITING_COLUMNS} FROM waiting_rooms"))

    def waiting_room(self, room: str) -> StoredWaiting | None:
        """The stored waiting room ``room`` (a takeover), or None."""
        rows = self._db.read(f"SELECT {WAITING_COLUMNS} FROM waiting_rooms WHERE room = ?", (room,))
        found = self._waiting(rows)
        return found[0] if found else None

    def _waiting(self, rows: list[tuple[Any, ...]]) -> list[StoredWaiting]:
        rooms = []
        for row in rows:
            try:
                rooms.append(waiting_from_row(row))
            except CorruptRow as exc:
                log.error("%s; deleting it", exc)
                if isinstance(row[0], str):
                    self.forget_waiting_room(row[0])
        return rooms
