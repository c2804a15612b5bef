"""One server per SQLite database file: a second ``selfish-server`` (or `selfish play`, `selfish
host`, which embed one) on the same file refuses to start, saying that another one runs there.

Two servers on one SQLite file would each resume the other's unfinished games and hand out the
same game ids (the second failed in its log only: UNIQUE constraint failed: games.id, while its
player waited on "Setting up your game…"). The lock is an advisory ``flock`` on a file beside
the database holding the owner's process id; the kernel drops it when that process ends, so a
crash never leaves the database locked. ``server.tcp.start_server`` takes it; the operator's
tools (``selfish-server admin``) do not: they make single changes a running server reads back.
A PostgreSQL database is shared on purpose (a cluster) and takes no such lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class DatabaseBusy(OSError):
    """Another process holds the database; ``pid`` is its process id (None if unknown)."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        super().__init__(
            f"the database {path} is in use by another selfish-server (process {pid}): stop "
            "it first, or give this one a database of its own (--db)"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class DatabaseLock:
    """The lock of one database file, held from :meth:`acquire` to :meth:`release`."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`DatabaseBusy` at once (never wait)."""
        if self._fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise DatabaseBusy(self.database, pid) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Let the lock go (nothing if not held)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def lock_database(database: str) -> DatabaseLock | None:
    """The held lock of a SQLite database file (None for one that takes none: ``:memory:``, a
    URL); raises :class:`DatabaseBusy` if another process holds it."""
    if database == ":memory:" or "://" in database:
        return None
    lock = DatabaseLock(Path(database))
    lock.acquire()
    return lock


def _read_pid(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip())
    return None
