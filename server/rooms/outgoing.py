"""What the server sends: a builder for every server→client message of a room's life (``room``,
``timer``, ``game_over``, ``chat``, ``bye``, ``error``: protocol.server_messages types; the
``state`` and ``events`` frames are ``server.rooms.wire``'s), and :class:`Broadcaster`, which sends
them to a room's members.

A message that every member reads alike is encoded once for all of them; a ``state`` frame is
the shared public part, packed once per change, and each seat's own part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from protocol.errors import ErrorCode, ProtocolError
from protocol.records import RatingChange
from protocol.server_messages import (
    ByeMessage,
    ChatMessage,
    ErrorMessage,
    GameOverMessage,
    GraceCountdown,
    MovedMessage,
    RoomMessage,
    RoomSummary,
    ServerMessage,
    Spectator,
    TimerMessage,
    TurnTimer,
)
from server.config import ServerConfig
from server.engine import EngineError, Event, Game, GameOver, IllegalChoice, NotYourDecision
from server.rooms.clock import TurnClock
from server.rooms.grace import Absences, Reason
from server.rooms.seats import Seat, Seats
from server.rooms.status import Status
from server.rooms.wire import EventFrames, StateFrames, encode, encode_events
from server.store.history import History


class Outlet(Protocol):
    """A member's live connection, as a room writes to it."""

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue already encoded frames, given in pieces that are written as they are."""


class Members(Protocol):
    """What a room's messages need of the lobby: who is connected, and how they are named."""

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""

    def connection(self, player: str) -> Outlet | None:
        """The player's live connection, if any."""

    def player_name(self, player: str) -> str:
        """A player's current display name."""


class Watchers(Protocol):
    """A room's spectators, as its messages list and count them."""

    def __iter__(self) -> Iterator[str]: ...

    def __len__(self) -> int: ...


class RoomState(Protocol):
    """What the messages read of a room (``server.rooms.room.Room`` is one): declared here so
    that the room imports its messages, not the other way round."""

    @property
    def hub(self) -> Members: ...
    @property
    def config(self) -> ServerConfig: ...
    @property
    def code(self) -> str: ...
    @property
    def edition(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def public(self) -> bool: ...
    @property
    def timer(self) -> int: ...
    @property
    def left_grace(self) -> int: ...
    @property
    def idle_grace(self) -> int: ...
    @property
    def autostart(self) -> bool: ...
    @property
    def variants(self) -> tuple[str, ...]: ...
    @property
    def host(self) -> str | None: ...
    @property
    def status(self) -> Status: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def game_id(self) -> int | None: ...
    @property
    def version(self) -> int: ...
    @property
    def table(self) -> Seats: ...
    @property
    def members(self) -> dict[str, str]: ...
    @property
    def watchers(self) -> Watchers: ...
    @property
    def absences(self) -> Absences: ...
    @property
    def clock(self) -> TurnClock: ...
    @property
    def history(self) -> History: ...

    def seat_of(self, player: str) -> Seat | None:
        """The seat ``player`` sits in (None: a spectator)."""


# ------------------------------------------------------------------------------- builders


def room_message(room: RoomState) -> RoomMessage:
    """The ``room`` message: settings, seats and spectators."""
    hub = room.hub
    return RoomMessage(
        room=room.code,
        edition=room.edition,
        size=room.size,
        public=room.public,
        timer=room.timer,
        left_grace=room.left_grace,
        idle_grace=room.idle_grace,
        autostart=room.autostart,
        variants=tuple(room.variants),
        host=room.host,
        status=str(room.status),
        game=room.game_id,
        seats=room.table.wire(hub.connected),
        spectators=tuple(Spectator(p, hub.player_name(p)) for p in room.watchers),
    )


def room_summary(room: RoomState) -> RoomSummary:
    """The room's entry in ``rooms`` (list_rooms)."""
    table = room.table
    host = None if room.host is None else table.of(room.host)
    return RoomSummary(
        room=room.code,
        edition=room.edition,
        size=room.size,
        filled=table.filled(),
        humans=table.humans(),
        bots=table.bots(),
        status=str(room.status),
        timer=room.timer,
        variants=tuple(room.variants),
        host=None if host is None else host.name,
        spectators=len(room.watchers),
    )


def timer_message(
    room: str,
    version: int,
    timers: Iterable[tuple[Seat, float]],
    grace: Iterable[tuple[int, Reason, float]] = (),
) -> TimerMessage:
    """The ``timer`` message: the seats whose humans have a deadline and their seconds left;
    ``grace``, the seats whose bot takes over in so many seconds, and why (server.rooms.grace)."""
    return TimerMessage(
        room=room,
        version=version,
        timers=tuple(
            TurnTimer(seat.index, round(seconds, 2), seat.away) for seat, seconds in timers
        ),
        grace=tuple(
            GraceCountdown(seat, str(reason), round(seconds, 2)) for seat, reason, seconds in grace
        ),
    )


def grace_countdowns(room: RoomState) -> list[tuple[int, Reason, float]]:
    """(seat, reason, seconds left) of every running countdown before a bot takes a seat."""
    left, idle = room.absences.shown(), room.clock.idle_shown()
    if not left and not idle:  # asked at every change, and nearly always none
        return []
    return sorted(
        [(seat, Reason.LEFT, seconds) for seat, seconds in left]
        + [(seat, Reason.IDLE, seconds) for seat, seconds in idle]
    )


def game_over_message(
    room: str,
    game: int,
    winner: int | None,
    winner_name: str | None,
    turns: int,
    ratings: tuple[RatingChange, ...] = (),
) -> GameOverMessage:
    """The ``game_over`` message; ``ratings``: each rated seat's change."""
    return GameOverMessage(
        room=room,
        game=game,
        winner=winner,
        winner_name=winner_name,
        turns=turns,
        ratings=ratings,
    )


def chat_message(room: str, player: str, name: str, seat: int | None, text: str) -> ChatMessage:
    """A ``chat`` line; ``seat`` is None for a spectator."""
    return ChatMessage(room=room, player=player, name=name, seat=seat, text=text)


def bye_message(reason: str) -> ByeMessage:
    """The ``bye`` message a connection is closed after (``shutdown`` or ``replaced``)."""
    return ByeMessage(reason=reason)


class RoomElsewhere(ProtocolError):
    """A request for a room another node of the cluster runs: answered ``moved``."""

    def __init__(self, room: str, address: str) -> None:
        super().__init__(ErrorCode.NO_SUCH_ROOM, f"room {room} is run by {address}")
        self.room = room
        self.address = address


def error_message(error: ProtocolError, request: int | None = None) -> ErrorMessage | MovedMessage:
    """The ``error`` message of a refused request (or of a bad frame); ``moved`` for a room
    another node of the cluster runs."""
    if isinstance(error, RoomElsewhere):
        return MovedMessage(id=request, room=error.room, address=error.address)
    return ErrorMessage.of(error, request)


#: The engine's refusals as the wire says them: the one place engine errors become error codes.
ENGINE_ERRORS: dict[type[EngineError], ErrorCode] = {
    NotYourDecision: ErrorCode.NOT_YOUR_TURN,
    IllegalChoice: ErrorCode.ILLEGAL_CHOICE,
    GameOver: ErrorCode.GAME_OVER,
}


def engine_refusal(error: EngineError) -> ProtocolError:
    """The protocol error of an act the engine refused."""
    code = ENGINE_ERRORS.get(type(error), ErrorCode.ILLEGAL_CHOICE)
    return ProtocolError(code, str(error))


# ------------------------------------------------------------------------------- sending


class Broadcaster:
    """Sends one room's messages to its members, each as its seat may read them."""

    def __init__(self, room: RoomState) -> None:
        self._room = room
        self._frames = StateFrames(room.code)  # the state frames, kept across versions

    def seat_index(self, player: str) -> int | None:
        """The seat ``player`` reads as (None: a spectator)."""
        seat = self._room.seat_of(player)
        return None if seat is None else seat.index

    def to_all(self, message: ServerMessage, only: Callable[[str], bool] | None = None) -> None:
        """Send ``message`` to every member (or those ``only`` says yes to): encoded once."""
        data = (encode(message),)
        connection = self._room.hub.connection
        for player in self._room.members:
            if only is not None and not only(player):
                continue
            conn = connection(player)
            if conn is not None:
                conn.send_parts(data)

    def room(self) -> None:
        """The ``room`` message, to every member."""
        self.to_all(room_message(self._room))

    def timer(self) -> TimerMessage | None:
        """The ``timer`` message of the current decision, if the room shows timers or
        countdowns."""
        room = self._room
        if room.status is not Status.PLAYING:
            return None
        grace = grace_countdowns(room)
        if room.timer or grace or room.table.anyone_away():
            return timer_message(room.code, room.version, room.clock.shown(), grace)
        return None

    def timer_now(self) -> None:
        """A countdown started or stopped between two changes: the ``timer`` message, empty
        or not, to every member."""
        room = self._room
        if room.status is Status.PLAYING:
            grace = grace_countdowns(room)
            self.to_all(timer_message(room.code, room.version, room.clock.shown(), grace))

    def frames(self) -> StateFrames:
        """The state frames of the current version, built once per change."""
        room = self._room
        assert room.game is not None
        self._frames.update(room.game, room.version)
        return self._frames

    def events(self, events: list[Event]) -> None:
        """Send ``events`` to every member who may read some of them."""
        room = self._room
        if not events:
            return
        said = EventFrames(room.code, events)
        for player in room.members:
            conn = room.hub.connection(player)
            if conn is not None:
                conn.send_parts((said.frame(self.seat_index(player)),))

    def change(self, events: list[Event]) -> None:
        """One change: its events, the new state and the timer, to every member. The events
        frame is encoded once for all but the seats some event is addressed to."""
        room = self._room
        timer = self.timer()
        tail = b"" if timer is None else encode(timer)
        frames = self.frames()
        said = EventFrames(room.code, events)
        connection = room.hub.connection
        holders = room.table.holders()
        for player in room.members:
            conn = connection(player)
            if conn is None:
                continue
            seat = holders.get(player)  # None: a spectator
            # events first, then the state, then the timer, in pieces that are not joined
            conn.send_parts((said.frame(seat), *frames.frame_parts(seat), tail))

    def game(self, player: str) -> None:
        """What a (re)joining member gets: the history (at most ``history_events`` lines, the
        room's own included), the state, the timer."""
        room = self._room
        conn = room.hub.connection(player)
        if room.game is None or conn is None:
            return
        seat = self.seat_index(player)
        history = room.history.merged(room.game.log)[-room.config.history_events :]
        parts = [encode_events(room.code, history, seat, history=True), self.frames().frame(seat)]
        timer = self.timer()
        if timer is not None:
            parts.append(encode(timer))
        conn.send_parts(tuple(parts))
