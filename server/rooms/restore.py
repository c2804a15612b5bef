"""A room rebuilt from the store after a server restart (or on another node of a cluster):
around an unfinished stored game, or as a waiting room whose game had not started."""

from __future__ import annotations

import random

from protocol.messages import IDLE_GRACE, LEFT_GRACE
from server.engine import replay
from server.rooms.room import Hub, Room
from server.rooms.seats import Seats
from server.rooms.spectators import PLAYER, SPECTATOR
from server.rooms.status import Status
from server.store.store import StoredGame, StoredWaiting


def restore_room(hub: Hub, stored: StoredGame) -> Room:
    """The room of ``stored`` with its game replayed (unfinished, or over): its seated humans
    are members again, and so are its spectators (one who does not come back within
    ``empty_room_grace`` seconds leaves), with the chat they said for the players to read at
    the end. Raises if the stored decisions do not replay."""
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
    # A game over (a takeover of a room waiting for a rematch) stays over: its players may
    # ask for the rematch, and the room closes as any finished one does.
    room.status = Status.OVER if stored.status == "over" and room.game.over else Status.PLAYING
    room.idle_since = hub.scheduler.time()
    room.autoplay.rng = random.Random(stored.seed ^ len(stored.decisions))
    room.history.restore(stored.events)
    for seat in room.table:
        if seat.player is not None and seat.held_by(seat.player):
            room.members[seat.player] = PLAYER
    room.host = room.next_host()
    held = stored.held_chat if stored.held_chat is not None else hub.store.held_chat(stored.id)
    room.watchers.restore_held(held)
    watching = stored.spectators
    room.watchers.expect_back(
        hub.store.spectators(stored.id) if watching is None else watching,
        hub.scheduler,
        hub.config.empty_room_grace,
        hub.connected,
    )
    return room


def reopen_waiting(hub: Hub, stored: StoredWaiting) -> Room:
    """The waiting room ``stored`` as its members last saw it: its settings, seats (people and
    bots), seated members and host; its spectators are members again, and one who does not
    come back within ``empty_room_grace`` seconds leaves."""
    settings = stored.settings
    room = Room(
        hub,
        stored.room,
        stored.edition,
        len(stored.seats),
        public=bool(settings.get("public", True)),
        timer=int(settings.get("timer", 0)),
        left_grace=int(settings.get("left_grace", LEFT_GRACE)),
        idle_grace=int(settings.get("idle_grace", IDLE_GRACE)),
        autostart=bool(settings.get("autostart", False)),
        variants=tuple(str(rule) for rule in settings.get("variants", [])),
    )
    seed = settings.get("seed")
    room.first_seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    room.table = Seats.from_layout(stored.seats)
    spectators = []
    for player, role in stored.members.items():
        if role == PLAYER and room.table.of(player) is not None:
            room.members[player] = PLAYER
        elif role == SPECTATOR:
            spectators.append(player)
    room.host = room.next_host()
    room.watchers.expect_back(spectators, hub.scheduler, hub.config.empty_room_grace, hub.connected)
    return room
