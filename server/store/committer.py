"""The PostgreSQL group commit, off the event loop: one thread, with a connection of its own,
runs each batch of writes in one transaction (the fence, the writes, the commit) and says how it
went; ``server.store.postgres`` decides on the event loop what follows.

One thread, one batch at a time, so batches commit in the order they were handed over; the
event loop hands over the next only when the last one is done (``PostgresDatabase``), so after
a failure nothing queued behind it can commit ahead of the writes that wait for the outage's
end.

Fencing (``server.cluster.leases``): the usual commit sends the guard statement (it fails with
SQLSTATE :data:`LOST` unless this node holds every lease under its epoch, and locks the lease
rows ``FOR SHARE``), the writes and the commit in one round trip. When the guard fails, or
cannot be said, the fence names the games whose lease is lost (locking the rows of the rest),
their writes are left out, the rest commit.

Steps (:class:`Step`): work that must read and write in the same transaction as a batch's
writes, after them (a finished game's records and ratings: the rows it reads stay locked until
the commit, so nodes ending games of one player at once count them one after the other). They
run in the commit thread too, fenced with the writes (the guard's lease rows stay locked to
the commit as well), at a few round trips more for the rare batch that has any.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import psycopg

from server.store.write_path import Owner, Row, placeholders

log = logging.getLogger("selfish.server")

# One write: (statement, rows, the game or waiting room the rows belong to, or None); more
# than one row runs it with executemany.
Tagged = tuple[str, list[Row], Owner | None]
# Called in the transaction with the games (and waiting rooms) written in it; returns those
# whose lease is lost.
Fence = Callable[[psycopg.Connection[Any], Collection[Owner]], set[Owner]]
# A statement and its parameters.
Statement = tuple[str, tuple[Any, ...]]
# The statement that checks the same inside the commit's pipeline (failing with the SQLSTATE
# LOST), or None where only the Fence can tell.
Guard = Callable[[Collection[Owner]], "Statement | None"]
LOST = "SF001"
# A batch PostgreSQL rolled back to end a deadlock is tried again, up to RETRIES times in all:
# two batches with steps, each locking the records of two games ending at once, may each hold
# a record the other's second game wants (each game's records are locked in one order, but
# not the games of a batch together).
DEADLOCK = "40P01"
RETRIES = 3
APPLICATION = "selfish-commit"  # the commit connection's name in pg_stat_activity


@dataclass(eq=False)
class Step:
    """Work that a commit's transaction runs after its writes, with its connection: reads
    whose rows it locks (``FOR UPDATE``) until that commit, and the writes they decide (a
    finished game's records and ratings, ``server.store.standings``). Fenced with the writes
    of ``game``; the event loop hands ``done`` its result once committed, or None when it was
    not run (dropped with a lost game's writes, or kept for the end of an outage)."""

    work: Callable[[psycopg.Connection[Any]], Any]
    game: Owner | None
    done: Callable[[Any], None]


@dataclass(frozen=True)
class Batch:
    """The writes of one or more ticks, in order, with what fences them, and the steps that
    run after them in the same transaction."""

    writes: list[Tagged]
    games: set[Owner]  # the games and waiting rooms written (fencing)
    guard: Statement | None  # the guard statement, made on the event loop from its leases
    steps: list[Step] = field(default_factory=list)


@dataclass
class Outcome:
    """How a batch went: committed without the writes of ``lost`` games, or (``error``) not at
    all, rolled back; ``results``: of each of its steps, None for one not run."""

    lost: set[Owner] = field(default_factory=set)
    error: Exception | None = None
    results: list[Any] = field(default_factory=list)


class Committer:
    """The commit thread and its connection (opened in the thread, on its first batch)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: psycopg.Connection[Any] | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="selfish-commit"
        )
        # Read in the commit thread: the lease tables it consults are only ever read there
        # (a dict lookup is atomic), and a lease the loop forgot meanwhile reads as lost.
        self.fence: Fence | None = None

    def submit(self, batch: Batch) -> concurrent.futures.Future[Outcome]:
        """Run ``batch`` in the commit thread."""
        return self._thread.submit(self._run, batch)

    def run_here(self, batch: Batch) -> concurrent.futures.Future[Outcome]:
        """Run ``batch`` in the calling thread, while the commit thread is idle (a commit
        waited for anyway: handing it to the thread would only add two thread switches)."""
        done: concurrent.futures.Future[Outcome] = concurrent.futures.Future()
        done.set_result(self._run(batch))
        return done

    def close(self) -> None:
        """Close the connection and stop the thread (after the batch it runs, if any)."""
        self._thread.submit(self._disconnect).result()
        self._thread.shutdown(wait=True)

    # ------------------------------------------------------------------ in one thread at a time

    def _connection(self) -> psycopg.Connection[Any]:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            # Not autocommit: a batch's writes are one transaction, ended by its commit.
            conn = self._conn = psycopg.connect(
                self._url, autocommit=False, application_name=APPLICATION
            )
        return conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _run(self, batch: Batch) -> Outcome:
        for _ in range(RETRIES):
            outcome = self._try(batch)
            error = outcome.error
            if not isinstance(error, psycopg.Error) or error.sqlstate != DEADLOCK:
                break
            log.warning("a commit was chosen to end a deadlock; trying it again")
        return outcome

    def _try(self, batch: Batch) -> Outcome:
        try:
            conn = self._connection()
        except psycopg.Error as exc:
            return Outcome(error=exc)
        if batch.guard is not None:
            try:
                with conn.pipeline():
                    conn.execute(batch.guard[0], batch.guard[1])
                    send(conn, batch.writes)
                    if not batch.steps:
                        conn.commit()
                if not batch.steps:
                    return Outcome()
                results = [step.work(conn) for step in batch.steps]
                conn.commit()
                return Outcome(results=results)
            except psycopg.Error as exc:
                _rollback(conn)
                if exc.sqlstate != LOST:
                    return Outcome(error=exc)
            except Exception as exc:  # a step's bug: the batch waits as in an outage
                log.exception("a commit's step failed")
                _rollback(conn)
                return Outcome(error=exc)
        try:
            fence = self.fence
            lost = fence(conn, batch.games) if fence is not None and batch.games else set()
            with conn.pipeline():
                send(conn, [write for write in batch.writes if write[2] not in lost])
            results = [None if s.game in lost else s.work(conn) for s in batch.steps]
            conn.commit()
        except psycopg.Error as exc:
            _rollback(conn)
            return Outcome(error=exc)
        except Exception as exc:  # a step's bug: the batch waits as in an outage
            log.exception("a commit's step failed")
            _rollback(conn)
            return Outcome(error=exc)
        return Outcome(lost=lost, results=results)


def send(conn: psycopg.Connection[Any], writes: list[Tagged]) -> None:
    """Run ``writes`` in order on ``conn`` (inside a pipeline: one round trip for all)."""
    cursor = conn.cursor()
    for sql, rows, _ in writes:
        if len(rows) == 1:
            cursor.execute(placeholders(sql), rows[0])
        else:
            cursor.executemany(placeholders(sql), rows)


def _rollback(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.rollback()
    except psycopg.Error:
        log.warning("database rollback failed (the connection is gone)")
