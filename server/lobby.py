"""The lobby: identities, rooms by code, and the dispatch of every request after ``hello``.

The lobby is transport-agnostic: it talks to connections through the small :class:`Connection`
protocol (``server.session.Session`` implements it over TCP), so tests could drive it directly.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    PRIVATE_ROOM_CODE_LENGTH,
    ROOM_CODE_LENGTH,
    Act,
    AddBot,
    Back,
    Chat,
    CreateRoom,
    GetReplay,
    Hello,
    JoinRoom,
    LeaveRoom,
    ListReplays,
    ListRooms,
    Ping,
    Rematch,
    RemoveBot,
    Request,
    Start,
    Sync,
    check_chat,
    reply,
    welcome,
)
from server.config import ServerConfig
from server.engine import CATALOGUE, Edition, check_variants
from server.errorlog import ErrorLog
from server.memory import release_free_memory
from server.outgoing import bye_message
from server.presence import PresenceBroadcasts
from server.ratelimit import Limits
from server.restore import restore_room
from server.retention import Retention
from server.room import Room, Status
from server.scheduler import Handle, Scheduler
from server.store import Store, token_hash
from server.vacancy import Vacancy
from server.wire import encode

log = logging.getLogger("selfish.server")

# The direct reply to a request without an id, encoded once.
_OK_FRAME = encode(reply("ok", None))

# Requests that need a database write: refused while the store refuses writes.
_WRITES: tuple[type[Request], ...] = (CreateRoom, Start, Rematch, Act)

Message = dict[str, Any]


class Connection(Protocol):
    """What the lobby needs from a client connection."""

    peer: str
    address: str  # the client's IP address

    def send(self, message: Message) -> None:
        """Queue a message to the client."""

    def send_frame(self, data: bytes) -> None:
        """Queue an already encoded frame (see protocol.codec.encode) to the client."""

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue already encoded frames, given in pieces that are written as they are."""

    def close_after(self, message: Message) -> None:
        """Send ``message`` and then close the connection."""


@dataclass
class Player:
    """An identity: survives reconnects (by token) and, through the store, restarts."""

    id: str
    token: str  # token_hash() of its token: the token itself is known only to the client
    name: str
    connection: Connection | None = None
    rooms: list[str] = field(default_factory=list)  # codes, in join order


def server_version(announce: bool = True) -> str:
    """``selfish-server <package version>``; without ``announce`` only ``selfish-server``: a
    version banner tells an attacker which known bugs to try."""
    if not announce:
        return "selfish-server"
    try:
        from importlib.metadata import version

        return f"selfish-server {version('selfish-tui')}"
    except Exception:  # not installed (running from a checkout)
        return "selfish-server 0.1.0"


class Lobby:
    """All players and rooms of one server."""

    def __init__(
        self, config: ServerConfig, store: Store, scheduler: Scheduler | None = None
    ) -> None:
        self.config = config
        self.store = store
        # The event loop unless a test brings its own clock.
        self.scheduler: Scheduler = scheduler or asyncio.get_running_loop()
        self.limits = Limits.from_config(config, self.scheduler.time)
        self.errors = ErrorLog(config.error_log_per_minute, self.scheduler.time)
        self.vacancy = Vacancy(config, self, self.scheduler, self._close_vacant)
        self.presence = PresenceBroadcasts(config.room_broadcast_interval, self.scheduler)
        self.retention = Retention(config, store, self)
        self._maintenance: Handle | None = None
        self._swept = 0.0
        self.players: dict[str, Player] = {}
        self.by_token: dict[str, Player] = {}
        self.rooms: dict[str, Room] = {}
        self._created_from: dict[Room, str] = {}  # open room -> address of its creator
        self.rooms_by_address: Counter[str] = Counter()  # open rooms created per address
        self.version = server_version(config.announce_version)
        # request type -> its handler (bound: a compiled build cannot keep methods in a class
        # attribute)
        self._handlers: dict[type[Request], Callable[[Connection, Player, Any], None]] = {
            Ping: self._ping,
            ListRooms: self._list_rooms,
            CreateRoom: self._create,
            JoinRoom: self._join,
            LeaveRoom: self._leave,
            AddBot: self._add_bot,
            RemoveBot: self._remove_bot,
            Start: self._start,
            Act: self._act,
            Chat: self._chat,
            Rematch: self._rematch,
            Back: self._back,
            Sync: self._sync,
            ListReplays: self._list_replays,
            GetReplay: self._get_replay,
        }

    # ------------------------------------------------------------------ Hub (for rooms)

    def send(self, player: str, message: Message) -> None:
        """Send to a player's live connection; nothing if they are away."""
        p = self.players.get(player)
        if p is not None and p.connection is not None:
            p.connection.send(message)

    def send_frame(self, player: str, data: bytes) -> None:
        """Send an encoded frame to a player's live connection; nothing if they are away."""
        p = self.players.get(player)
        if p is not None and p.connection is not None:
            p.connection.send_frame(data)

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""
        p = self.players.get(player)
        return p is not None and p.connection is not None

    def connection(self, player: str) -> Connection | None:
        """The player's live connection, if any."""
        p = self.players.get(player)
        return None if p is None else p.connection

    def player_name(self, player: str) -> str:
        """A player's display name."""
        p = self.players.get(player)
        return p.name if p is not None else player

    def room_closed(self, room: Room) -> None:
        """Forget a closed room."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            log.info("room %s closed", room.code)
        self.vacancy.forget(room)
        self.presence.forget(room)
        address = self._created_from.pop(room, None)
        if address is not None:
            self.rooms_by_address[address] -= 1
            if not self.rooms_by_address[address]:
                del self.rooms_by_address[address]
        for p in self.players.values():
            if room.code in p.rooms:
                p.rooms.remove(room.code)

    # ------------------------------------------------------------------ lifecycle

    def restore(self) -> None:
        """Load identities and resume every unfinished stored game (call inside the loop)."""
        for pid, token, name in self.store.players():
            player = Player(pid, token, name)
            self.players[pid] = player
            self.by_token[token] = player
        games = self.store.unfinished_games()
        latest = {stored.room: stored.id for stored in games}  # ids rise: the last one wins
        for stored in games:
            if latest[stored.room] != stored.id:
                # A room plays one game at a time: a later game of the same room means this
                # one ended without its end being stored (it would come back as a zombie).
                log.warning("game %d: room %s has a later game; abandoned", stored.id, stored.room)
                self.store.finish_game(stored.id, "abandoned", None, 0)
                continue
            try:
                room = restore_room(self, stored)
            except Exception:
                log.exception("game %d could not be replayed; marking it abandoned", stored.id)
                self.store.finish_game(stored.id, "abandoned", None, 0)
                continue
            if room.code in self.rooms:
                room.code = self._new_code(room.public)
            self.rooms[room.code] = room
            creator = stored.settings.get("creator")
            if isinstance(creator, str) and creator:
                # Quotas survive restarts: the resumed room still counts for its creator.
                room.creator = creator
                self._created_from[room] = creator
                self.rooms_by_address[creator] += 1
            for pid in room.members:
                if pid in self.players:
                    self.players[pid].rooms.append(room.code)
            room.resume()
            self.vacancy.watch(room)  # nobody is connected yet
            log.info(
                "room %s: game %d resumed after %d decisions",
                room.code,
                stored.id,
                len(stored.decisions),
            )

        self.retention.sweep()
        self._swept = self.scheduler.time()
        self._maintain_later()

    def _maintain_later(self) -> None:
        when = self.scheduler.time() + self.config.store_retry
        self._maintenance = self.scheduler.call_at(when, self._maintain)

    def _maintain(self) -> None:
        """Every ``store_retry`` seconds: retry a database that refused writes, and now and
        then sweep what the retention settings say is old (one timer for both)."""
        try:
            if not self.store.writable:
                if self.store.retry():
                    for room in list(self.rooms.values()):
                        room.resume()  # the clocks stalled by the outage start again
            elif self.scheduler.time() - self._swept >= self.config.retention_interval:
                self._swept = self.scheduler.time()
                self.retention.sweep()
            release_free_memory()  # what dropped connections' buffers held
        except Exception:
            log.exception("maintenance failed")
        self._maintain_later()

    def shutdown(self) -> None:
        """Stop every room's clocks; unfinished games stay stored for the next start."""
        if self._maintenance is not None:
            self._maintenance.cancel()
            self._maintenance = None
        for room in self.rooms.values():
            room.close(abandon=False)

    def _new_code(self, public: bool = True) -> str:
        """A free room code: a private room's is long enough that it cannot be guessed, so
        knowing it is what lets one in."""
        length = ROOM_CODE_LENGTH if public else PRIVATE_ROOM_CODE_LENGTH
        while True:
            code = "".join(secrets.choice(string.ascii_uppercase) for _ in range(length))
            if code not in self.rooms:
                return code

    # ------------------------------------------------------------------ connections

    def hello(self, conn: Connection, req: Hello) -> Player:
        """Identify a connection: a new player, or the one the token names."""
        limits = self.limits
        if req.token is not None:
            hashed = token_hash(req.token)
            player = self.by_token.get(hashed)
            if player is not None and self.store.token_of(player.id) != hashed:
                # revoked by the operator (selfish-server admin revoke) while the server ran
                del self.by_token[hashed]
                player = None
            if player is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown token")
            if not limits.hellos.allow(conn.address) or not limits.resumes.allow(player.id):
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED, "too many reconnects; wait a little and try again"
                )
            token = req.token
            player.name = req.name
            old = player.connection
            if old is not None and old is not conn:
                old.close_after(bye_message("replaced", "you connected again elsewhere"))
        else:
            if not self.store.writable:
                raise ProtocolError(
                    ErrorCode.STORE_UNAVAILABLE, "the server cannot record new players right now"
                )
            if not limits.new_players.allow(conn.address):
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    "too many new players from your address: wait, or send hello "
                    "with your token to resume your identity",
                )
            pid = "p" + secrets.token_hex(4)
            while pid in self.players:
                pid = "p" + secrets.token_hex(4)
            token = secrets.token_urlsafe(18)
            player = Player(pid, token_hash(token), req.name)
            self.players[pid] = player
            self.by_token[player.token] = player
        self.store.save_player(player.id, token, player.name)
        player.connection = conn
        log.info(
            "%s is %s (%s)%s", conn.peer, player.name, player.id, " resuming" if req.token else ""
        )
        conn.send(welcome(player.id, token, self.version, req.id))
        for code in list(player.rooms):
            room = self.rooms.get(code)
            if room is None:
                player.rooms.remove(code)
                continue
            conn.send(self._joined(room, player.id))
            conn.send(room.room_message())
            self.vacancy.watch(room)
            self.presence.changed(room)  # everyone sees the player connected again
            room.send_game(player.id)
        return player

    def disconnect(self, conn: Connection, player: Player | None) -> None:
        """A connection ended; the player keeps seats, rooms nobody can use are closed."""
        if player is None or player.connection is not conn:
            return
        player.connection = None
        for code in list(player.rooms):
            room = self.rooms.get(code)
            if room is None:
                continue
            if room.members.get(player.id) == "spectator":
                # An offline spectator leaves: one that joined and vanished would stay in
                # every room broadcast forever.
                player.rooms.remove(code)
                room.leave(player.id, announce=False)
                if room.closed:
                    continue
            self.vacancy.watch(room)
            if not room.closed:
                self.presence.changed(room)

    def _close_vacant(self, room: Room) -> None:
        """Close a room nobody is connected to (see server.vacancy); a started game is
        recorded as abandoned."""
        if room.closed:
            return
        room.close(abandon=True)
        self.room_closed(room)

    # ------------------------------------------------------------------ requests

    def handle(self, conn: Connection, player: Player, req: Request) -> None:
        """Carry out one request of a welcomed player; raise ProtocolError if it is refused."""
        handler = self._handlers.get(type(req))
        if handler is None:  # hello twice
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "you are already welcomed")
        if isinstance(req, _WRITES) and not self.store.writable:
            # What it would change could not be recorded: refused before anything changes
            # (retried every store_retry seconds; the first success ends the outage).
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE,
                "the server cannot record games right now; try again in a moment",
            )
        handler(conn, player, req)

    def _ok(self, conn: Connection, req: Request) -> Callable[[], None]:
        if req.id is None:  # most acts: the same frame every time
            return lambda: conn.send_frame(_OK_FRAME)
        return lambda: conn.send(reply("ok", req.id))

    def _room(self, code: str) -> Room:
        room = self.rooms.get(code)
        if room is None:
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code}")
        return room

    def _member(self, code: str, player: Player) -> Room:
        room = self.rooms.get(code)
        if room is None or player.id not in room.members:
            # The same answer as for a missing room: otherwise probing codes finds every room.
            raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code}")
        return room

    def _joined(self, room: Room, pid: str, request: int | None = None) -> Message:
        seat = room.seat_of(pid)
        return reply(
            "joined",
            request,
            room=room.code,
            role="spectator" if seat is None else "player",
            seat=None if seat is None else seat.index,
            edition=room.edition,
            catalogue=CATALOGUE[room.edition],
        )

    def _check_room_quota(self, player: Player) -> None:
        if len(player.rooms) >= self.config.max_rooms_per_player:
            raise ProtocolError(
                ErrorCode.TOO_MANY_ROOMS,
                f"you are in {len(player.rooms)} rooms already (limit "
                f"{self.config.max_rooms_per_player})",
            )

    def _autostart(self, room: Room) -> None:
        if room.can_autostart():
            try:
                room.start(room.first_seed)
            except ProtocolError as exc:
                # The request that filled the table has had its reply: the room just stays
                # waiting (its host may send ``start`` later, when the database is back).
                if exc.code != ErrorCode.STORE_UNAVAILABLE:
                    raise
                log.warning("room %s: cannot start: %s", room.code, exc.message)

    def _ping(self, conn: Connection, player: Player, req: Ping) -> None:
        conn.send(reply("pong", req.id))

    def _list_rooms(self, conn: Connection, player: Player, req: ListRooms) -> None:
        rooms = [r.summary() for r in self.rooms.values() if r.public and r.status != Status.OVER]
        conn.send(reply("rooms", req.id, rooms=rooms))

    def _create(self, conn: Connection, player: Player, req: CreateRoom) -> None:
        if len(self.rooms) >= self.config.max_rooms:
            raise ProtocolError(ErrorCode.SERVER_FULL, "the server has too many rooms")
        if not self.store.writable:  # its game could not be recorded: refuse it now
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE, "the server cannot record new games right now"
            )
        self._check_room_quota(player)
        if not self.limits.rooms.allow(conn.address) or not self.limits.rooms.allow(player.id):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED, "you are creating rooms too fast; wait a little"
            )
        if self.rooms_by_address[conn.address] >= self.config.max_rooms_per_address:
            raise ProtocolError(
                ErrorCode.TOO_MANY_ROOMS,
                f"{self.rooms_by_address[conn.address]} open rooms were created from your "
                f"address (limit {self.config.max_rooms_per_address})",
            )
        if req.seed is not None and not self.config.allow_seed:
            raise ProtocolError(ErrorCode.BAD_OPTION, "this server does not accept seeds")
        try:
            variants = check_variants(Edition(req.edition), req.variants)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, str(exc)) from exc
        room = Room(
            self,
            self._new_code(req.public),
            req.edition,
            req.seats,
            public=req.public,
            timer=req.timer,
            autostart=req.autostart,
            variants=variants,
        )
        room.first_seed = req.seed
        room.creator = conn.address
        room.join_player(player.id, player.name)
        for _ in range(req.bots):
            room.add_bot(req.bot_level)
        self.rooms[room.code] = room
        self._created_from[room] = conn.address
        self.rooms_by_address[conn.address] += 1
        player.rooms.append(room.code)
        log.info(
            "room %s created by %s (%s, %d seats, %d bots, timer %d)",
            room.code,
            player.name,
            req.edition,
            req.seats,
            req.bots,
            req.timer,
        )
        conn.send(self._joined(room, player.id, req.id))
        room.broadcast_room()
        self._autostart(room)

    def _join(self, conn: Connection, player: Player, req: JoinRoom) -> None:
        room = self._room(req.room)
        if player.id in room.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {room.code}")
        self._check_room_quota(player)
        if req.as_ == "spectator":
            watching = sum(1 for role in room.members.values() if role == "spectator")
            if watching >= self.config.max_spectators:
                raise ProtocolError(
                    ErrorCode.ROOM_FULL, f"room {room.code} has {watching} spectators already"
                )
            room.join_spectator(player.id)
        else:
            room.join_player(player.id, player.name)
        player.rooms.append(room.code)
        log.info("room %s: %s joined as %s", room.code, player.name, req.as_)
        conn.send(self._joined(room, player.id, req.id))
        if req.as_ == "spectator":
            conn.send(room.room_message())
            self.presence.changed(room)
        else:
            room.broadcast_room()
        self.vacancy.watch(room)
        room.send_game(player.id)
        self._autostart(room)

    def _leave(self, conn: Connection, player: Player, req: LeaveRoom) -> None:
        room = self._member(req.room, player)
        conn.send(reply("ok", req.id))
        if room.code in player.rooms:
            player.rooms.remove(room.code)
        log.info("room %s: %s left", room.code, player.name)
        room.leave(player.id)
        self.vacancy.watch(room)

    def _add_bot(self, conn: Connection, player: Player, req: AddBot) -> None:
        room = self._member(req.room, player)
        room.require_host(player.id)
        room.add_bot(req.level)
        conn.send(reply("ok", req.id))
        room.broadcast_room()
        self._autostart(room)

    def _remove_bot(self, conn: Connection, player: Player, req: RemoveBot) -> None:
        room = self._member(req.room, player)
        room.require_host(player.id)
        room.remove_bot(req.seat)
        conn.send(reply("ok", req.id))
        room.broadcast_room()

    def _start(self, conn: Connection, player: Player, req: Start) -> None:
        room = self._member(req.room, player)
        room.require_host(player.id)
        room.start(room.first_seed, ack=self._ok(conn, req))

    def _act(self, conn: Connection, player: Player, req: Act) -> None:
        room = self._member(req.room, player)
        room.act(player.id, req.version, req.choice, ack=self._ok(conn, req))

    def _chat(self, conn: Connection, player: Player, req: Chat) -> None:
        room = self._member(req.room, player)
        text = check_chat(req.text, self.config.max_chat)
        limits = self.limits
        if not limits.chat.allow(player.id) or not limits.address_chat.allow(conn.address):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "you are chatting too fast")
        conn.send(reply("ok", req.id))
        room.chat(player.id, player.name, text)

    def _rematch(self, conn: Connection, player: Player, req: Rematch) -> None:
        room = self._member(req.room, player)
        room.require_host(player.id)
        room.rematch(ack=self._ok(conn, req))

    def _back(self, conn: Connection, player: Player, req: Back) -> None:
        room = self._member(req.room, player)
        if room.seat_of(player.id) is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "only seated players can be away")
        conn.send(reply("ok", req.id))
        room.back(player.id)

    def _sync(self, conn: Connection, player: Player, req: Sync) -> None:
        room = self._member(req.room, player)
        conn.send(reply("ok", req.id))
        conn.send(room.room_message())
        room.send_game(player.id)

    def _list_replays(self, conn: Connection, player: Player, req: ListReplays) -> None:
        games = [
            {
                "game": g.id,
                "room": g.room,
                "edition": g.edition,
                "variants": g.variants,
                "names": g.names,
                "winner": g.winner,
                "turns": g.turns,
                "ended": g.ended,
            }
            for g in self.store.finished_games(50, player.id)
        ]
        conn.send(reply("replays", req.id, games=games))

    def _get_replay(self, conn: Connection, player: Player, req: GetReplay) -> None:
        game = self.store.game(req.game)
        if (
            game is None
            or game.status != "over"
            or not (game.settings.get("public", True) or _seated(game.seats, player.id))
        ):
            # a private game's replay (names, seed, decisions) is its players' only
            raise ProtocolError(ErrorCode.NO_SUCH_GAME, f"no finished game {req.game}")
        conn.send(
            reply(
                "replay",
                req.id,
                game=game.id,
                room=game.room,
                edition=game.edition,
                variants=game.variants,
                names=game.names,
                seed=game.seed,
                winner=game.winner,
                turns=game.turns,
                decisions=[[seat, choice] for seat, choice in game.decisions],
            )
        )


def _seated(seats: list[dict[str, Any]], player: str) -> bool:
    """Whether ``player`` held one of the stored ``seats``."""
    return any(isinstance(seat, dict) and seat.get("player") == player for seat in seats)
