"""The TCP front end, and the embedding API used by ``selfish play`` and the tests.

Embedding::

    from server.config import ServerConfig
    from server.net.tcp import start_server

    running = await start_server(ServerConfig(port=0, bot_delay=0.2, allow_seed=True))
    print(running.port)        # the port actually bound (port=0 picks a free one)
    ...                        # connect a client to 127.0.0.1:running.port
    await running.stop()       # tells clients "bye", stops rooms, flushes and closes the store

``ServerConfig()`` defaults to 127.0.0.1, an in-memory store and the protocol's limits.

Every accepted connection gets a :class:`server.net.session.Session` as its protocol; the running
server only counts them (the connection limits) and, on shutdown, waits for them to close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from server.config import ServerConfig
from server.lobby.lobby import Lobby
from server.net.outbox import Outbox
from server.net.session import Session
from server.rooms.outgoing import bye_message, error_message
from server.store.database_lock import DatabaseLock, lock_database
from server.store.store import Store

if TYPE_CHECKING:
    from server.cluster.node import Cluster

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
    per_address: Counter[str] = field(default_factory=Counter)  # by address group
    # Admitted connections that have not said hello, oldest first (dicts keep their order).
    unidentified: dict[Session, None] = field(default_factory=dict)
    evicted: set[Session] = field(default_factory=set)  # closed to make room, not yet gone
    stopping: bool = False
    lock: DatabaseLock | None = None
    cluster: Cluster | None = None
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    outbox: Outbox = field(init=False)
    _all_closed: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)

    def __post_init__(self) -> None:
        # From here on the store commits once per tick, just before that tick's output.
        self.outbox = Outbox(self.store)

    def new_session(self) -> Session:
        """The protocol of a connection just accepted."""
        return Session(self.lobby, self.config, self.outbox, self)

    def admit(self, session: Session) -> bool:
        """Count a new connection, or refuse it (it is closed) past the connection limits.

        A full server, or one whose unidentified connections fill their share of it
        (``max_unidentified_share``), closes the oldest connection that has not said hello to
        let the newcomer in: connections that never say hello cannot lock people out. Only a
        server full of identified connections refuses a newcomer."""
        if self.stopping:
            return False
        group = session.address
        config = self.config
        share = max(1, int(config.max_connections * config.max_unidentified_share))
        if (
            self.per_address[group] >= config.max_connections_per_address
            or not self.lobby.limits.connections.allow(group)  # connects per second
        ):
            self._refuse(session, "too many connections from your address")
            return False
        full = len(self.sessions) - len(self.evicted) >= config.max_connections
        if (full or len(self.unidentified) >= share) and not self._evict_unidentified():
            self._refuse(session, "the server is full")
            return False
        self.sessions.add(session)
        self.per_address[group] += 1
        self.unidentified[session] = None
        return True

    def _refuse(self, session: Session, why: str) -> None:
        self.lobby.errors.line(
            logging.WARNING, "%s: too many connections; refused", session.address
        )
        error = ProtocolError(ErrorCode.TOO_MANY_CONNECTIONS, why)
        session.transport.write(encode(error_message(error).to_wire()))

    def _evict_unidentified(self) -> bool:
        """Close the oldest connection that has not said hello; False if there is none."""
        oldest = next(iter(self.unidentified), None)
        if oldest is None:
            return False
        del self.unidentified[oldest]
        self.evicted.add(oldest)
        text = "the server is full: connections that have not said hello make way for new ones"
        oldest.close_after(error_message(ProtocolError(ErrorCode.TOO_MANY_CONNECTIONS, text)))
        return True

    def identified(self, session: Session) -> None:
        """``session`` said hello: it can no longer be closed to make room."""
        self.unidentified.pop(session, None)

    def release(self, session: Session) -> None:
        """Forget a connection that has ended."""
        self.sessions.discard(session)
        self.unidentified.pop(session, None)
        self.evicted.discard(session)
        group = session.address
        self.per_address[group] -= 1
        if not self.per_address[group]:
            del self.per_address[group]
        if not self.sessions:
            self._all_closed.set()

    async def _all_gone(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every connection to end; True if they did."""
        if self.sessions:
            self._all_closed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._all_closed.wait()
        return not self.sessions

    async def stop(self) -> None:
        """Stop accepting, say ``bye`` to every client, stop the rooms, flush the store."""
        if self.stopping:
            await self.stopped.wait()
            return
        self.stopping = True
        log.info(
            "shutting down: %d connections, %d rooms", len(self.sessions), len(self.lobby.rooms)
        )
        self.server.close()
        self.lobby.shutdown()  # rooms stop deciding before anyone is told goodbye
        for session in list(self.sessions):
            session.close_after(bye_message("shutdown"))
        if not await self._all_gone(self.config.shutdown_grace):
            # Clients that did not take their goodbye in time are cut off; each connection
            # then ends (and leaves the lobby) within a tick or two.
            for session in list(self.sessions):
                session.transport.abort()
            await self._all_gone(1.0)
        self.store.close()
        if self.cluster is not None:
            self.cluster.stop()
        if self.lock is not None:
            self.lock.release()
        log.info("server stopped")
        self.stopped.set()


def node_address(host: str, port: int) -> str:
    """How the other nodes of a cluster name this one to its clients: ``host:port``, with this
    machine's name for a wildcard host (IPv6 in brackets)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def start_server(config: ServerConfig) -> RunningServer:
    """Open the store, resume unfinished games, and listen on ``config.host:config.port``.
    Raises DatabaseBusy if another server holds the SQLite database, ValueError for a
    database URL the store cannot serve."""
    lock = lock_database(config.db)
    try:
        store = Store(config.db, config.db_synchronous)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    lobby = Lobby(config, store)
    running: RunningServer | None = None

    def new_session() -> Session:
        assert running is not None  # connections are accepted only once it exists
        return running.new_session()

    try:
        # asyncio's default backlog (100) drops SYNs when many clients reconnect at once (after
        # a restart): they then wait a second for the kernel's retry. The kernel caps the value.
        backlog = max(100, min(config.max_connections, 4096))
        server = await asyncio.get_running_loop().create_server(
            new_session, config.host, config.port, backlog=backlog, start_serving=False
        )
    except OSError:
        store.close()
        if lock is not None:
            lock.release()
        raise
    port = int(server.sockets[0].getsockname()[1])
    try:
        # In a cluster the node takes its rooms' leases before resuming them: bound first,
        # so that its address (what the others send its clients to) is known.
        cluster = None
        if store.dialect.fenced:  # PostgreSQL: every node is part of a cluster, if of one
            from server.cluster.node import Cluster

            address = config.node_address or node_address(config.host, port)
            cluster = lobby.cluster = Cluster(lobby, config.db, address, config.lease_seconds)
        lobby.restore()
    except BaseException:
        server.close()
        lobby.shutdown()
        store.close()
        if lock is not None:
            lock.release()
        raise
    running = RunningServer(config, lobby, store, server, port, lock=lock, cluster=cluster)
    if cluster is not None:
        cluster.start()
    await server.start_serving()
    log.info(
        "listening on %s:%d (store %s, %d rooms resumed)",
        config.host,
        port,
        config.db,
        len(lobby.rooms),
    )
    return running
