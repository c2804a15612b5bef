"""Who of a room's seated players is here while its game runs: a player whose connection is
back has their seat again, the ``left`` countdowns before a missing player's bot takes over
start and stop as members come and go (``server.rooms.grace``), every member is told of them
(the ``timer`` message), and a seat whose player stayed away the whole grace is marked away
so that its bot decides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.engine import Event
from server.rooms.clock import TurnClock
from server.rooms.grace import Absences
from server.rooms.outgoing import Broadcaster, Members
from server.rooms.seats import Seat, Seats, SeatState


class Attendance:
    """A room's presence handling (a mixin of :class:`server.rooms.room.Room`)."""

    hub: Members
    members: dict[str, str]
    table: Seats
    clock: TurnClock
    absences: Absences
    out: Broadcaster

    if TYPE_CHECKING:  # the room's own, and its announcements' (server.rooms.announcements)

        def playing(self) -> bool: ...
        def seat_of(self, player: str) -> Seat | None: ...
        def seat_event(
            self, kind: str, key: str, index: int, to: tuple[int, ...] | None = None, **args: Any
        ) -> Event: ...
        def _announce(self, events: list[Event]) -> None: ...
        def broadcast_room(self) -> None: ...

    def presence_changed(self, back: str | None = None) -> None:
        """A member connected, disconnected, came or went (``back``: this player's connection
        is new): the seat of a player who is back is theirs again, the countdowns before a
        missing player's bot takes over start or stop (every member is told), and the turn
        clock follows (the idle grace counts only for connected players)."""
        if not self.playing():
            return
        seat = None if back is None else self.seat_of(back)
        if seat is not None and seat.returned():  # it was away: its player has it back
            self._announce([self.seat_event("away", "away.back", seat.index)])
            self.broadcast_room()
        if self._count_absences() or seat is not None:
            self.out.timer_now()
        self.clock.schedule()

    def _countdowns_changed(self) -> None:
        """Tell every member the countdowns before bots take seats (the ``timer`` message)."""
        self.out.timer_now()

    def _count_absences(self) -> bool:
        """Start or stop the ``left`` countdowns (server.rooms.grace); True if any did."""
        if not self.playing():
            self.absences.stop()
            return False
        connected = self.hub.connected
        anyone = any(connected(member) for member in self.members)
        return self.absences.update(self.table, connected, anyone)

    def _absent_too_long(self, index: int) -> None:
        """Seat ``index``'s player has been gone for the left grace: its bot takes over."""
        seat = self.table[index]
        if not self.playing() or seat is None or seat.state is not SeatState.PRESENT:
            return
        if seat.player is None or self.hub.connected(seat.player):
            return
        seat.mark_away()
        self._announce([self.seat_event("away", "away.gone", index)])
        self.broadcast_room()
        self.clock.schedule()
        self.out.timer_now()
