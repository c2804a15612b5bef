"""Helpers for the gateway tests: a game server with its SSH gateway on free loopback ports, and an
SSH client whose screen is a real terminal emulator (pyte), read the way a player sees it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncssh
import pyte
import pytest_asyncio

from server.config import ServerConfig
from server.gateway.server import Gateway, start_gateway
from server.net.tcp import RunningServer, start_server

FAST = {
    "port": 0,
    "ssh_port": 0,
    "host": "127.0.0.1",
    "bot_delay": 0.0,
    "away_delay": 0.05,
    "rate_per_second": 10_000.0,
    "rate_burst": 10_000,
    "empty_room_grace": 60.0,
}
WAIT = 30.0  # generous: the machine running the suite may be busy
#: A field only the new-room dialog shows ("New room" is in the lobby's footer too).
NEW_ROOM_DIALOG = "Turn timer"


class Terminal:
    """The screen an SSH client with a PTY sees, fed from its session's output."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes], width: int, height: int) -> None:
        self.process = process
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.ended = False
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while True:
                data = await self.process.stdout.read(65_536)
                if not data:
                    break
                self.stream.feed(data)
                self.changed.set()
        except (asyncssh.Error, OSError):
            pass
        self.ended = True
        self.changed.set()

    @property
    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(self.screen.display)

    async def wait_for(self, *needles: str, timeout: float = WAIT) -> str:
        """Wait until every needle is on the screen; return the screen."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not all(n in self.text for n in needles):
            if self.ended:
                raise AssertionError(f"session ended before {needles!r}:\n{self.text}")
            self.changed.clear()
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"{needles!r} not on screen:\n{self.text}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return self.text

    async def wait_until(self, check: Callable[[], bool], timeout: float = WAIT) -> None:
        """Wait until ``check()`` holds for the screen."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not check():
            self.changed.clear()
            left = end - loop.time()
            if left <= 0 or self.ended:
                raise AssertionError(f"screen never matched:\n{self.text}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    def keys(self, text: str) -> None:
        """Type on the keyboard."""
        self.process.stdin.write(text.encode())

    def resize(self, width: int, height: int) -> None:
        """Resize the SSH window."""
        self.screen.resize(height, width)
        self.process.change_terminal_size(width, height)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


class Stack:
    """A game server and its gateway, stopped together."""

    def __init__(self, running: RunningServer, gateway: Gateway) -> None:
        self.running = running
        self.gateway = gateway
        self.connections: list[asyncssh.SSHClientConnection] = []

    async def connect(
        self, user: str = "alice", key: asyncssh.SSHKey | None = None, **options: Any
    ) -> asyncssh.SSHClientConnection:
        """An SSH connection to the gateway (with ``key``, else keyboard-interactive, which
        OpenSSH's client falls back to)."""
        if key is None:
            options.setdefault("password", "")  # asyncssh answers the (empty) challenge with it
        conn = await asyncssh.connect(
            "127.0.0.1",
            self.gateway.port,
            username=user,
            client_keys=[key] if key is not None else [],
            known_hosts=None,
            agent_path=None,
            **options,
        )
        self.connections.append(conn)
        return conn

    async def terminal(
        self,
        user: str = "alice",
        key: asyncssh.SSHKey | None = None,
        command: str | None = None,
        size: tuple[int, int] = (100, 30),
    ) -> tuple[asyncssh.SSHClientConnection, Terminal]:
        """Connect and open a session with a PTY of ``size``."""
        conn = await self.connect(user, key)
        process = await conn.create_process(
            command, term_type="xterm-256color", term_size=size, encoding=None
        )
        return conn, Terminal(process, *size)

    async def stop(self) -> None:
        for conn in self.connections:
            conn.abort()
        await self.gateway.stop()
        await self.running.stop()


StackFactory = Callable[..., Awaitable[Stack]]


@pytest_asyncio.fixture
async def make_stack(tmp_path: Path) -> AsyncIterator[StackFactory]:
    started: list[Stack] = []

    async def factory(**settings: Any) -> Stack:
        config = ServerConfig(**{**FAST, "db": str(tmp_path / "server.sqlite3"), **settings})
        running = await start_server(config)
        gateway = await start_gateway(running, config)
        stack = Stack(running, gateway)
        started.append(stack)
        return stack

    yield factory
    for stack in started:
        await stack.stop()


@pytest_asyncio.fixture
async def stack(make_stack: StackFactory) -> Stack:
    return await make_stack()
