"""What :class:`protocol.client.ClientConnection` hands its caller: one event per server
message, holding the typed message (:mod:`protocol.server_messages`) and the request it is the
direct reply to (None for a broadcast)."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.game_types import Event as LogEvent
from protocol.messages import Request
from protocol.records import GameSummary
from protocol.server_messages import (
    ByeMessage,
    ChatMessage,
    ErrorMessage,
    EventsMessage,
    GameOverMessage,
    GraceCountdown,
    JoinedMessage,
    LeaderboardMessage,
    MovedMessage,
    OkMessage,
    PongMessage,
    ProfileMessage,
    ReplayMessage,
    ReplaysMessage,
    ReviewMessage,
    RoomMessage,
    RoomsMessage,
    RoomSummary,
    ServerMessage,
    StateMessage,
    TimerMessage,
    TurnTimer,
    WelcomeMessage,
)
from protocol.view_types import View


class Event:
    """Something the server said (or the end of the stream)."""

    request: Request | None


class Said(Event):
    """A message the server sent: ``message``, typed."""

    message: ServerMessage


@dataclass(slots=True)
class Welcome(Said):
    """The reply to ``hello``: our identity. ``resumed``: the token we sent was taken."""

    message: WelcomeMessage
    request: Request | None
    resumed: bool

    @property
    def player(self) -> str:
        """Our player id."""
        return self.message.player

    @property
    def token(self) -> str:
        """The token that resumes this identity."""
        return self.message.token

    @property
    def server(self) -> str:
        """The server's name and version."""
        return self.message.server


@dataclass(slots=True)
class Error(Said):
    """An ``error``: the reply to ``request``, or (request None) the server's own, which it
    sends before closing (``closing`` true: ``bad_frame``, ``idle_timeout``, ...)."""

    message: ErrorMessage
    request: Request | None

    @property
    def code(self) -> str:
        """The error code (protocol.errors.ErrorCode)."""
        return self.message.code

    @property
    def text(self) -> str:
        """The server's English detail, for logs."""
        return self.message.message

    @property
    def closing(self) -> bool:
        """Whether the server closes the connection after it."""
        return self.message.closing


@dataclass(slots=True)
class Ok(Said):
    """``ok``: ``request`` succeeded (its broadcasts follow)."""

    message: OkMessage
    request: Request | None


@dataclass(slots=True)
class Pong(Said):
    """``pong``: the answer to a ping."""

    message: PongMessage
    request: Request | None


@dataclass(slots=True)
class Rooms(Said):
    """``rooms``: the public rooms."""

    message: RoomsMessage
    request: Request | None

    @property
    def rooms(self) -> tuple[RoomSummary, ...]:
        """The rooms listed."""
        return self.message.rooms


@dataclass(slots=True)
class Joined(Said):
    """``joined``: we are a member of ``room`` (a reply, or after a resuming welcome)."""

    message: JoinedMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def role(self) -> str:
        """``player`` or ``spectator``."""
        return self.message.role

    @property
    def seat(self) -> int | None:
        """Our seat (None: a spectator)."""
        return self.message.seat


@dataclass(slots=True)
class RoomUpdate(Said):
    """``room``: the room's seats, host and status changed."""

    message: RoomMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room


@dataclass(slots=True)
class State(Said):
    """``state``: the game at ``version``, as ``view`` (PROTOCOL.md §6) shows it to us."""

    message: StateMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def version(self) -> int:
        """The game's version (send it with an ``act``)."""
        return self.message.version

    @property
    def view(self) -> View:
        """What we see of the game."""
        return self.message.view


@dataclass(slots=True)
class Events(Said):
    """``events``: log lines (``history``: the log so far, on join, resume or sync)."""

    message: EventsMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def events(self) -> tuple[LogEvent, ...]:
        """The lines, as we may see them."""
        return self.message.events

    @property
    def history(self) -> bool:
        """Whether these are the log so far rather than new lines."""
        return self.message.history


@dataclass(slots=True)
class Timer(Said):
    """``timer``: seconds left for the seats the server would decide for; ``grace``, the
    countdowns before a bot takes a missing player's seat."""

    message: TimerMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def timers(self) -> tuple[TurnTimer, ...]:
        """The turn timers."""
        return self.message.timers

    @property
    def grace(self) -> tuple[GraceCountdown, ...]:
        """The countdowns before bots take seats."""
        return self.message.grace


@dataclass(slots=True)
class GameOver(Said):
    """``game_over``: the game ``game`` in ``room`` ended."""

    message: GameOverMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def game(self) -> int:
        """The game's id (for ``get_replay``)."""
        return self.message.game

    @property
    def winner(self) -> int | None:
        """The winning seat (None: nobody won)."""
        return self.message.winner

    @property
    def winner_name(self) -> str | None:
        """The winner's name (None: nobody won)."""
        return self.message.winner_name

    @property
    def turns(self) -> int:
        """The turns played."""
        return self.message.turns


@dataclass(slots=True)
class ChatLine(Said):
    """``chat``: someone in ``room`` said ``text``."""

    message: ChatMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room's code."""
        return self.message.room

    @property
    def text(self) -> str:
        """What was said."""
        return self.message.text


@dataclass(slots=True)
class Replays(Said):
    """``replays``: a page of finished games, newest first. ``next``: send it as
    ``ListReplays(before=next)`` for the page after this one; None once the list ends."""

    message: ReplaysMessage
    request: Request | None

    @property
    def games(self) -> tuple[GameSummary, ...]:
        """The games of the page."""
        return self.message.games

    @property
    def next(self) -> int | None:
        """The ``before`` of the next page."""
        return self.message.next


@dataclass(slots=True)
class Replay(Said):
    """``replay``: one finished game's setup and decisions."""

    message: ReplayMessage
    request: Request | None

    @property
    def game(self) -> int:
        """The game's id."""
        return self.message.game


@dataclass(slots=True)
class Profile(Said):
    """``profile``: a player's records and ratings."""

    message: ProfileMessage
    request: Request | None


@dataclass(slots=True)
class Leaderboard(Said):
    """``leaderboard``: one page of an edition's board."""

    message: LeaderboardMessage
    request: Request | None


@dataclass(slots=True)
class ReviewUpdate(Said):
    """``review``: a shared review as it is now."""

    message: ReviewMessage
    request: Request | None


@dataclass(slots=True)
class Bye(Said):
    """``bye``: the server closes the connection (``shutdown`` or ``replaced``)."""

    message: ByeMessage
    request: Request | None

    @property
    def reason(self) -> str:
        """Why."""
        return self.message.reason


@dataclass(slots=True)
class Moved(Said):
    """``moved``: another node of the server's cluster runs ``room``; connect to ``address``
    with our token and ask again (:attr:`ClientConnection.moved` keeps the address)."""

    message: MovedMessage
    request: Request | None

    @property
    def room(self) -> str:
        """The room run elsewhere."""
        return self.message.room

    @property
    def address(self) -> str:
        """``host:port`` of the node that runs it."""
        return self.message.address


@dataclass(slots=True)
class ConnectionClosed(Event):
    """The stream ended (``receive_data(b"")``) without a ``bye``."""

    request: Request | None = None


def event_of(message: ServerMessage, request: Request | None) -> Said:
    """The event of a message other than ``welcome`` (whose ``resumed`` the connection knows)."""
    if isinstance(message, StateMessage):
        return State(message, request)
    if isinstance(message, EventsMessage):
        return Events(message, request)
    if isinstance(message, OkMessage):
        return Ok(message, request)
    if isinstance(message, TimerMessage):
        return Timer(message, request)
    if isinstance(message, RoomMessage):
        return RoomUpdate(message, request)
    if isinstance(message, ErrorMessage):
        return Error(message, request)
    if isinstance(message, JoinedMessage):
        return Joined(message, request)
    if isinstance(message, GameOverMessage):
        return GameOver(message, request)
    if isinstance(message, ChatMessage):
        return ChatLine(message, request)
    if isinstance(message, ByeMessage):
        return Bye(message, request)
    if isinstance(message, PongMessage):
        return Pong(message, request)
    if isinstance(message, RoomsMessage):
        return Rooms(message, request)
    if isinstance(message, ReplaysMessage):
        return Replays(message, request)
    if isinstance(message, ProfileMessage):
        return Profile(message, request)
    if isinstance(message, LeaderboardMessage):
        return Leaderboard(message, request)
    if isinstance(message, ReviewMessage):
        return ReviewUpdate(message, request)
    if isinstance(message, MovedMessage):
        return Moved(message, request)
    assert isinstance(message, ReplayMessage), message
    return Replay(message, request)
