"""Every message a server sends, as one typed definition each.

The server builds its messages from these classes (``to_wire``); a client reads what it
receives with :func:`read_server`, which checks every field's exact type and raises
:class:`~protocol.errors.MalformedMessage` on anything else: a client must survive a hostile
server. PROTOCOL.md §5 describes each message; its tables are checked against these classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from protocol.errors import CLOSING_CODES, ErrorArgs, MalformedMessage, ProtocolError
from protocol.fields import (
    as_int,
    as_list,
    as_map,
    as_str,
    get_bool,
    get_choice_of,
    get_int,
    get_items,
    get_number,
    get_opt_int,
    get_opt_str,
    get_seat_count,
    get_str,
    get_strs,
)
from protocol.game_types import EDITIONS, Choice, Event, View
from protocol.messages import PROTOCOL_VERSION
from protocol.records import (
    EditionRecord,
    GameSummary,
    LeaderboardEntry,
    RatingChange,
    ReviewMember,
    SeatRecord,
)

#: The server messages by wire ``type``: filled by :func:`message`.
SERVER_MESSAGES: dict[str, type[ServerMessage]] = {}

M = TypeVar("M", bound="type[ServerMessage]")
Wire = Mapping[str, Any]

ROLES = ("player", "spectator")
STATUSES = ("waiting", "playing", "over")
SEAT_KINDS = ("human", "bot")
GRACE_REASONS = ("left", "idle")
BYE_REASONS = ("shutdown", "replaced")


def message(kind: str) -> Callable[[M], M]:
    """Class decorator: ``kind`` is the class's wire ``type``; register it."""

    def register(cls: M) -> M:
        assert kind not in SERVER_MESSAGES, kind
        cls.TYPE = kind
        SERVER_MESSAGES[kind] = cls
        return cls

    return register


@dataclass(frozen=True, kw_only=True)
class ServerMessage:
    """Base of every server message. ``id`` echoes the id of the request this is the direct
    reply to (None: a broadcast, or a reply to a request without one)."""

    TYPE: ClassVar[str] = ""
    #: Whether it only ever comes as a direct reply (never as a broadcast).
    REPLY_ONLY: ClassVar[bool] = False

    id: int | None = None

    def body(self) -> dict[str, Any]:
        """The message's fields in wire form (without ``type`` and ``id``)."""
        return {}

    def to_wire(self) -> dict[str, Any]:
        """The message as a protocol map."""
        out: dict[str, Any] = {"type": self.TYPE}
        out.update(self.body())
        if self.id is not None:
            out["id"] = self.id
        return out

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        """Read the fields of ``m`` (its ``type`` and ``id``, ``rid``, already read)."""
        return cls(id=rid)


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
    player: str
    token: str
    server: str
    protocol: int = PROTOCOL_VERSION

    def body(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "player": self.player,
            "token": self.token,
            "server": self.server,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        version = get_int(m, "protocol", "welcome")
        if version != PROTOCOL_VERSION:
            raise MalformedMessage("welcome.protocol", str(PROTOCOL_VERSION))
        return cls(
            id=rid,
            player=get_str(m, "player", "welcome"),
            token=get_str(m, "token", "welcome"),
            server=get_str(m, "server", "welcome"),
        )


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


@message("error")
@dataclass(frozen=True, kw_only=True)
class ErrorMessage(ServerMessage):
    """A refused request (or the server's own complaint before it closes the connection):
    ``code`` (protocol.errors.ErrorCode) and ``args`` are what a client words it from;
    ``message`` is a short English detail for operators. ``room`` names the room of a
    ``room_closed``."""

    code: str
    message: str = ""
    args: ErrorArgs = field(default_factory=dict)
    room: str | None = None

    @classmethod
    def of(cls, error: ProtocolError, request: int | None = None) -> ErrorMessage:
        """The message of ``error``, replying to ``request``."""
        return cls(id=request, code=str(error.code), message=error.message, args=error.error_args)

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "args": self.args}
        if self.room is not None:
            out["room"] = self.room
        return out

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        args = m.get("args")
        return cls(
            id=rid,
            code=get_str(m, "code", "error"),
            message=get_str(m, "message", "error"),
            args={} if args is None else _error_args(args, "error.args"),
            room=get_opt_str(m, "room", "error", may_miss=True),
        )

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


@dataclass(frozen=True)
class RoomSummary:
    """A public room in the ``rooms`` list. ``host`` is the host's name."""

    room: str
    edition: str
    size: int
    filled: int
    humans: int
    bots: int
    status: str
    timer: int
    variants: tuple[str, ...]
    host: str | None
    spectators: int

    @classmethod
    def from_wire(cls, value: object, where: str = "rooms") -> RoomSummary:
        """Read a room summary."""
        m = as_map(value, where)
        return cls(
            room=get_str(m, "room", where),
            edition=get_choice_of(m, "edition", EDITIONS, where),
            size=get_seat_count(m, "size", where),
            filled=get_seat_count(m, "filled", where),
            humans=get_seat_count(m, "humans", where),
            bots=get_seat_count(m, "bots", where),
            status=get_choice_of(m, "status", STATUSES, where),
            timer=get_seat_count(m, "timer", where),
            variants=get_strs(m, "variants", where),
            host=get_opt_str(m, "host", where),
            spectators=get_seat_count(m, "spectators", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The summary's wire map."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["variants"] = list(self.variants)
        return out


@message("rooms")
@dataclass(frozen=True, kw_only=True)
class RoomsMessage(ServerMessage):
    """The reply to ``list_rooms``: the public rooms that are not over."""

    REPLY_ONLY = True
    rooms: tuple[RoomSummary, ...]

    def body(self) -> dict[str, Any]:
        return {"rooms": [room.to_wire() for room in self.rooms]}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(id=rid, rooms=get_items(m, "rooms", "rooms", RoomSummary.from_wire))


@message("joined")
@dataclass(frozen=True, kw_only=True)
class JoinedMessage(ServerMessage):
    """We are a member of ``room``: a player at ``seat``, or a spectator (``seat`` None)."""

    room: str
    role: str
    seat: int | None
    edition: str

    def body(self) -> dict[str, Any]:
        return {"room": self.room, "role": self.role, "seat": self.seat, "edition": self.edition}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        role = get_choice_of(m, "role", ROLES, "joined")
        seat = get_opt_int(m, "seat", "joined")
        if (seat is None) != (role == "spectator"):
            raise MalformedMessage("joined.seat", "null exactly for a spectator")
        return cls(
            id=rid,
            room=get_str(m, "room", "joined"),
            role=role,
            seat=seat,
            edition=get_choice_of(m, "edition", EDITIONS, "joined"),
        )


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A filled seat of a room. ``bot_number`` is N for a seat the server named "Bot N" (a
    client says that name in its own language), None for a person or a bot under a person's
    name; ``level`` is the bot's level for a bot's seat."""

    seat: int
    name: str
    kind: str
    player: str | None
    level: str | None
    bot_number: int | None
    connected: bool
    away: bool
    left: bool

    @classmethod
    def from_wire(cls, value: object, where: str = "seat") -> SeatInfo | None:
        """Read a seat (None: a free seat)."""
        if value is None:
            return None
        m = as_map(value, where)
        return cls(
            seat=get_seat_count(m, "seat", where),
            name=get_str(m, "name", where),
            kind=get_choice_of(m, "kind", SEAT_KINDS, where),
            player=get_opt_str(m, "player", where),
            level=get_opt_str(m, "level", where),
            bot_number=get_opt_int(m, "bot_number", where),
            connected=get_bool(m, "connected", where),
            away=get_bool(m, "away", where),
            left=get_bool(m, "left", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The seat's wire map."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Spectator:
    """A room's spectator: identity and name."""

    player: str
    name: str

    @classmethod
    def from_wire(cls, value: object, where: str = "spectator") -> Spectator:
        """Read a spectator."""
        m = as_map(value, where)
        return cls(get_str(m, "player", where), get_str(m, "name", where))

    def to_wire(self) -> dict[str, Any]:
        """The spectator's wire map."""
        return {"player": self.player, "name": self.name}


@message("room")
@dataclass(frozen=True, kw_only=True)
class RoomMessage(ServerMessage):
    """A room's settings, seats (``size`` of them, None for a free one), host (a player id)
    and spectators: sent whenever any of it changes."""

    room: str
    edition: str
    size: int
    public: bool
    timer: int
    left_grace: int
    idle_grace: int
    autostart: bool
    variants: tuple[str, ...]
    host: str | None
    status: str
    game: int | None
    seats: tuple[SeatInfo | None, ...]
    spectators: tuple[Spectator, ...]

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "edition": self.edition,
            "size": self.size,
            "public": self.public,
            "timer": self.timer,
            "left_grace": self.left_grace,
            "idle_grace": self.idle_grace,
            "autostart": self.autostart,
            "variants": list(self.variants),
            "host": self.host,
            "status": self.status,
            "game": self.game,
            "seats": [None if seat is None else seat.to_wire() for seat in self.seats],
            "spectators": [s.to_wire() for s in self.spectators],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "room"
        size = get_seat_count(m, "size", w)
        seats = get_items(m, "seats", w, SeatInfo.from_wire)
        if len(seats) != size:
            raise MalformedMessage("room.seats", f"{size} seats")
        return cls(
            id=rid,
            room=get_str(m, "room", w),
            edition=get_choice_of(m, "edition", EDITIONS, w),
            size=size,
            public=get_bool(m, "public", w),
            timer=get_seat_count(m, "timer", w),
            left_grace=get_seat_count(m, "left_grace", w),
            idle_grace=get_seat_count(m, "idle_grace", w),
            autostart=get_bool(m, "autostart", w),
            variants=get_strs(m, "variants", w),
            host=get_opt_str(m, "host", w),
            status=get_choice_of(m, "status", STATUSES, w),
            game=get_opt_int(m, "game", w),
            seats=seats,
            spectators=get_items(m, "spectators", w, Spectator.from_wire),
        )


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
        seat = get_seat_count(m, "seat", where)
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
            get_seat_count(m, "seat", where),
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
            turns=get_seat_count(m, "turns", w),
            ratings=_changes(m, w),
        )


def _changes(m: Wire, where: str) -> tuple[RatingChange, ...]:
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


@message("replays")
@dataclass(frozen=True, kw_only=True)
class ReplaysMessage(ServerMessage):
    """A page of finished games, newest first (protocol.records.GameSummary); ``next``: the
    ``before`` of the next page (None once the list ends)."""

    REPLY_ONLY = True
    games: tuple[GameSummary, ...]
    next: int | None

    def body(self) -> dict[str, Any]:
        return {"games": [g.to_wire() for g in self.games], "next": self.next}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            games=get_items(
                m, "games", "replays", lambda v, w: GameSummary.from_wire(as_map(v, w))
            ),
            next=get_opt_int(m, "next", "replays"),
        )


def _decision(value: object, where: str) -> tuple[int, Choice]:
    pair = as_list(value, where)
    if len(pair) != 2:
        raise MalformedMessage(where, "[seat, choice]")
    return as_int(pair[0], f"{where}[0]"), Choice.from_wire(pair[1], f"{where}[1]")


@message("replay")
@dataclass(frozen=True, kw_only=True)
class ReplayMessage(ServerMessage):
    """One finished game whole: its setup and every decision, ``(seat, choice)`` in order
    (with the rules engine they rebuild the game exactly), its result, whether it was public and
    rated, the check of its final state (``digest``, server.engine.digest) under rules version
    ``rules``, and its rating changes. What an export file holds (protocol.replay_file)."""

    REPLY_ONLY = True
    game: int
    room: str
    edition: str
    variants: tuple[str, ...]
    seats: tuple[SeatRecord, ...]
    seed: int
    decisions: tuple[tuple[int, Choice], ...]
    winner: int | None
    turns: int
    started: float
    ended: float
    public: bool
    rated: bool
    digest: str
    rules: int
    ratings: tuple[RatingChange, ...] = ()

    @property
    def names(self) -> list[str]:
        """The seats' names in seat order."""
        return [seat.name for seat in self.seats]

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": list(self.variants),
            "seats": [seat.to_wire() for seat in self.seats],
            "seed": self.seed,
            "decisions": [[seat, choice.to_wire()] for seat, choice in self.decisions],
            "winner": self.winner,
            "turns": self.turns,
            "started": self.started,
            "ended": self.ended,
            "public": self.public,
            "rated": self.rated,
            "digest": self.digest,
            "rules": self.rules,
            "ratings": [change.to_wire() for change in self.ratings],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "replay"
        return cls(
            id=rid,
            game=get_int(m, "game", w),
            room=get_str(m, "room", w),
            edition=get_choice_of(m, "edition", EDITIONS, w),
            variants=get_strs(m, "variants", w),
            seats=get_items(m, "seats", w, lambda v, x: SeatRecord.from_wire(as_map(v, x))),
            seed=get_int(m, "seed", w),
            decisions=get_items(m, "decisions", w, _decision),
            winner=get_opt_int(m, "winner", w),
            turns=get_seat_count(m, "turns", w),
            started=get_number(m, "started", w),
            ended=get_number(m, "ended", w),
            public=get_bool(m, "public", w),
            rated=get_bool(m, "rated", w),
            digest=get_str(m, "digest", w),
            rules=get_int(m, "rules", w),
            ratings=_changes(m, w),
        )


@message("profile")
@dataclass(frozen=True, kw_only=True)
class ProfileMessage(ServerMessage):
    """A player's (or a bot level's: ``bot``) record and rating in each edition they played
    (protocol.records.EditionRecord)."""

    REPLY_ONLY = True
    player: str
    name: str
    bot: bool
    editions: tuple[EditionRecord, ...]

    def body(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "bot": self.bot,
            "editions": [record.to_wire() for record in self.editions],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "profile"
        return cls(
            id=rid,
            player=get_str(m, "player", w),
            name=get_str(m, "name", w),
            bot=get_bool(m, "bot", w),
            editions=get_items(
                m, "editions", w, lambda v, x: EditionRecord.from_wire(as_map(v, x))
            ),
        )


@message("leaderboard")
@dataclass(frozen=True, kw_only=True)
class LeaderboardMessage(ServerMessage):
    """One page of an edition's leaderboard, best first; ``next``: the ``after`` of the
    following page (None at its end)."""

    REPLY_ONLY = True
    edition: str
    entries: tuple[LeaderboardEntry, ...]
    next: str | None

    def body(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "entries": [entry.to_wire() for entry in self.entries],
            "next": self.next,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "leaderboard"
        return cls(
            id=rid,
            edition=get_choice_of(m, "edition", EDITIONS, w),
            entries=get_items(
                m, "entries", w, lambda v, x: LeaderboardEntry.from_wire(as_map(v, x))
            ),
            next=get_opt_str(m, "next", w),
        )


@message("review")
@dataclass(frozen=True, kw_only=True)
class ReviewMessage(ServerMessage):
    """The shared review of ``room``'s finished ``game`` as it is now: the leader's ``step``
    (decisions applied, 0 to ``steps``), its ``leader``, its members in join order; ``open``
    false: it ended, or you left it."""

    room: str
    game: int
    step: int
    steps: int
    leader: str
    members: tuple[ReviewMember, ...]
    open: bool = True

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "game": self.game,
            "step": self.step,
            "steps": self.steps,
            "leader": self.leader,
            "members": [member.to_wire() for member in self.members],
            "open": self.open,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "review"
        return cls(
            id=rid,
            room=get_str(m, "room", w),
            game=get_int(m, "game", w),
            step=get_int(m, "step", w),
            steps=get_int(m, "steps", w),
            leader=get_str(m, "leader", w),
            members=get_items(m, "members", w, lambda v, x: ReviewMember.from_wire(as_map(v, x))),
            open=get_bool(m, "open", w),
        )


@message("bye")
@dataclass(frozen=True, kw_only=True)
class ByeMessage(ServerMessage):
    """The server closes the connection: ``shutdown`` (it stops; come back later with the
    token) or ``replaced`` (the same identity connected again elsewhere)."""

    reason: str

    def body(self) -> dict[str, Any]:
        return {"reason": self.reason}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(id=rid, reason=get_choice_of(m, "reason", BYE_REASONS, "bye"))


#: Every type a server may send.
SERVER_TYPES = frozenset(SERVER_MESSAGES)
