"""Helpers for server tests: a started server on a free loopback port and a protocol client.

The client speaks through :class:`protocol.client.ClientConnection` (in its unchecked
``send_raw`` form where a test sends what it likes), so every frame the server sends in these
tests is also checked against the protocol: a reply to no request, an unknown type or a missing
field fails the test with RemoteProtocolError.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest_asyncio

from protocol.client import ClientConnection, Raw, Said
from protocol.messages import PROTOCOL_VERSION
from server.config import SHARED_ADDRESS, ServerConfig
from server.net.tcp import RunningServer, start_server

Message = dict[str, Any]

# Fast settings: bots answer at once; rate limits high enough for bot-speed games, and every
# per-address limit out of the way (all test clients share 127.0.0.1).
FAST = {
    "port": 0,
    "bot_delay": 0.0,
    "away_delay": 0.05,
    "rate_per_second": 10_000.0,
    "rate_burst": 10_000,
    **SHARED_ADDRESS,
    "allow_seed": True,
    "empty_room_grace": 0.0,
}


class Client:
    """A test's protocol client: send maps, receive maps, with timeouts."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.conn = ClientConnection(max_frame=None)
        self.inbox: list[Message] = []
        self.seen: list[Message] = []  # every message received, in order
        self.player: str | None = None
        self.token: str | None = None

    @classmethod
    async def connect(cls, port: int) -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    def send(self, message: Message) -> None:
        """Send ``message`` as it is (an ``id`` only if it has one)."""
        self.conn.send_raw(message)
        self.writer.write(self.conn.data_to_send())

    def send_raw(self, data: bytes) -> None:
        """Send ``data`` as it is (replies to it are then matched to no request)."""
        self.conn.send_bytes(data)
        self.writer.write(self.conn.data_to_send())

    def _receive(self, data: bytes) -> bool:
        """Take ``data`` from the server; False at the end of the stream."""
        if not data:
            return False
        if self.conn.closed:  # after bye or a closing error: the protocol says nothing more
            raise AssertionError(f"the server sent data after closing: {data!r:.200}")
        for event in self.conn.receive_data(data):
            if not isinstance(event, Said):  # the end of the stream
                return False
            message = event.message.to_wire()
            self.seen.append(message)
            self.inbox.append(message)
        return True

    async def recv(self, timeout: float = 5.0) -> Message:
        while not self.inbox:
            data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
            if not self._receive(data):
                raise ConnectionError("closed by server")
        return self.inbox.pop(0)

    async def expect(self, kind: str, timeout: float = 5.0, **match: Any) -> Message:
        """Skip messages until one of ``kind`` whose fields match."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if msg.get("type") == kind and all(msg.get(k) == v for k, v in match.items()):
                return msg

    async def request(self, message: Message, timeout: float = 5.0) -> Message:
        """Send with a fresh id; return the direct reply (result or error)."""
        rid = self.conn.send(Raw(message=message)).id
        self.writer.write(self.conn.data_to_send())
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if msg.get("id") == rid:
                return msg

    async def error(self, message: Message) -> str:
        """Send a request that must fail; return its error code."""
        reply = await self.request(message)
        assert reply["type"] == "error", reply
        return str(reply["code"])

    async def hello(self, name: str, token: str | None = None) -> Message:
        msg: Message = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name}
        if token:
            msg["token"] = token
        welcome = await self.request(msg)
        assert welcome["type"] == "welcome", welcome
        self.player, self.token = welcome["player"], welcome["token"]
        return welcome

    async def closed(self, timeout: float = 5.0) -> bool:
        """Wait until the server closes the connection (True) or the timeout passes."""
        try:
            while True:
                data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
                if not self._receive(data):
                    return True
        except (TimeoutError, ConnectionError):
            return False

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


ServerFactory = Callable[..., Awaitable[RunningServer]]
ClientFactory = Callable[..., Awaitable[Client]]


@pytest_asyncio.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    started: list[RunningServer] = []

    async def factory(**settings: Any) -> RunningServer:
        running = await start_server(ServerConfig(**{**FAST, **settings}))
        started.append(running)
        return running

    yield factory
    for running in started:
        await running.stop()


@pytest_asyncio.fixture
async def server(make_server: ServerFactory) -> RunningServer:
    return await make_server()


@pytest_asyncio.fixture
async def connect() -> AsyncIterator[ClientFactory]:
    clients: list[Client] = []

    async def factory(port: int, name: str | None = None) -> Client:
        client = await Client.connect(port)
        clients.append(client)
        if name is not None:
            await client.hello(name)
        return client

    yield factory
    for client in clients:
        await client.close()


def over_version(client: Client) -> int:
    """The version of the last state before the most recent game_over."""
    last = 0
    for msg in client.seen:
        if msg["type"] == "state" and msg["view"]["over"]:
            last = msg["version"]
    return last


async def drive(
    client: Client, code: str, timeout: float = 30.0, keep_alive: bool = False
) -> dict[str, object]:
    """Answer every state with the first legal choice until game_over; return it.

    ``keep_alive``: answer every other message with a ping, so that a short idle timeout never
    drops a seat that waits while the other seat takes a long turn (on a loaded machine).
    """
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    acted = -1
    while True:
        msg = await client.recv(max(0.01, end - loop.time()))
        if msg["type"] == "game_over":
            return msg
        if msg["type"] == "state" and msg["view"]["legal"] and msg["version"] != acted:
            acted = msg["version"]
            client.send(
                {"type": "act", "room": code, "version": acted, "choice": safe(msg["view"])}
            )
        elif keep_alive and msg["type"] != "pong":
            client.send({"type": "ping"})


def safe(view: Message) -> int:
    """The index of the first legal choice of ``view`` that is not fatal (else 0)."""
    legal = view["legal"]
    return next((i for i, c in enumerate(legal) if not c.get("fatal")), 0)


async def duel(
    server: RunningServer, connect: ClientFactory, edition: str = "space", seed: int = 9
) -> tuple[Client, Client, str]:
    """Ann and Bob at a started 2-seat table."""
    ann = await connect(server.port, "Ann")
    code = (
        await ann.request({"type": "create_room", "edition": edition, "seats": 2, "seed": seed})
    )["room"]
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    await ann.request({"type": "start", "room": code})
    return ann, bob, code
