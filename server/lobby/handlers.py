"""What each request after ``hello`` does: one function per request class, in :data:`HANDLERS`.

``protocol.messages.REQUESTS`` maps a wire ``type`` to its request class; :data:`HANDLERS`
maps that class to what the server does with it (registered by :func:`handles`, which also has
mypy check that the function takes that class). The lobby looks the handler up by the
request's class (:meth:`server.lobby.lobby.Lobby.handle`). A handler checks what it needs, raises
:class:`~protocol.errors.ProtocolError` to refuse (before anything changed), and otherwise
replies to ``conn`` before anything it broadcasts: a client reads ``ok``, then the broadcast.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    Act,
    AddBot,
    Back,
    Chat,
    CreateRoom,
    JoinRoom,
    LeaveRoom,
    ListRooms,
    Ping,
    Rematch,
    RemoveBot,
    Request,
    Start,
    Sync,
)
from protocol.names import check_chat
from protocol.server_messages import (
    JoinedMessage,
    OkMessage,
    PongMessage,
    ServerMessage,
)
from server.cluster.node import Cluster
from server.engine import Edition, check_variants
from server.errorlog import ErrorLog
from server.limits.addresses import address_group
from server.limits.ratelimit import Limits
from server.lobby.players import Connection, Player
from server.rooms import review
from server.rooms.outgoing import RoomElsewhere
from server.rooms.presence import PresenceBroadcasts
from server.rooms.room import Hub, Room
from server.rooms.room_list import rooms_frame
from server.rooms.vacancy import Vacancy
from server.rooms.wire import encode

log = logging.getLogger("selfish.server")


class Lobby(Hub, Protocol):
    """What the handlers need of the lobby (``server.lobby.lobby.Lobby`` is it): declared here
    so that the lobby imports its handlers, not the other way round."""

    @property
    def errors(self) -> ErrorLog: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def presence(self) -> PresenceBroadcasts: ...
    @property
    def vacancy(self) -> Vacancy: ...
    @property
    def rooms(self) -> dict[str, Room]: ...
    @property
    def cluster(self) -> Cluster | None: ...

    def listed_rooms(self) -> Iterator[tuple[str, Room]]:
        """The rooms list_rooms shows: public ones whose game is not over."""

    def claim_room(
        self, conn: Connection, group: str, public: bool, then: Callable[[str], None]
    ) -> None:
        """Call ``then`` with the code of a room ``group`` creates, within its rate and room
        quota (of every node of a cluster, whose round trip ``conn`` waits for); ProtocolError
        (the request's answer) if not."""

    def unclaim(self, code: str) -> None:
        """Let a claimed code that was not opened go."""

    def add_room(self, room: Room, creator: str | None, claimed: bool = False) -> None:
        """Open ``room`` under its code, counted for the address it was created from."""

    def new_code(self, public: bool = True, creator: str | None = None) -> str:
        """A free room code."""

    def reclaim_room(self) -> bool:
        """On a full server: close the idlest waiting or finished room, if one may go."""

    @property
    def reviews(self) -> dict[str, review.SharedReview]: ...
    @property
    def players(self) -> dict[str, Player]: ...

    def send(self, player: str, message: ServerMessage) -> None:
        """Send to a player's live connection; nothing if they are away."""


R = TypeVar("R", bound=Request)
Handler = Callable[[Lobby, Connection, Player, R], None]

#: Request class -> its handler: every request of ``protocol.messages.REQUESTS`` but ``hello``.
HANDLERS: dict[type[Request], Handler[Any]] = {}


def handles(kind: type[R]) -> Callable[[Handler[R]], Handler[R]]:
    """Function decorator: the function is what the server does with a ``kind`` request."""

    def register(handler: Handler[R]) -> Handler[R]:
        assert kind not in HANDLERS, kind
        HANDLERS[kind] = handler
        return handler

    return register


# The direct reply to a request without an id, encoded once.
_OK_FRAME = encode(OkMessage())

# Requests that need a database write: refused while the store refuses writes.
WRITES: tuple[type[Request], ...] = (CreateRoom, Start, Rematch, Act)


def joined(room: Room, pid: str, request: int | None = None) -> JoinedMessage:
    """The ``joined`` message that tells ``pid`` its place in ``room``."""
    seat = room.seat_of(pid)
    return JoinedMessage(
        id=request,
        room=room.code,
        role="spectator" if seat is None else "player",
        seat=None if seat is None else seat.index,
        edition=room.edition,
    )


def _ok(conn: Connection, req: Request) -> Callable[[], None]:
    """The room's acknowledgement of ``req``: the room sends it once the change is made,
    before its broadcast."""
    if req.id is None:  # most acts: the same frame every time
        return lambda: conn.send_frame(_OK_FRAME)
    return lambda: conn.send(OkMessage(id=req.id))


class RoomUnknown(Exception):
    """A request for room ``code``, which this node of a cluster does not run: which node
    does is a round trip to PostgreSQL, made off the event loop
    (:meth:`server.lobby.lobby.Lobby.handle` catches this, and answers the request, or runs
    it again if the room came here meanwhile, once the round trip is back)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _elsewhere(lobby: Lobby, code: str) -> None:
    """In a cluster, raise RoomUnknown: another node may run ``code`` (then the request's
    answer is ``moved``)."""
    if lobby.cluster is not None:
        raise RoomUnknown(code)


def unknown_room(code: str, address: str | None) -> ProtocolError:
    """The answer to a request for room ``code`` that this node does not run: ``moved`` to
    ``address``, the node that does (:class:`RoomElsewhere`), or ``no_such_room``."""
    if address is not None:
        return RoomElsewhere(code, address)
    return ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code}")


def _room(lobby: Lobby, code: str) -> Room:
    room = lobby.rooms.get(code)
    if room is None:
        _elsewhere(lobby, code)
        raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code}")
    return room


def _member(lobby: Lobby, code: str, player: Player) -> Room:
    room = lobby.rooms.get(code)
    if room is None:
        _elsewhere(lobby, code)  # the room is there, and so is the player's seat
    if room is None or player.id not in room.members:
        # The same answer as for a missing room: otherwise probing codes finds every room.
        raise ProtocolError(ErrorCode.NO_SUCH_ROOM, f"no room {code}")
    return room


def _check_room_quota(lobby: Lobby, player: Player) -> None:
    limit = lobby.config.max_rooms_per_player
    if len(player.rooms) >= limit:
        raise ProtocolError(
            ErrorCode.TOO_MANY_ROOMS,
            f"you are in {len(player.rooms)} rooms already (limit {limit})",
            {"limit": limit},
        )


def _autostart(room: Room) -> None:
    if room.can_autostart():
        try:
            room.start(room.first_seed)
        except ProtocolError as exc:
            # The request that filled the table has had its reply: the room just stays
            # waiting (its host may send ``start`` later, when the database is back).
            if exc.code != ErrorCode.STORE_UNAVAILABLE:
                raise
            log.warning("room %s: cannot start: %s", room.code, exc.message)


@handles(Ping)
def ping(lobby: Lobby, conn: Connection, player: Player, req: Ping) -> None:
    """``pong``."""
    conn.send(PongMessage(id=req.id))


@handles(ListRooms)
def list_rooms(lobby: Lobby, conn: Connection, player: Player, req: ListRooms) -> None:
    """The public rooms that are not over (server.rooms.room_list: each entry packed once)."""
    entries = [room.packed_summary() for _, room in lobby.listed_rooms()]
    if lobby.cluster is not None:  # and those of the other nodes (server.cluster.node),
        # but not a room taken over here since they were read: it is listed once, as it is now
        entries.extend(entry for code, entry in lobby.cluster.remote if code not in lobby.rooms)
    conn.send_frame(rooms_frame(entries, req.id))


@handles(CreateRoom)
def create_room(lobby: Lobby, conn: Connection, player: Player, req: CreateRoom) -> None:
    """A new room with the player as its host, within the server's and the address's quotas."""
    if req.seed is not None and not lobby.config.allow_seed:
        raise ProtocolError(
            ErrorCode.BAD_OPTION, "this server does not accept seeds", {"field": "seed"}
        )
    open_room(lobby, conn, player, req)


def open_room(
    lobby: Lobby, conn: Connection, player: Player, req: CreateRoom, seeded: bool = False
) -> None:
    """Open the room ``req`` describes (``create_room``, or ``play_deal`` with ``seeded``:
    a finished game's seed, which the server gives whatever its ``allow_seed``)."""
    _check_room_quota(lobby, player)
    if not lobby.limits.rooms.allow(conn.address) or not lobby.limits.rooms.allow(player.id):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "you are creating rooms too fast; wait a little"
        )
    try:
        variants = check_variants(Edition(req.edition), req.variants)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_OPTION, str(exc), {"field": "variants"}) from exc
    # the cluster's bucket and the address's rooms on every node, with the code's lease: a
    # round trip the event loop does not wait for (the connection's next requests do)
    lobby.claim_room(
        conn,
        conn.address,
        req.public,
        lambda code: _open_claimed(lobby, conn, player, req, variants, seeded, code),
    )


def _open_claimed(
    lobby: Lobby,
    conn: Connection,
    player: Player,
    req: CreateRoom,
    variants: tuple[str, ...],
    seeded: bool,
    code: str,
) -> None:
    """:func:`open_room`, once its code is claimed: the room opens, unless its player left
    meanwhile or the server is full."""
    if player.connection is not conn:  # replaced or gone while the claim was on its way
        lobby.unclaim(code)
        return
    # Last, once the request is known to be good: a full server makes room by closing the
    # idlest room nobody plays in (server.rooms.idle_rooms).
    if len(lobby.rooms) >= lobby.config.max_rooms and not lobby.reclaim_room():
        lobby.unclaim(code)
        raise ProtocolError(ErrorCode.SERVER_FULL, "the server has too many rooms")
    room = Room(
        lobby,
        code,
        req.edition,
        req.seats,
        public=req.public,
        timer=req.timer,
        autostart=req.autostart,
        variants=variants,
        left_grace=req.left_grace,
        idle_grace=req.idle_grace,
    )
    room.first_seed = req.seed
    room.join_player(player.id, player.name)
    for _ in range(req.bots):
        room.add_bot(req.bot_level)
    lobby.add_room(room, conn.address, claimed=True)
    player.rooms.append(room.code)
    log.info(
        "room %s created by %s (%s, %d seats, %d bots, timer %d%s)",
        room.code,
        player.name,
        req.edition,
        req.seats,
        req.bots,
        req.timer,
        ", a finished game's deal" if seeded else "",
    )
    conn.send(joined(room, player.id, req.id))
    room.broadcast_room()
    _autostart(room)


@handles(JoinRoom)
def join_room(lobby: Lobby, conn: Connection, player: Player, req: JoinRoom) -> None:
    """Take a free seat, or watch."""
    room = _room(lobby, req.room)
    if player.id in room.members:
        raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {room.code}")
    _check_room_quota(lobby, player)
    spectator = req.as_ == "spectator"
    if spectator:
        watching = sum(1 for role in room.members.values() if role == "spectator")
        if watching >= lobby.config.max_spectators:
            raise ProtocolError(
                ErrorCode.ROOM_FULL, f"room {room.code} has {watching} spectators already"
            )
        room.join_spectator(player.id, player.name)
    else:
        room.join_player(player.id, player.name)
    player.rooms.append(room.code)
    lobby.errors.line(logging.INFO, "room %s: %s joined as %s", room.code, player.name, req.as_)
    conn.send(joined(room, player.id, req.id))
    # The joiner gets the room at once; the others' update is coalesced (server.rooms.presence), as
    # for every coming and going: joining and leaving at the message rate must not make every
    # member receive a room message per request.
    conn.send(room.room_message())
    lobby.presence.changed(room)
    lobby.vacancy.watch(room)
    room.send_game(player.id)
    _autostart(room)


@handles(LeaveRoom)
def leave_room(lobby: Lobby, conn: Connection, player: Player, req: LeaveRoom) -> None:
    """Leave a room (a seat in a started game goes to a bot)."""
    room = _member(lobby, req.room, player)
    conn.send(OkMessage(id=req.id))
    if room.code in player.rooms:
        player.rooms.remove(room.code)
    lobby.errors.line(logging.INFO, "room %s: %s left", room.code, player.name)
    review.leave_review(lobby, room.code, player.id)
    room.leave(player.id, announce=False)
    if not room.closed:
        lobby.presence.changed(room)  # coalesced, as joins are
    lobby.vacancy.watch(room)


@handles(AddBot)
def add_bot(lobby: Lobby, conn: Connection, player: Player, req: AddBot) -> None:
    """The host seats a bot."""
    room = _member(lobby, req.room, player)
    room.require_host(player.id)
    room.add_bot(req.level)
    conn.send(OkMessage(id=req.id))
    room.broadcast_room()
    _autostart(room)


@handles(RemoveBot)
def remove_bot(lobby: Lobby, conn: Connection, player: Player, req: RemoveBot) -> None:
    """The host frees a bot's seat."""
    room = _member(lobby, req.room, player)
    room.require_host(player.id)
    room.remove_bot(req.seat)
    conn.send(OkMessage(id=req.id))
    room.broadcast_room()


@handles(Start)
def start(lobby: Lobby, conn: Connection, player: Player, req: Start) -> None:
    """The host starts the game."""
    room = _member(lobby, req.room, player)
    room.require_host(player.id)
    room.start(room.first_seed, ack=_ok(conn, req))


@handles(Act)
def act(lobby: Lobby, conn: Connection, player: Player, req: Act) -> None:
    """A seat's decision (the engine checks it)."""
    room = _member(lobby, req.room, player)
    room.act(player.id, req.version, req.choice, ack=_ok(conn, req))


@handles(Chat)
def chat(lobby: Lobby, conn: Connection, player: Player, req: Chat) -> None:
    """A line to the room's members (a spectator's during a game: see server.rooms.spectators)."""
    room = _member(lobby, req.room, player)
    text = check_chat(req.text, lobby.config.max_chat)
    limits = lobby.limits
    group = address_group(conn.address, lobby.config.ipv6_prefix)
    if not limits.chat.allow(player.id) or not limits.address_chat.allow(group):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "you are chatting too fast")
    conn.send(OkMessage(id=req.id))
    room.chat(player.id, player.name, text)


@handles(Rematch)
def rematch(lobby: Lobby, conn: Connection, player: Player, req: Rematch) -> None:
    """The host starts the next game with the same seats."""
    room = _member(lobby, req.room, player)
    room.require_host(player.id)
    room.rematch(ack=_ok(conn, req))
    review.end_review(lobby, room.code)


@handles(Back)
def back(lobby: Lobby, conn: Connection, player: Player, req: Back) -> None:
    """A seated player clears their away mark."""
    room = _member(lobby, req.room, player)
    if room.seat_of(player.id) is None:
        raise ProtocolError(ErrorCode.NOT_SEATED, "only seated players can be away")
    conn.send(OkMessage(id=req.id))
    room.back(player.id)


@handles(Sync)
def sync(lobby: Lobby, conn: Connection, player: Player, req: Sync) -> None:
    """The room and the game sent again, as on a reconnect: a few bytes that ask for a game's
    whole history, so limited per identity and per address (the limits of chat's kind)."""
    room = _member(lobby, req.room, player)
    limits = lobby.limits
    group = address_group(conn.address, lobby.config.ipv6_prefix)
    if not limits.syncs.allow(player.id) or not limits.address_syncs.allow(group):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "too many syncs; wait a little and try again")
    conn.send(OkMessage(id=req.id))
    conn.send(room.room_message())
    room.send_game(player.id)
