"""Stable error codes of the Selfish wire protocol and the exception that carries them.

The codes are part of the protocol (see PROTOCOL.md §9): clients switch on them, so they never
change spelling. ``ProtocolError`` is raised by validation and turned into an ``error`` frame.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every ``error.code`` the server can send."""

    BAD_FRAME = "bad_frame"
    IDLE_TIMEOUT = "idle_timeout"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    HELLO_REQUIRED = "hello_required"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    BAD_NAME = "bad_name"
    BAD_TOKEN = "bad_token"
    ALREADY_WELCOMED = "already_welcomed"
    UNKNOWN_TYPE = "unknown_type"
    BAD_REQUEST = "bad_request"
    BAD_OPTION = "bad_option"
    RATE_LIMITED = "rate_limited"
    SERVER_FULL = "server_full"
    TOO_MANY_ROOMS = "too_many_rooms"
    NO_SUCH_ROOM = "no_such_room"
    ROOM_FULL = "room_full"
    ALREADY_IN_ROOM = "already_in_room"
    NOT_IN_ROOM = "not_in_room"
    NOT_HOST = "not_host"
    GAME_STARTED = "game_started"
    SEATS_EMPTY = "seats_empty"
    BAD_SEAT = "bad_seat"
    NOT_STARTED = "not_started"
    GAME_OVER = "game_over"
    NOT_OVER = "not_over"
    NOT_SEATED = "not_seated"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_VERSION = "stale_version"
    ILLEGAL_CHOICE = "illegal_choice"
    BAD_CHAT = "bad_chat"
    NO_SUCH_GAME = "no_such_game"
    NO_SUCH_PLAYER = "no_such_player"
    NOT_IN_REVIEW = "not_in_review"
    NOT_LEADER = "not_leader"
    STORE_UNAVAILABLE = "store_unavailable"
    INTERNAL_ERROR = "internal_error"
    ROOM_CLOSED = "room_closed"  # sent unasked: the server closed a room its member was in


#: Codes after which the server closes the connection.
CLOSING_CODES = frozenset(
    {ErrorCode.BAD_FRAME, ErrorCode.IDLE_TIMEOUT, ErrorCode.TOO_MANY_CONNECTIONS}
)


#: The value of an error's ``args``: what a client needs to say the error in its own words.
ErrorArgs = dict[str, int | str]


class ProtocolError(Exception):
    """A request or frame the protocol rejects; ``code`` is a stable :class:`ErrorCode`,
    ``args`` the values a client words it with (a field's name, a limit), and ``message`` a
    short English detail for operators and logs, never shown as the client's own words."""

    def __init__(self, code: ErrorCode, message: str, args: ErrorArgs | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.error_args: ErrorArgs = args or {}


class MalformedMessage(ProtocolError):
    """A server message that is not what the protocol says (a missing field, a value of the
    wrong type, an unknown key): raised by ``from_wire``; a client drops such a connection."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(ErrorCode.BAD_REQUEST, f"{where} must be {expected}", {"field": where})


class FrameError(ProtocolError):
    """A frame that violates the framing rules; the connection must be closed after it."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.BAD_FRAME, message)
