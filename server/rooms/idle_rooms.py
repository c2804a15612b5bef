"""Rooms nobody plays in: they expire, and a full server takes back the idlest.

Connected squatters never let a room go vacant (``server.rooms.vacancy``), so without these two
rules 100 addresses would keep all 1,000 rooms for good (they fill them in under a second):

- a room whose game nobody starts closes ``waiting_room_timeout`` seconds after it was created,
  and a finished room that nobody rematches as long after its game ended;
- on a full server, ``create_room`` closes the waiting or finished room whose seated people have
  not sent anything about it for longest, if that is at least ``idle_room_grace`` seconds: a
  newcomer can create a room while fewer than ``max_rooms`` belong to people who act.

A started game is never closed here: its clock hands a silent seat to its bot.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.rooms.room import Room, Status


def expired(rooms: Iterable[Room], now: float, timeout: float) -> list[Room]:
    """The open rooms not playing since ``timeout`` seconds ago or more (0: none)."""
    if timeout <= 0:
        return []
    return [
        room
        for room in rooms
        if room.status is not Status.PLAYING
        and not room.closed
        and now - room.idle_since >= timeout
    ]


def idlest(rooms: Iterable[Room], now: float, grace: float) -> Room | None:
    """The waiting or finished room whose seated people have not acted for longest, if that
    is ``grace`` seconds or more; else None."""
    candidates = [
        room
        for room in rooms
        if room.status is not Status.PLAYING and not room.closed and now - room.active_at >= grace
    ]
    return min(candidates, key=lambda room: room.active_at, default=None)
