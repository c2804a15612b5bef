"""PostgreSQL's write path, with the promise ``server.store.database`` keeps for SQLite: group
commit once per tick, no output before its commit, and an outage that loses nothing.

The commit runs off the event loop (``server.store.committer``: one thread with a connection of
its own). At the end of a tick, :meth:`PostgresDatabase.commit_later` hands the tick's writes
to it and returns a future the outbox (``server.net.outbox``) holds the tick's output behind;
later ticks go on meanwhile, and their writes wait in the open batch, handed over as one when
the commit in flight is done (one batch in flight at a time: batches commit in order, and the
busier the server, the more ticks share a commit). A tick that wrote nothing while a commit is
in flight still waits for it: its output may show what that commit holds.

Reads, the schema and :meth:`PostgresDatabase.commit_now` use the event loop's connection. A
read first waits for every write before it to commit (:meth:`PostgresDatabase.commit`), so it
sees them: reads are rare beside decisions (a hello, a new game, a replay), and they block the
loop for that commit as every commit once did; reads of what another node wrote (a takeover,
a player made on another node: :meth:`PostgresDatabase.elsewhere`) do not wait.

The store speaks SQLite's ``?`` placeholders; they become psycopg's ``%s`` here, so one set of
statements serves both engines wherever their SQL agrees (``server.store.dialect`` holds the rest).

A step (:meth:`PostgresDatabase.run_in_commit`, ``server.store.committer.Step``) runs in the
commit thread inside the transaction of the commit of the writes made before it, after them:
a finished game's records and ratings, whose rows it locks until that commit. The loop hears
its result when it settles that commit, after the games lost are reported.

Fencing (``server.cluster.leases``): every write may name the game it belongs to. The commit
thread checks, inside each batch's transaction, that this node still holds the lease of every
game written in it (``server.store.committer``). The writes of a game whose lease was lost are
dropped, the rest commit, and :attr:`PostgresDatabase.on_lost` hears which games were lost (the
server drops their rooms and cuts their members off before the output of the ticks of that
batch goes out): nothing of theirs is ever written beside the new owner's, nor seen by anyone.

Outage: a failed commit is logged once as an error and :attr:`PostgresDatabase.failed` says
why; the batch's writes, and those of the open batch, wait in :attr:`PostgresDatabase.backlog`,
in order, as every write does until :meth:`PostgresDatabase.retry` replays them. With a fence,
an outage does not keep a game's writes for later: the games written in a batch that fails, or
during the outage, are reported lost alike (their rooms are dropped, and restored from what the
database holds by whichever node takes their lease next), so that no player ever sees a
decision the database may not get. Writes of no game (players) wait in the backlog as without
a fence.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg

from server.store.committer import (
    LOST,
    Batch,
    Committer,
    Fence,
    Guard,
    Outcome,
    Step,
    Tagged,
)
from server.store.sideline import Sideline, T, Work
from server.store.write_path import Owner, Row, WritePath, placeholders

__all__ = ["LOST", "Fence", "Guard", "PostgresDatabase", "Step"]

log = logging.getLogger("selfish.server")


@dataclass
class _Flight:
    """The batch the commit thread runs, and the ticks whose output waits for it."""

    batch: Batch
    done: concurrent.futures.Future[Outcome]
    waiters: list[asyncio.Future[None]] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)  # see after_commit


class PostgresDatabase(WritePath):
    """The same interface as ``server.store.database.Database``, over psycopg connections."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.path = url
        self._url = url
        self._db = self._connect()
        self._committer = Committer(url)
        # Reads the event loop need not wait for (read_later), on a connection of their own.
        self._sideline = Sideline(url, "selfish")
        self.guard: Guard | None = None
        self.on_lost: Callable[[set[Owner]], None] | None = None
        # This tick's writes: those in order, and the rows of batched statements, added after
        # them (by game, for the fence) when the tick ends.
        self._pending: list[Tagged] = []
        self._batched: dict[str, list[tuple[Row, Owner | None]]] = {}
        self._open: list[Tagged] = []  # the ended ticks' writes not yet handed over
        # Steps (run_in_commit): of this tick, then of the ended ticks, as the writes go
        self._steps: list[Step] = []
        self._open_steps: list[Step] = []
        self._waiters: list[asyncio.Future[None]] = []  # ticks whose output waits for _open
        # after_commit's callbacks: of the tick's writes, then of _open (they go with them)
        self._pending_after: list[Callable[[], None]] = []
        self._open_after: list[Callable[[], None]] = []
        self._flight: _Flight | None = None
        self.backlog: list[Tagged] = []
        self.backlog_steps: list[Step] = []  # run by retry() after the backlog's writes
        self._lost: set[Owner] = set()  # fenced games lost, reported before the output goes
        self._elsewhere = 0  # inside elsewhere(): reads do not wait for this node's writes

    def _connect(self) -> psycopg.Connection[Any]:
        # Autocommit: a read is one round trip, with no transaction left to end.
        try:
            return psycopg.connect(self._url, autocommit=True, application_name="selfish")
        except psycopg.Error as exc:
            raise ConnectionError(f"cannot connect to PostgreSQL: {exc}") from exc

    @property
    def fence(self) -> Fence | None:
        """Names the games of a batch whose lease is lost (run in the commit thread)."""
        return self._committer.fence

    @fence.setter
    def fence(self, fence: Fence | None) -> None:
        self._committer.fence = fence

    def read(self, sql: str, params: Row = ()) -> list[Row]:
        """The rows of one read statement (it sees every write made before it: they are
        committed first)."""
        if not self._elsewhere:
            self.commit()
        rows = self._db.execute(placeholders(sql), params).fetchall()
        return [tuple(row) for row in rows]

    def read_later(self, sql: str, params: Row = ()) -> concurrent.futures.Future[list[Row]]:
        """The rows of one read of what none of this node's writes can touch (as inside
        :meth:`elsewhere`: a sequence's next values), read in another thread: the event loop
        goes on meanwhile."""
        return self._sideline.submit(functools.partial(_rows, placeholders(sql), params))

    def read_settled(self, work: Work[T]) -> concurrent.futures.Future[T]:
        """Run ``work`` with the connection of :meth:`read_later`'s thread once every write
        made so far is settled (:meth:`after_commit`): its reads see them, as :meth:`read`'s
        do, and the event loop waits for neither the commit nor the reads."""
        result: concurrent.futures.Future[T] = concurrent.futures.Future()

        def start() -> None:
            self._sideline.submit(work).add_done_callback(functools.partial(_pass_on, result))

        self.after_commit(start)
        return result

    def run_later(self, work: Work[T]) -> concurrent.futures.Future[T]:
        """Run ``work`` with the connection of :meth:`read_later`'s thread, after what was
        handed to it before (reads of what none of this node's writes can touch)."""
        return self._sideline.submit(work)

    def read_many(self, reads: list[tuple[str, Row]]) -> list[list[Row]]:
        """The rows of each read, in order, all in one round trip (a pipeline)."""
        if not self._elsewhere:
            self.commit()
        with self._db.pipeline():
            cursors = [self._db.execute(placeholders(sql), params) for sql, params in reads]
        return [[tuple(row) for row in cursor.fetchall()] for cursor in cursors]

    @contextlib.contextmanager
    def elsewhere(self) -> Iterator[None]:
        """Reads inside the block are of rows none of this node's writes not yet committed
        can touch (a player or a game another node made or ran: a takeover, a player from
        another node), so they do not wait for those writes to commit."""
        self._elsewhere += 1
        try:
            yield
        finally:
            self._elsewhere -= 1

    def setup(self, script: str) -> None:
        """Run a script of statements and commit at once (the schema and its migrations: one
        query string, which PostgreSQL runs as one transaction)."""
        self._db.execute(script.encode())

    def write(self, sql: str, params: Row, game: Owner | None = None) -> None:
        """Queue one write for the tick's commit; during an outage it waits in the backlog
        instead. ``game``: the game the write belongs to (fencing)."""
        if self.failed is not None:
            self._keep((sql, [params], game))
            return
        self._pending.append((sql, [params], game))
        self._written()

    def run_in_commit(self, step: Step) -> None:
        """Run ``step`` in the transaction of the commit of every write made so far, after
        them, fenced with them (``server.store.committer``); the loop hands ``step.done`` its
        result once that commit is done, or None if it was not run: its game's lease was lost,
        or an outage keeps it for :meth:`retry` (then, fenced, its game is lost too)."""
        if self.failed is not None:
            self._keep_step(step)
            self._pending_after.append(functools.partial(step.done, None))
            self._written()
            return
        self._steps.append(step)
        self._written()

    def _batch(self, sql: str, params: Row, game: Owner | None) -> None:
        self._batched.setdefault(sql, []).append((params, game))

    def _name(self) -> str:
        return "database"  # not the URL: it may hold a password

    def flush_batched(self) -> None:
        """Nothing to do here: a read commits every write before it."""

    def commit_later(self) -> asyncio.Future[None] | None:
        """End the tick: hand its writes to the commit thread (or, while a commit is in
        flight, to the batch after it). Returns the future the tick's output waits for, or
        None if nothing it may show waits for a commit. Without a running event loop it
        commits at once (:meth:`commit`)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.commit()
            return None
        self._seal()
        if self.failed is not None:
            self._fail_open()
        self._report()
        if not self._open and not self._open_steps:
            if self._flight is None:
                return None
            waiter = loop.create_future()
            self._flight.waiters.append(waiter)
            return waiter
        waiter = loop.create_future()
        self._waiters.append(waiter)
        if self._flight is None:
            self._hand_over(loop)
        return waiter

    def commit(self) -> None:
        """Commit every write made so far and wait for it (fenced; a failure starts an
        outage, see the module docstring); :attr:`on_lost` then hears of the games lost."""
        self._seal()
        while True:
            flight = self._flight
            if flight is not None:
                concurrent.futures.wait([flight.done])
                self._settle(flight)
            elif (self._open or self._open_steps) and self.failed is None:
                self._hand_over(None)
            else:
                break
        if self.failed is not None:
            self._fail_open()
        self._report()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the loop once every write made so far is settled: committed,
        or dropped (by the fence, or an outage). A room's lease is let go this way after its
        room's last writes, which it fences (a lease gone first would drop them)."""
        if self._pending or self._batched or self._steps:
            self._pending_after.append(callback)
        elif self._open or self._open_steps:
            self._open_after.append(callback)
        elif self._flight is not None:
            self._flight.after.append(callback)
        else:
            callback()

    def commit_now(self, sql: str, params: Row = ()) -> int:
        """Run one write and commit it at once, outside the group commit; returns the number
        of rows it changed."""
        self.commit()  # what waits goes first, fenced
        return int(self._db.execute(placeholders(sql), params).rowcount)

    def retry(self) -> bool:
        """Replay the backlog and commit; True once the database takes writes again."""
        if self.failed is None:
            return True
        try:
            if self._db.closed or self._db.broken:
                self._db = self._connect()
            with self._db.transaction():
                for sql, rows, _ in self.backlog:
                    self._db.cursor().executemany(placeholders(sql), rows)
                for step in self.backlog_steps:
                    step.work(self._db)
        except (psycopg.Error, ConnectionError) as exc:
            self.failed = str(exc) or type(exc).__name__
            return False
        log.warning("database is writable again: %d delayed writes saved", len(self.backlog))
        self.backlog = []
        self.backlog_steps = []
        self.failed = None
        return True

    def close(self) -> None:
        """Flush and close (idempotent). What an outage kept in memory gets a last try."""
        if self._db.closed:
            return
        self.commit()
        if not self.retry():
            log.error("database: %d writes could not be saved on shutdown", len(self.backlog))
        self._committer.close()
        self._sideline.close()
        self._db.close()

    # ------------------------------------------------------------------ the batches

    def _seal(self) -> None:
        """End the tick's writes: in order, then the batched rows, by statement and game."""
        self._open.extend(self._pending)
        for sql, tagged in self._batched.items():
            by_game: dict[Owner | None, list[Row]] = {}
            for row, game in tagged:
                by_game.setdefault(game, []).append(row)
            self._open.extend((sql, group, game) for game, group in by_game.items())
        self._pending, self._batched, self._dirty = [], {}, False
        self._open_steps.extend(self._steps)
        self._steps = []
        self._open_after += self._pending_after
        self._pending_after = []

    def _hand_over(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Give the open batch to the commit thread, and the loop settles it when it is done;
        without ``loop``, commit it here and now (:meth:`commit` waits for it: the commit
        thread is idle then)."""
        writes, self._open = self._open, []
        steps, self._open_steps = self._open_steps, []
        games = {game for _, _, game in writes if game is not None}
        games.update(step.game for step in steps if step.game is not None)
        guard = self.guard(games) if self.guard is not None and games else None
        batch = Batch(writes, games, guard, steps)
        run = self._committer.submit if loop is not None else self._committer.run_here
        flight = _Flight(batch, run(batch), self._waiters, self._open_after)
        self._waiters, self._open_after = [], []
        self._flight = flight
        if loop is not None:
            # The callback names the flight by its future, not by a reference of its own: a
            # concurrent future keeps its callbacks, and a callback holding the flight would
            # make each batch (its writes, hundreds of objects) a cycle that only the cyclic
            # collector frees (most of what it collected under load, and what set it off).
            flight.done.add_done_callback(
                lambda done: loop.call_soon_threadsafe(self._settled_later, done)
            )

    def _settled_later(self, done: concurrent.futures.Future[Outcome]) -> None:
        """On the loop, once the commit thread is done with the flight of ``done``: settle it
        and hand over what waited meanwhile."""
        flight = self._flight
        if flight is None or flight.done is not done:
            return  # a commit() waited for it and settled it already
        self._settle(flight)
        if self.failed is not None:
            self._fail_open()
        self._report()
        if self._open or self._open_steps:
            self._hand_over(asyncio.get_running_loop())

    def _settle(self, flight: _Flight) -> None:
        """Take ``flight``'s outcome: its lost games are noted, a failure starts an outage
        (its writes wait in the backlog, or are lost, fenced); then the output of its ticks
        may go (after :meth:`_report`)."""
        self._flight = None
        outcome = flight.done.result()
        steps = flight.batch.steps
        results = outcome.results or [None] * len(steps)
        if outcome.error is not None:
            self._failure(outcome.error)
            for write in flight.batch.writes:
                self._keep(write)
            for step in steps:
                self._keep_step(step)
        if outcome.lost:
            log.warning(
                "lost the lease of games (or waiting rooms) %s: their last writes are dropped",
                sorted(map(str, outcome.lost)),
            )
            self._lost |= outcome.lost
        self._report()
        self._release(flight.waiters)
        for step, result in zip(steps, results, strict=True):
            step.done(result)  # after _report: a lost game's room is dropped already
        _call(flight.after)

    def _release(self, waiters: list[asyncio.Future[None]]) -> None:
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _report(self) -> None:
        """Tell :attr:`on_lost` of the games lost, before any output that waited goes."""
        lost, self._lost = self._lost, set()
        if lost and self.on_lost is not None:
            self.on_lost(lost)

    def _fail_open(self) -> None:
        """During an outage the open batch waits in the backlog (or is lost, fenced), and the
        output that waited for it may go (after :meth:`_report`)."""
        for write in self._open:
            self._keep(write)
        steps, self._open, self._open_steps = self._open_steps, [], []
        for step in steps:
            self._keep_step(step)
        self._report()
        self._release(self._waiters)
        self._waiters = []
        after, self._open_after = self._open_after, []
        for step in steps:
            step.done(None)
        _call(after)

    def _keep(self, write: Tagged) -> None:
        """A write that cannot be run now: for later, or, fenced and of a game, lost."""
        if self.fence is not None and write[2] is not None:
            self._lost.add(write[2])
        else:
            self.backlog.append(write)

    def _keep_step(self, step: Step) -> None:
        """A step that cannot run now: for :meth:`retry`, or, fenced and of a game, lost."""
        if self.fence is not None and step.game is not None:
            self._lost.add(step.game)
        else:
            self.backlog_steps.append(step)


def _rows(sql: str, params: Row, conn: psycopg.Connection[Any]) -> list[Row]:
    return [tuple(row) for row in conn.execute(sql, params).fetchall()]


def _pass_on(result: concurrent.futures.Future[T], done: concurrent.futures.Future[T]) -> None:
    """Give ``result`` the outcome of ``done`` (in the thread that finished it)."""
    error = done.exception()
    if error is not None:
        result.set_exception(error)
    else:
        result.set_result(done.result())


def _call(callbacks: list[Callable[[], None]]) -> None:
    """Call each of ``callbacks`` (after_commit's), in order."""
    for callback in callbacks:
        callback()
