"""The TCP front end, and the embedding API used by ``selfish play`` and the tests.

Embedding::

    from server.config import ServerConfig
    from server.tcp import start_server

    running = await start_server(ServerConfig(port=0, bot_delay=0.2, allow_seed=True))
    print(running.port)        # the port actually bound (port=0 picks a free one)
    ...                        # connect a client to 127.0.0.1:running.port
    await running.stop()       # tells clients "bye", stops rooms, flushes and closes the store

``ServerConfig()`` defaults to 127.0.0.1, an in-memory store and the protocol's limits.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass, field

from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from server.config import ServerConfig
from server.lobby import Lobby
from server.outbox import Outbox
from server.session import Session
from server.store import Store

log = logging.getLogger("selfish.server")


@dataclass
class RunningServer:
    """A started server: ``port`` is the bound port; ``await stop()`` shuts it down cleanly."""

    config: ServerConfig
    lobby: Lobby
    store: Store
    server: asyncio.Server
    port: int
    sessions: set[Session] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    per_address: Counter[str] = field(default_factory=Counter)
    stopping: bool = False
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    outbox: Outbox = field(init=False)

    def __post_init__(self) -> None:
        # From here on the store commits once per tick, just before that tick's output.
        self.outbox = Outbox(self.store)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        if self.stopping:
            writer.close()
            return
        if (self.per_address[address] >= self.config.max_connections_per_address
                or len(self.sessions) >= self.config.max_connections):  # fmt: skip
            log.warning("%s: too many connections; refused", address)
            writer.write(encode(ProtocolError(
                ErrorCode.TOO_MANY_CONNECTIONS, "too many connections from your address"
            ).to_wire()))  # fmt: skip
            writer.close()
            return
        session = Session(self.lobby, reader, writer, self.config, self.outbox)
        self.sessions.add(session)
        self.tasks.add(task)
        self.per_address[address] += 1
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            self.tasks.discard(task)
            self.per_address[address] -= 1
            if not self.per_address[address]:
                del self.per_address[address]

    async def stop(self) -> None:
        """Stop accepting, say ``bye`` to every client, stop the rooms, flush the store."""
        if self.stopping:
            await self.stopped.wait()
            return
        self.stopping = True
        log.info("shutting down: %d connections, %d rooms", len(self.sessions),
                 len(self.lobby.rooms))  # fmt: skip
        self.server.close()
        self.lobby.shutdown()  # rooms stop deciding before anyone is told goodbye
        for session in list(self.sessions):
            session.close_after({"type": "bye", "reason": "shutdown",
                                 "message": "server is shutting down"})  # fmt: skip
        if self.tasks:
            _, pending = await asyncio.wait(set(self.tasks), timeout=self.config.shutdown_grace)
            for task in pending:
                task.cancel()
        self.store.close()
        log.info("server stopped")
        self.stopped.set()


async def start_server(config: ServerConfig) -> RunningServer:
    """Open the store, resume unfinished games, and listen on ``config.host:config.port``."""
    store = Store(config.db, config.db_synchronous)
    lobby = Lobby(config, store)
    lobby.restore()
    holder: list[RunningServer] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await holder[0]._handle(reader, writer)

    try:
        # asyncio's default backlog (100) drops SYNs when many clients reconnect at once (after
        # a restart): they then wait a second for the kernel's retry. The kernel caps the value.
        server = await asyncio.start_server(handle, config.host, config.port,
                                            backlog=max(100, min(config.max_connections, 4096)))
    except OSError:
        lobby.shutdown()
        store.close()
        raise
    port = int(server.sockets[0].getsockname()[1])
    running = RunningServer(config, lobby, store, server, port)
    holder.append(running)
    log.info("listening on %s:%d (store %s, %d rooms resumed)", config.host, port, config.db,
             len(lobby.rooms))  # fmt: skip
    return running
