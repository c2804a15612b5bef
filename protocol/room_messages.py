"""The server messages about rooms: the ``rooms`` list, ``joined`` and ``room``, with their
parts (a room's summary, its seats and spectators)."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import MalformedMessage
from protocol.game_types import EDITIONS
from protocol.message_base import ServerMessage, message
from protocol.wire_fields import (
    BOOL,
    COUNT,
    OPT_INT,
    OPT_STR,
    STR,
    STRS,
    Codec,
    WireRecord,
    items,
    one_of,
    wire,
)

ROLES = ("player", "spectator")
STATUSES = ("waiting", "playing", "over")
SEAT_KINDS = ("human", "bot")


@dataclass(frozen=True, slots=True)
class RoomSummary(WireRecord):
    """A public room in the ``rooms`` list. ``host`` is the host's name."""

    room: str = wire(STR)
    edition: str = wire(one_of(EDITIONS))
    size: int = wire(COUNT)
    filled: int = wire(COUNT)
    humans: int = wire(COUNT)
    bots: int = wire(COUNT)
    status: str = wire(one_of(STATUSES))
    timer: int = wire(COUNT)
    variants: tuple[str, ...] = wire(STRS)
    host: str | None = wire(OPT_STR)
    spectators: int = wire(COUNT)


@message("rooms")
@dataclass(frozen=True, kw_only=True)
class RoomsMessage(ServerMessage):
    """The reply to ``list_rooms``: the public rooms that are not over."""

    REPLY_ONLY = True
    rooms: tuple[RoomSummary, ...] = wire(items(RoomSummary.from_wire))


@message("joined")
@dataclass(frozen=True, kw_only=True)
class JoinedMessage(ServerMessage):
    """We are a member of ``room``: a player at ``seat``, or a spectator (``seat`` None)."""

    room: str = wire(STR)
    role: str = wire(one_of(ROLES))
    seat: int | None = wire(OPT_INT)
    edition: str = wire(one_of(EDITIONS))

    def check(self) -> None:
        if (self.seat is None) != (self.role == "spectator"):
            raise MalformedMessage("joined.seat", "null exactly for a spectator")


@dataclass(frozen=True, slots=True)
class SeatInfo(WireRecord):
    """A filled seat of a room. ``bot_number`` is N for a seat the server named "Bot N" (a
    client says that name in its own language), None for a person or a bot under a person's
    name; ``level`` is the bot's level for a bot's seat."""

    seat: int = wire(COUNT)
    name: str = wire(STR)
    kind: str = wire(one_of(SEAT_KINDS))
    player: str | None = wire(OPT_STR)
    level: str | None = wire(OPT_STR)
    bot_number: int | None = wire(OPT_INT)
    connected: bool = wire(BOOL)
    away: bool = wire(BOOL)
    left: bool = wire(BOOL)


def _seat_or_free(value: object, where: str) -> SeatInfo | None:
    return None if value is None else SeatInfo.from_wire(value, where)


#: A room's seats: a seat's map, or null for a free one.
SEATS: Codec[tuple[SeatInfo | None, ...]] = Codec(
    items(_seat_or_free).read,
    lambda seats: [None if seat is None else seat.to_wire() for seat in seats],
)


@dataclass(frozen=True, slots=True)
class Spectator(WireRecord):
    """A room's spectator: identity and name."""

    player: str = wire(STR)
    name: str = wire(STR)


@message("room")
@dataclass(frozen=True, kw_only=True)
class RoomMessage(ServerMessage):
    """A room's settings, seats (``size`` of them, None for a free one), host (a player id)
    and spectators: sent whenever any of it changes."""

    room: str = wire(STR)
    edition: str = wire(one_of(EDITIONS))
    size: int = wire(COUNT)
    public: bool = wire(BOOL)
    timer: int = wire(COUNT)
    left_grace: int = wire(COUNT)
    idle_grace: int = wire(COUNT)
    autostart: bool = wire(BOOL)
    variants: tuple[str, ...] = wire(STRS)
    host: str | None = wire(OPT_STR)
    status: str = wire(one_of(STATUSES))
    game: int | None = wire(OPT_INT)
    seats: tuple[SeatInfo | None, ...] = wire(SEATS)
    spectators: tuple[Spectator, ...] = wire(items(Spectator.from_wire))

    def check(self) -> None:
        if len(self.seats) != self.size:
            raise MalformedMessage("room.seats", f"{self.size} seats")
