"""Fixtures for the LAN tests: announced servers and a finder, all on loopback."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from protocol.lan import LanServer
from selfish_tui.discovery import DiscoveryProblem, ServerFinder, ServersChanged
from selfish_tui.local import EmbeddedServer

LOOPBACK = ["127.0.0.1"]


def unique(name: str) -> str:
    """A server name no other test announces: tests running at the same time (pytest -n, other
    checkouts on this machine) all see each other's servers on loopback."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def announced(tmp_path: Any) -> Iterator[Callable[..., EmbeddedServer]]:
    """Start announced embedded servers (stopped after the test); ``server.announce`` is the
    name each is announced under (see :func:`unique`)."""
    servers: list[EmbeddedServer] = []

    def start(name: str = "Ann", **settings: Any) -> EmbeddedServer:
        settings.setdefault("bot_delay", 0.0)
        server = EmbeddedServer(
            settings.pop("db", ":memory:"),
            announce=unique(name),
            lan_interfaces=LOOPBACK,
            **settings,
        )
        server.start()
        servers.append(server)
        assert server.lan_problem is None
        return server

    yield start
    for server in servers:
        server.stop()


class Found:
    """What a finder posted, and a way to wait for a condition on it."""

    def __init__(self) -> None:
        self.servers: list[LanServer] = []
        self.problems: list[str] = []
        self.changed = asyncio.Event()

    def post(self, message: Any) -> None:
        if isinstance(message, ServersChanged):
            self.servers = message.servers
        elif isinstance(message, DiscoveryProblem):
            self.problems.append(message.reason)
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 10.0) -> float:
        """Wait until ``condition()`` holds; return how long it took."""
        start = time.monotonic()
        async with asyncio.timeout(timeout):
            while not condition():
                self.changed.clear()
                await self.changed.wait()
        return time.monotonic() - start

    def named(self, name: str) -> LanServer | None:
        return next((s for s in self.servers if s.name == name), None)


@pytest.fixture
async def finder() -> AsyncIterator[Found]:
    """A finder browsing on loopback for the length of the test."""
    found = Found()
    task = asyncio.create_task(ServerFinder(found.post, LOOPBACK).run())
    yield found
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
