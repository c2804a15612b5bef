"""The server messages about rooms: the ``rooms`` list, ``joined`` and ``room``, with their
parts (a room's summary, its seats and spectators)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from protocol.errors import MalformedMessage
from protocol.fields import (
    as_map,
    get_bool,
    get_choice_of,
    get_count,
    get_items,
    get_opt_int,
    get_opt_str,
    get_str,
    get_strs,
)
from protocol.game_types import EDITIONS
from protocol.message_base import ServerMessage, Wire, message

ROLES = ("player", "spectator")
STATUSES = ("waiting", "playing", "over")
SEAT_KINDS = ("human", "bot")


@dataclass(frozen=True)
class RoomSummary:
    """A public room in the ``rooms`` list. ``host`` is the host's name."""

    room: str
    edition: str
    size: int
    filled: int
    humans: int
    bots: int
    status: str
    timer: int
    variants: tuple[str, ...]
    host: str | None
    spectators: int

    @classmethod
    def from_wire(cls, value: object, where: str = "rooms") -> RoomSummary:
        """Read a room summary."""
        m = as_map(value, where)
        return cls(
            room=get_str(m, "room", where),
            edition=get_choice_of(m, "edition", EDITIONS, where),
            size=get_count(m, "size", where),
            filled=get_count(m, "filled", where),
            humans=get_count(m, "humans", where),
            bots=get_count(m, "bots", where),
            status=get_choice_of(m, "status", STATUSES, where),
            timer=get_count(m, "timer", where),
            variants=get_strs(m, "variants", where),
            host=get_opt_str(m, "host", where),
            spectators=get_count(m, "spectators", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The summary's wire map."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["variants"] = list(self.variants)
        return out


@message("rooms")
@dataclass(frozen=True, kw_only=True)
class RoomsMessage(ServerMessage):
    """The reply to ``list_rooms``: the public rooms that are not over."""

    REPLY_ONLY = True
    rooms: tuple[RoomSummary, ...]

    def body(self) -> dict[str, Any]:
        return {"rooms": [room.to_wire() for room in self.rooms]}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(id=rid, rooms=get_items(m, "rooms", "rooms", RoomSummary.from_wire))


@message("joined")
@dataclass(frozen=True, kw_only=True)
class JoinedMessage(ServerMessage):
    """We are a member of ``room``: a player at ``seat``, or a spectator (``seat`` None)."""

    room: str
    role: str
    seat: int | None
    edition: str

    def body(self) -> dict[str, Any]:
        return {"room": self.room, "role": self.role, "seat": self.seat, "edition": self.edition}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        role = get_choice_of(m, "role", ROLES, "joined")
        seat = get_opt_int(m, "seat", "joined")
        if (seat is None) != (role == "spectator"):
            raise MalformedMessage("joined.seat", "null exactly for a spectator")
        return cls(
            id=rid,
            room=get_str(m, "room", "joined"),
            role=role,
            seat=seat,
            edition=get_choice_of(m, "edition", EDITIONS, "joined"),
        )


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A filled seat of a room. ``bot_number`` is N for a seat the server named "Bot N" (a
    client says that name in its own language), None for a person or a bot under a person's
    name; ``level`` is the bot's level for a bot's seat."""

    seat: int
    name: str
    kind: str
    player: str | None
    level: str | None
    bot_number: int | None
    connected: bool
    away: bool
    left: bool

    @classmethod
    def from_wire(cls, value: object, where: str = "seat") -> SeatInfo | None:
        """Read a seat (None: a free seat)."""
        if value is None:
            return None
        m = as_map(value, where)
        return cls(
            seat=get_count(m, "seat", where),
            name=get_str(m, "name", where),
            kind=get_choice_of(m, "kind", SEAT_KINDS, where),
            player=get_opt_str(m, "player", where),
            level=get_opt_str(m, "level", where),
            bot_number=get_opt_int(m, "bot_number", where),
            connected=get_bool(m, "connected", where),
            away=get_bool(m, "away", where),
            left=get_bool(m, "left", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The seat's wire map."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Spectator:
    """A room's spectator: identity and name."""

    player: str
    name: str

    @classmethod
    def from_wire(cls, value: object, where: str = "spectator") -> Spectator:
        """Read a spectator."""
        m = as_map(value, where)
        return cls(get_str(m, "player", where), get_str(m, "name", where))

    def to_wire(self) -> dict[str, Any]:
        """The spectator's wire map."""
        return {"player": self.player, "name": self.name}


@message("room")
@dataclass(frozen=True, kw_only=True)
class RoomMessage(ServerMessage):
    """A room's settings, seats (``size`` of them, None for a free one), host (a player id)
    and spectators: sent whenever any of it changes."""

    room: str
    edition: str
    size: int
    public: bool
    timer: int
    left_grace: int
    idle_grace: int
    autostart: bool
    variants: tuple[str, ...]
    host: str | None
    status: str
    game: int | None
    seats: tuple[SeatInfo | None, ...]
    spectators: tuple[Spectator, ...]

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "edition": self.edition,
            "size": self.size,
            "public": self.public,
            "timer": self.timer,
            "left_grace": self.left_grace,
            "idle_grace": self.idle_grace,
            "autostart": self.autostart,
            "variants": list(self.variants),
            "host": self.host,
            "status": self.status,
            "game": self.game,
            "seats": [None if seat is None else seat.to_wire() for seat in self.seats],
            "spectators": [s.to_wire() for s in self.spectators],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "room"
        size = get_count(m, "size", w)
        seats = get_items(m, "seats", w, SeatInfo.from_wire)
        if len(seats) != size:
            raise MalformedMessage("room.seats", f"{size} seats")
        return cls(
            id=rid,
            room=get_str(m, "room", w),
            edition=get_choice_of(m, "edition", EDITIONS, w),
            size=size,
            public=get_bool(m, "public", w),
            timer=get_count(m, "timer", w),
            left_grace=get_count(m, "left_grace", w),
            idle_grace=get_count(m, "idle_grace", w),
            autostart=get_bool(m, "autostart", w),
            variants=get_strs(m, "variants", w),
            host=get_opt_str(m, "host", w),
            status=get_choice_of(m, "status", STATUSES, w),
            game=get_opt_int(m, "game", w),
            seats=seats,
            spectators=get_items(m, "spectators", w, Spectator.from_wire),
        )
