"""Typed client requests and their validation (the server's messages: protocol.server_messages).

:func:`parse_client` turns a decoded map into one of the request dataclasses below or raises
:class:`~protocol.errors.ProtocolError` with a stable code. Request objects also serialise
themselves (:meth:`Request.to_wire`), so a client can build its frames from the same definitions.
See PROTOCOL.md for the meaning of every field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from protocol.errors import ErrorCode, ProtocolError
from protocol.names import MAX_CHAT as MAX_CHAT
from protocol.names import MAX_NAME as MAX_NAME
from protocol.names import check_name

PROTOCOL_VERSION = 2
EDITIONS = ("space", "shipwrecked")
BOT_LEVELS = ("random", "basic", "expert")
TIMERS = (0, 30, 60, 120)
# A seat's bot takes over after a grace (issue 26, PROTOCOL.md §7): ``left_grace`` seconds after
# its player's connection dropped, ``idle_grace`` seconds after its decision opened while its
# player is connected and does nothing. Defaults for a table of friends: a dropped connection
# gets a minute to come back; a player thinking, or making tea, gets three.
LEFT_GRACE, LEFT_GRACES = 60, (10, 600)
IDLE_GRACE, IDLE_GRACES = 180, (30, 1800)
MIN_SEATS, MAX_SEATS = 2, 5
SEAT_COUNTS = tuple(range(MIN_SEATS, MAX_SEATS + 1))
MAX_VARIANTS = 8  # far more than exist: a bound on what is read, not a rule
ROOM_CODE_LENGTH = 4
# Integers in requests stay within ±2**53 (exact in every JSON and msgpack reader, and in
# SQLite): a bigger one is bad_request, never an OverflowError deep in the server.
MAX_INT = 2**53
MAX_SEED = 2**63 - 1  # a seed is stored as SQLite's 64-bit INTEGER
# A private room's code is its secret (26**12 codes): nobody finds it by trying codes.
PRIVATE_ROOM_CODE_LENGTH = 12

# --------------------------------------------------------------------------- validation helpers

T = TypeVar("T")


def _bad(key: str, expected: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_REQUEST, f"'{key}' must be {expected}", {"field": key})


def _int(msg: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = msg.get(key, default)
    # bool is an int subclass in Python but a distinct msgpack type: refuse it.
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(key, "an integer")
    if not -MAX_INT <= value <= MAX_INT:
        raise _bad(key, f"an integer within ±{MAX_INT}")
    return value


def _bool(msg: Mapping[str, Any], key: str, default: bool) -> bool:
    value = msg.get(key, default)
    if not isinstance(value, bool):
        raise _bad(key, "a boolean")
    return value


def _str(msg: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = msg.get(key, default)
    if not isinstance(value, str):
        raise _bad(key, "a string")
    return value


def _seconds(msg: Mapping[str, Any], key: str, default: int, bounds: tuple[int, int]) -> int:
    """A whole number of seconds within ``bounds`` (inclusive); ``bad_option`` outside them."""
    value = _int(msg, key, default)
    low, high = bounds
    if not low <= value <= high:
        raise ProtocolError(
            ErrorCode.BAD_OPTION,
            f"'{key}' must be {low} to {high} seconds",
            {"field": key, "low": low, "high": high},
        )
    return value


def _option(value: T, allowed: tuple[T, ...], key: str) -> T:
    if value not in allowed:
        raise ProtocolError(
            ErrorCode.BAD_OPTION,
            f"'{key}' must be one of {', '.join(map(str, allowed))}",
            {"field": key},
        )
    return value


def room_code(msg: Mapping[str, Any]) -> str:
    """The ``room`` field, upper-cased; a malformed code cannot name a room."""
    code = _str(msg, "room").upper()
    if (
        len(code) not in (ROOM_CODE_LENGTH, PRIVATE_ROOM_CODE_LENGTH)
        or not code.isascii()
        or not code.isalpha()
    ):
        raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code!r}", {"room": code})
    return code


# --------------------------------------------------------------------------- client requests


#: The request classes by wire ``type``: filled by :func:`request`, read by :func:`parse_client`.
REQUESTS: dict[str, type[Request]] = {}

R = TypeVar("R", bound="type[Request]")


def request(kind: str) -> Callable[[R], R]:
    """Class decorator: ``kind`` is the class's wire ``type``; register it in :data:`REQUESTS`."""

    def register(cls: R) -> R:
        assert kind not in REQUESTS, kind
        cls.TYPE = kind
        REQUESTS[kind] = cls
        return cls

    return register


@dataclass(frozen=True, kw_only=True)
class Request:
    """Base of every client message; ``id`` is echoed in the direct reply."""

    TYPE: ClassVar[str] = ""

    id: int | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        """Validate the decoded map ``m`` (its ``id`` already checked: ``rid``)."""
        return cls(id=rid)

    def to_wire(self) -> dict[str, Any]:
        """This request as a protocol map (``None`` optionals left out)."""
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.metadata.get("wire", f.name)] = value
        return out


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
        name = _str(m, "name")
        token = m.get("token")
        if token is not None and not isinstance(token, str):
            raise _bad("token", "a string")
        guest = None if m.get("guest") is None else _bool(m, "guest", False)
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
        edition = _option(_str(m, "edition"), EDITIONS, "edition")
        seats = _option(_int(m, "seats"), SEAT_COUNTS, "seats")
        bots = _int(m, "bots", 0)
        if not 0 <= bots < seats:
            raise ProtocolError(
                ErrorCode.BAD_OPTION,
                f"'bots' must be 0..{seats - 1}",
                {"field": "bots", "low": 0, "high": seats - 1},
            )
        seed = m.get("seed")
        if seed is not None:
            if type(seed) is not int:
                raise _bad("seed", "an integer")
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
            raise _bad("variants", f"a list of at most {MAX_VARIANTS} strings")
        return cls(
            id=rid,
            edition=edition,
            seats=seats,
            public=_bool(m, "public", True),
            timer=_option(_int(m, "timer", 0), TIMERS, "timer"),
            left_grace=_seconds(m, "left_grace", LEFT_GRACE, LEFT_GRACES),
            idle_grace=_seconds(m, "idle_grace", IDLE_GRACE, IDLE_GRACES),
            bots=bots,
            bot_level=_option(_str(m, "bot_level", "basic"), BOT_LEVELS, "bot_level"),
            autostart=_bool(m, "autostart", False),
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
        role = _option(_str(m, "as", "player"), ("player", "spectator"), "as")
        return cls(id=rid, room=code, as_=role)


@dataclass(frozen=True, kw_only=True)
class RoomRequest(Request):
    """A request about one room."""

    room: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m))


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
        level = _option(_str(m, "level", "basic"), BOT_LEVELS, "level")
        return cls(id=rid, room=room_code(m), level=level)


@request("remove_bot")
@dataclass(frozen=True, kw_only=True)
class RemoveBot(RoomRequest):
    """Host: free a bot's seat."""

    seat: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), seat=_int(m, "seat"))


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
        version = _int(m, "version")
        choice = _int(m, "choice")
        if choice < 0:
            raise _bad("choice", "the index of a legal choice")
        return cls(id=rid, room=code, version=version, choice=choice)


@request("chat")
@dataclass(frozen=True, kw_only=True)
class Chat(RoomRequest):
    """Say something to the room."""

    text: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), text=_str(m, "text"))


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


# --------------------------------------------------------------------------- finished games
# Replays, records, ratings, shared review and "play this deal"; their replies are typed in
# protocol.records.

MAX_PLAYER_ID = 64  # far above the server's ids ("p" and 8 hex digits; "bot:expert")
MAX_CURSOR = 128


def _player(m: Mapping[str, Any], key: str) -> str | None:
    """An optional player id: a short string."""
    if m.get(key) is None:
        return None
    value = _str(m, key)
    if not 1 <= len(value) <= MAX_PLAYER_ID:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"'{key}' must be a player id")
    return value


def _limit(m: Mapping[str, Any]) -> int | None:
    limit = None if m.get("limit") is None else _int(m, "limit")
    if limit is not None and limit < 1:
        raise ProtocolError(
            ErrorCode.BAD_OPTION, "'limit' must be at least 1", {"field": "limit", "low": 1}
        )
    return limit


# --------------------------------------------------------------------------- requests


@request("list_replays")
@dataclass(frozen=True, kw_only=True)
class ListReplays(Request):
    """A page of finished games, newest first, older than game ``before`` (the ``next`` of
    the page before), at most ``limit`` (the server caps it). Without ``player``: the public
    games and the private ones the requester held a seat in (``public``: the public ones only).
    With ``player``: the games that player held a seat in, as far as the requester may see them
    (another player's private games only if the requester held a seat in them too)."""

    before: int | None = None
    limit: int | None = None
    player: str | None = None
    public: bool | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        before = None if m.get("before") is None else _int(m, "before")
        public = None if m.get("public") is None else _bool(m, "public", False)
        return cls(
            id=rid, before=before, limit=_limit(m), player=_player(m, "player"), public=public
        )


@request("get_replay")
@dataclass(frozen=True, kw_only=True)
class GetReplay(Request):
    """One finished game whole: its setup, decisions, result and final-state digest (what an
    export file holds)."""

    game: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, game=_int(m, "game"))


@request("get_profile")
@dataclass(frozen=True, kw_only=True)
class GetProfile(Request):
    """A player's record and rating per edition (``player`` left out: the requester's own;
    a bot level's as ``bot:basic``)."""

    player: str | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, player=_player(m, "player"))


@request("get_leaderboard")
@dataclass(frozen=True, kw_only=True)
class GetLeaderboard(Request):
    """One page of an edition's leaderboard, best first; ``after`` is the ``next`` of the page
    before."""

    edition: str
    after: str | None = None
    limit: int | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        edition = _option(_str(m, "edition"), EDITIONS, "edition")
        after = None if m.get("after") is None else _str(m, "after")
        if after is not None and len(after) > MAX_CURSOR:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'after' must be a leaderboard's next")
        return cls(id=rid, edition=edition, after=after, limit=_limit(m))


@request("play_deal")
@dataclass(frozen=True, kw_only=True)
class PlayDeal(Request):
    """Open a room (the requester its host in seat 0) to play finished game ``game``'s deal
    again: its edition, seat count, variants and seed, with other people. The room is unrated
    (its seed is known)."""

    game: int
    public: bool = True
    timer: int = 0
    bots: int = 0
    bot_level: str = "basic"

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        bots = _int(m, "bots", 0)
        if bots < 0:
            raise ProtocolError(ErrorCode.BAD_OPTION, "'bots' must be at least 0")
        return cls(
            id=rid,
            game=_int(m, "game"),
            public=_bool(m, "public", True),
            timer=_option(_int(m, "timer", 0), TIMERS, "timer"),
            bots=bots,
            bot_level=_option(_str(m, "bot_level", "basic"), BOT_LEVELS, "bot_level"),
        )


@dataclass(frozen=True, kw_only=True)
class ReviewRequest(Request):
    """A request about the shared review of room ``room``'s finished game."""

    room: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m))


@request("review_join")
@dataclass(frozen=True, kw_only=True)
class ReviewJoin(ReviewRequest):
    """Enter the room's shared review of its finished game (open one if none is: the
    requester leads it). Players and spectators of the room may."""


@request("review_leave")
@dataclass(frozen=True, kw_only=True)
class ReviewLeave(ReviewRequest):
    """Leave the review (a leader who leaves hands the lead to the next who joined)."""


@request("review_step")
@dataclass(frozen=True, kw_only=True)
class ReviewStep(ReviewRequest):
    """Leader: show the board after ``step`` decisions (0 is the deal, the game's number of
    decisions its end)."""

    step: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), step=_int(m, "step"))


@request("review_lead")
@dataclass(frozen=True, kw_only=True)
class ReviewLead(ReviewRequest):
    """Leader: hand the lead on to ``player``, another member of the review."""

    player: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        player = _player(m, "player")
        if player is None:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'player' must be a player id")
        return cls(id=rid, room=room_code(m), player=player)


@request("review_follow")
@dataclass(frozen=True, kw_only=True)
class ReviewFollow(ReviewRequest):
    """Follow the leader's step (``follow`` true: rejoin it) or break away to step alone."""

    follow: bool

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        if not isinstance(m.get("follow"), bool):
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'follow' must be a boolean")
        return cls(id=rid, room=room_code(m), follow=bool(m["follow"]))


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
        raise _bad("type", "a string")
    rid = msg.get("id")
    if rid is not None or "id" in msg:
        rid = _int(msg, "id")
    cls = REQUESTS.get(kind)
    if cls is None:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}", {"type": kind}
        )
    return cls.from_wire(msg, rid)
