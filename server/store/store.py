"""Persistence of players and games: each game as its setup plus an append-only decision list.

The store speaks in plain values (names, seat records, choice maps, event records) and keeps
them in SQLite: lists and maps as JSON, choices as the msgpack maps they are on the wire. It
knows nothing of frames or rooms. Its parts:

- ``server.store.database``: the connection, the per-tick group commit and what an outage keeps in
  memory (the server refuses every request that needs a write while :attr:`Store.writable` is
  False, and :meth:`Store.create_game` raises :class:`StoreUnavailable`);
- ``server.store.postgres`` and ``server.store.committer``: the same on PostgreSQL, whose
  commits run in a thread of their own (a cluster's nodes share the database);
- ``server.store.game_reads``: games read back (one with its decisions, pages of replays);
- ``server.store.waiting_rooms``: rooms whose game has not started;
- ``server.store.spectating``: who watches an unfinished game, and the chat held for its players;
- ``server.store.takeover``: what a cluster's takeover reads of a room another node ran;
- ``server.store.schema``: the tables and migrations;
- ``server.store.records``: rows read back as :class:`StoredGame`; one that cannot be read marks its
  game abandoned with a log line instead of stopping the server;
- ``server.store.tokens``: tokens are stored as their SHA-256, so the database alone does not let
  anyone speak as a player.

Game ids are handed out from a counter in memory, never from the database, so a transaction
that was rolled back cannot give its id to another game.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from server.store.database import Connect, Database, connect
from server.store.dialect import POSTGRES, SQLITE, is_postgres_url
from server.store.game_ids import GameIds
from server.store.game_reads import ABANDONED, GameReads
from server.store.records import (
    GAME_COLUMNS,
    PLAYER_BY_TOKEN,
    CorruptRow,
    StoredGame,
    StoredWaiting,
    StoreUnavailable,
    game_from_row,
    player_from_row,
    player_from_rows,
)
from server.store.schema import create
from server.store.standings import Standings, record_locked
from server.store.takeover import Takeover
from server.store.tally import Change
from server.store.tokens import token_hash
from server.store.write_path import Owner

if TYPE_CHECKING:
    from server.store.postgres import Fence, Guard, PostgresDatabase
    from server.store.sideline import Work

__all__ = ["Store", "StoreUnavailable", "StoredGame", "StoredWaiting"]

log = logging.getLogger("selfish.server")

T = TypeVar("T")

_INSERT_DECISION = (
    'INSERT INTO decisions (game, n, seat, choice, "by", at) VALUES (?, ?, ?, ?, ?, ?)'
)


def _open_postgres(url: str) -> tuple[PostgresDatabase, bool]:
    """The PostgreSQL database at ``url``, its schema created or migrated, and whether its
    finished games need their records recomputed. Its driver is an optional dependency (the
    ``postgres`` extra): without it, a ValueError says so."""
    try:
        from server.store.postgres import PostgresDatabase
        from server.store.schema import create_postgres
    except ImportError as exc:
        raise ValueError(
            f"the PostgreSQL store needs psycopg ({exc}): pip install 'selfish-tui[postgres]'"
        ) from exc
    db = PostgresDatabase(url)
    return db, create_postgres(db)


class Store(Takeover):
    """Players and games in one SQLite database file (``":memory:"``: kept nowhere), or in a
    PostgreSQL database when ``path`` is a ``postgresql://`` URL (a cluster's nodes share it).
    Any other URL is refused (ValueError): it would otherwise become a file of that name.
    Its reads of games, waiting rooms, spectators and a takeover's are its mixins' (through
    :class:`~server.store.takeover.Takeover`).

    ``connect`` opens a SQLite connection (tests pass one that fails writes on demand).
    """

    def __init__(
        self, path: str = ":memory:", synchronous: str = "NORMAL", connect: Connect = connect
    ) -> None:
        self.path = path
        # game id -> room code of the games this node writes, where leases fence the writes
        # (server.cluster.leases: the entries go with the room's lease)
        self.game_rooms: dict[int, str] = {}
        self._db: Database | PostgresDatabase
        if is_postgres_url(path):
            self.dialect = POSTGRES
            self._db, backfill = _open_postgres(path)
            self._next_game = 0  # the database's sequences hand them out
            self._game_ids = GameIds(self._db, POSTGRES.next_game or "")
            self._next_finished = 0
        else:
            if "://" in path:
                raise ValueError(
                    f"cannot serve the database {path!r}: give a SQLite file or a "
                    "postgresql://USER@HOST/DB URL"
                )
            self.dialect = SQLITE
            self._db = Database(path, synchronous, connect)
            backfill = create(self._db)
            ((finished,),) = self._db.read("SELECT max(finished) FROM games")
            self._next_finished = int(finished or 0) + 1
            (row,) = self._db.read(
                "SELECT max(m) FROM (SELECT max(id) AS m FROM games "
                "UNION ALL SELECT seq FROM sqlite_sequence WHERE name = 'games')"
            )
            self._next_game = int(row[0] or 0) + 1
        #: records and ratings (server.store.standings): read by the records requests
        self.standings = Standings(self._db)
        if backfill:
            count = self.standings.recompute()
            log.info("records of %d finished games from before records were kept", count)
        # A choice is kept as the msgpack map it is on the wire (protocol.codec.pack's bytes),
        # packed by a Packer of this store's own: msgpack.packb makes one per call, which was
        # half of what appending a decision cost.
        self._pack_choice: Callable[[object], bytes] = msgpack.Packer(use_bin_type=True).pack

    # -- the write path (server.store.database) ----------------------------------------------------

    @property
    def on_write(self) -> Callable[[], None] | None:
        """Called on every write when set (the server's per-tick commit); None commits each
        write at once."""
        return self._db.on_write

    @on_write.setter
    def on_write(self, callback: Callable[[], None] | None) -> None:
        self._db.on_write = callback

    def fence(self, fence: Fence, guard: Guard, on_lost: Callable[[set[Owner]], None]) -> None:
        """Check every commit against room leases (server.store.postgres: PostgreSQL only):
        ``guard`` makes the statement that checks them in the commit's own round trip; when it
        fails, the writes of the games (and waiting rooms) ``fence`` says are lost are
        dropped, and ``on_lost`` hears of them."""
        if isinstance(self._db, Database):
            raise ValueError("only a PostgreSQL store is shared by a cluster")
        self._db.fence = fence
        self._db.guard = guard
        self._db.on_lost = on_lost

    @property
    def writable(self) -> bool:
        """False from a failed write until :meth:`retry` (or a commit) succeeds again."""
        return self._db.writable

    @property
    def dirty(self) -> bool:
        """True while writes wait in an open transaction for :meth:`commit`."""
        return self._db.dirty

    def commit(self) -> None:
        """Commit the open transaction, if any (a failure starts an outage, see
        ``server.store.database``)."""
        self._db.commit()

    def elsewhere(self) -> contextlib.AbstractContextManager[None]:
        """A block whose reads are of rows another node wrote (a takeover's game, a player
        made on another node): none of this node's writes not yet committed can touch them,
        so the reads do not wait for those (``server.store.postgres``)."""
        return self._db.elsewhere()

    def run_later(self, work: Work[T]) -> concurrent.futures.Future[T]:
        """PostgreSQL only: run ``work`` (reads of rows none of this node's writes not yet
        committed can touch) with a connection of its own, in a thread: the event loop goes
        on meanwhile (a cluster's hello: server.cluster.node)."""
        if isinstance(self._db, Database):
            raise TypeError("reads off the event loop are PostgreSQL's")
        return self._db.run_later(work)

    def reads_later(self, fetch: Callable[[GameReads], T]) -> concurrent.futures.Future[T] | None:
        """PostgreSQL: run ``fetch`` (reads of games, records and ratings: the records
        requests') in the store's thread for reads, with a connection of its own, once this
        node's writes so far are committed (its reads see them); the event loop goes on
        meanwhile. SQLite: None, and the caller reads here (a local file, read in the time
        of a decision: no round trip to wait for)."""
        if isinstance(self._db, Database):
            return None
        from server.store.read_thread import ThreadReads

        dialect = self.dialect
        return self._db.read_settled(lambda conn: fetch(ThreadReads(conn, dialect)))

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every write made so far is settled: on PostgreSQL once
        committed (or dropped by the fence or an outage), on SQLite at once after a commit. A
        cluster lets a room's lease go this way, after the room's last writes it fences."""
        if isinstance(self._db, Database):
            self._db.commit()
            callback()
        else:
            self._db.after_commit(callback)

    def commit_later(self) -> asyncio.Future[None] | None:
        """End the tick's writes: commit them (SQLite: at once), or hand them to the commit
        thread (PostgreSQL) and return the future the tick's output must wait for; None when
        nothing waits."""
        return self._db.commit_later()

    def retry(self) -> bool:
        """Replay the backlog and commit; True once the database takes writes again."""
        return self._db.retry()

    def close(self) -> None:
        """Flush and close (idempotent). What an outage kept in memory gets a last try."""
        self._db.close()

    # -- players -----------------------------------------------------------------------------

    def save_player(self, player: str, token: str, name: str) -> None:
        """Insert a player (``token`` is hashed here), or rename one and note it was seen."""
        now = time.time()
        self._db.write(
            "INSERT INTO players (id, token, name, created, seen) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name, seen = excluded.seen",
            (player, token_hash(token), name, now, now),
        )

    def players(self) -> list[tuple[str, str, str]]:
        """Every known (id, token hash, name). A row that cannot be used (a column that is not
        text) is left out, with a log line: that identity is unknown until the row is mended."""
        players = []
        for row in self._db.read("SELECT id, token, name FROM players"):
            try:
                players.append(player_from_row(row))
            except CorruptRow as exc:
                log.error("%s; skipped", exc)
        return players

    def player_by_token(self, hashed: str) -> tuple[str, str, str] | None:
        """(id, token hash, name) of the player whose token hashes to ``hashed`` (a cluster's
        nodes learn the players made on the others this way), or None."""
        return player_from_rows(self._db.read(PLAYER_BY_TOKEN, (hashed,)))

    def player_by_id(self, player: str) -> tuple[str, str, str] | None:
        """(id, token hash, name) of ``player``, or None."""
        rows = self._db.read("SELECT id, token, name FROM players WHERE id = ?", (player,))
        try:
            return player_from_row(rows[0]) if rows else None
        except CorruptRow as exc:
            log.error("%s; skipped", exc)
            return None

    def player_name(self, player: str) -> str | None:
        """The name ``player`` last said hello with (None: unknown, or forgotten)."""
        rows = self._db.read("SELECT name FROM players WHERE id = ?", (player,))
        return str(rows[0][0]) if rows else None

    def revoke(self, player: str) -> bool:
        """Make ``player``'s token unusable (the identity and its games stay); True if found."""
        changed = self._db.commit_now(
            "UPDATE players SET token = 'revoked:' || id WHERE id = ?", (player,)
        )
        return changed > 0

    # -- games -------------------------------------------------------------------------------

    def create_game(
        self,
        room: str,
        edition: str,
        names: list[str],
        seats: list[dict[str, Any]],
        settings: dict[str, Any],
        seed: int,
        version_base: int,
    ) -> int:
        """Record a new game's setup; returns its id. Raises StoreUnavailable during an
        outage: a game is refused rather than played unrecorded."""
        if not self._db.writable:
            raise StoreUnavailable(self._db.failed)
        if self.dialect.next_game is not None:
            game = self._game_ids.take()
        else:
            game = self._next_game
            self._next_game += 1  # taken even if the write fails: never handed out twice
        if self.dialect.fenced:
            self.game_rooms[game] = room
        self._db.write(
            "INSERT INTO games (id, room, edition, names, seats, settings, seed, version_base, "
            "status, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?)",
            (
                game,
                room,
                edition,
                json.dumps(names),
                json.dumps(seats),
                json.dumps(settings),
                seed,
                version_base,
                time.time(),
            ),
            game,
        )
        if not self._db.writable:
            raise StoreUnavailable(self._db.failed)
        return game

    def append_decision(
        self, game: int, n: int, seat: int, choice: dict[str, Any], by: str
    ) -> None:
        """Append decision number ``n`` (0-based); committed with the tick's other writes."""
        row = (game, n, seat, self._pack_choice(choice), by, time.time())
        self._db.write_batched(_INSERT_DECISION, row, game)

    def append_event(self, game: int, position: int, event: dict[str, Any]) -> None:
        """Record one of the server's own events (a timeout, away, bot line) of ``game``, said
        when its log had ``position`` lines, so the history sent after a restart holds it."""
        self._db.write(
            "INSERT INTO server_events (game, position, event) VALUES (?, ?, ?)",
            (game, position, json.dumps(event)),
            game,
        )

    def update_seats(self, game: int, seats: list[dict[str, Any]]) -> None:
        """Record a change of seat occupants (a player left and a bot took over)."""
        self._db.write("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game), game)

    def finish_game(
        self,
        game: int,
        status: str,
        winner: int | None,
        turns: int,
        digest: str | None = None,
        then: Callable[[list[Change] | None], None] | None = None,
    ) -> None:
        """Mark a game over (or abandoned). A game over becomes a replay (public ones for
        everyone, private ones for the players who held a seat in it) and counts in its
        players' records and, if rated, ratings: all in the same transaction as its result.

        ``then`` hears its rating changes (none for an unrated game) once they may be shown:
        on SQLite at once, in the open transaction, which the tick commits before its output
        goes; on PostgreSQL on the event loop once the commit that holds them is done (the
        records are counted in it, off the loop: ``server.store.standings.record_locked``),
        or None if they were not counted then (the game's lease was lost, or an outage keeps
        them for its end). Not called for an abandoned game."""
        ended = time.time()
        if status != "over":
            self._db.write(
                "UPDATE games SET status = ?, winner = ?, turns = ?, ended = ? WHERE id = ?",
                (status, winner, turns, ended, game),
                game,
            )
            return
        numbered: tuple[int, ...] = ()
        if self.dialect.next_finished is not None:
            # PostgreSQL's sequence numbers the game in its commit: no round trip on the loop
            order = self.dialect.next_finished
        else:
            order, numbered = "?", (self._next_finished,)
            self._next_finished += 1
        self._db.write(
            "UPDATE games SET status = ?, winner = ?, turns = ?, ended = ?, digest = ?, "
            f"finished = {order} WHERE id = ?",
            (status, winner, turns, ended, digest, *numbered, game),
            game,
        )
        for statement in self.dialect.index_replay:
            self._db.write(statement, (game,), game)
        done = _ignore if then is None else then
        if not isinstance(self._db, Database):  # counted in the commit, its records locked
            from server.store.postgres import Step

            self._db.run_in_commit(Step(functools.partial(record_locked, game, ended), game, done))
            return
        rows = self._db.read(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game,))
        try:
            stored = game_from_row(rows[0])
        except (CorruptRow, IndexError) as exc:
            log.error("game %d: %s; not counted in records", game, exc)
            done([])
            return
        done(self.standings.record(stored, ended))

    def recompute_ratings(self) -> tuple[int, int]:
        """Records and ratings rebuilt from the stored games (``--recompute-ratings``):
        (finished games counted, standings that came out different from the stored ones)."""
        self.commit()
        before = self.standings.snapshot()
        count = self.standings.recompute()
        after = self.standings.snapshot()
        differ = sum(1 for key in before.keys() | after.keys() if before.get(key) != after.get(key))
        return count, differ

    def unfinished_games(self) -> list[StoredGame]:
        """Every game still being played, with its decisions, oldest first. A game that cannot
        be read is marked abandoned (logged) and left out."""
        rows = self._db.read(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing' ORDER BY id"
        )
        games = []
        for row in rows:
            try:
                games.append(self._with_decisions(game_from_row(row)))
            except CorruptRow as exc:
                log.error("%s; marking it abandoned", exc)
                self.finish_game(row[0], "abandoned", None, 0)
        self.commit()
        return games

    # -- retention (server.store.retention) -------------------------------------------------------

    def prune_games(self, ended_before: float) -> int:
        """Delete abandoned games (and their decisions) that ended before ``ended_before``;
        return how many."""
        count = self.abandoned(ended_before)
        if count:
            self.delete_abandoned(ended_before)
        return count

    def delete_abandoned(self, ended_before: float) -> None:
        """Delete abandoned games (and their decisions) that ended before ``ended_before``."""
        for table in ("decisions", "server_events", "held_chat"):
            self._db.write(f"DELETE FROM {table} WHERE game IN ({ABANDONED})", (ended_before,))
        self._db.write(
            "DELETE FROM games WHERE status = 'abandoned' AND ended < ?", (ended_before,)
        )

    def delete_players(self, players: list[str], seen_before: float) -> None:
        """Forget these identities (their finished games keep the names they played under),
        unless seen since ``seen_before`` (a hello on another node of a cluster, or after
        the sweep's read)."""
        for pid in players:
            self._db.write(
                "DELETE FROM players WHERE id = ? AND coalesce(seen, created) < ?",
                (pid, seen_before),
            )

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one read statement (the operator's tools)."""
        return self._db.read(sql, params)

    def size(self) -> tuple[int, int, int]:
        """(players, games, decisions) rows, for the log and the bench scripts."""
        ((players, games, decisions),) = self._db.read(
            "SELECT (SELECT count(*) FROM players), (SELECT count(*) FROM games), "
            "(SELECT count(*) FROM decisions)"
        )
        return int(players), int(games), int(decisions)


def _ignore(changes: list[Change] | None) -> None:
    """No one waits for a game's rating changes (a tool, a test)."""
