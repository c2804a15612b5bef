"""A PostgreSQL server for the tests: the one ``SELFISH_TEST_POSTGRES`` names, or one started
from the PostgreSQL binaries (``initdb``, ``pg_ctl``) in a temporary folder, on a free port,
with its socket in that folder; stopped when the session ends.

``initdb`` refuses to run as root: as root the server runs as the ``postgres`` user. Where
neither is possible the tests that need it skip with the reason, except under ``CI=true``,
where a missing PostgreSQL fails them.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

VARIABLE = "SELFISH_TEST_POSTGRES"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalPostgres:
    """A throwaway PostgreSQL server in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.user = "postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            owner = pwd.getpwnam("postgres")
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        else:
            self.user = pwd.getpwuid(os.geteuid()).pw_name

    def _run(self, *command: str) -> None:
        subprocess.run(
            [*self._as, *command], check=True, capture_output=True, cwd=self.folder, timeout=120
        )

    def start(self, fsync: bool = False) -> None:
        """initdb and start; without ``fsync`` commits skip the disk flush (a test server
        holds nothing worth one; a benchmark of commits wants it)."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", self.user, "--no-sync")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=''"
        if not fsync:
            options += " -c fsync=off"
        log = str(self.folder / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        """Stop the server (fast: its sessions are cut)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://{self.user}@/{database}?host={self.folder}&port={self.port}"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required in CI: {reason}")
    pytest.skip(reason)


def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (a session fixture's body)."""
    given = os.environ.get(VARIABLE)
    if given:
        yield given
        return
    if shutil.which("initdb") is None or shutil.which("pg_ctl") is None:
        _unavailable(f"no PostgreSQL: set {VARIABLE} or put initdb and pg_ctl on PATH")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("initdb refuses root and there is no postgres user to run it as")
    folder = Path(tempfile.mkdtemp(prefix="selfish-pg-"))
    server = LocalPostgres(folder)
    try:
        server.start()
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        _unavailable(f"cannot start PostgreSQL: {exc}")
    try:
        yield server.url()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def with_database(url: str, database: str) -> str:
    """``url`` with its database name replaced by ``database``."""
    head, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    _, question, query = path.partition("?")
    return f"{head}://{authority}{slash or '/'}{database}{question}{query}"


def fresh_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server (dropped afterwards): a test's own."""
    import psycopg

    name = "selfish_" + secrets.token_hex(6)
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())
