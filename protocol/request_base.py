"""The base of every client request: the wire's bounds, the readers that check a decoded map's
fields against them, and the registry of request classes by wire ``type``.

The requests themselves are protocol.messages (the lobby, rooms and games) and
protocol.record_requests (finished games); :func:`protocol.messages.parse_client` reads any of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from protocol.errors import ErrorCode, ProtocolError

PROTOCOL_VERSION = 2
EDITIONS = ("space", "shipwrecked")
BOT_LEVELS = ("random", "basic", "expert")
TIMERS = (0, 30, 60, 120)
# A seat's bot takes over after a grace (PROTOCOL.md §7): ``left_grace`` seconds after
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

# --------------------------------------------------------------------------- field readers

T = TypeVar("T")


def bad_field(key: str, expected: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_REQUEST, f"'{key}' must be {expected}", {"field": key})


def read_int(msg: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = msg.get(key, default)
    # bool is an int subclass in Python but a distinct msgpack type: refuse it.
    if not isinstance(value, int) or isinstance(value, bool):
        raise bad_field(key, "an integer")
    if not -MAX_INT <= value <= MAX_INT:
        raise bad_field(key, f"an integer within ±{MAX_INT}")
    return value


def read_bool(msg: Mapping[str, Any], key: str, default: bool) -> bool:
    value = msg.get(key, default)
    if not isinstance(value, bool):
        raise bad_field(key, "a boolean")
    return value


def read_str(msg: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = msg.get(key, default)
    if not isinstance(value, str):
        raise bad_field(key, "a string")
    return value


def read_seconds(msg: Mapping[str, Any], key: str, default: int, bounds: tuple[int, int]) -> int:
    """A whole number of seconds within ``bounds`` (inclusive); ``bad_option`` outside them."""
    value = read_int(msg, key, default)
    low, high = bounds
    if not low <= value <= high:
        raise ProtocolError(
            ErrorCode.BAD_OPTION,
            f"'{key}' must be {low} to {high} seconds",
            {"field": key, "low": low, "high": high},
        )
    return value


def read_option(value: T, allowed: tuple[T, ...], key: str) -> T:
    if value not in allowed:
        raise ProtocolError(
            ErrorCode.BAD_OPTION,
            f"'{key}' must be one of {', '.join(map(str, allowed))}",
            {"field": key},
        )
    return value


def room_code(msg: Mapping[str, Any]) -> str:
    """The ``room`` field, upper-cased; a malformed code cannot name a room."""
    code = read_str(msg, "room").upper()
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


@dataclass(frozen=True, kw_only=True)
class RoomRequest(Request):
    """A request about one room."""

    room: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m))
