"""An in-memory harness: the lobby driven directly through fake connections, on a fake clock.

No sockets and no sleeping: :class:`FakeScheduler` is the lobby's clock and timers (vacancy,
presence broadcasts, maintenance, every rate limit, the rooms' turn clocks), moved on with
:meth:`FakeScheduler.advance`. Only a thinking bot (``expert``) needs a running event loop: its
answer comes from a worker process.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import MessageDecoder
from protocol.errors import ProtocolError
from protocol.messages import PROTOCOL_VERSION, parse_client
from protocol.server_messages import ErrorMessage, ServerMessage, read_server
from server.config import SHARED_ADDRESS, ServerConfig
from server.lobby.lobby import Lobby, Player
from server.rooms.wire import encode
from server.store.store import Store

Message = dict[str, Any]


@dataclass
class FakeHandle:
    """A pending call of :class:`FakeScheduler`."""

    when: float
    callback: Callable[..., Any]
    args: tuple[Any, ...]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeScheduler:
    """``time()`` and ``call_at()`` on a clock that only moves when told to."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now
        self._heap: list[tuple[float, int, FakeHandle]] = []
        self._seq = itertools.count()

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> FakeHandle:
        handle = FakeHandle(when, callback, args)
        heapq.heappush(self._heap, (when, next(self._seq), handle))
        return handle

    def pending(self) -> int:
        """Calls scheduled and not cancelled."""
        return sum(1 for _, _, h in self._heap if not h.cancelled)

    def advance(self, seconds: float) -> None:
        """Move the clock on, running every call that falls due, in order."""
        end = self.now + seconds
        while self._heap and self._heap[0][0] <= end:
            when, _, handle = heapq.heappop(self._heap)
            self.now = max(self.now, when)
            if not handle.cancelled:
                handle.callback(*handle.args)
        self.now = end


@dataclass(eq=False)
class FakeConnection:
    """A client connection as the lobby sees it; what it is sent lands in ``inbox``."""

    address: str = "10.0.0.1"
    peer: str = "10.0.0.1:5000"
    inbox: list[Message] = field(default_factory=list)
    closed: bool = False
    bytes_sent: int = 0
    _decoder: MessageDecoder = field(default_factory=lambda: MessageDecoder(None))

    def send(self, message: ServerMessage) -> None:
        self.send_parts((encode(message),))

    def send_frame(self, data: bytes) -> None:
        self.send_parts((data,))

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        data = b"".join(parts)
        self.bytes_sent += len(data)
        for message in self._decoder.feed(data):
            read_server(message)  # every message the server sends is one the protocol knows
            self.inbox.append(message)

    def close_after(self, message: ServerMessage) -> None:
        self.send(message)
        self.closed = True

    def cut(self) -> None:
        self.closed = True

    def of_type(self, kind: str) -> list[Message]:
        return [m for m in self.inbox if m["type"] == kind]

    def last(self) -> Message:
        return self.inbox[-1]


class Harness:
    """A lobby with its store, on a fake clock; clients as (connection, player) pairs."""

    def __init__(self, store: Store | None = None, **settings: Any) -> None:
        # Every client shares an address unless told otherwise: the limits per address and on
        # new identities are lifted; a test of a limit sets it.
        self.config = ServerConfig(
            **{
                "bot_delay": 0.0,
                "allow_seed": True,
                **SHARED_ADDRESS,
                "new_players_burst": 100_000,
                "resumes_burst": 100_000,
                **settings,
            }
        )
        self.store = store or Store()
        self.clock = FakeScheduler()
        self.lobby = Lobby(self.config, self.store, self.clock)
        self.lobby.restore()
        self._ids = itertools.count(1)

    def connect(self, address: str = "10.0.0.1") -> FakeConnection:
        return FakeConnection(address, f"{address}:{next(self._ids)}")

    def hello(
        self, conn: FakeConnection, name: str, token: str | None = None
    ) -> tuple[Player, str]:
        """Identify ``conn``; returns the player and its token."""
        message: Message = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name}
        if token is not None:
            message["token"] = token
        request = parse_client(message)
        welcomed: list[Player] = []
        self.lobby.hello(conn, request, welcomed.append)  # type: ignore[arg-type]
        (player,) = welcomed  # a server alone: at once
        welcome = next(m for m in reversed(conn.inbox) if m["type"] == "welcome")
        return player, str(welcome["token"])

    def client(self, name: str, address: str = "10.0.0.1") -> tuple[FakeConnection, Player]:
        conn = self.connect(address)
        player, _ = self.hello(conn, name)
        return conn, player

    def request(self, conn: FakeConnection, player: Player, message: Message) -> Message:
        """Handle one request; return its error (as the session would send it) or the last
        message sent to ``conn``."""
        try:
            self.lobby.handle(conn, player, parse_client(message))
        except ProtocolError as exc:
            error = ErrorMessage.of(exc).to_wire()
            conn.inbox.append(error)
            return error
        return conn.last()

    def disconnect(self, conn: FakeConnection, player: Player) -> None:
        self.lobby.disconnect(conn, player)
