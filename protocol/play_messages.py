"""The server messages of a game being played: ``state``, ``events``, ``timer``,
``game_over`` and ``chat``, with the timers' parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.fields import (
    as_map,
    get_bool,
    get_choice_of,
    get_count,
    get_int,
    get_items,
    get_number,
    get_opt_int,
    get_opt_str,
    get_str,
)
from protocol.game_types import Event
from protocol.message_base import ServerMessage, Wire, message
from protocol.records import RatingChange
from protocol.view_types import View

GRACE_REASONS = ("left", "idle")


@message("state")
@dataclass(frozen=True, kw_only=True)
class StateMessage(ServerMessage):
    """The game at ``version``, as the recipient may see it."""

    room: str
    version: int
    view: View

    def body(self) -> dict[str, Any]:
        return {"room": self.room, "version": self.version, "view": self.view.to_wire()}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            room=get_str(m, "room", "state"),
            version=get_int(m, "version", "state"),
            view=View.from_wire(m.get("view"), "state.view"),
        )


@message("events")
@dataclass(frozen=True, kw_only=True)
class EventsMessage(ServerMessage):
    """Log lines, as the recipient may see them; ``history``: the log so far (its last
    lines), on join, resume, start and sync."""

    room: str
    events: tuple[Event, ...]
    history: bool = False

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "history": self.history,
            "events": [event.to_wire() for event in self.events],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            room=get_str(m, "room", "events"),
            history=get_bool(m, "history", "events"),
            events=get_items(m, "events", "events", Event.from_wire),
        )


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """A seat the server decides for in ``seconds`` (``away``: the short away delay)."""

    seat: int
    seconds: float
    away: bool

    @classmethod
    def from_wire(cls, value: object, where: str = "timers") -> TurnTimer:
        """Read a turn timer."""
        m = as_map(value, where)
        seat = get_count(m, "seat", where)
        return cls(seat, get_number(m, "seconds", where), get_bool(m, "away", where))

    def to_wire(self) -> dict[str, Any]:
        """The timer's wire map."""
        return {"seat": self.seat, "seconds": self.seconds, "away": self.away}


@dataclass(frozen=True, slots=True)
class GraceCountdown:
    """A seat whose bot takes over in ``seconds``; ``reason``: ``left`` (not connected) or
    ``idle`` (connected, not deciding)."""

    seat: int
    reason: str
    seconds: float

    @classmethod
    def from_wire(cls, value: object, where: str = "grace") -> GraceCountdown:
        """Read a countdown."""
        m = as_map(value, where)
        return cls(
            get_count(m, "seat", where),
            get_choice_of(m, "reason", GRACE_REASONS, where),
            get_number(m, "seconds", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The countdown's wire map."""
        return {"seat": self.seat, "reason": self.reason, "seconds": self.seconds}


@message("timer")
@dataclass(frozen=True, kw_only=True)
class TimerMessage(ServerMessage):
    """The running clocks of the decision at ``version``."""

    room: str
    version: int
    timers: tuple[TurnTimer, ...] = ()
    grace: tuple[GraceCountdown, ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "version": self.version,
            "timers": [t.to_wire() for t in self.timers],
            "grace": [g.to_wire() for g in self.grace],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            room=get_str(m, "room", "timer"),
            version=get_int(m, "version", "timer"),
            timers=get_items(m, "timers", "timer", TurnTimer.from_wire),
            grace=get_items(m, "grace", "timer", GraceCountdown.from_wire),
        )


@message("game_over")
@dataclass(frozen=True, kw_only=True)
class GameOverMessage(ServerMessage):
    """The game ``game`` in ``room`` ended (``winner`` None: nobody won); ``ratings``: each
    rated seat's change (none for an unrated game)."""

    room: str
    game: int
    winner: int | None
    winner_name: str | None
    turns: int
    ratings: tuple[RatingChange, ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "game": self.game,
            "winner": self.winner,
            "winner_name": self.winner_name,
            "turns": self.turns,
            "ratings": [change.to_wire() for change in self.ratings],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "game_over"
        return cls(
            id=rid,
            room=get_str(m, "room", w),
            game=get_int(m, "game", w),
            winner=get_opt_int(m, "winner", w),
            winner_name=get_opt_str(m, "winner_name", w),
            turns=get_count(m, "turns", w),
            ratings=rating_changes(m, w),
        )


def rating_changes(m: Wire, where: str) -> tuple[RatingChange, ...]:
    """The ``ratings`` list of a ``game_over`` or ``replay``."""
    return get_items(m, "ratings", where, lambda v, w: RatingChange.from_wire(as_map(v, w)))


@message("chat")
@dataclass(frozen=True, kw_only=True)
class ChatMessage(ServerMessage):
    """A member's chat line; ``seat`` None for a spectator."""

    room: str
    player: str
    name: str
    seat: int | None
    text: str

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "player": self.player,
            "name": self.name,
            "seat": self.seat,
            "text": self.text,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            room=get_str(m, "room", "chat"),
            player=get_str(m, "player", "chat"),
            name=get_str(m, "name", "chat"),
            seat=get_opt_int(m, "seat", "chat"),
            text=get_str(m, "text", "chat"),
        )

    @classmethod
    def from_record(cls, value: object) -> ChatMessage:
        """A held chat line as the store keeps it (its wire map)."""
        line = cls.read(as_map(value, "chat"), None)
        assert isinstance(line, ChatMessage)
        return line
