"""Bots that think for a while (``expert``) decide in worker processes, off the event loop.

A server room hands the view and a seed to :func:`think`, gets a future back, and applies the
choice when it arrives, so that no other table waits while a bot searches. The pool is one per
process, shared by every room, started on first use and left to the interpreter's exit (its
idle workers then stop with it). Worker processes rather than threads: a search is pure Python,
and a thread would hold the interpreter lock the event loop (and, in ``selfish play``, the
terminal interface) needs.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import resource_tracker
from typing import Any

from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.levels import choose

#: The levels whose decisions are made in a worker process; the others decide at once.
THINKING_LEVELS = frozenset({"expert"})

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_workers = 0


def _decide(
    level: str,
    view: dict[str, Any],
    seed: int,
    budget: Budget,
    table: Sequence[str | None] | None,
) -> dict[str, Any]:
    """In a worker: the bot's choice for ``view``."""
    return choose(level, view, random.Random(seed), budget, table)


def _ready() -> bool:
    return True


def _watch_parent(parent: int) -> None:
    """In a worker: exit once the server process is gone. A parent that ends without running
    its exit handlers (killed, or ``os._exit``) would otherwise leave the idle workers waiting
    on their queue for good."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def pool(workers: int) -> ProcessPoolExecutor:
    """The shared worker pool (started on first use, with ``workers`` processes)."""
    global _pool, _workers
    with _lock:
        if _pool is None or _workers != workers:
            if _pool is not None:
                _pool.shutdown(wait=False, cancel_futures=True)
            # Spawned, not forked: the server process runs threads (the embedded server of
            # `selfish play` runs beside the interface), which a fork would copy half-way.
            context = multiprocessing.get_context("spawn")
            _start_resource_tracker()
            _pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
            _workers = workers
        return _pool


def _start_resource_tracker() -> None:
    """Start multiprocessing's helper process with a real file as its error stream: it hands
    ``sys.stderr.fileno()`` to the child, and under ``selfish play`` the terminal interface has
    replaced ``sys.stderr`` with an object whose descriptor is not valid."""
    saved = sys.stderr
    with open(os.devnull, "w") as quiet, contextlib.suppress(OSError):
        sys.stderr = quiet
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = saved


def warm(workers: int) -> None:
    """Start the workers now (a spawned worker takes a moment to import the engine), so that
    the first decision of a thinking bot does not wait for it."""
    executor = pool(workers)
    for _ in range(workers):
        executor.submit(_ready)


def think(
    level: str,
    view: dict[str, Any],
    seed: int,
    workers: int,
    budget: Budget = DEFAULT_BUDGET,
    table: Sequence[str | None] | None = None,
) -> Future[dict[str, Any]]:
    """The bot's choice for ``view``, decided in a worker process (seeded with ``seed``);
    ``table``: every seat's level as the room knows it (None for a person)."""
    return pool(workers).submit(_decide, level, view, seed, budget, table)
