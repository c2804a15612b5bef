"""Every message a server sends, as one typed definition each.

The server builds its messages from these classes (``to_wire``); a client reads what it
receives with :func:`read_server`, which checks every field's exact type and raises
:class:`~protocol.errors.MalformedMessage` on anything else: a client must survive a hostile
server. PROTOCOL.md §5 describes each message; its tables are checked against these classes.

The connection's own messages are defined here; those about rooms, play and finished games in
protocol.room_messages, protocol.play_messages and protocol.replay_messages, and every one of
them can be imported from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import CLOSING_CODES, ErrorArgs, MalformedMessage, ProtocolError
from protocol.fields import as_int, as_map, as_str, get_opt_int, get_str
from protocol.message_base import SERVER_MESSAGES as SERVER_MESSAGES
from protocol.message_base import ServerMessage as ServerMessage
from protocol.message_base import Wire as Wire
from protocol.message_base import message as message
from protocol.messages import PROTOCOL_VERSION
from protocol.play_messages import GRACE_REASONS as GRACE_REASONS
from protocol.play_messages import ChatMessage as ChatMessage
from protocol.play_messages import EventsMessage as EventsMessage
from protocol.play_messages import GameOverMessage as GameOverMessage
from protocol.play_messages import GraceCountdown as GraceCountdown
from protocol.play_messages import StateMessage as StateMessage
from protocol.play_messages import TimerMessage as TimerMessage
from protocol.play_messages import TurnTimer as TurnTimer
from protocol.replay_messages import LeaderboardMessage as LeaderboardMessage
from protocol.replay_messages import ProfileMessage as ProfileMessage
from protocol.replay_messages import ReplayMessage as ReplayMessage
from protocol.replay_messages import ReplaysMessage as ReplaysMessage
from protocol.replay_messages import ReviewMessage as ReviewMessage
from protocol.room_messages import ROLES as ROLES
from protocol.room_messages import SEAT_KINDS as SEAT_KINDS
from protocol.room_messages import STATUSES as STATUSES
from protocol.room_messages import JoinedMessage as JoinedMessage
from protocol.room_messages import RoomMessage as RoomMessage
from protocol.room_messages import RoomsMessage as RoomsMessage
from protocol.room_messages import RoomSummary as RoomSummary
from protocol.room_messages import SeatInfo as SeatInfo
from protocol.room_messages import Spectator as Spectator
from protocol.wire_fields import INT, SOMETIMES_STR, STR, Codec, one_of, wire

BYE_REASONS = ("shutdown", "replaced")


def read_server(value: object) -> ServerMessage:
    """Read one decoded server message; MalformedMessage unless it is exactly one of
    :data:`SERVER_MESSAGES` with its fields."""
    m = as_map(value, "message")
    kind = get_str(m, "type", "message")
    cls = SERVER_MESSAGES.get(kind)
    if cls is None:
        raise MalformedMessage("message.type", "a server message type")
    return cls.read(m, get_opt_int(m, "id", kind, may_miss=True))


@message("welcome")
@dataclass(frozen=True, kw_only=True)
class WelcomeMessage(ServerMessage):
    """The reply to ``hello``: the identity (``player``), the token that resumes it, and the
    server's name and version."""

    REPLY_ONLY = True
    player: str = wire(STR)
    token: str = wire(STR)
    server: str = wire(STR)
    protocol: int = wire(INT, default=PROTOCOL_VERSION)

    def check(self) -> None:
        if self.protocol != PROTOCOL_VERSION:
            raise MalformedMessage("welcome.protocol", str(PROTOCOL_VERSION))


def _error_args(value: object, where: str) -> ErrorArgs:
    m = as_map(value, where)
    out: ErrorArgs = {}
    for name, item in m.items():
        out[name] = (
            as_int(item, f"{where}.{name}")
            if type(item) is int
            else as_str(item, f"{where}.{name}")
        )
    return out


def _args(m: Wire, key: str, where: str) -> ErrorArgs:
    value = m.get(key)
    return {} if value is None else _error_args(value, f"{where}.{key}")


@message("error")
@dataclass(frozen=True, kw_only=True)
class ErrorMessage(ServerMessage):
    """A refused request (or the server's own complaint before it closes the connection):
    ``code`` (protocol.errors.ErrorCode) and ``args`` are what a client words it from;
    ``message`` is a short English detail for operators. ``room`` names the room of a
    ``room_closed``."""

    code: str = wire(STR)
    message: str = wire(STR, default="")
    args: ErrorArgs = wire(Codec(_args), default_factory=dict)
    room: str | None = wire(SOMETIMES_STR, default=None)

    @classmethod
    def of(cls, error: ProtocolError, request: int | None = None) -> ErrorMessage:
        """The message of ``error``, replying to ``request``."""
        return cls(id=request, code=str(error.code), message=error.message, args=error.error_args)

    @property
    def closing(self) -> bool:
        """Whether the server closes the connection after it."""
        return self.code in CLOSING_CODES


@message("pong")
@dataclass(frozen=True, kw_only=True)
class PongMessage(ServerMessage):
    """The answer to ``ping``."""

    REPLY_ONLY = True


@message("ok")
@dataclass(frozen=True, kw_only=True)
class OkMessage(ServerMessage):
    """A request succeeded (its broadcasts follow)."""

    REPLY_ONLY = True


@message("bye")
@dataclass(frozen=True, kw_only=True)
class ByeMessage(ServerMessage):
    """The server closes the connection: ``shutdown`` (it stops; come back later with the
    token) or ``replaced`` (the same identity connected again elsewhere)."""

    reason: str = wire(one_of(BYE_REASONS))


@message("moved")
@dataclass(frozen=True, kw_only=True)
class MovedMessage(ServerMessage):
    """Another node of the server's cluster runs ``room``, at ``address`` (``host:port``): the
    reply to a request for it, or unasked after ``welcome`` for a room we are seated in.
    Connect there with the token and ask again."""

    room: str = wire(STR)
    address: str = wire(STR)


#: Every type a server may send.
SERVER_TYPES = frozenset(SERVER_MESSAGES)
