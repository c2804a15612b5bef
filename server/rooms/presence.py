"""Coalesced ``room`` broadcasts for comings and goings (connects, disconnects, joins and
leaves, of players and spectators alike).

Broadcasting the whole ``room`` message (12 KB in a full room) at each such change would let 100
spectators joining and leaving, or one player cycling reconnects, send every member thousands of
them and cut real clients off as "not reading". So a room's broadcast goes out at once if none
went out in the last ``interval`` seconds; otherwise one timer sends a single one, with the
latest state, when the interval is over. (What the host or
the game changes, bots, start, the end, goes out at once: it comes before the state it leads to.)
"""

from __future__ import annotations

from server.rooms.room import Room
from server.rooms.scheduler import Handle, Scheduler


class PresenceBroadcasts:
    """At most one presence ``room`` broadcast per room per ``interval``."""

    def __init__(self, interval: float, scheduler: Scheduler) -> None:
        self._interval = interval
        self._scheduler = scheduler
        self._last: dict[Room, float] = {}  # room -> time of its last presence broadcast
        self._pending: dict[Room, Handle] = {}

    def changed(self, room: Room) -> None:
        """Someone in ``room`` connected, disconnected, joined or left."""
        if room.closed or room in self._pending:
            return
        now = self._scheduler.time()
        last = self._last.get(room)
        if last is None or now - last >= self._interval:
            self._send(room, now)
        else:
            self._pending[room] = self._scheduler.call_at(last + self._interval, self._due, room)

    def forget(self, room: Room) -> None:
        """``room`` closed."""
        self._last.pop(room, None)
        handle = self._pending.pop(room, None)
        if handle is not None:
            handle.cancel()

    def _due(self, room: Room) -> None:
        self._pending.pop(room, None)
        if not room.closed:
            self._send(room, self._scheduler.time())

    def _send(self, room: Room, now: float) -> None:
        self._last[room] = now
        room.broadcast_room()
