"""Rooms nobody uses are closed, with one timer per room however often people come and go.

A waiting or finished room in which no member is connected closes after ``empty_room_grace``
seconds; a started game none of whose humans is connected closes (recorded as abandoned) after
``absent_game_timeout``: otherwise games waiting for a gone human would fill ``max_rooms``
forever. A room has at most one close timer, moved or cancelled as its members come and go, so
that a client cycling reconnects does not schedule one timer per disconnect.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from server.config import ServerConfig
from server.rooms.room import Room, Status
from server.rooms.scheduler import Handle, Scheduler

log = logging.getLogger("selfish.server")


class Presence(Protocol):
    """Who is connected (the lobby)."""

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""


class Vacancy:
    """Watches rooms for vacancy; ``close(room)`` is called when one stayed vacant too long."""

    def __init__(
        self,
        config: ServerConfig,
        presence: Presence,
        scheduler: Scheduler,
        close: Callable[[Room], None],
    ) -> None:
        self._config = config
        self._presence = presence
        self._scheduler = scheduler
        self._close = close
        self._timers: dict[Room, Handle] = {}

    def __len__(self) -> int:
        """Timers pending (one per vacant room)."""
        return len(self._timers)

    def vacant(self, room: Room) -> bool:
        """True when no member of ``room`` is connected."""
        return not any(self._presence.connected(p) for p in room.members)

    def delay(self, room: Room) -> float:
        """How long ``room`` may stay vacant."""
        if room.status == Status.PLAYING:
            return self._config.absent_game_timeout
        return self._config.empty_room_grace

    def watch(self, room: Room) -> None:
        """Someone came or went: start the room's timer if it became vacant, or stop it. A
        vacant room whose grace is zero closes at once."""
        if room.closed or not self.vacant(room):
            self.forget(room)
            return
        if room in self._timers:
            return
        delay = self.delay(room)
        if delay <= 0:
            self._close(room)
            return
        when = self._scheduler.time() + delay
        self._timers[room] = self._scheduler.call_at(when, self._expired, room)

    def forget(self, room: Room) -> None:
        """Stop watching ``room`` (closed, or someone is back)."""
        handle = self._timers.pop(room, None)
        if handle is not None:
            handle.cancel()

    def _expired(self, room: Room) -> None:
        self._timers.pop(room, None)
        if room.closed or not self.vacant(room):
            return
        log.info(
            "room %s: nobody connected for %g seconds; closing it",
            room.code,
            self.delay(room),
        )
        self._close(room)
