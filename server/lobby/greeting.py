"""A connection's hello: a new identity (within the per-address limit on new identities, of the
whole cluster on one), or the one its token names (unless the operator revoked it); then the
welcome, the player's rooms on other nodes (an unasked ``moved``) and its rooms here, as they are
now. Part of :class:`server.lobby.lobby.Lobby` (its ``hello``).

On a server alone it is done at once; in a cluster its round trip to PostgreSQL (the player's
row or stored token hash with its rooms on other nodes, read in the store's read thread; a new
player's token from the cluster's bucket, in the leases' sideline) runs off the event loop, and
the connection's next messages wait for it (``Connection.after``); so does the second read
of a token found revoked (it may be a player made here whose row is not committed yet).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Hello
from protocol.server_messages import MovedMessage, WelcomeMessage
from server.config import ServerConfig
from server.errorlog import ErrorLog
from server.limits.addresses import address_group
from server.limits.ratelimit import Limits
from server.lobby.players import Connection, Player, new_player_id
from server.rooms.outgoing import bye_message
from server.rooms.room import Room
from server.store.store import Store
from server.store.tokens import new_token, token_hash

if TYPE_CHECKING:
    from server.cluster.leases import Seated
    from server.cluster.node import Cluster, Greeted


class Lobby(Protocol):
    """What a hello needs of the lobby (``server.lobby.lobby.Lobby`` is it): declared here so
    that the lobby imports this module, not the other way round."""

    config: ServerConfig
    store: Store
    limits: Limits
    errors: ErrorLog
    version: str
    cluster: Cluster | None
    players: dict[str, Player]
    by_token: dict[str, Player]
    rooms: dict[str, Room]

    def known(self, player: tuple[str, str, str] | None) -> Player | None:
        """The Player of a stored (id, token hash, name), made known to this lobby."""

    def send_room(self, conn: Connection, player: Player, room: Room) -> None:
        """Send a player back (a hello) its room, as it is now."""


def hello(lobby: Lobby, conn: Connection, req: Hello, then: Callable[[Player], None]) -> None:
    """Identify a connection: a new player, or the one the token names; then send it its
    rooms again, as they are now, and call ``then`` with the player. On a server alone at
    once; in a cluster once the hello's round trip is back (the player's row and its rooms
    on other nodes, or a new player's token from the cluster's bucket), which the event
    loop does not wait for (``conn``'s next messages do: ``Connection.after``)."""
    cluster = lobby.cluster
    if req.token is None:
        group = _may_add_player(lobby, conn)
        if cluster is None:
            then(_greet(lobby, conn, req, *_new_player(lobby, req, group, True), None))
            return
        rate, burst = lobby.config.new_players_per_second, lobby.config.new_players_burst
        conn.after(
            cluster.leases.allow_later("new_players", group, rate, burst),
            lambda allowed: then(
                _greet(lobby, conn, req, *_new_player(lobby, req, group, allowed), None)
            ),
        )
        return
    token, hashed = req.token, token_hash(req.token)
    if cluster is None:
        then(_greet(lobby, conn, req, _resume(lobby, conn, hashed), token, None))
        return
    known = lobby.by_token.get(hashed)
    conn.after(
        cluster.hello_later(hashed, None if known is None else known.id),
        lambda found: _greeted(lobby, conn, req, token, found, then),
    )


def _greeted(
    lobby: Lobby,
    conn: Connection,
    req: Hello,
    token: str,
    found: Greeted,
    then: Callable[[Player], None],
    settled: bool = False,
) -> None:
    """A cluster's hello, once its round trip is back (``found``). A player known here whose
    row names no token was revoked, or is one made here whose row is not committed yet: its
    token is read again (``settled``) after this node's writes commit, off the event loop
    as well."""
    hashed = token_hash(token)
    player = lobby.by_token.get(hashed)
    if not settled and player is not None and found.player is None and found.token is None:
        pid = player.id
        later = lobby.store.reads_later(lambda reads: reads.token_of(pid))
        assert later is not None  # a cluster's store is PostgreSQL's
        conn.after(
            later,
            lambda stored: _greeted(
                lobby, conn, req, token, replace(found, token=stored), then, settled=True
            ),
        )
        return
    then(_greet(lobby, conn, req, _resume(lobby, conn, hashed, found), token, found.rooms))


def _greet(
    lobby: Lobby,
    conn: Connection,
    req: Hello,
    player: Player,
    token: str,
    elsewhere: list[Seated] | None,
) -> Player:
    """The rest of a hello, once ``player`` is known: welcome, the rooms it has on other
    nodes of a cluster (``elsewhere``: read already), then its rooms here."""
    player.name = req.name
    lobby.store.save_player(player.id, token, player.name)
    player.connection = conn
    resuming = " resuming" if req.token else ""
    lobby.errors.line(logging.INFO, "%s is %s (%s)%s", conn.peer, player.name, player.id, resuming)
    conn.send(WelcomeMessage(id=req.id, player=player.id, token=token, server=lobby.version))
    if lobby.cluster is not None and elsewhere:
        moved = lobby.cluster.seated_elsewhere(player.id, elsewhere)
        if moved is not None:
            conn.send(MovedMessage(room=moved[0], address=moved[1]))
    for code in list(player.rooms):
        room = lobby.rooms.get(code)
        if room is None:
            player.rooms.remove(code)
            continue
        lobby.send_room(conn, player, room)
    return player


def _resume(lobby: Lobby, conn: Connection, hashed: str, found: Greeted | None = None) -> Player:
    """The player whose token hashes to ``hashed``; its old connection, if any, is told
    it was replaced. ``found``: what a cluster's hello read of it (its row, or its stored
    token hash: Cluster.hello_later)."""
    player = lobby.by_token.get(hashed)
    if player is None and found is not None:  # made on another node
        # read by its token just now: not revoked (a round trip less per hello, which
        # counts when a dead node's players all come back here at once)
        player = lobby.known(found.player)
    elif player is not None and _stored_token(lobby, player.id, found) != hashed:
        # revoked by the operator (selfish-server admin revoke) while the server ran
        del lobby.by_token[hashed]
        player = None
    if player is None:
        raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown token")
    group = address_group(conn.address, lobby.config.ipv6_prefix)
    if not lobby.limits.hellos.allow(group) or not lobby.limits.resumes.allow(player.id):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "too many reconnects; wait a little and try again"
        )
    old = player.connection
    if old is not None and old is not conn:
        old.close_after(bye_message("replaced"))
    return player


def _stored_token(lobby: Lobby, player: str, found: Greeted | None) -> str | None:
    """The token hash stored for ``player``, to see whether the operator revoked it. A
    cluster's hello read it already (``found``: by the player's id, again after this node's
    writes when none was found, :func:`_greeted`; or the row read by the token itself).
    Alone, it is read here: a revocation is committed by the operator's tool, so the read
    need not wait for this node's own writes, unless it finds none: then the player may be
    one made here whose row is not committed yet, and it is read again after them."""
    if found is not None:
        return found.token
    with lobby.store.elsewhere():
        token = lobby.store.token_of(player)
    return token if token is not None else lobby.store.token_of(player)


def _may_add_player(lobby: Lobby, conn: Connection) -> str:
    """The address group of a hello without a token, if this node may make a new
    identity for it now (ProtocolError if not); the cluster's bucket is taken next."""
    if not lobby.store.writable:
        raise ProtocolError(
            ErrorCode.STORE_UNAVAILABLE, "the server cannot record new players right now"
        )
    group = address_group(conn.address, lobby.config.ipv6_prefix)
    if not lobby.limits.new_players.allow(group):
        raise _too_many_players()
    return group


def _new_player(lobby: Lobby, req: Hello, group: str, allowed: bool) -> tuple[Player, str]:
    """A new identity and its token (``allowed``: the cluster's bucket gave a token for
    ``group``); a guest's has no record (server.store.ratings.is_guest)."""
    if not allowed:
        raise _too_many_players()
    token = new_token()
    player = Player(new_player_id(lobby.players, req.guest is True), token_hash(token), req.name)
    lobby.players[player.id] = player
    lobby.by_token[player.token] = player
    return player, token


def _too_many_players() -> ProtocolError:
    return ProtocolError(
        ErrorCode.RATE_LIMITED,
        "too many new players from your address: wait, or send hello "
        "with your token to resume your identity",
    )
