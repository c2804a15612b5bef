"""The server messages of a game being played: ``state``, ``events``, ``timer``,
``game_over`` and ``chat``, with the timers' parts."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.fields import as_map
from protocol.game_types import Event
from protocol.message_base import ServerMessage, message
from protocol.records import RatingChange
from protocol.view_types import View
from protocol.wire_fields import (
    BOOL,
    COUNT,
    INT,
    NUMBER,
    OPT_INT,
    OPT_STR,
    STR,
    WireRecord,
    items,
    one_of,
    part,
    wire,
)

GRACE_REASONS = ("left", "idle")
#: The rating changes of a ``game_over`` or ``replay``.
RATINGS = items(RatingChange.from_wire)
VIEW = part(View.from_wire)


@message("state")
@dataclass(frozen=True, kw_only=True)
class StateMessage(ServerMessage):
    """The game at ``version``, as the recipient may see it."""

    room: str = wire(STR)
    version: int = wire(INT)
    view: View = wire(VIEW)


@message("events")
@dataclass(frozen=True, kw_only=True)
class EventsMessage(ServerMessage):
    """Log lines, as the recipient may see them; ``history``: the log so far (its last
    lines), on join, resume, start and sync."""

    room: str = wire(STR)
    events: tuple[Event, ...] = wire(items(Event.from_wire))
    history: bool = wire(BOOL, default=False)


@dataclass(frozen=True, slots=True)
class TurnTimer(WireRecord):
    """A seat the server decides for in ``seconds`` (``away``: the short away delay)."""

    seat: int = wire(COUNT)
    seconds: float = wire(NUMBER)
    away: bool = wire(BOOL)


@dataclass(frozen=True, slots=True)
class GraceCountdown(WireRecord):
    """A seat whose bot takes over in ``seconds``; ``reason``: ``left`` (not connected) or
    ``idle`` (connected, not deciding)."""

    seat: int = wire(COUNT)
    reason: str = wire(one_of(GRACE_REASONS))
    seconds: float = wire(NUMBER)


@message("timer")
@dataclass(frozen=True, kw_only=True)
class TimerMessage(ServerMessage):
    """The running clocks of the decision at ``version``."""

    room: str = wire(STR)
    version: int = wire(INT)
    timers: tuple[TurnTimer, ...] = wire(items(TurnTimer.from_wire), default=())
    grace: tuple[GraceCountdown, ...] = wire(items(GraceCountdown.from_wire), default=())


@message("game_over")
@dataclass(frozen=True, kw_only=True)
class GameOverMessage(ServerMessage):
    """The game ``game`` in ``room`` ended (``winner`` None: nobody won); ``ratings``: each
    rated seat's change (none for an unrated game)."""

    room: str = wire(STR)
    game: int = wire(INT)
    winner: int | None = wire(OPT_INT)
    winner_name: str | None = wire(OPT_STR)
    turns: int = wire(COUNT)
    ratings: tuple[RatingChange, ...] = wire(RATINGS, default=())


@message("chat")
@dataclass(frozen=True, kw_only=True)
class ChatMessage(ServerMessage):
    """A member's chat line; ``seat`` None for a spectator."""

    room: str = wire(STR)
    player: str = wire(STR)
    name: str = wire(STR)
    seat: int | None = wire(OPT_INT)
    text: str = wire(STR)

    @classmethod
    def from_record(cls, value: object) -> ChatMessage:
        """A held chat line as the store keeps it (its wire map)."""
        line = cls.read(as_map(value, "chat"), None)
        assert isinstance(line, ChatMessage)
        return line
