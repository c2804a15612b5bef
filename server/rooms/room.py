"""A room: its members (seated humans and spectators), its lifecycle and the acts of its game.

Its parts live beside it: seats (``server.rooms.seats``), statuses and what each allows
(``server.rooms.status``), the turn clock (``server.rooms.clock``), the graces before a missing
player's bot takes over (``server.rooms.grace``) and who is here to play
(``server.rooms.attendance``), the server's own decisions (``server.rooms.autoplay``), its own
log lines (``server.store.history``), spectators (``server.rooms.spectators``), the messages out
(``server.rooms.outgoing``), what the room says of its own (``server.rooms.announcements``) and
what it writes of its own (``server.rooms.persistence``). A request either raises
:class:`ProtocolError` before changing anything, or applies completely (engine, store,
messages).
"""

from __future__ import annotations

import functools
import logging
import random
from collections.abc import Callable
from typing import Any, Protocol

from protocol.confusables import looks_like
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import IDLE_GRACE, LEFT_GRACE
from protocol.server_messages import RoomMessage, RoomSummary
from server.bots import pool
from server.config import ServerConfig
from server.engine import EngineError, Event, Game, digest
from server.rooms import outgoing
from server.rooms.announcements import Announcements
from server.rooms.attendance import Attendance
from server.rooms.autoplay import Autoplay
from server.rooms.clock import TurnClock
from server.rooms.grace import Absences
from server.rooms.persistence import Persistence
from server.rooms.room_list import pack_entry
from server.rooms.scheduler import Scheduler
from server.rooms.seats import Seat, Seats
from server.rooms.spectators import PLAYER, SPECTATOR, Spectators
from server.rooms.status import Status as Status  # re-exported: the lobby and others import it here
from server.rooms.status import Step, check, check_version
from server.store.history import History
from server.store.store import Store
from server.store.tally import Change

log = logging.getLogger("selfish.server")

Message = dict[str, Any]
Ack = Callable[[], None] | None


class Hub(Protocol):
    """What a room needs from the lobby around it."""

    config: ServerConfig
    store: Store
    scheduler: Scheduler

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""

    def connection(self, player: str) -> outgoing.Outlet | None:
        """The player's live connection, if any."""

    def player_name(self, player: str) -> str:
        """A player's current display name."""

    def room_closed(self, room: Room) -> None:
        """Forget a room whose last member left."""


class Room(Attendance, Announcements, Persistence):
    """A table: seats, members, the current game. Its presence handling is
    :class:`~server.rooms.attendance.Attendance`'s, its own messages out
    :class:`~server.rooms.announcements.Announcements`' and its own writes
    :class:`~server.rooms.persistence.Persistence`'."""

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
        left_grace: int = LEFT_GRACE,
        idle_grace: int = IDLE_GRACE,
    ) -> None:
        self.hub: Hub = hub
        self.config: ServerConfig = hub.config
        self.store: Store = hub.store  # where the room's games are recorded
        self.code = code
        self.edition = edition
        self.size = size
        self.public = public
        self.timer = timer
        self.left_grace = left_grace  # seconds before a disconnected player's bot takes over
        self.idle_grace = idle_grace  # seconds a connected player's decision may wait
        self.autostart = autostart
        self.variants = variants  # rule ids of RULES V, checked by the lobby
        self.table = Seats(size)
        self.members: dict[str, str] = {}  # player id -> PLAYER | SPECTATOR, in join order
        self.host: str | None = None  # always a seated human, or None
        self.status = Status.WAITING
        self.game: Game | None = None
        self.game_id: int | None = None
        self.version_base = 0
        self.first_seed: int | None = None  # create_room's seed, used by the first start
        self.creator = ""  # address it was created from (max_rooms_per_address, kept stored)
        self.closed = False
        # the game whose records and ratings are being committed, before its game over is
        # announced (Store.finish_game); None otherwise
        self.counting: int | None = None
        now = hub.scheduler.time()
        # since when no game runs here, and when a seated person last sent anything about the
        # room (server.rooms.idle_rooms closes rooms nobody plays in)
        self.idle_since = now
        self.active_at = now
        self._packed_summary = None
        self.autoplay = Autoplay(self)
        self.clock = TurnClock(
            hub.scheduler,
            hub.config,
            timer,
            lambda: self.table,
            self.autoplay.due,
            idle=idle_grace,
            connected=hub.connected,
            on_notice=self._countdowns_changed,
        )
        self.absences = Absences(
            hub.scheduler, left_grace * hub.config.timer_scale, self._absent_too_long
        )
        self.history = History()
        self.out = outgoing.Broadcaster(self)
        self.watchers = Spectators(self)

    # ------------------------------------------------------------------ reading

    @property
    def version(self) -> int:
        """The state version: +1 per decision, rising across rematches."""
        return self.version_base + (len(self.game.decisions) if self.game else 0)

    def seat_of(self, player: str) -> Seat | None:
        """The seat ``player`` holds in this room (None for spectators and strangers)."""
        return self.table.of(player)

    def playing(self) -> bool:
        """Whether a game runs in the open room."""
        return self.status is Status.PLAYING and not self.closed

    def summary(self) -> RoomSummary:
        """The entry for ``rooms`` (list_rooms)."""
        return outgoing.room_summary(self)

    def packed_summary(self) -> bytes:
        """:meth:`summary`, packed once per change (server.rooms.room_list)."""
        if self._packed_summary is None:
            self._packed_summary = pack_entry(self.summary().to_wire())
        return self._packed_summary

    def room_message(self) -> RoomMessage:
        """The ``room`` broadcast."""
        return outgoing.room_message(self)

    # ------------------------------------------------------------------ membership

    def join_player(self, player: str, name: str) -> int:
        """Seat ``player``; a player who left a running game gets their seat back."""
        if player in self.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {self.code}")
        if self.status is not Status.WAITING:
            seat = self.table.left_by(player)
            if seat is None:
                check(self.status, Step.TAKE_SEAT, self.code)
            assert seat is not None
            seat.rejoin()
            self.members[player] = PLAYER
            self._persist_seats()
            self._adopt_host(player)
            self.presence_changed()
            return seat.index
        self.check_name(name)
        seat = self.table.seat_human(self.table.free(self.code), name, player)
        self.members[player] = PLAYER
        self._adopt_host(player)
        self.save_waiting()
        return seat.index

    def join_spectator(self, player: str, name: str) -> None:
        """Let ``player`` watch under ``name`` (a spectator never hosts)."""
        if player in self.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {self.code}")
        self.check_name(name)
        self.members[player] = SPECTATOR
        self.watchers.persist()
        self.save_waiting()
        self.presence_changed()

    def check_name(self, name: str) -> None:
        """Raise ``bad_name`` if ``name`` looks like, without being, the name of a seat here
        (a person or a bot: "Bot 1" or "Ann" with a Cyrillic o or A). The very same name is no
        disguise: the seat numbers it ("Ann 2")."""
        for seat in self.table:
            if seat.name != name and looks_like(name, seat.name):
                raise ProtocolError(
                    ErrorCode.BAD_NAME,
                    f"your name looks like the name of seat {seat.index + 1} in room "
                    f"{self.code}; choose another name to join it",
                )

    def _adopt_host(self, player: str) -> None:
        self.host = player if self.host is None or self.host not in self.members else self.host

    def next_host(self) -> str | None:
        """The longest-present seated human (dicts keep join order); None leaves the bots of
        the room playing without a host."""
        return next((p for p in self.members if self.seat_of(p) is not None), None)

    def leave(self, player: str, announce: bool = True) -> None:
        """Remove ``player``; during a game (or after it) their seat is kept for a bot. Without
        ``announce`` the caller sends the ``room`` update (coalesced, see server.rooms.presence)."""
        if player not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.code}")
        if self.closed:  # the server is stopping: what it keeps stored stays as it is
            del self.members[player]
            return
        role = self.members.pop(player)
        seat = self.seat_of(player)
        if seat is not None:
            if self.status is Status.WAITING:
                self.table.free_seat(seat.index)
            else:
                seat.leave()
                self._persist_seats()
                if self.status is Status.PLAYING:
                    self._announce([self.seat_event("away", "away.left", seat.index)])
        elif role == SPECTATOR:
            self.watchers.persist()
        if self.host == player:
            self.host = self.next_host()
        if not self.members:
            self.close(abandon=True)
            self.hub.room_closed(self)
            return
        self.save_waiting()
        self.presence_changed()
        if announce:
            self.broadcast_room()

    def add_bot(self, level: str) -> int:
        """Fill the lowest free seat with a server bot."""
        check(self.status, Step.ADD_BOT, self.code)
        seat = self.table.seat_bot(self.table.free(self.code), level)
        if level in pool.THINKING_LEVELS:
            pool.warm(self.config.bot_workers)
        self.save_waiting()
        return seat.index

    def remove_bot(self, index: int) -> None:
        """Free a bot's seat."""
        check(self.status, Step.REMOVE_BOT, self.code)
        self.table.remove_bot(index)
        self.save_waiting()

    def require_host(self, player: str) -> None:
        """Raise ``not_host`` unless ``player`` hosts the room."""
        if self.host != player:
            raise ProtocolError(ErrorCode.NOT_HOST, "only the host may do that")

    def chat(self, player: str, name: str, text: str) -> None:
        """Send a member's chat line (a spectator's, during a game, see server.rooms.spectators)."""
        seat = self.seat_of(player)
        if seat is None:
            self.watchers.chat(outgoing.chat_message(self.code, player, name, None, text))
        else:
            self.out.to_all(outgoing.chat_message(self.code, player, seat.name, seat.index, text))

    # ------------------------------------------------------------------ starting

    def can_autostart(self) -> bool:
        """True when the room should start on its own now."""
        return self.autostart and self.status is Status.WAITING and self.table.filled() == self.size

    def start(self, seed: int | None = None, ack: Ack = None) -> None:
        """Begin the game (host checks are the caller's). ``ack`` runs once the request is
        known to be valid, before anything is broadcast (the direct reply goes first)."""
        check(self.status, Step.START, self.code)
        if self.table.filled() < self.size:
            raise ProtocolError(ErrorCode.SEATS_EMPTY, "every seat must be filled first")
        self._begin(seed, self.version_base, ack)
        # in the commit that records the game: after a crash the room comes back as one of
        # the two, never both
        self.store.forget_waiting_room(self.code)

    def rematch(self, seed: int | None = None, ack: Ack = None) -> None:
        """Same seats, new seed; seats of people who left become bots."""
        check(self.status, Step.REMATCH, self.code)
        if self.counting is not None:  # the game over is not announced yet
            raise ProtocolError(ErrorCode.NOT_OVER, "the game's result is still being recorded")
        for seat in self.table:  # harmless even if the rematch is then refused: they left
            if seat.left:
                seat.to_bot()
            seat.reset()
        self._begin(seed, self.version + 1, ack)

    def _begin(self, seed: int | None, version_base: int, ack: Ack) -> None:
        """Record the new game, then acknowledge and start it. The record comes first so
        that a database refusing writes refuses the request before anything changes."""
        seeded = seed is not None  # a chosen seed makes the game unrated (server.store.ratings)
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        game_id = self._record_game(seed, version_base, seeded)
        if ack:
            ack()
        self.game_id = game_id
        self.version_base = version_base
        names = [seat.name for seat in self.table]
        self.game = Game(self.edition, names, seed, variants=self.variants)
        self.autoplay.forget()
        self.autoplay.rng = random.Random(seed ^ 0x5E1F)
        self.history.clear()
        self.status = Status.PLAYING
        self.watchers.game_began()
        log.info("room %s: game %d started (%s, %s)", self.code, game_id, self.edition, names)
        self.clock.track(self.game, None)
        self._count_absences()
        self.broadcast_room()
        for player in list(self.members):
            self.send_game(player)
        self.clock.schedule()

    # ------------------------------------------------------------------ playing

    def act(self, player: str, version: int, choice: int, ack: Ack = None) -> None:
        """Apply a person's decision, choice number ``choice`` of their legal ones: the room
        checks who and when, the engine what."""
        if player not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.code}")
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "spectators cannot act")
        check(self.status, Step.ACT, self.code)
        game = self.game
        assert game is not None
        check_version(game, self.version, version)
        position = len(game.log)
        try:
            events = game.choose(seat.index, choice)
        except EngineError as exc:
            raise outgoing.engine_refusal(exc) from exc
        if ack:
            ack()
        back = seat.acted()
        extra = [self.seat_event("away", "away.back", seat.index)] if back else []
        self._decided(seat.index, "human", extra, events, position)
        if back:
            self.broadcast_room()

    def back(self, player: str) -> None:
        """Clear the caller's away mark (and the count of timeouts in a row)."""
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "only seated players can be away")
        if seat.acted():
            self._announce([self.seat_event("away", "away.back", seat.index)])
            self.broadcast_room()
            self.clock.schedule()

    def apply(self, index: int, choice: Message, by: str, extra: list[Event]) -> None:
        """Apply a decision the server made for seat ``index`` (raises EngineError)."""
        game = self.game
        assert game is not None
        position = len(game.log)
        events = game.apply(index, choice)
        self._decided(index, by, extra, events, position)

    def _decided(
        self, index: int, by: str, extra: list[Event], events: list[Event], position: int
    ) -> None:
        """After the engine took a decision: store, then messages (a state is never sent
        before it is stored), then the clock."""
        game = self.game
        assert game is not None and self.game_id is not None
        self.history.record(self.store, self.game_id, position, extra)
        recorded = game.decisions[-1][1]
        self.store.append_decision(self.game_id, len(game.decisions) - 1, index, recorded, by)
        self.clock.track(self.game, index)
        self.out.change(extra + events)
        if game.over:
            self._finish()
        else:
            self.clock.schedule()

    def _finish(self) -> None:
        """The game ended: record it, and announce it once its records and ratings are
        committed (at once on SQLite; on PostgreSQL they are counted in the commit, off the
        event loop, and the rematch waits for them: ``Store.finish_game``)."""
        game = self.game
        assert game is not None and self.game_id is not None
        self.status = Status.OVER
        self.idle_since = self.hub.scheduler.time()
        self.clock.stop()
        self.absences.stop()
        self.counting = self.game_id
        then = functools.partial(self._game_over, self.game_id, game)
        self.store.finish_game(self.game_id, "over", game.winner, game.turn, digest(game), then)

    def _game_over(self, game_id: int, game: Game, changes: list[Change] | None) -> None:
        """Say that game ``game_id`` (``game``) is over, with its rating ``changes`` (None:
        not counted now, see ``Store.finish_game``), unless the room is gone meanwhile."""
        self.counting = None
        if self.closed:  # dropped (its lease lost) or closed: nobody is told
            return
        winner = None if game.winner is None else game.names[game.winner]
        log.info("room %s: game %d over, winner %s", self.code, game_id, winner or "none")
        ratings = tuple(change.to_wire() for change in changes or ())
        over = outgoing.game_over_message(
            self.code, game_id, game.winner, winner, game.turn, ratings
        )
        self.out.to_all(over)
        self.watchers.game_ended(game_id)
        self.broadcast_room()

    def resume(self) -> None:
        """Start the clocks (after :meth:`restore`, or once the database takes writes again)."""
        self.clock.track(self.game, None)
        self._count_absences()
        self.clock.schedule()

    # ------------------------------------------------------------------ closing

    def close(self, abandon: bool) -> None:
        """Stop the clocks; with ``abandon`` an unfinished game is recorded as abandoned."""
        self.clock.stop()
        self.absences.stop()
        self.autoplay.forget()
        self.watchers.cancel()
        self.closed = True
        if abandon and self.status is Status.WAITING:
            self.store.forget_waiting_room(self.code)
        if abandon and self.status is Status.PLAYING and self.game and self.game_id is not None:
            self.store.finish_game(self.game_id, "abandoned", None, self.game.turn)
            self.store.save_spectators(self.game_id, [])
            self.store.release_chat(self.game_id)
            log.info("room %s: game %d abandoned", self.code, self.game_id)
