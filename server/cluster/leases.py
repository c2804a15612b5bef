"""Room leases in PostgreSQL: which node runs a room, until when, and under which epoch.

A node takes a room's lease when it opens the room (a new code, or a room whose lease expired:
a takeover, which raises the epoch), renews every lease it holds every third of
``lease_seconds``, and lets it go when the room closes. A lease that is not renewed in time
expires, and any node may take it over.

Fencing: the epoch a node took a lease under is checked, inside the transaction of every commit,
by :meth:`Leases.fence` (``server.store.postgres``): the lease rows are locked ``FOR SHARE``, so
a takeover (an ``UPDATE`` of the row) waits for that commit, or that commit sees the new epoch
and drops the writes of the room. A node paused past its lease (SIGSTOP, a network cut)
therefore never writes a decision beside the new owner's: its next commit or renewal finds the
lease gone and the node drops the room.

Leases are taken, renewed and released on connections of their own (autocommit), so that none
of them ever commits the writes of a tick before their fence: one the event loop waits on (the
leases taken at a restart, the owner of a room asked for that another node runs), and the
sideline's (``server.store.sideline``: a thread), which runs in order what the loop need not
wait for: a room's claim (:meth:`Leases.claim_later`: its rate bucket's token, its creator's
count of open rooms and its lease, in one round trip), another code's lease when the claimed
one was taken (:meth:`Leases.take_later`), a new player's token (:meth:`Leases.allow_later`),
a takeover (server.cluster.node), the survey (:meth:`Leases.survey_later`) and the release of
a lease. Their commits do not wait for the disk (``synchronous_commit = off``): a
lease needs no flush of its own. PostgreSQL writes its log in order, so the commit
of the first writes made under a lease, which waits for the disk, flushes the lease with it: a
crash of PostgreSQL can lose only a lease nothing was yet committed under (the node's next
commit then finds it lost, and drops the room before anyone saw what it did there), and a
takeover that a crash loses leaves the old epoch, which the new owner's writes cannot match.
A rate bucket that loses its last take gives one more token.

The claim does not count the creator's leases (thousands, from one address, in the bench):
a trigger keeps each creator's count of leases on each node (``creator_rooms``), which the
claim sums over the nodes alive (:data:`COUNT`).

A dead node is noticed before its leases expire: its lease connections are named after it
(``application_name``), and a node killed (``kill -9``, a crash) has its sockets closed by the
kernel, so PostgreSQL ends its sessions at once. A lease whose node has no session left counts
as expired (:data:`DEAD`): another node takes it over at once, by the same statement and under
a new epoch, so fencing holds as for an expired lease (a node that is alive but lost its
connection finds its next commit fenced, and drops the room). A node paused or cut off keeps
its sessions for as long as PostgreSQL sees its connections, and its leases run out as usual.
"""

from __future__ import annotations

import concurrent.futures
import functools
import json
import logging
import secrets
from collections.abc import Collection
from typing import Any

import psycopg

from server.store.sideline import Sideline
from server.store.write_path import Owner

log = logging.getLogger("selfish.server")

PREFIX = "selfish-node-"  # a node's lease connection's application_name, before the node id
# A lease that no longer holds: expired, or its node has no session in PostgreSQL.
DEAD = (
    "(leases.expires < now() OR NOT EXISTS (SELECT 1 FROM pg_stat_activity "
    f"WHERE application_name = '{PREFIX}' || leases.node))"
)

# The open rooms of a creator (max_rooms_per_address), of every node: the counts that the
# trigger on leases keeps (creator_rooms, server.store.dialect), of the nodes that have a
# session. A dead node's rooms stop counting at once, as its leases do (DEAD); the expired
# leases of a node alive (paused, cut off) count until another node takes them over or deletes
# them (Leases.orphans, within a quarter of lease_seconds): the count errs towards refusing.
COUNT = (
    "SELECT coalesce(sum(rooms), 0) FROM creator_rooms WHERE creator = %s AND EXISTS "
    "(SELECT 1 FROM pg_stat_activity WHERE application_name = "
    f"'{PREFIX}' || creator_rooms.node)"
)


# A room's game over, waiting for a rematch: the last game of its code, over (an older game
# of the code is of an earlier room, closed since; a room waiting for its first game is in
# waiting_rooms instead). server.store.dialect's games_room index finds it.
def _over(room: str) -> str:
    return (
        f"games.room = {room} AND games.status = 'over' "
        f"AND games.id = (SELECT max(id) FROM games AS later WHERE later.room = {room}) "
        f"AND NOT EXISTS (SELECT 1 FROM waiting_rooms WHERE waiting_rooms.room = {room})"
    )


OVER = _over("dead.room")
# The leases that no longer hold, looked for once (a statement's other conditions then
# concern those few, not every lease).
GONE = f"WITH dead AS MATERIALIZED (SELECT room FROM leases WHERE {DEAD}) "

# Leases.orphans' statements: the cleanup, then the search (the last). The deletion checks
# DEAD again on the row it deletes: a lease taken over meanwhile is not deleted.
ORPHANS = (
    "DELETE FROM address_buckets WHERE at < extract(epoch FROM clock_timestamp()) - 3600",
    f"{GONE}DELETE FROM leases USING dead WHERE leases.room = dead.room AND {DEAD} "
    "AND NOT EXISTS (SELECT 1 FROM games "
    "WHERE games.room = dead.room AND games.status = 'playing') AND NOT EXISTS "
    "(SELECT 1 FROM waiting_rooms WHERE waiting_rooms.room = dead.room) "
    f"AND NOT EXISTS (SELECT 1 FROM games WHERE {OVER})",
    "DELETE FROM creator_rooms WHERE rooms <= 0",  # after the leases deleted
    f"{GONE}SELECT dead.room, max(games.id) FROM dead JOIN games "
    "ON games.room = dead.room AND games.status = 'playing' GROUP BY dead.room "
    "UNION ALL SELECT dead.room, NULL FROM dead JOIN waiting_rooms USING (room) "
    f"UNION ALL SELECT dead.room, games.id FROM dead JOIN games ON {OVER}",
)


# A room of a player's run by another node (Leases.rooms_of): (room, game or None for a
# waiting room, address of its node, whether its lease expired).
Seated = tuple[str, int | None, str, bool]


def seated(rows: list[Any]) -> list[Seated]:
    """:meth:`Leases.rooms_of`'s rows."""
    return [(str(r), None if g is None else int(g), str(a), bool(e)) for r, g, a, e in rows]


def _orphans(rows: list[Any]) -> list[tuple[str, int | None]]:
    return [(str(room), None if game is None else int(game)) for room, game in rows]


Statement = tuple[str, tuple[Any, ...]]
# What a claim's round trip read: the bucket's row, the count's and the lease's (or None).
Claimed = tuple[Any, Any, Any]
# What a survey's round trip read: the leases it renewed (room -> epoch), the rows of the
# renewal (None if there were none), the orphans' rows.
Surveyed = tuple[dict[str, int], list[Any] | None, list[Any]]


def _claim(statements: tuple[Statement, ...], conn: psycopg.Connection[Any]) -> Claimed:
    with conn.pipeline():
        allowed, opened, taken = (conn.execute(*statement) for statement in statements)
    return allowed.fetchone(), opened.fetchone(), taken.fetchone()


def _survey(
    held: dict[str, int], renew: Statement | None, conn: psycopg.Connection[Any]
) -> Surveyed:
    with conn.pipeline():
        renewed = conn.execute(*renew) if renew is not None else None
        found = [conn.execute(sql) for sql in ORPHANS][-1]
    return held, None if renewed is None else renewed.fetchall(), found.fetchall()


def _row(statement: Statement, conn: psycopg.Connection[Any]) -> Any:
    return conn.execute(*statement).fetchone()


def _allowed(statement: Statement, conn: psycopg.Connection[Any]) -> bool:
    return conn.execute(*statement).fetchone() is not None


def _run(statement: Statement, conn: psycopg.Connection[Any]) -> None:
    conn.execute(*statement)


class Leases:
    """The leases one node holds: room code -> epoch."""

    def __init__(
        self, url: str, address: str, seconds: float, rooms_of_games: dict[int, str]
    ) -> None:
        self.node = secrets.token_hex(8)  # a new one each start: a restarted node is new
        self.address = address  # host:port the other nodes send this node's clients to
        self.seconds = seconds
        self.held: dict[str, int] = {}
        # game id -> room code, for the fence: the store's (Store.game_rooms), kept by it
        self.rooms_of_games = rooms_of_games
        self._db = psycopg.connect(url, autocommit=True, application_name=PREFIX + self.node)
        self._db.execute("SET synchronous_commit = off")  # see the module docstring
        # The round trips the event loop need not wait for (a room's claim, the survey, a
        # lease let go), in the order they were asked for, on a connection of the same name:
        # the node is alive while either has a session.
        self.sideline = Sideline(url, PREFIX + self.node, ("SET synchronous_commit = off",))

    def _interval(self) -> str:
        return f"{self.seconds} seconds"

    def take(self, room: str, creator: str | None = None) -> bool:
        """Take the lease of ``room`` if nobody holds it (or its lease expired); True if
        taken. Taking an expired lease raises its epoch. ``creator``: the address group that
        creates the room (``max_rooms_per_address`` counts the open rooms of every node);
        without it, a lease taken over keeps the creator it had."""
        return self._taken(room, self._db.execute(*self._take(room, creator)).fetchone())

    def _take(self, room: str, creator: str | None) -> tuple[str, tuple[Any, ...]]:
        return (
            "INSERT INTO leases (room, node, address, epoch, expires, creator) "
            "VALUES (%s, %s, %s, 1, now() + %s::interval, %s) "
            "ON CONFLICT (room) DO UPDATE SET node = excluded.node, address = excluded.address, "
            "epoch = leases.epoch + 1, expires = excluded.expires, "
            "creator = coalesce(excluded.creator, leases.creator) "
            f"WHERE {DEAD} RETURNING epoch",
            (room, self.node, self.address, self._interval(), creator),
        )

    def take_statement(self, room: str) -> Statement:
        """:meth:`take`'s statement (a takeover's, keeping the lease's creator), for a round
        trip in the sideline; :meth:`taken` makes its outcome of the row."""
        return self._take(room, None)

    def take_later(self, room: str, creator: str) -> concurrent.futures.Future[Any]:
        """:meth:`take`'s round trip, run in the sideline thread; :meth:`taken` (on the event
        loop) makes its outcome of the row."""
        return self.sideline.submit(functools.partial(_row, self._take(room, creator)))

    def taken(self, room: str, row: Any) -> bool:
        """Whether :meth:`take_later`'s ``row`` says the lease of ``room`` was taken; it is
        held then."""
        return self._taken(room, row)

    def _taken(self, room: str, row: Any) -> bool:
        if row is None:
            return False
        self.held[room] = int(row[0])
        return True

    def claim(self, room: str, creator: str, rate: float, burst: int) -> tuple[bool, int, bool]:
        """What opening a room asks of the cluster, in one round trip: a token from the
        ``rooms`` bucket of ``creator`` (:meth:`allow`), the open rooms created from
        ``creator`` before this one (:meth:`rooms_from`), and the lease of ``room``
        (:meth:`take`, with its creator). Returns (allowed, opened, taken); the caller lets the
        lease go if the room is refused. The event loop calls :meth:`claim_later` instead."""
        return self.claimed(room, self.claim_later(room, creator, rate, burst).result())

    def claim_later(
        self, room: str, creator: str, rate: float, burst: int
    ) -> concurrent.futures.Future[Claimed]:
        """:meth:`claim`'s round trip, run in the sideline thread; :meth:`claimed` (on the
        event loop) makes its outcome of the rows."""
        statements = (
            self._allow("rooms", creator, rate, burst),
            self._rooms_from(creator),
            self._take(room, creator),
        )
        return self.sideline.submit(functools.partial(_claim, statements))

    def claimed(self, room: str, rows: Claimed) -> tuple[bool, int, bool]:
        """(allowed, opened, taken) of :meth:`claim_later`'s rows; a lease taken is held."""
        allowed, opened, taken = rows
        return (
            allowed is not None,
            0 if opened is None else int(opened[0]),
            self._taken(room, taken),
        )

    def renew(self) -> set[str]:
        """Extend every held lease; return the rooms whose lease this node lost (taken over
        after it expired). Raises psycopg.Error if the database cannot be reached."""
        if not self.held:
            return set()
        return self._lost(self._db.execute(*self._renew()).fetchall())

    def _renew(self) -> Statement:
        return (
            "UPDATE leases SET expires = now() + %s::interval "
            "WHERE node = %s AND room = ANY(%s) RETURNING room, epoch",
            (self._interval(), self.node, list(self.held)),
        )

    def _lost(self, renewed: list[Any]) -> set[str]:
        kept = {str(room) for room, epoch in renewed if self.held.get(room) == epoch}
        return set(self.held) - kept

    def survey(self) -> tuple[set[str], list[tuple[str, int | None]]]:
        """:meth:`renew`, then :meth:`orphans`, in one round trip: (the rooms lost, the
        orphans). The event loop runs :meth:`survey_later` instead."""
        return self.surveyed(self.sideline.run(self.survey_later()))

    def survey_later(self) -> functools.partial[Surveyed]:
        """:meth:`survey`'s round trip, to run with the sideline's connection (the leases
        held now are renewed); :meth:`surveyed` (on the event loop) reads its rows."""
        held = dict(self.held)
        renew = self._renew() if held else None
        return functools.partial(_survey, held, renew)

    def surveyed(self, rows: Surveyed) -> tuple[set[str], list[tuple[str, int | None]]]:
        """(the rooms lost, the orphans) of :meth:`survey_later`'s rows: a lease the survey
        meant to renew and did not is lost, unless it was let go meanwhile (a room closed)."""
        held, renewed, found = rows
        kept = {str(room) for room, epoch in renewed or () if held.get(room) == epoch}
        lost = {room for room, epoch in held.items() if room not in kept}
        return {room for room in lost if self.held.get(room) == held[room]}, _orphans(found)

    def created_from(self, room: str, address: str) -> None:
        """Note the address group that created ``room`` (``max_rooms_per_address`` counts
        the open rooms of every node)."""
        self._db.execute(
            "UPDATE leases SET creator = %s WHERE room = %s AND node = %s",
            (address, room, self.node),
        )

    def rooms_from(self, address: str) -> int:
        """Open rooms of the whole cluster created from ``address``: the leases noting it as
        their creator, of the nodes alive (see :data:`COUNT`)."""
        row = self._db.execute(*self._rooms_from(address)).fetchone()
        return 0 if row is None else int(row[0])

    def _rooms_from(self, address: str) -> Statement:
        return COUNT, (address,)

    def allow(self, kind: str, address: str, rate: float, burst: int) -> bool:
        """Take one token from the cluster's bucket of ``kind`` for ``address`` (``burst``
        tokens, refilled at ``rate`` a second, on the database's clock); False if empty."""
        return self._db.execute(*self._allow(kind, address, rate, burst)).fetchone() is not None

    def allow_later(
        self, kind: str, address: str, rate: float, burst: int
    ) -> concurrent.futures.Future[bool]:
        """:meth:`allow`, run in the sideline thread (a new player's hello)."""
        statement = self._allow(kind, address, rate, burst)
        return self.sideline.submit(functools.partial(_allowed, statement))

    def _allow(
        self, kind: str, address: str, rate: float, burst: int
    ) -> tuple[str, tuple[Any, ...]]:
        return (
            "INSERT INTO address_buckets AS b (address, kind, tokens, at) "
            "VALUES (%s, %s, %s - 1, extract(epoch FROM clock_timestamp())) "
            "ON CONFLICT (address, kind) DO UPDATE SET "
            "tokens = least(%s, b.tokens + (excluded.at - b.at) * %s) - 1, at = excluded.at "
            "WHERE least(%s, b.tokens + (excluded.at - b.at) * %s) >= 1 RETURNING tokens",
            (address, kind, float(burst), float(burst), rate, float(burst), rate),
        )

    def release(self, room: str) -> None:
        """Let the lease of a closed room go (nothing if it was lost already)."""
        epoch = self.held.pop(room, None)
        for game in [g for g, r in self.rooms_of_games.items() if r == room]:
            del self.rooms_of_games[game]
        if epoch is not None:  # in the sideline: the event loop need not wait for it
            statement = (
                "DELETE FROM leases WHERE room = %s AND node = %s AND epoch = %s",
                (room, self.node, epoch),
            )
            self.sideline.submit(functools.partial(_run, statement)).add_done_callback(
                functools.partial(_released, room)
            )

    def forget(self, room: str) -> None:
        """A lost lease: forget it without touching the row (another node holds it)."""
        self.held.pop(room, None)
        for game in [g for g, r in self.rooms_of_games.items() if r == room]:
            del self.rooms_of_games[game]

    def room_of(self, owner: Owner) -> str | None:
        """The room a write's owner belongs to: a game's (None if not known here), or a
        waiting room, which is its own."""
        return owner if isinstance(owner, str) else self.rooms_of_games.get(owner)

    def fence(self, conn: psycopg.Connection[Any], games: Collection[Owner]) -> set[Owner]:
        """Of ``games`` (the games and waiting rooms written in ``conn``'s open transaction),
        those whose room's lease this node no longer holds under the epoch it took it with;
        the rows are locked until the transaction ends."""
        rooms = {game: self.room_of(game) for game in games}
        wanted = sorted({room for room in rooms.values() if room is not None})
        rows = conn.execute(
            "SELECT room, epoch FROM leases WHERE node = %s AND room = ANY(%s) FOR SHARE",
            (self.node, wanted),
        ).fetchall()
        holding = {str(room) for room, epoch in rows if self.held.get(room) == epoch}
        return {game for game, room in rooms.items() if room not in holding}

    def guard(self, games: Collection[Owner]) -> tuple[str, tuple[Any, ...]] | None:
        """The statement that fences a commit writing ``games`` (and waiting rooms) from inside
        its pipeline: it fails (SQLSTATE ``server.store.postgres.LOST``) unless this node holds
        every room of theirs under the epoch it took it with, and locks those rows as
        :meth:`fence` does. None when a game's room is not known here (then :meth:`fence` says
        which are lost)."""
        rooms = {self.room_of(game) for game in games}
        if None in rooms:
            return None
        held = sorted((room, self.held.get(room)) for room in rooms if room is not None)
        if any(epoch is None for _, epoch in held):
            return None
        return (
            "SELECT selfish_fence(%s, %s::text[], %s::bigint[])",
            (self.node, [room for room, _ in held], [epoch for _, epoch in held]),
        )

    def owner(self, room: str) -> str | None:
        """The address of the node that holds ``room``'s live lease, if another does."""
        row = self._db.execute(*self.owner_statement(room)).fetchone()
        return None if row is None else str(row[0])

    def owner_statement(self, room: str) -> Statement:
        """:meth:`owner`'s statement, for a round trip off the event loop (its row: the
        address, or none)."""
        return (
            f"SELECT address FROM leases WHERE room = %s AND node != %s AND NOT {DEAD}",
            (room, self.node),
        )

    def rooms_of(self, player: str) -> list[Seated]:
        """(room, game, address of its node, whether its lease expired) of every unfinished
        game ``player`` holds a seat in, then of every room at its game over (waiting for a
        rematch) whose last game ``player`` held a seat in, and (game None) of every waiting
        room ``player`` is a member of, that this node does not run. A hello reads them in
        the sideline (:meth:`rooms_of_statement`, :func:`seated`)."""
        return seated(self._db.execute(*self.rooms_of_statement(player)).fetchall())

    def rooms_of_statement(self, player: str) -> Statement:
        """:meth:`rooms_of`'s statement."""
        seat = json.dumps([{"player": player}])
        # The text match first: it leaves the JSON of one or two games to parse, not of
        # every game in play (a dead node's players all say hello at once).
        quoted = json.dumps(player)  # as the seats' JSON text holds it
        like = "%" + quoted.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return (
            f"SELECT leases.room, max(games.id), leases.address, {DEAD} "
            "FROM leases JOIN games ON games.room = leases.room AND games.status = 'playing' "
            "WHERE leases.node != %s AND games.seats LIKE %s "
            "AND games.seats::jsonb @> %s::jsonb "
            "GROUP BY leases.room, leases.address, leases.expires, leases.node "
            f"UNION ALL SELECT leases.room, games.id, leases.address, {DEAD} "
            f"FROM leases JOIN games ON {_over('leases.room')} "
            "WHERE leases.node != %s AND games.seats LIKE %s "
            "AND games.seats::jsonb @> %s::jsonb "
            f"UNION ALL SELECT leases.room, NULL, leases.address, {DEAD} "
            "FROM leases JOIN waiting_rooms ON waiting_rooms.room = leases.room "
            "WHERE leases.node != %s AND waiting_rooms.members LIKE %s "
            "AND waiting_rooms.members::jsonb ? %s",
            (self.node, like, seat, self.node, like, seat, self.node, like, player),
        )

    def orphans(self) -> list[tuple[str, int | None]]:
        """(room, game) of every room whose lease expired with a game unfinished or with its
        game over (waiting for a rematch), and (room, None) of every waiting room whose lease
        expired: what a takeover restores. Expired leases of rooms with none of them are
        deleted, and so are the address buckets unused for an
        hour (full again long since)."""
        for sql in ORPHANS[:-1]:
            self._db.execute(sql)
        return _orphans(self._db.execute(ORPHANS[-1]).fetchall())

    def close(self) -> None:
        """Let every held lease go (a clean stop: others may take the rooms at once) and
        close the connection."""
        if self.held and not self._db.closed:
            try:
                self._db.execute(
                    "UPDATE leases SET expires = now() - interval '1 second' "
                    "WHERE node = %s AND room = ANY(%s)",
                    (self.node, list(self.held)),
                )
            except psycopg.Error as exc:
                log.warning("could not let the leases go (%s): they expire by themselves", exc)
        self.held.clear()
        self.sideline.close()
        self._db.close()


def _released(room: str, done: concurrent.futures.Future[None]) -> None:
    """A lease let go in the sideline: a failure leaves the lease to run out."""
    error = done.exception()
    if error is not None:
        log.warning("room %s: could not let its lease go (%s); it runs out", room, error)
