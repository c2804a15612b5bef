"""Round trips to PostgreSQL that the event loop need not wait for: one thread with a
connection of its own runs them in order, and the loop hears the result through a future.

The server speaks to PostgreSQL with psycopg's synchronous connections (the commit thread of
``server.store.committer`` is one such thread): a worker thread keeps to that driver, where an
asynchronous one would give the server a second way of talking to the same database, and its
statements run in the order they were handed over (a lease let go before the code is claimed
again, a renewal after the claim that took the lease), which a pool would not promise.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg

T = TypeVar("T")
Work = Callable[[psycopg.Connection[Any]], T]


class Sideline:
    """A worker thread and its autocommit connection (opened in the thread, on first use, and
    again after it broke), named ``application`` in ``pg_stat_activity``; ``setup`` runs on
    each new connection."""

    def __init__(self, url: str, application: str, setup: tuple[str, ...] = ()) -> None:
        self._url = url
        self._application = application
        self._setup = setup
        self._conn: psycopg.Connection[Any] | None = None
        self._thread = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=application
        )
        self._closed = False

    def submit(self, work: Work[T]) -> concurrent.futures.Future[T]:
        """Run ``work`` with the connection in the thread, after what was submitted before;
        the future holds its result, or its exception (psycopg.Error when PostgreSQL failed,
        or the sideline was closed)."""
        if self._closed:  # the server stops: what came too late fails as an outage would
            failed: concurrent.futures.Future[T] = concurrent.futures.Future()
            failed.set_exception(psycopg.InterfaceError("the connection is closed"))
            return failed
        return self._thread.submit(self._run, work)

    def run(self, work: Work[T]) -> T:
        """:meth:`submit`, and wait for the result (outside the event loop's busy paths: at
        startup, in tests)."""
        return self.submit(work).result()

    def close(self) -> None:
        """Run what was submitted, then close the connection and stop the thread."""
        if self._closed:
            return
        self._closed = True
        self._thread.submit(self._disconnect).result()
        self._thread.shutdown(wait=True)

    # ------------------------------------------------------------------ in the thread

    def _run(self, work: Work[T]) -> T:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            conn = self._conn = psycopg.connect(
                self._url, autocommit=True, application_name=self._application
            )
            for sql in self._setup:
                conn.execute(sql.encode())
        return work(conn)

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
