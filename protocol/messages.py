"""Typed client requests and their validation (the server's messages: protocol.server_messages).

:func:`parse_client` turns a decoded map into one of the request dataclasses or raises
:class:`~protocol.errors.ProtocolError` with a stable code. Request objects also serialise
themselves (:meth:`Request.to_wire`), so a client can build its frames from the same definitions.
The lobby's, rooms' and games' requests are defined here; those about finished games in
protocol.record_requests, their base and the wire's bounds in protocol.request_base: all are
named here too, so that this module is the one a reader imports requests from. See PROTOCOL.md
for the meaning of every field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from protocol.names import MAX_CHAT, MAX_NAME, check_name
from protocol.record_requests import (
    GetLeaderboard,
    GetProfile,
    GetReplay,
    ListReplays,
    PlayDeal,
    ReviewFollow,
    ReviewJoin,
    ReviewLead,
    ReviewLeave,
    ReviewRequest,
    ReviewStep,
)
from protocol.request_base import (
    BOT_LEVELS,
    EDITIONS,
    IDLE_GRACE,
    IDLE_GRACES,
    LEFT_GRACE,
    LEFT_GRACES,
    MAX_INT,
    MAX_SEATS,
    MAX_SEED,
    MAX_VARIANTS,
    MIN_SEATS,
    PRIVATE_ROOM_CODE_LENGTH,
    PROTOCOL_VERSION,
    REQUESTS,
    ROOM_CODE_LENGTH,
    SEAT_COUNTS,
    TIMERS,
    Request,
    RoomRequest,
    bad_field,
    read_bool,
    read_int,
    read_option,
    read_seconds,
    read_str,
    request,
    room_code,
)

#: What this module offers: its own requests and, from the modules it gathers, every other.
__all__ = [
    "BOT_LEVELS",
    "CLIENT_TYPES",
    "EDITIONS",
    "IDLE_GRACE",
    "IDLE_GRACES",
    "LEFT_GRACE",
    "LEFT_GRACES",
    "MAX_CHAT",
    "MAX_INT",
    "MAX_NAME",
    "MAX_SEATS",
    "MAX_SEED",
    "MAX_VARIANTS",
    "MIN_SEATS",
    "PRIVATE_ROOM_CODE_LENGTH",
    "PROTOCOL_VERSION",
    "REQUESTS",
    "ROOM_CODE_LENGTH",
    "SEAT_COUNTS",
    "TIMERS",
    "Act",
    "AddBot",
    "Back",
    "Chat",
    "CreateRoom",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "Hello",
    "JoinRoom",
    "LeaveRoom",
    "ListReplays",
    "ListRooms",
    "Ping",
    "PlayDeal",
    "Rematch",
    "RemoveBot",
    "Request",
    "ReviewFollow",
    "ReviewJoin",
    "ReviewLead",
    "ReviewLeave",
    "ReviewRequest",
    "ReviewStep",
    "RoomRequest",
    "Start",
    "Sync",
    "parse_client",
    "request_id",
]


@request("hello")
@dataclass(frozen=True, kw_only=True)
class Hello(Request):
    """First message: identify (``token`` resumes an earlier identity)."""

    name: str
    protocol: int = PROTOCOL_VERSION
    token: str | None = None
    # A guest keeps no identity (the client stores no token): no record, no rating.
    guest: bool | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        # The version first: a client of another version learns that, whatever else it sent.
        version = m.get("protocol")
        if type(version) is not int or version != PROTOCOL_VERSION:  # not 2.0, "2" or true
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"protocol {version!r} is not supported; this server speaks {PROTOCOL_VERSION}",
                {"version": PROTOCOL_VERSION},
            )
        name = read_str(m, "name")
        token = m.get("token")
        if token is not None and not isinstance(token, str):
            raise bad_field("token", "a string")
        guest = None if m.get("guest") is None else read_bool(m, "guest", False)
        return cls(
            id=rid, name=check_name(name), protocol=PROTOCOL_VERSION, token=token, guest=guest
        )


@request("ping")
@dataclass(frozen=True, kw_only=True)
class Ping(Request):
    """Keep-alive."""


@request("list_rooms")
@dataclass(frozen=True, kw_only=True)
class ListRooms(Request):
    """Ask for the public rooms."""


@request("create_room")
@dataclass(frozen=True, kw_only=True)
class CreateRoom(Request):
    """Open a room and take seat 0 as its host."""

    edition: str
    seats: int
    public: bool = True
    timer: int = 0
    left_grace: int = LEFT_GRACE
    idle_grace: int = IDLE_GRACE
    bots: int = 0
    bot_level: str = "basic"
    autostart: bool = False
    seed: int | None = None
    # Rule ids of RULES.md section V; which ones exist is the rules engine's business.
    variants: tuple[str, ...] = ()

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        edition = read_option(read_str(m, "edition"), EDITIONS, "edition")
        seats = read_option(read_int(m, "seats"), SEAT_COUNTS, "seats")
        bots = read_int(m, "bots", 0)
        if not 0 <= bots < seats:
            raise ProtocolError(
                ErrorCode.BAD_OPTION,
                f"'bots' must be 0..{seats - 1}",
                {"field": "bots", "low": 0, "high": seats - 1},
            )
        seed = m.get("seed")
        if seed is not None:
            if type(seed) is not int:
                raise bad_field("seed", "an integer")
            if not 0 <= seed <= MAX_SEED:
                raise ProtocolError(
                    ErrorCode.BAD_OPTION,
                    f"'seed' must be 0 to {MAX_SEED}",
                    {"field": "seed", "low": 0, "high": MAX_SEED},
                )
        variants = m.get("variants", [])
        if (
            not isinstance(variants, list)
            or len(variants) > MAX_VARIANTS
            or not all(isinstance(v, str) for v in variants)
        ):
            raise bad_field("variants", f"a list of at most {MAX_VARIANTS} strings")
        return cls(
            id=rid,
            edition=edition,
            seats=seats,
            public=read_bool(m, "public", True),
            timer=read_option(read_int(m, "timer", 0), TIMERS, "timer"),
            left_grace=read_seconds(m, "left_grace", LEFT_GRACE, LEFT_GRACES),
            idle_grace=read_seconds(m, "idle_grace", IDLE_GRACE, IDLE_GRACES),
            bots=bots,
            bot_level=read_option(read_str(m, "bot_level", "basic"), BOT_LEVELS, "bot_level"),
            autostart=read_bool(m, "autostart", False),
            seed=seed,
            variants=tuple(variants),
        )


@request("join_room")
@dataclass(frozen=True, kw_only=True)
class JoinRoom(Request):
    """Join a room as a player or a spectator."""

    room: str
    as_: str = field(default="player", metadata={"wire": "as"})

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        code = room_code(m)
        role = read_option(read_str(m, "as", "player"), ("player", "spectator"), "as")
        return cls(id=rid, room=code, as_=role)


@request("leave_room")
@dataclass(frozen=True, kw_only=True)
class LeaveRoom(RoomRequest):
    """Leave a room."""


@request("add_bot")
@dataclass(frozen=True, kw_only=True)
class AddBot(RoomRequest):
    """Host: fill the lowest free seat with a server bot."""

    level: str = "basic"

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        level = read_option(read_str(m, "level", "basic"), BOT_LEVELS, "level")
        return cls(id=rid, room=room_code(m), level=level)


@request("remove_bot")
@dataclass(frozen=True, kw_only=True)
class RemoveBot(RoomRequest):
    """Host: free a bot's seat."""

    seat: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), seat=read_int(m, "seat"))


@request("start")
@dataclass(frozen=True, kw_only=True)
class Start(RoomRequest):
    """Host: start the game."""


@request("act")
@dataclass(frozen=True, kw_only=True)
class Act(RoomRequest):
    """Make a decision: ``choice`` is the index of the choice taken in the ``view.legal`` of
    the latest ``state`` (its ``version``)."""

    version: int
    choice: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        code = room_code(m)
        version = read_int(m, "version")
        choice = read_int(m, "choice")
        if choice < 0:
            raise bad_field("choice", "the index of a legal choice")
        return cls(id=rid, room=code, version=version, choice=choice)


@request("chat")
@dataclass(frozen=True, kw_only=True)
class Chat(RoomRequest):
    """Say something to the room."""

    text: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), text=read_str(m, "text"))


@request("rematch")
@dataclass(frozen=True, kw_only=True)
class Rematch(RoomRequest):
    """Host: same seats, new seed, after the game is over."""


@request("back")
@dataclass(frozen=True, kw_only=True)
class Back(RoomRequest):
    """Clear the caller's ``away`` mark."""


@request("sync")
@dataclass(frozen=True, kw_only=True)
class Sync(RoomRequest):
    """Ask for the room, state and timer again."""


#: Every type a client may send.
CLIENT_TYPES = frozenset(REQUESTS)


def request_id(msg: Mapping[str, Any]) -> int | None:
    """The request's integer ``id``, or None if absent or not an integer."""
    rid = msg.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool):
        return rid
    return None


def parse_client(msg: Mapping[str, Any]) -> Request:
    """Validate a decoded client map and return its typed request.

    Raises ProtocolError with ``bad_request`` (missing/mistyped field), ``unknown_type``, or a
    field-specific code (``bad_option``, ``bad_name``, ``unsupported_protocol``, ``no_such_room``).
    """
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise bad_field("type", "a string")
    rid = msg.get("id")
    if rid is not None or "id" in msg:
        rid = read_int(msg, "id")
    cls = REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}", {"type": kind}
        )
    return cls.from_wire(msg, rid)
