"""Graces before a seat's bot takes over, so that a table never stalls on a missing or silent
player, and the countdowns every member is shown for them.

Two reasons, as the ``timer`` message names them (:class:`Reason`):

- ``left``: the seat's player is not connected while someone else in the room is. After the
  room's ``left_grace`` the seat is marked away, so its bot decides (after ``away_delay``) until
  the player is back. Nobody else connected, nobody waits: no countdown runs, and a restored
  game does not hand every seat to bots before its players could reconnect.
- ``idle``: the seat's player is connected and its decision has been open for the room's
  ``idle_grace`` (unless the turn timer runs out first): the bot decides and the seat is marked
  away. That deadline is the turn clock's (``server.rooms.clock``).

:class:`Absences` keeps the ``left`` countdowns of one room, with one timer at the earliest.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from server.rooms.scheduler import Handle, Scheduler
from server.rooms.seats import Seats, SeatState

# How early a timer may fire and still count as on time (the loop's clock is a float).
_SLACK = 0.001


class Reason(StrEnum):
    """Why a seat's bot is about to take over."""

    LEFT = "left"  # its player's connection is gone
    IDLE = "idle"  # its player is connected and does not decide


class Absences:
    """Since when each seated human is missing while others are connected; ``on_due(seat)``
    runs when one has been missing for ``grace`` seconds."""

    def __init__(self, scheduler: Scheduler, grace: float, on_due: Callable[[int], None]) -> None:
        self._scheduler = scheduler
        self.grace = grace  # seconds (the room's left_grace, times timer_scale)
        self._on_due = on_due
        self.since: dict[int, float] = {}  # seat -> when its countdown started
        self._handle: Handle | None = None

    def update(self, seats: Seats, connected: Callable[[str], bool], anyone: bool) -> bool:
        """Start the countdown of every present human seat whose player is not connected
        while ``anyone`` (a member of the room: never one of those) is, stop the others';
        True if any started or stopped."""
        missing = [
            seat.index
            for seat in seats
            if seat.state is SeatState.PRESENT
            and seat.player is not None
            and not connected(seat.player)
        ]
        now = self._scheduler.time()
        before = self.since
        self.since = {index: before.get(index, now) for index in missing} if anyone else {}
        changed = self.since.keys() != before.keys()
        self.schedule()
        return changed

    def shown(self) -> list[tuple[int, float]]:
        """(seat, seconds left) of every running countdown, in seat order."""
        if not self.since:  # asked at every change of the room's game, and nearly always none
            return []
        now = self._scheduler.time()
        return [(index, max(0.0, since + self.grace - now)) for index, since in self.since.items()]

    def stop(self) -> None:
        """No countdowns (the game ended, or the room closed)."""
        self.since = {}
        self.schedule()

    def schedule(self) -> None:
        """Set the timer for the earliest countdown's end (none if none runs)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self.since:
            when = min(self.since.values()) + self.grace
            self._handle = self._scheduler.call_at(when, self._fire)

    def _fire(self) -> None:
        self._handle = None
        now = self._scheduler.time()
        due = [index for index, since in self.since.items() if since + self.grace <= now + _SLACK]
        for index in due:
            del self.since[index]
        self.schedule()
        for index in due:
            self._on_due(index)
