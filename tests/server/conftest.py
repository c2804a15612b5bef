"""Helpers for server tests: a started server on a free loopback port and a raw protocol client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest_asyncio

from protocol.codec import MessageDecoder, encode
from server.config import SHARED_ADDRESS, ServerConfig
from server.tcp import RunningServer, start_server

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
    """A bare protocol client: send maps, receive maps, with timeouts."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = MessageDecoder(max_size=None)
        self.inbox: list[Message] = []
        self.seen: list[Message] = []  # every message received, in order
        self.next_id = 100
        self.player: str | None = None
        self.token: str | None = None

    @classmethod
    async def connect(cls, port: int) -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    def send(self, message: Message) -> None:
        self.writer.write(encode(message))

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    async def recv(self, timeout: float = 5.0) -> Message:
        while not self.inbox:
            data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
            if not data:
                raise ConnectionError("closed by server")
            for msg in self.decoder.feed(data):
                self.seen.append(msg)
                self.inbox.append(msg)
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
        """Send with an id; return the direct reply (result or error)."""
        self.next_id += 1
        rid = self.next_id
        self.send({**message, "id": rid})
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
        msg: Message = {"type": "hello", "protocol": 1, "name": name}
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
                if not data:
                    return True
                for msg in self.decoder.feed(data):
                    self.seen.append(msg)
                    self.inbox.append(msg)
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


async def drive(client: Client, code: str, timeout: float = 30.0) -> dict[str, object]:
    """Answer every state with the first legal choice until game_over; return it."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    acted = -1
    while True:
        msg = await client.recv(max(0.01, end - loop.time()))
        if msg["type"] == "game_over":
            return msg
        if msg["type"] == "state" and msg["view"]["legal"] and msg["version"] != acted:
            acted = msg["version"]
            choice = next(
                (c for c in msg["view"]["legal"] if not c.get("fatal")), msg["view"]["legal"][0]
            )
            client.send({"type": "act", "room": code, "version": acted, "choice": choice})


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
