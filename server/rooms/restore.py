"""A room rebuilt around an unfinished stored game, after a server restart."""

from __future__ import annotations

import random

from protocol.messages import IDLE_GRACE, LEFT_GRACE
from server.engine import replay
from server.rooms.room import Hub, Room
from server.rooms.seats import Seats
from server.rooms.spectators import PLAYER
from server.rooms.status import Status
from server.store.store import StoredGame


def restore_room(hub: Hub, stored: StoredGame) -> Room:
    """The room of ``stored`` with its game replayed: its seated humans are members again, and
    so are its spectators (one who does not come back within ``empty_room_grace`` seconds
    leaves), with the chat they said for the players to read at the end. Raises if the stored
    decisions do not replay."""
    settings = stored.settings
    room = Room(
        hub,
        stored.room,
        stored.edition,
        len(stored.names),
        public=bool(settings.get("public", True)),
        timer=int(settings.get("timer", 0)),
        left_grace=int(settings.get("left_grace", LEFT_GRACE)),
        idle_grace=int(settings.get("idle_grace", IDLE_GRACE)),
        autostart=bool(settings.get("autostart", False)),
        variants=tuple(stored.variants),
    )
    room.table = Seats.from_records(stored.seats)
    room.game = replay(stored.edition, stored.names, stored.seed, stored.decisions, stored.variants)
    room.game_id = stored.id
    room.version_base = stored.version_base
    room.status = Status.PLAYING
    room.autoplay.rng = random.Random(stored.seed ^ len(stored.decisions))
    room.history.restore(stored.events)
    for seat in room.table:
        if seat.player is not None and seat.held_by(seat.player):
            room.members[seat.player] = PLAYER
    room.host = room.next_host()
    room.watchers.restore_held(hub.store.held_chat(stored.id))
    room.watchers.expect_back(
        hub.store.spectators(stored.id), hub.scheduler, hub.config.empty_room_grace, hub.connected
    )
    return room
