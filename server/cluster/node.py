"""One node of a cluster: several ``selfish-server`` processes on one PostgreSQL database.

Each room is run by exactly one node, under its lease (``server.cluster.leases``). This module
is what a node does about the others:

- **opening a room** takes its lease (the code is then free cluster-wide), with the creator's
  token and count of open rooms (``server.lobby.codes``), in a round trip the event loop does
  not wait for (``Leases.claim_later``; the connection's next requests wait for it);
- **a room run elsewhere**: a request for it, or a hello from a player seated in it (its game
  unfinished or over, or a member of its waiting room), is answered ``moved`` with the
  address of the node that runs it (read off the event loop:
  :meth:`Cluster.elsewhere_later`; the connection's next requests wait for it); the client
  follows (it is the node running the room that must see its requests: proxying would put a
  second hop and a second copy of the room's traffic on every request, and a proxy node that
  dies would cut clients whose room lives on);
- **failover**: every ``lease_seconds / 4`` the node renews its leases (those it lost, it drops:
  the room's members are cut off without what the lost transaction produced, and reconnect),
  and takes over every room whose lease expired with a game unfinished, with its game over
  (waiting for a rematch), or with its game not started yet (a waiting room), restoring it
  from the store; a hello of a player seated in a room with its game unfinished or over, or
  a member of a waiting room, takes it over at once (the members already back are sent the
  room);
- **closing a room** lets its lease go once the room's last writes are committed: they are
  fenced by that lease, and a lease gone first would drop them;
- **one lobby**: each node publishes its public rooms' entries in ``cluster_rooms`` and
  ``NOTIFY``\\s ``selfish_lobby``; the others ``LISTEN`` and read the table again. A notification
  is only a hint to look: the table is the truth, and it is read again every ``lease_seconds``
  anyway (a notification lost with a dropped connection costs that long at most).

The renewal, the search for orphans and the lobby's writes and reads of each quarter of
``lease_seconds`` are one piece of work in the leases' sideline thread
(``server.store.sideline``): the event loop hands it over and takes its outcome when it is
done (the rooms lost dropped, the orphans taken over), never waiting for PostgreSQL meanwhile.
A takeover's lease and the reads its room is restored from are one round trip there too (and
a hello's reads one in the store's read thread); the room is replayed on the loop when they
are back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import psycopg

from server.cluster.leases import DEAD, Leases, Seated, Surveyed, seated
from server.rooms.room import Room
from server.rooms.scheduler import Handle, Scheduler
from server.store.records import PLAYER_BY_TOKEN, TOKEN_OF, player_from_rows, token_from_rows
from server.store.store import Store, StoredGame, StoredWaiting
from server.store.takeover import MEMBERS, member_ids
from server.store.write_path import Owner, placeholders

log = logging.getLogger("selfish.server")

CHANNEL = "selfish_lobby"


@dataclass(frozen=True)
class Greeted:
    """What a resuming player's hello read (:meth:`Cluster.hello_later`): the player's row
    when it was read by its token (a player made on another node; None if not found, or when
    the node knew the player), its stored token hash, and its rooms on other nodes."""

    player: tuple[str, str, str] | None
    token: str | None
    rooms: list[Seated]


# What a takeover's round trips read: the lease's row (None: not taken), the rows of the
# reads the room is restored from (server.store.takeover.Takeover.takeover_reads), and those of
# its members' players (server.store.takeover.MEMBERS).
TakenOver = tuple[Any, list[list[tuple[Any, ...]]], list[tuple[Any, ...]]]
# What the maintenance's round trips read: the survey's rows, the other nodes' rooms (None:
# not read this time).
Maintained = tuple[Surveyed, list[tuple[str, bytes]] | None]


class Host(Protocol):
    """What a node needs of its lobby (``server.lobby.lobby.Lobby`` is it): declared here so
    that the lobby imports the cluster, not the other way round."""

    @property
    def store(self) -> Store: ...
    @property
    def scheduler(self) -> Scheduler: ...
    @property
    def rooms(self) -> dict[str, Room]: ...

    def resume_stored(self, stored: StoredGame) -> None:
        """Open the room of an unfinished stored game and resume it."""

    def reopen_waiting(self, stored: StoredWaiting) -> None:
        """Open a stored waiting room again."""

    def drop_room(self, room: Room) -> None:
        """Stop a room another node runs now, writing nothing more."""

    def listed_rooms(self) -> Iterator[tuple[str, Room]]:
        """The rooms list_rooms shows."""


class Cluster:
    """This node's leases, its view of the other nodes' rooms, and failover."""

    def __init__(self, lobby: Host, url: str, address: str, seconds: float) -> None:
        self.lobby = lobby
        self.leases = Leases(url, address, seconds, lobby.store.game_rooms)
        self.seconds = seconds
        # The other nodes' public rooms (code, entry as list_rooms sends it), as last read:
        # a room taken over here since is still among them until the next read.
        self.remote: list[tuple[str, bytes]] = []
        self._published: dict[str, bytes] = {}  # room -> the entry this node last published
        self._listener = psycopg.connect(url, autocommit=True)
        self._listener.execute(f"LISTEN {CHANNEL}".encode())
        self._last_read = 0.0
        self._timer: Handle | None = None
        self._stopped = False
        self._taking: set[str] = set()  # rooms whose takeover's round trip is on its way
        lobby.store.fence(self.leases.fence, self.leases.guard, self.games_lost)

    def start(self) -> None:
        """Maintain the node's part every quarter of ``lease_seconds``, from now on."""
        self.maintain(self.lobby.scheduler.time())
        self._again()

    def _again(self) -> None:
        self._timer = self.lobby.scheduler.call_at(
            self.lobby.scheduler.time() + self.seconds / 4, self._due
        )

    def _due(self) -> None:
        """The timer: the maintenance's round trip runs in the sideline, the loop goes on
        meanwhile, and takes its outcome (then sets the timer again) once it is done."""
        self._timer = None
        try:
            now = self.lobby.scheduler.time()
            work, entries = self._work(now)
            loop = asyncio.get_running_loop()
            done = self.leases.sideline.submit(work)
        except Exception:
            log.exception("cluster maintenance failed")
            self._again()
            return
        # the future given to the callback, not ``done`` from here: a concurrent future keeps
        # its callbacks, and one holding the future would make a cycle of them
        done.add_done_callback(
            lambda finished: loop.call_soon_threadsafe(self._done, finished, entries, now)
        )

    def _done(
        self, done: concurrent.futures.Future[Maintained], entries: dict[str, bytes], now: float
    ) -> None:
        if self._stopped:
            return
        try:
            self._take(done.result(), entries, now)
        except psycopg.Error as exc:
            # The leases run out by themselves if this goes on: the node then drops its rooms.
            log.warning("cluster maintenance failed: %s", exc)
        except Exception:
            log.exception("cluster maintenance failed")
        self._again()

    # ------------------------------------------------------------------ rooms

    def take(self, code: str, creator: str | None = None) -> bool:
        """Take the lease of a room's code (noting ``creator``, the address it was created
        from), at a restart; False if another room holds it."""
        return self.leases.take(code, creator)

    def elsewhere_later(self, code: str) -> concurrent.futures.Future[str | None]:
        """The address of the node that runs room ``code``, if another one does
        (:meth:`Leases.owner`), read in the store's thread for reads: the event loop goes on
        meanwhile (a request for a room this node does not run: the lobby answers it once
        this is back). It need not wait for this node's writes: another node's lease is
        written by that node."""
        statement = self.leases.owner_statement(code)
        return self.lobby.store.run_later(functools.partial(_address, statement))

    def closed(self, room: Room) -> None:
        """``room`` closed here: its lobby entry goes, and its lease once what the room wrote
        last (a game abandoned, a waiting room forgotten) is committed under it."""
        code = room.code
        self._published.pop(code, None)
        self.lobby.store.after_commit(lambda: self.leases.release(code))

    def hello_later(self, hashed: str, known: str | None) -> concurrent.futures.Future[Greeted]:
        """The reads a resuming player's hello needs, in the store's thread for reads (the
        event loop goes on meanwhile, and so do the claims in the leases' sideline): the
        stored token hash of ``known`` (the player this node knows by the token hashing to
        ``hashed``), or the player ``hashed`` names (one made on another node); and the rooms
        of that player's that other nodes run (:meth:`seated_elsewhere`). Neither waits for
        this node's writes to commit: a revocation is committed by the operator's tool, a
        player learnt here was made elsewhere, and a room of another node is written by it."""
        rooms_of = self.leases.rooms_of_statement
        return self.lobby.store.run_later(functools.partial(_greet, hashed, known, rooms_of))

    def seated_elsewhere(
        self, player: str, rooms: list[Seated] | None = None
    ) -> tuple[str, str] | None:
        """Take over the rooms of ``player``'s unfinished games, the rooms at their game over
        whose last game it played, and the waiting rooms it is a member of, whose node is
        gone; then (room, address of its node) of one of the others (an unfinished game's
        first), if any: the player's hello is answered ``moved`` there, whatever the room's
        phase. ``rooms``: :meth:`Leases.rooms_of`'s, read
        already (:meth:`hello_later`)."""
        elsewhere = None
        for room, game, owner, expired in self.leases.rooms_of(player) if rooms is None else rooms:
            if room in self.lobby.rooms:
                continue
            if expired:
                self.take_over(room, game)
            elif elsewhere is None:
                elsewhere = room, owner
        return elsewhere

    def take_over(self, code: str, game: int | None) -> None:
        """Take room ``code`` whose lease expired and resume its ``game`` here, unfinished or
        over (its players may ask for a rematch), or (None) open the waiting room stored under
        ``code``; nothing if another node is first. The lease and the reads the room is
        restored from are one round trip in the leases' sideline (the lease first: once it is
        taken, the old owner can commit nothing more, so the reads see all it committed); the
        event loop goes on meanwhile, and restores the room when they are back."""
        if code in self.lobby.rooms or code in self._taking:
            return
        self._taking.add(code)
        work = functools.partial(
            _take_over,
            self.leases.take_statement(code),
            self.lobby.store.takeover_reads(code, game),
            game,
        )
        loop = asyncio.get_running_loop()
        self.leases.sideline.submit(work).add_done_callback(
            lambda done: loop.call_soon_threadsafe(self._taken_over, code, game, done)
        )

    def _taken_over(
        self, code: str, game: int | None, done: concurrent.futures.Future[TakenOver]
    ) -> None:
        """On the loop: restore the room a takeover's round trip took the lease of."""
        self._taking.discard(code)
        if self._stopped:
            return
        try:
            row, rows, players = done.result()
        except psycopg.Error as exc:  # the lease, if taken, runs out; the next survey retries
            log.warning("room %s: could not take it over: %s", code, exc)
            return
        if not self.leases.taken(code, row):
            return  # another node was first
        # with its members' players: those not known here were made on another node
        stored = self.lobby.store.taken_over(game, rows, players)
        if isinstance(stored, StoredWaiting):
            self.lobby.reopen_waiting(stored)
            what = "waiting room"
        elif stored is not None and stored.status in ("playing", "over"):
            self.lobby.resume_stored(stored)
            what = f"game {game}, {stored.status}"
        else:  # its game started, ended or was abandoned, or it closed, meanwhile
            self.leases.release(code)
            return
        log.info("room %s: taken over (%s, epoch %d)", code, what, self.leases.held[code])

    def games_lost(self, games: set[Owner]) -> None:
        """The fence found the leases of these games (and waiting rooms) lost
        (server.store.postgres): drop their rooms."""
        rooms = {self.leases.room_of(game) for game in games}
        self.rooms_lost({room for room in rooms if room is not None})

    def rooms_lost(self, codes: set[str]) -> None:
        """Another node holds these rooms now: drop them here, with nothing more written."""
        for code in codes:
            self.leases.forget(code)
            self._published.pop(code, None)
            room = self.lobby.rooms.get(code)
            if room is not None:
                log.warning("room %s: its lease was lost to another node; dropped", code)
                self.lobby.drop_room(room)

    # ------------------------------------------------------------------ the timer

    def maintain(self, now: float) -> None:
        """Renew, take over what expired, publish and read the lobby (one timer for all),
        waiting for it (at the start; the timer does not wait: :meth:`_due`)."""
        try:
            work, entries = self._work(now)
            self._take(self.leases.sideline.run(work), entries, now)
        except psycopg.Error as exc:
            log.warning("cluster maintenance failed: %s", exc)

    def _work(
        self, now: float
    ) -> tuple[Callable[[psycopg.Connection[Any]], Maintained], dict[str, bytes]]:
        """The maintenance's round trips, to run in the sideline thread: the survey
        (:meth:`Leases.survey_later`), this node's public rooms' entries that changed (and
        those that went) written and notified, the notifications taken, and the other nodes'
        rooms read if a notification came or ``lease_seconds`` went by. Also the entries
        published (they are this node's once the work is done)."""
        survey = self.leases.survey_later()
        entries = {code: room.packed_summary() for code, room in self.lobby.listed_rooms()}
        changed = {c: e for c, e in entries.items() if self._published.get(c) != e}
        gone = [code for code in self._published if code not in entries]
        rows = [(code, entry) for code, entry in changed.items() if code in self.leases.held]
        listener, node = self._listener, self.leases.node
        read = now - self._last_read >= self.seconds

        def work(conn: psycopg.Connection[Any]) -> Maintained:
            surveyed = survey(conn)
            if changed or gone:
                _publish(listener, rows, gone)
            return surveyed, _read(listener, node, read)

        return work, entries

    def _take(self, done: Maintained, entries: dict[str, bytes], now: float) -> None:
        """On the loop: drop the rooms lost, take over the orphans, note what was
        published and read."""
        surveyed, remote = done
        lost, orphans = self.leases.surveyed(surveyed)
        self.rooms_lost(lost)
        for code, game in orphans:
            self.take_over(code, game)
        self._published = {c: e for c, e in entries.items() if c in self.leases.held}
        if remote is not None:
            self.remote = remote
            self._last_read = now

    def stop(self) -> None:
        """Let every lease go (the others take the rooms at once) and close the connections
        (after the store's last commit: it is fenced by these leases)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        gone, listener = list(self._published), self._listener
        try:
            if gone:
                self.leases.sideline.run(lambda _: _publish(listener, [], gone))
        except psycopg.Error as exc:
            log.warning("could not remove this node's rooms from the lobby: %s", exc)
        self.leases.close()
        self._listener.close()


def _take_over(
    take: tuple[str, tuple[Any, ...]],
    reads: list[tuple[str, Any]],
    game: int | None,
    conn: psycopg.Connection[Any],
) -> TakenOver:
    """:meth:`Cluster.take_over`'s round trips, in the sideline thread: the lease, then, if
    it was taken, the reads (one pipeline), then the players of the room's members (those
    made on another node are not known here)."""
    row = conn.execute(*take).fetchone()
    if row is None:
        return None, [], []
    with conn.pipeline():
        cursors = [conn.execute(placeholders(sql), params) for sql, params in reads]
    rows = [[tuple(found) for found in cursor.fetchall()] for cursor in cursors]
    members = member_ids(game, rows)
    players = conn.execute(MEMBERS, (members,)).fetchall() if members else []
    return row, rows, [tuple(player) for player in players]


def _address(statement: tuple[str, tuple[Any, ...]], conn: psycopg.Connection[Any]) -> str | None:
    """:meth:`Cluster.elsewhere_later`'s round trip, in the store's thread for reads."""
    row = conn.execute(*statement).fetchone()
    return None if row is None else str(row[0])


def _greet(
    hashed: str,
    known: str | None,
    rooms_of: Callable[[str], tuple[str, tuple[Any, ...]]],
    conn: psycopg.Connection[Any],
) -> Greeted:
    """:meth:`Cluster.hello_later`'s round trips, in the sideline thread: one (a pipeline)
    for a player known here, two for one made elsewhere (its id first)."""
    if known is not None:
        with conn.pipeline():
            token = conn.execute(placeholders(TOKEN_OF), (known,))
            rooms = conn.execute(*rooms_of(known))
        return Greeted(None, token_from_rows(token.fetchall()), seated(rooms.fetchall()))
    found = conn.execute(placeholders(PLAYER_BY_TOKEN), (hashed,)).fetchall()
    player = player_from_rows([tuple(row) for row in found])
    if player is None:
        return Greeted(None, None, [])
    return Greeted(player, player[1], seated(conn.execute(*rooms_of(player[0])).fetchall()))


def _publish(
    listener: psycopg.Connection[Any], rows: list[tuple[str, bytes]], gone: list[str]
) -> None:
    """Write this node's lobby entries that changed, remove those that went, and notify the
    other nodes, in one transaction (executemany pipelines the rows: a busy node changes
    hundreds of entries between two runs)."""
    with listener.transaction():
        listener.cursor().executemany(
            "INSERT INTO cluster_rooms (room, listing) VALUES (%s, %s) "
            "ON CONFLICT (room) DO UPDATE SET listing = excluded.listing",
            rows,
        )
        if gone:
            listener.execute("DELETE FROM cluster_rooms WHERE room = ANY(%s)", (gone,))
        listener.execute(f"NOTIFY {CHANNEL}".encode())


def _read(
    listener: psycopg.Connection[Any], node: str, due: bool
) -> list[tuple[str, bytes]] | None:
    """The other nodes' public rooms (code, entry), if a notification came (a hint to look) or
    ``due``; None if neither."""
    stale = any(True for _ in listener.notifies(timeout=0))
    if not stale and not due:
        return None
    rows = listener.execute(
        "SELECT room, cluster_rooms.listing FROM cluster_rooms JOIN leases USING (room) "
        f"WHERE leases.node != %s AND NOT {DEAD} ORDER BY room",
        (node,),
    ).fetchall()
    return [(row[0], bytes(row[1])) for row in rows]
