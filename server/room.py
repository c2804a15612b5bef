"""A room: its seats and members, one engine game at a time, turn timers and bot takeover.

Everything here is synchronous and runs on the event loop thread; the asynchronous parts are
one ``loop.call_at`` handle per room that fires when a bot, an away seat or an expired turn timer
must decide, and the choice of a thinking bot (``expert``), which a worker process makes
(``server.bots.pool``) while the loop serves every other table. A request either raises
:class:`ProtocolError` before changing anything, or applies completely (engine, then store
commit, then messages out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from protocol.codec import identical, normalize
from protocol.errors import ErrorCode, ProtocolError
from server.bots import pool
from server.bots.expert import DEFAULT_BUDGET, Budget
from server.bots.levels import choose
from server.config import ServerConfig
from server.engine import EngineError, Event, Game
from server.engine.actions import strip
from server.store import Store, StoredGame, StoreUnavailable
from server.wire import StateFrames, encode

log = logging.getLogger("selfish.server")

Message = dict[str, Any]
Ack = Callable[[], None] | None


class Outlet(Protocol):
    """A member's live connection, as a room writes to it."""

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue already encoded frames, given in pieces that are written as they are."""


class Hub(Protocol):
    """What a room needs from the lobby around it."""

    config: ServerConfig
    store: Store

    def send(self, player: str, message: Message) -> None:
        """Send to the player's connection, if any."""

    def send_frame(self, player: str, data: bytes) -> None:
        """Send an already encoded frame to the player's connection, if any."""

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""

    def connection(self, player: str) -> Outlet | None:
        """The player's live connection, if any."""

    def player_name(self, player: str) -> str:
        """A player's current display name."""

    def room_closed(self, room: Room) -> None:
        """Forget a room whose last member left."""


class Status(StrEnum):
    """Where a room is in its life."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


@dataclass
class Seat:
    """One seat at the table: a human (possibly away or gone) or a server bot."""

    index: int
    kind: str  # "human" | "bot"
    name: str
    player: str | None = None
    level: str = "basic"
    left: bool = False  # the human left mid-game: a bot plays the seat until the game ends
    away: bool = False
    timeouts: int = 0  # timeouts in a row

    @property
    def automated(self) -> bool:
        """True when a bot plays this seat without waiting for anyone."""
        return self.kind == "bot" or self.left

    def to_wire(self, connected: bool) -> Message:
        """The seat as shown in a ``room`` message."""
        return {
            "seat": self.index,
            "name": self.name,
            "kind": self.kind,
            "player": self.player,
            "level": self.level if self.kind == "bot" else None,
            "connected": connected,
            "away": self.away,
            "left": self.left,
        }

    def to_record(self) -> Message:
        """The seat as persisted with its game."""
        return {
            "kind": self.kind,
            "name": self.name,
            "player": self.player,
            "level": self.level,
            "left": self.left,
        }

    @classmethod
    def from_record(cls, index: int, record: Message) -> Seat:
        """Inverse of :meth:`to_record`."""
        return cls(
            index,
            str(record["kind"]),
            str(record["name"]),
            record.get("player"),
            str(record.get("level", "basic")),
            bool(record.get("left", False)),
        )


def _event(record: dict[str, Any], names: Sequence[str]) -> Event | None:
    """An event stored by :meth:`Room._record`, or None if the record is not one."""
    try:
        to = record.get("to")
        return Event(
            str(record["kind"]),
            str(record["key"]),
            dict(record["args"]),
            names,
            record.get("seat"),
            None if to is None else tuple(int(seat) for seat in to),
            tuple(str(arg) for arg in record.get("secret", ())),
        )
    except (KeyError, TypeError, ValueError):
        return None


def rebuild(
    edition: str,
    names: list[str],
    seed: int,
    decisions: Iterable[tuple[int, Message]],
    variants: Iterable[str] = (),
) -> Game:
    """Replay stored decisions, matching each against the legal choices in wire form so that
    tuples that became lists in storage still compare equal."""
    game = Game(edition, names, seed, variants=variants)
    for seat, stored in decisions:
        wanted = normalize(stored)
        for option in game.legal(seat):
            if normalize(option) == wanted:
                game.apply(seat, option)
                break
        else:
            raise ValueError(f"stored decision {stored!r} of seat {seat} is not legal on replay")
    return game


class Room:
    """A table: seats, members (seated humans and spectators), the current game."""

    def __init__(
        self,
        hub: Hub,
        code: str,
        edition: str,
        size: int,
        *,
        public: bool = True,
        timer: int = 0,
        autostart: bool = False,
        variants: tuple[str, ...] = (),
    ) -> None:
        self.hub = hub
        self.code = code
        self.edition = edition
        self.size = size
        self.public = public
        self.timer = timer
        self.autostart = autostart
        self.variants = variants  # rule ids of RULES V, checked by the lobby
        self.seats: list[Seat | None] = [None] * size
        self.members: dict[str, str] = {}  # player id -> "player" | "spectator", in join order
        self.host: str | None = None
        self.status = Status.WAITING
        self.game: Game | None = None
        self.game_id: int | None = None
        self.version_base = 0
        self.first_seed: int | None = None  # create_room's seed, used by the first start
        self.creator = ""  # address it was created from (max_rooms_per_address, kept stored)
        self.closed = False
        self._opened: dict[int, float] = {}  # seat -> loop time its current decision opened
        self._handle: asyncio.TimerHandle | None = None
        self._rng = random.Random()
        self._frames: StateFrames | None = None  # the current version's state frames
        # The seat whose thinking bot is deciding in a worker process, if any, and how many
        # thoughts were asked for (only the newest one's answer counts).
        self._thinking: int | None = None
        self._thoughts = 0
        # the room's own events (timeout, away, bot) of the current game, each with the length
        # of the game's log when it was said: the history interleaves them as members saw them
        self._said: list[tuple[int, Event]] = []

    # ------------------------------------------------------------------ reading

    @property
    def config(self) -> ServerConfig:
        """The server settings."""
        return self.hub.config

    @property
    def version(self) -> int:
        """The state version: +1 per decision, rising across rematches."""
        return self.version_base + (len(self.game.decisions) if self.game else 0)

    def seat_of(self, player: str) -> Seat | None:
        """The seat ``player`` holds in this room (None for spectators and strangers)."""
        for seat in self.seats:
            if seat is not None and seat.player == player and not seat.left:
                return seat
        return None

    def humans(self) -> int:
        """Seats held by people."""
        return sum(1 for s in self.seats if s is not None and s.kind == "human")

    def filled(self) -> int:
        """Seats taken."""
        return sum(1 for s in self.seats if s is not None)

    def host_name(self) -> str | None:
        """The host's display name."""
        if self.host is None:
            return None
        seat = self.seat_of(self.host)
        return seat.name if seat else self.hub.player_name(self.host)

    def summary(self) -> Message:
        """The entry for ``rooms`` (list_rooms)."""
        spectators = sum(1 for role in self.members.values() if role == "spectator")
        return {
            "room": self.code,
            "edition": self.edition,
            "size": self.size,
            "filled": self.filled(),
            "humans": self.humans(),
            "bots": sum(1 for s in self.seats if s is not None and s.kind == "bot"),
            "status": str(self.status),
            "timer": self.timer,
            "variants": list(self.variants),
            "host": self.host_name(),
            "spectators": spectators,
        }

    def room_message(self) -> Message:
        """The ``room`` broadcast."""
        return {
            "type": "room",
            "room": self.code,
            "edition": self.edition,
            "size": self.size,
            "public": self.public,
            "timer": self.timer,
            "autostart": self.autostart,
            "variants": list(self.variants),
            "host": self.host,
            "status": str(self.status),
            "game": self.game_id,
            "seats": [
                None
                if s is None
                else s.to_wire(
                    s.kind == "bot"
                    or (s.player is not None and not s.left and self.hub.connected(s.player))
                )
                for s in self.seats
            ],
            "spectators": [
                {"player": p, "name": self.hub.player_name(p)}
                for p, role in self.members.items()
                if role == "spectator"
            ],
        }

    # ------------------------------------------------------------------ membership

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats if s is not None}
        if name not in taken:
            return name
        n = 2
        while f"{name} {n}" in taken:
            n += 1
        return f"{name} {n}"

    def join_player(self, player: str, name: str) -> int:
        """Seat ``player``; a player who left a running game gets their seat back."""
        if player in self.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {self.code}")
        if self.status != Status.WAITING:
            for seat in self.seats:
                if seat is not None and seat.player == player and seat.left:
                    seat.left = False
                    seat.timeouts = 0
                    self.members[player] = "player"
                    self._persist_seats()
                    self._adopt_host(player)
                    self._reschedule()
                    return seat.index
            raise ProtocolError(ErrorCode.GAME_STARTED, f"the game in {self.code} has begun")
        index = self._free_seat()
        self.seats[index] = Seat(index, "human", self._unique_name(name), player)
        self.members[player] = "player"
        self._adopt_host(player)
        return index

    def join_spectator(self, player: str) -> None:
        """Let ``player`` watch."""
        if player in self.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {self.code}")
        self.members[player] = "spectator"
        self._adopt_host(player)

    def _adopt_host(self, player: str) -> None:
        if self.host is None or self.host not in self.members:
            self.host = player

    def _free_seat(self) -> int:
        for index, seat in enumerate(self.seats):
            if seat is None:
                return index
        raise ProtocolError(ErrorCode.ROOM_FULL, f"room {self.code} has no free seat")

    def leave(self, player: str, announce: bool = True) -> None:
        """Remove ``player``; during a game (or after it) their seat is kept for a bot. Without
        ``announce`` the caller sends the ``room`` update (coalesced, see server.presence)."""
        if player not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.code}")
        del self.members[player]
        seat = self.seat_of(player)
        if seat is not None:
            if self.status == Status.WAITING:
                self.seats[seat.index] = None
            else:
                seat.left, seat.away = True, False
                self._persist_seats()
                if self.status == Status.PLAYING:
                    self._announce_events([self._seat_event("away", "away.left", seat.index)])
                    self._reschedule()
        if self.host == player:
            # The longest-present remaining member takes over (dicts keep join order).
            self.host = next(iter(self.members), None)
        if not self.members:
            self.close(abandon=True)
            self.hub.room_closed(self)
        elif announce:
            self.broadcast_room()

    def add_bot(self, level: str) -> int:
        """Fill the lowest free seat with a server bot."""
        if self.status != Status.WAITING:
            raise ProtocolError(ErrorCode.GAME_STARTED, "bots can only be added before the game")
        index = self._free_seat()
        taken = {s.name for s in self.seats if s is not None}
        n = 1
        while f"Bot {n}" in taken:
            n += 1
        self.seats[index] = Seat(index, "bot", f"Bot {n}", level=level)
        if level in pool.THINKING_LEVELS:
            pool.warm(self.config.bot_workers)
        return index

    def remove_bot(self, index: int) -> None:
        """Free a bot's seat."""
        if self.status != Status.WAITING:
            raise ProtocolError(ErrorCode.GAME_STARTED, "bots can only be removed before the game")
        seat = self.seats[index] if 0 <= index < self.size else None
        if seat is None or seat.kind != "bot":
            raise ProtocolError(ErrorCode.BAD_SEAT, f"seat {index} holds no bot")
        self.seats[index] = None

    def require_host(self, player: str) -> None:
        """Raise ``not_host`` unless ``player`` hosts the room."""
        if self.host != player:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host may do that")

    # ------------------------------------------------------------------ starting

    def can_autostart(self) -> bool:
        """True when the room should start on its own now."""
        return self.autostart and self.status == Status.WAITING and self.filled() == self.size

    def start(self, seed: int | None = None, ack: Ack = None) -> None:
        """Begin the game (host checks are the caller's). ``ack`` runs once the request is
        known to be valid, before anything is broadcast (the direct reply goes first)."""
        if self.status != Status.WAITING:
            raise ProtocolError(ErrorCode.GAME_STARTED, f"the game in {self.code} has begun")
        if self.filled() < self.size:
            raise ProtocolError(ErrorCode.SEATS_EMPTY, "every seat must be filled first")
        self._begin(seed, self.version_base, ack)

    def rematch(self, seed: int | None = None, ack: Ack = None) -> None:
        """Same seats, new seed; seats of people who left become bots."""
        if self.status != Status.OVER:
            raise ProtocolError(ErrorCode.NOT_OVER, "the game is not over")
        for seat in self.seats:  # harmless even if the rematch is then refused: they left
            if seat is not None and seat.left:
                seat.kind, seat.player, seat.left, seat.level = "bot", None, False, "basic"
            if seat is not None:
                seat.away, seat.timeouts = False, 0
        self._begin(seed, self.version + 1, ack)

    def _begin(self, seed: int | None, version_base: int, ack: Ack) -> None:
        """Record the new game, then acknowledge and start it. The record comes first so
        that a database refusing writes refuses the request before anything changes."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        seats = [s for s in self.seats if s is not None]
        names = [s.name for s in seats]
        try:
            game_id = self.hub.store.create_game(
                self.code,
                self.edition,
                names,
                [s.to_record() for s in seats],
                {
                    "public": self.public,
                    "timer": self.timer,
                    "autostart": self.autostart,
                    "creator": self.creator,
                    "variants": list(self.variants),
                },
                seed,
                version_base,
            )
        except StoreUnavailable as exc:
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE, "the server cannot record new games right now"
            ) from exc
        if ack:
            ack()
        self.game_id = game_id
        self.version_base = version_base
        self.game = Game(self.edition, names, seed, variants=self.variants)
        self._thinking = None  # a thought still out is for the game before
        self._said = []
        self._rng = random.Random(seed ^ 0x5E1F)
        self.status = Status.PLAYING
        log.info(
            "room %s: game %d started (%s, %s)",
            self.code,
            self.game_id,
            self.edition,
            ", ".join(names),
        )
        self._track_opened(None)
        self.broadcast_room()
        for player in list(self.members):
            self.send_game(player)
        self._reschedule()

    @classmethod
    def restore(cls, hub: Hub, stored: StoredGame) -> Room:
        """Rebuild a room around an unfinished stored game (after a server restart)."""
        settings = stored.settings
        room = cls(
            hub,
            stored.room,
            stored.edition,
            len(stored.names),
            public=bool(settings.get("public", True)),
            timer=int(settings.get("timer", 0)),
            autostart=bool(settings.get("autostart", False)),
            variants=tuple(stored.variants),
        )
        room.seats = [Seat.from_record(i, rec) for i, rec in enumerate(stored.seats)]
        room.game = rebuild(
            stored.edition, stored.names, stored.seed, stored.decisions, stored.variants
        )
        room.game_id = stored.id
        room.version_base = stored.version_base
        room.status = Status.PLAYING
        room._rng = random.Random(stored.seed ^ len(stored.decisions))
        names = [seat.name if seat else "" for seat in room.seats]
        said = ((position, _event(record, names)) for position, record in stored.events)
        # a record that does not decode is left out of the history, not a reason to stop
        room._said = [(position, event) for position, event in said if event is not None]
        for seat in room.seats:
            if seat is not None and seat.kind == "human" and seat.player and not seat.left:
                room.members[seat.player] = "player"
        room.host = next(iter(room.members), None)
        return room

    # ------------------------------------------------------------------ playing

    def act(self, player: str, version: int, choice: Message, ack: Ack = None) -> None:
        """Apply a person's decision, after every check of PROTOCOL.md's ``act``."""
        if player not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.code}")
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "spectators cannot act")
        if self.game is None or self.status == Status.WAITING:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        if self.game.over:
            raise ProtocolError(ErrorCode.GAME_OVER, "the game is over")
        if version != self.version and not self._same_simultaneous_decision(version):
            raise ProtocolError(
                ErrorCode.STALE_VERSION, f"version {version} is stale; current is {self.version}"
            )
        if not self.game.legal(seat.index):
            raise ProtocolError(ErrorCode.NOT_YOUR_TURN, "you have nothing to decide now")
        legal = self._legal(seat.index)
        # equal as msgpack values, types included: {"card": 48.0} or {"target": true} is not
        # the legal {"card": 48} or {"target": 1}. Python's == finds the candidate cheaply; a
        # tuple in an option (a list once decoded) needs the full comparison.
        match = next((o for o in legal if o == choice and identical(o, choice)), None)
        if match is None:
            match = next((o for o in legal if identical(o, choice)), None)
        if match is None:
            raise ProtocolError(ErrorCode.ILLEGAL_CHOICE, "that choice is not in view.legal")
        if ack:
            ack()
        extra: list[Event] = []
        seat.timeouts = 0
        if seat.away:
            seat.away = False
            extra.append(self._seat_event("away", "away.back", seat.index))
        self._apply(seat.index, match, "human", extra)
        if extra:
            self.broadcast_room()

    def _same_simultaneous_decision(self, version: int) -> bool:
        """Whether ``version`` lies within the simultaneous decision still open.

        Other seats' picks bump the version but change nothing a seat chooses from, so a pick
        raced by another seat's pick is still good; refusing it would make people pick twice.
        """
        assert self.game is not None
        decision = self.game.decision
        if decision is None or not decision.simultaneous:
            return False
        picked = len(decision.options) - len(self.game.pending_seats())
        return self.version - picked <= version < self.version

    def back(self, player: str) -> None:
        """Clear the caller's away mark."""
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "only seated players can be away")
        seat.timeouts = 0
        if seat.away:
            seat.away = False
            self._announce_events([self._seat_event("away", "away.back", seat.index)])
            self.broadcast_room()
            self._reschedule()

    def _apply(self, index: int, choice: Message, by: str, extra: list[Event]) -> None:
        """Engine, then store commit, then messages: a state is never sent before it is stored."""
        game = self.game
        assert game is not None and self.game_id is not None
        position = len(game.log)
        events = game.apply(index, choice)
        self._record(extra, position)
        recorded = game.decisions[-1][1]
        self.hub.store.append_decision(self.game_id, len(game.decisions) - 1, index, recorded, by)
        self._track_opened(index)
        self._broadcast_change(extra + events)
        if game.over:
            self._finish()
        else:
            self._reschedule()

    def _finish(self) -> None:
        game = self.game
        assert game is not None and self.game_id is not None
        self.status = Status.OVER
        self._cancel()
        self.hub.store.finish_game(self.game_id, "over", game.winner, game.turn)
        winner_name = None if game.winner is None else game.names[game.winner]
        log.info(
            "room %s: game %d over, winner %s after %d turns",
            self.code,
            self.game_id,
            winner_name or "none",
            game.turn,
        )
        over = {
            "type": "game_over",
            "room": self.code,
            "game": self.game_id,
            "winner": game.winner,
            "winner_name": winner_name,
            "turns": game.turn,
        }
        for player in self.members:
            self.hub.send(player, over)
        self.broadcast_room()

    # ------------------------------------------------------------------ messages out

    def _recipient_seat(self, player: str) -> int | None:
        seat = self.seat_of(player)
        return None if seat is None else seat.index

    def _events_for(self, events: Iterable[Event], seat: int | None) -> list[Message]:
        out = []
        for event in events:
            wire = event.as_dict(seat)
            if wire is not None:
                out.append(wire)
        return out

    def _seat_event(
        self, kind: str, key: str, index: int, to: tuple[int, ...] | None = None, **args: Any
    ) -> Event:
        """An event of the room about seat ``index`` (english.EVENT_TEXTS ``away.*``, ``bot``,
        ``timeout``); with ``to``, the others see it without the choice."""
        names = [seat.name if seat else "" for seat in self.seats]
        args["player"] = index
        secret = ("label", "choice") if to is not None else ()
        return Event(kind, key, args, names, index, to, secret)

    def _state_frames(self) -> StateFrames:
        """The state frames of the current version: the view's shared part is built and
        encoded once per change, however many members receive it."""
        assert self.game is not None
        frames = self._frames
        if frames is None or frames.game is not self.game or frames.version != self.version:
            frames = self._frames = StateFrames(self.game, self.code, self.version, frames)
        return frames

    def _legal(self, seat: int) -> list[Message]:
        """``view.legal`` of ``seat`` as last sent (the view is not rebuilt to check an act)."""
        assert self.game is not None
        frames = self._state_frames()
        legal = frames.legal.get(seat)
        return legal if legal is not None else self.game.seat_view(seat)["legal"]

    def _broadcast_change(self, events: list[Event]) -> None:
        timer = self.timer_message()
        tail = b"" if timer is None else encode(timer)
        frames = self._state_frames()
        # Every member reads the events alike except the seats some of them are addressed to:
        # the events frame is encoded once for all the others.
        private: set[int] = set()
        for event in events:
            if event.to is not None:
                private.update(event.to)
        public = self._events_frame(events, None) if events else b""
        seats: dict[str, int] = {}
        for seat in self.seats:
            if seat is not None and seat.player is not None and not seat.left:
                seats.setdefault(seat.player, seat.index)  # as seat_of: the first one
        connection = self.hub.connection
        for player in self.members:
            conn = connection(player)
            if conn is None:
                continue
            index = seats.get(player)
            head = public if index not in private else self._events_frame(events, index)
            # events first, then the state, then the timer; the pieces are not joined: the shared
            # part of the state goes to every member, and a frame is a few kilobytes
            conn.send_parts((head, *frames.frame_parts(index), tail))

    def _events_frame(self, events: list[Event], seat: int | None) -> bytes:
        """The ``events`` frame of ``events`` as ``seat`` may read them; b"" if it sees none."""
        wire = self._events_for(events, seat)
        if not wire:
            return b""
        return encode({"type": "events", "room": self.code, "history": False, "events": wire})

    def _record(self, events: list[Event], position: int | None = None) -> None:
        """Keep (and store) the room's own ``events``, said before line ``position`` of the
        game's log (default: the next line)."""
        if self.game is None or self.game_id is None:
            return
        if position is None:
            position = len(self.game.log)
        for event in events:
            self._said.append((position, event))
            record = {
                "kind": event.kind,
                "key": event.key,
                "args": event.args,
                "seat": event.seat,
                "to": event.to,
                "secret": event.secret,
            }
            self.hub.store.append_event(self.game_id, position, record)

    def _history(self) -> list[Event]:
        """The game's log with the room's own events where members received them live."""
        assert self.game is not None
        out: list[Event] = []
        said = iter(self._said)
        pending = next(said, None)
        for index, event in enumerate(self.game.log):
            while pending is not None and pending[0] <= index:
                out.append(pending[1])
                pending = next(said, None)
            out.append(event)
        while pending is not None:
            out.append(pending[1])
            pending = next(said, None)
        return out

    def _announce_events(self, events: list[Event]) -> None:
        self._record(events)
        for player in self.members:
            wire = self._events_for(events, self._recipient_seat(player))
            if wire:
                self.hub.send(
                    player, {"type": "events", "room": self.code, "history": False, "events": wire}
                )

    def broadcast_room(self) -> None:
        """Send the ``room`` message to every member."""
        message = encode(self.room_message())  # the same bytes for every member
        for player in self.members:
            self.hub.send_frame(player, message)

    def send_game(self, player: str) -> None:
        """Send a (re)joining member the log so far, the state and the timer."""
        if self.game is None or not self.hub.connected(player):
            return
        seat = self._recipient_seat(player)
        history = self._events_for(self._history(), seat)[-self.config.history_events :]
        self.hub.send(
            player, {"type": "events", "room": self.code, "history": True, "events": history}
        )
        self.hub.send_frame(player, self._state_frames().frame(seat))
        timer = self.timer_message()
        if timer is not None and self.status == Status.PLAYING:
            self.hub.send(player, timer)

    def timer_message(self) -> Message | None:
        """The ``timer`` message for the current decision, if the room shows timers."""
        if self.status != Status.PLAYING:
            return None
        if not self.timer and not any(s is not None and s.away for s in self.seats):
            return None
        now = asyncio.get_running_loop().time()
        timers = []
        for index in sorted(self._opened):
            seat = self.seats[index]
            due = self._due(index)
            if seat is None or seat.automated or due is None:
                continue
            timers.append(
                {"seat": index, "seconds": round(max(0.0, due - now), 2), "away": seat.away}
            )
        return {"type": "timer", "room": self.code, "version": self.version, "timers": timers}

    def _persist_seats(self) -> None:
        if self.game_id is not None and self.status == Status.PLAYING:
            seats = [s.to_record() for s in self.seats if s is not None]
            self.hub.store.update_seats(self.game_id, seats)

    # ------------------------------------------------------------------ timers and bots

    def _needing(self) -> list[int]:
        game = self.game
        if game is None or game.over:
            return []
        return [s for s in game.pending_seats() if game.legal(s)]

    def _track_opened(self, actor: int | None) -> None:
        """Open a clock for every seat that newly has to decide (or that just decided and must
        decide again); a seat still waiting in a simultaneous decision keeps its clock."""
        now = asyncio.get_running_loop().time()
        opened = {}
        for seat in self._needing():
            if seat == actor or seat not in self._opened:
                opened[seat] = now
            else:
                opened[seat] = self._opened[seat]
        self._opened = opened

    def _due(self, index: int) -> float | None:
        opened = self._opened.get(index)
        seat = self.seats[index]
        if opened is None or seat is None:
            return None
        if seat.automated:
            return opened + self.config.bot_delay
        if seat.away:
            return opened + self.config.away_delay
        if self.timer:
            return opened + self.timer * self.config.timer_scale
        return None

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _reschedule(self) -> None:
        self._cancel()
        if self.status != Status.PLAYING or self.closed:
            return
        dues = [
            d for d in (self._due(s) for s in self._opened if s != self._thinking) if d is not None
        ]
        if dues:
            self._handle = asyncio.get_running_loop().call_at(min(dues), self._fire)

    def resume(self) -> None:
        """Start the clocks (after :meth:`restore`, once the loop runs)."""
        self._track_opened(None)
        self._reschedule()

    def _fire(self) -> None:
        """The earliest deadline has come: the server decides for that seat."""
        self._handle = None
        try:
            self._decide_for_due_seat()
        except Exception:  # never let one room's failure reach the event loop
            log.exception("room %s: automatic decision failed; the room is stalled", self.code)

    def _decide_for_due_seat(self) -> None:
        game = self.game
        if game is None or game.over or self.status != Status.PLAYING:
            return
        now = asyncio.get_running_loop().time()
        due = {
            s: d for s in self._opened if s != self._thinking and (d := self._due(s)) is not None
        }
        if not due:
            return
        index = min(due, key=lambda s: (due[s], s))
        if due[index] > now + 0.001:
            self._reschedule()
            return
        if not self.hub.store.writable:
            # The decision could not be recorded: wait for the database like the players do.
            loop = asyncio.get_running_loop()
            self._handle = loop.call_at(now + self.config.store_retry, self._fire)
            return
        seat = self.seats[index]
        assert seat is not None
        view = game.view(index)
        level = seat.level if seat.kind == "bot" else "basic"
        if level in pool.THINKING_LEVELS:
            self._think(index, level, view)
            return
        try:
            choice = choose(level, view, self._rng)
        except Exception:  # a bot bug must not stall the table: fall back to a safe choice
            log.exception(
                "room %s: bot failed for seat %d; taking a plain choice", self.code, index
            )
            choice = _plain_choice(view)
        self._commit_bot_choice(index, seat, choice)

    def _think(self, index: int, level: str, view: Message) -> None:
        """Let a worker process decide for the seat; the choice is applied when it comes, if
        the game still waits for it then."""
        game = self.game
        assert game is not None
        self._thinking = index
        self._thoughts += 1
        token = self._thoughts
        config = self.config
        budget = Budget(DEFAULT_BUDGET.rollouts, config.expert_seconds)
        future = pool.think(level, view, self._rng.getrandbits(64), config.bot_workers, budget)
        loop = asyncio.get_running_loop()
        decided = len(game.decisions)

        def arrived(done: Future[Message]) -> None:
            # In the pool's thread; a loop that has closed meanwhile (server stopped) has no
            # table left to tell.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._thought, token, game, decided, index, view, done)

        future.add_done_callback(arrived)

    def _thought(
        self,
        token: int,
        game: Game,
        decided: int,
        index: int,
        view: Message,
        done: Future[Message],
    ) -> None:
        """A worker's choice has come: apply it unless the game has moved on meanwhile."""
        if token != self._thoughts:
            return  # an older thought: the newest one decides
        self._thinking = None
        seat = self.seats[index]
        current = (
            self.game is game
            and not self.closed
            and self.status == Status.PLAYING
            and len(game.decisions) == decided
            and seat is not None
        )
        if not current:
            self._reschedule()
            return
        assert seat is not None
        try:
            choice = done.result()
        except Exception:  # a worker that failed or died must not stall the table
            log.exception(
                "room %s: bot failed for seat %d; taking a plain choice", self.code, index
            )
            choice = _plain_choice(view)
        try:
            self._commit_bot_choice(index, seat, choice)
        except Exception:  # never let one room's failure reach the event loop
            log.exception("room %s: automatic decision failed; the room is stalled", self.code)

    def _commit_bot_choice(self, index: int, seat: Seat, choice: Message) -> None:
        """Apply the choice a bot made for ``seat`` (its own, or an away or late human's)."""
        label = str(choice.get("label", choice.get("do")))
        extra: list[Event] = []
        by = "bot"
        if not seat.automated and seat.away:
            by = "away"
            extra.append(
                self._seat_event("bot", "bot", index, (index,), label=label, choice=strip(choice))
            )
        elif not seat.automated:
            by = "timeout"
            seat.timeouts += 1
            extra.append(
                self._seat_event(
                    "timeout", "timeout", index, (index,), label=label, choice=strip(choice)
                )
            )
            if seat.timeouts >= self.config.away_after:
                seat.away = True
                extra.append(self._seat_event("away", "away.idle", index))
        try:
            self._apply(index, choice, by, extra)
        except EngineError:
            log.exception("room %s: bot choice %r refused by the engine", self.code, choice)
            return
        if by == "timeout" and seat.away:
            self.broadcast_room()

    # ------------------------------------------------------------------ closing

    def close(self, abandon: bool) -> None:
        """Stop the clocks; with ``abandon`` an unfinished game is recorded as abandoned."""
        self._cancel()
        self._thinking = None
        self.closed = True
        if abandon and self.status == Status.PLAYING and self.game and self.game_id is not None:
            self.hub.store.finish_game(self.game_id, "abandoned", None, self.game.turn)
            log.info("room %s: game %d abandoned", self.code, self.game_id)


def _plain_choice(view: Message) -> Message:
    """The first choice that is not fatal: what a seat gets when its bot fails."""
    legal: list[Message] = view["legal"]
    return next((c for c in legal if not c.get("fatal")), legal[0])
