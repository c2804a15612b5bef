"""The lobby: identities, rooms by code, the server's lifecycle, and the dispatch of every
request after ``hello`` (to ``server.lobby.handlers``).

The lobby is transport-agnostic: it talks to connections through the small
:class:`~server.lobby.players.Connection` protocol (``server.net.session.Session`` implements it
over TCP; the tests' harness drives the lobby directly, on a fake clock).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from protocol.confusables import skeleton
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    Hello,
    Request,
    Sync,
)
from protocol.server_messages import ErrorMessage, ServerMessage
from server.config import ServerConfig
from server.errorlog import ErrorLog
from server.limits.ratelimit import Limits
from server.lobby import (
    finished_games,  # noqa: F401  (registers its handlers)
    greeting,
)
from server.lobby.claims import RoomClaims
from server.lobby.handlers import HANDLERS, WRITES, RoomUnknown, joined, unknown_room
from server.lobby.players import Connection, Player
from server.memory import release_free_memory
from server.rooms import idle_rooms
from server.rooms.presence import PresenceBroadcasts
from server.rooms.restore import reopen_waiting, restore_room
from server.rooms.review import SharedReview, end_review
from server.rooms.room import Room, Status
from server.rooms.scheduler import Handle, Scheduler
from server.rooms.vacancy import Vacancy
from server.store.retention import Retention
from server.store.store import Store, StoredGame, StoredWaiting

if TYPE_CHECKING:
    from server.cluster.node import Cluster

__all__ = ["Connection", "Lobby", "Player", "server_version"]

log = logging.getLogger("selfish.server")


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


class Lobby(RoomClaims):
    """All players and rooms of one server (the codes of new rooms:
    :class:`~server.lobby.claims.RoomClaims`)."""

    def __init__(
        self, config: ServerConfig, store: Store, scheduler: Scheduler | None = None
    ) -> None:
        self.config = config
        self.store = store
        # The event loop unless a test brings its own clock.
        self.scheduler: Scheduler = scheduler or asyncio.get_running_loop()
        self.limits = Limits.from_config(config, self.scheduler.time)
        self.errors = ErrorLog(
            config.error_log_per_minute, self.scheduler.time, config.log_lines_per_minute
        )
        self.vacancy = Vacancy(config, self, self.scheduler, self._close_vacant)
        self.presence = PresenceBroadcasts(config.room_broadcast_interval, self.scheduler)
        self.retention = Retention(config, store, self)
        self._maintenance: Handle | None = None
        self._swept = 0.0
        self.players: dict[str, Player] = {}
        self.by_token: dict[str, Player] = {}
        self.rooms: dict[str, Room] = {}
        self.reviews: dict[str, SharedReview] = {}  # room code -> its shared review
        self._created_from: dict[Room, str] = {}  # open room -> address of its creator
        self.rooms_by_address: Counter[str] = Counter()  # open rooms created per address
        self.version = server_version(config.announce_version)
        # This node's part in a cluster (server.cluster.node), set before restore(); None alone.
        self.cluster: Cluster | None = None
        skeleton("")  # reads Unicode's confusables now, not in the first hello (0.1 s)

    # ------------------------------------------------------------------ Hub (for rooms)

    def send(self, player: str, message: ServerMessage) -> None:
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

    def add_room(self, room: Room, creator: str | None, claimed: bool = False) -> None:
        """Open ``room`` under its code; it counts for the address ``creator`` created it from
        (``max_rooms_per_address``) until it closes. ``claimed``: its lease notes its creator
        already (its code came from :meth:`claim_room`, or it was reopened)."""
        self.rooms[room.code] = room
        if creator is not None:
            room.creator = creator
            self._created_from[room] = creator
            self.rooms_by_address[creator] += 1
            if self.cluster is not None and not claimed:
                self.cluster.leases.created_from(room.code, creator)
            room.save_waiting()  # with its creator: the quota outlives a restart

    def room_closed(self, room: Room) -> None:
        """Forget a closed room."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            log.info("room %s closed", room.code)
            if self.cluster is not None:
                self.cluster.closed(room)
        self.vacancy.forget(room)
        self.presence.forget(room)
        end_review(self, room.code)
        address = self._created_from.pop(room, None)
        if address is not None:
            self.rooms_by_address[address] -= 1
            if not self.rooms_by_address[address]:
                del self.rooms_by_address[address]
        for p in self.players.values():
            if room.code in p.rooms:
                p.rooms.remove(room.code)

    # ------------------------------------------------------------------ lifecycle

    def listed_rooms(self) -> Iterator[tuple[str, Room]]:
        """The rooms list_rooms shows: public ones whose game is not over."""
        for code, room in self.rooms.items():
            if room.public and room.status != Status.OVER:
                yield code, room

    def known(self, player: tuple[str, str, str] | None) -> Player | None:
        """The Player of a stored (id, token hash, name), made known to this lobby (in a
        cluster, players made on other nodes are learnt when first needed)."""
        if player is None:
            return None
        pid, token, name = player
        known = self.players.get(pid)
        if known is None:
            known = self.players[pid] = Player(pid, token, name)
            self.by_token[token] = known
        return known

    def drop_room(self, room: Room) -> None:
        """Another node runs ``room`` now (its lease was lost): stop it here without writing
        anything more, and cut its connected members off, dropping what they were about to
        be sent; they reconnect and are sent on (server.cluster.node)."""
        for pid in list(room.members):
            conn = self.connection(pid)
            if conn is not None:
                conn.cut()
        room.close(abandon=False)
        self.room_closed(room)

    def restore(self) -> None:
        """Load identities, resume every unfinished stored game and open every stored waiting
        room again (call inside the loop); in a cluster, only those whose room no other node
        runs."""
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
            if self.cluster is not None and not self.cluster.take(
                stored.room, _creator(stored.settings)
            ):
                continue  # another node runs it
            self.resume_stored(stored)
        for waiting in self.store.waiting_rooms():
            if waiting.room in self.rooms:  # a game of its code came back: it waits no more
                self.store.forget_waiting_room(waiting.room)
            elif self.cluster is None or self.cluster.take(
                waiting.room, _creator(waiting.settings)
            ):
                self.reopen_waiting(waiting)

        self.retention.sweep()
        self._swept = self.scheduler.time()
        self._maintain_later()

    def resume_stored(self, stored: StoredGame) -> None:
        """Open the room of an unfinished stored game and resume it (a restart, a takeover);
        a game that does not replay is marked abandoned."""
        try:
            room = restore_room(self, stored)
        except Exception:
            log.exception("game %d could not be replayed; marking it abandoned", stored.id)
            self.store.finish_game(stored.id, "abandoned", None, 0)
            return
        if room.code in self.rooms:
            room.code = self.new_code(room.public)
        self._reopen(room, stored.settings, stored.players)
        if room.status is Status.PLAYING:  # not at its game over (a takeover)
            room.resume()
        self.vacancy.watch(room)
        log.info(
            "room %s: game %d resumed after %d decisions",
            room.code,
            stored.id,
            len(stored.decisions),
        )

    def reopen_waiting(self, stored: StoredWaiting) -> None:
        """Open a stored waiting room again (a restart, a takeover), as its members last saw
        it; they find it in their welcome."""
        room = reopen_waiting(self, stored)
        self._reopen(room, stored.settings, stored.players)
        self.vacancy.watch(room)  # nobody is connected yet
        log.info("room %s: waiting room reopened", room.code)

    def _reopen(
        self,
        room: Room,
        settings: dict[str, object],
        read: dict[str, tuple[str, str, str]] | None = None,
    ) -> None:
        """Open a room rebuilt from the store, for its members to find when they say hello
        (those connected already, after a takeover, are sent it). ``read``: its members'
        players, read with the room (a takeover: those made on another node are learnt
        here); a member found in neither has no player to find the room."""
        # Quotas survive restarts: the reopened room still counts for its creator (in a
        # cluster its lease notes it: taken with it at a restart, kept by a takeover).
        self.add_room(room, _creator(settings), claimed=True)
        for pid in list(room.members):
            player = self.players.get(pid)
            if player is None and read is not None:
                player = self.known(read.get(pid))
            if player is not None:
                player.rooms.append(room.code)
                if player.connection is not None:  # back already (a takeover): told now
                    self.send_room(player.connection, player, room)

    def _maintain_later(self) -> None:
        when = self.scheduler.time() + self.config.store_retry
        self._maintenance = self.scheduler.call_at(when, self._maintain)

    def _maintain(self) -> None:
        """Every ``store_retry`` seconds: close the rooms nobody started in time, retry a
        database that refused writes, and now and then sweep what the retention settings say
        is old (one timer for all)."""
        try:
            now = self.scheduler.time()
            for room in idle_rooms.expired(
                list(self.rooms.values()), now, self.config.waiting_room_timeout
            ):
                minutes = self.config.waiting_room_timeout / 60
                why = f"no game was started in it for {minutes:g} minutes"
                self.close_idle(room, "not_started", why)
            if not self.store.writable:
                if self.store.retry():
                    for room in list(self.rooms.values()):
                        room.resume()  # the clocks stalled by the outage start again
            elif self.scheduler.time() - self._swept >= self.config.retention_interval:
                self._swept = self.scheduler.time()
                self.retention.sweep_later()
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

    # ------------------------------------------------------------------ connections

    def hello(self, conn: Connection, req: Hello, then: Callable[[Player], None]) -> None:
        """Identify a connection: a new player, or the one the token names; then send it its
        rooms again, as they are now, and call ``then`` with the player
        (server.lobby.greeting)."""
        greeting.hello(self, conn, req, then)

    def send_room(self, conn: Connection, player: Player, room: Room) -> None:
        """Send a player back (a hello) its room, as it is now."""
        conn.send(joined(room, player.id))
        conn.send(room.room_message())
        self.vacancy.watch(room)
        self.presence.changed(room)  # everyone sees the player connected again
        room.send_game(player.id)
        room.presence_changed(player.id)  # an away seat is its player's again

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
                room.presence_changed()  # a countdown before the seat's bot takes over

    def close_idle(self, room: Room, reason: str, why: str) -> None:
        """Close ``room`` though members may be connected: each is told ``room_closed``, with
        ``reason`` (``not_started`` or ``reclaimed``) in its args; ``why`` is for the log."""
        log.info("room %s: %s; closing it", room.code, why)
        error = ErrorMessage(
            code=ErrorCode.ROOM_CLOSED,
            message=f"room {room.code} was closed: {why}",
            args={"room": room.code, "reason": reason},
            room=room.code,
        )
        for pid in list(room.members):
            self.send(pid, error)
        room.close(abandon=True)
        self.room_closed(room)

    def reclaim_room(self) -> bool:
        """On a full server: close the idlest waiting or finished room (see
        server.rooms.idle_rooms); False if every room belongs to people who act."""
        room = idle_rooms.idlest(
            self.rooms.values(), self.scheduler.time(), self.config.idle_room_grace
        )
        if room is None:
            return False
        self.close_idle(
            room, "reclaimed", "the server is full and nobody had acted in it for longest"
        )
        return True

    def _close_vacant(self, room: Room) -> None:
        """Close a room nobody is connected to (see server.rooms.vacancy); a started game is
        recorded as abandoned."""
        if room.closed:
            return
        room.close(abandon=True)
        self.room_closed(room)

    # ------------------------------------------------------------------ requests

    def handle(self, conn: Connection, player: Player, req: Request) -> None:
        """Carry out one request of a welcomed player; raise ProtocolError if it is refused."""
        handler = HANDLERS.get(type(req))
        if handler is None:  # hello twice
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "you are already welcomed")
        if isinstance(req, WRITES) and not self.store.writable:
            # What it would change could not be recorded: refused before anything changes
            # (retried every store_retry seconds; the first success ends the outage).
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE,
                "the server cannot record games right now; try again in a moment",
            )
        try:
            handler(self, conn, player, req)
        except RoomUnknown as unknown:
            self._find_room(conn, player, req, unknown.code)
            return
        code = getattr(req, "room", None)
        room = self.rooms.get(code) if isinstance(code, str) else None
        if room is not None and not isinstance(req, Sync) and room.seat_of(player.id) is not None:
            # its people act (server.rooms.idle_rooms); asking for the room again is no act
            room.active_at = self.scheduler.time()

    def _find_room(self, conn: Connection, player: Player, req: Request, code: str) -> None:
        """Answer ``req``, for room ``code`` this node of a cluster does not run, once the
        round trip that finds which node runs it is back (off the event loop: ``conn``'s next
        requests wait for it, the other connections go on); the request runs after all if
        the room came here meanwhile (a takeover)."""
        assert self.cluster is not None

        def found(address: str | None) -> None:
            if code in self.rooms and player.connection is conn:
                self.handle(conn, player, req)
            else:
                raise unknown_room(code, address)

        conn.after(self.cluster.elsewhere_later(code), found)


def _creator(settings: dict[str, object]) -> str | None:
    """The address a stored room was created from (its settings keep it), if any."""
    creator = settings.get("creator")
    return creator if isinstance(creator, str) and creator else None
