"""The client side of one connection, sans-IO: requests in, bytes out; bytes in, typed events out.

:class:`ClientConnection` is the one protocol client of the Selfish programs (``selfish bot``,
the load generator, the tests and the fuzzer speak through it). It never touches a
socket, a clock or a task: the caller writes :meth:`~ClientConnection.data_to_send` to its
transport and hands what it reads to :meth:`~ClientConnection.receive_data`, so it works the
same on asyncio, on threads and in a test that feeds one byte at a time. h11 is the model:

    conn = ClientConnection()
    conn.hello("Ann", token=saved_token)          # or conn.send(Hello(...))
    sock.sendall(conn.data_to_send())
    for event in conn.receive_data(sock.recv(65536)):   # one at a time, as h11's next_event
        if isinstance(event, Welcome): saved_token = event.token
        elif isinstance(event, State) and event.view.legal:
            conn.send(Act(room=event.room, version=event.version, choice=index_in_legal))
    sock.sendall(conn.data_to_send())

What it does for the caller (PROTOCOL.md §2-§3):

- **hello and token resume**: :meth:`~ClientConnection.hello` sends the ``hello``;
  :class:`Welcome` says whether the token was taken (``resumed``); ``conn.player`` and
  ``conn.token`` keep the identity for the next connection (``ClientConnection(token=...)``).
- **request ids and replies**: every request gets a fresh ``id``; the server's direct reply comes
  out as an event whose ``request`` is the request it answers (``None`` for broadcasts), and an
  ``error`` reply as :class:`Error` with that request, so a dropped (``rate_limited``) request
  can be sent again as it was.
- **the order**: the server sends the direct reply before any broadcast the request causes, so
  while a request is in :attr:`~ClientConnection.pending`, a broadcast is not yet its result
  (:meth:`~ClientConnection.awaiting` asks that of an ``act``).

Errors are h11's two kinds: :class:`LocalProtocolError` when the caller misuses the connection
(a request before ``hello``, anything after it closed), :class:`RemoteProtocolError` when the
server breaks the protocol (a bad frame, an unknown message type, a reply to no request, a
message without its fields). After a remote error the connection is :attr:`ConnState.CLOSED`:
drop the transport and start a new connection (with the token). Tests and fuzzers that must send
what a well-behaved client never would use :meth:`~ClientConnection.send_raw` (a map as it is,
its reply still matched) and :meth:`~ClientConnection.send_bytes` (any bytes).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from protocol.client_events import Bye as Bye
from protocol.client_events import ChatLine as ChatLine
from protocol.client_events import ConnectionClosed as ConnectionClosed
from protocol.client_events import Error as Error
from protocol.client_events import Event as Event
from protocol.client_events import Events as Events
from protocol.client_events import GameOver as GameOver
from protocol.client_events import Joined as Joined
from protocol.client_events import Moved as Moved
from protocol.client_events import Ok as Ok
from protocol.client_events import Pong as Pong
from protocol.client_events import Replay as Replay
from protocol.client_events import Replays as Replays
from protocol.client_events import Rooms as Rooms
from protocol.client_events import RoomUpdate as RoomUpdate
from protocol.client_events import Said as Said
from protocol.client_events import State as State
from protocol.client_events import Timer as Timer
from protocol.client_events import Welcome as Welcome
from protocol.client_events import event_of
from protocol.codec import Message, decode_server_body, pack
from protocol.errors import FrameError, MalformedMessage
from protocol.framing import HEADER, FrameDecoder
from protocol.messages import PROTOCOL_VERSION, Act, Hello, Ping, Request
from protocol.server_messages import (
    ErrorMessage,
    MovedMessage,
    ServerMessage,
    WelcomeMessage,
    read_server,
)

#: PROTOCOL.md §1: server frames have no size limit; a client accepts at least 16 MiB.
MAX_SERVER_FRAME = 16 * 1024 * 1024


class LocalProtocolError(Exception):
    """The caller used the connection wrongly (nothing was sent)."""


class RemoteProtocolError(Exception):
    """The server broke the protocol; the connection is closed and cannot be trusted."""


class ConnState(Enum):
    """Where the connection is in its life (PROTOCOL.md §3)."""

    IDLE = "idle"  # nothing sent yet, or the hello was refused (send another)
    HELLO_SENT = "hello_sent"  # waiting for welcome
    READY = "ready"  # welcomed: any request may be sent
    CLOSED = "closed"  # bye, a closing error, the end of the stream, or a remote error


@dataclass(frozen=True, kw_only=True)
class Raw(Request):
    """A request sent as the map ``message``, unchecked: for tests and fuzzers that must send
    what a well-behaved client never would (see :meth:`ClientConnection.send_raw`)."""

    message: Mapping[str, object]

    def to_wire(self) -> dict[str, Any]:
        out = dict(self.message)
        if self.id is not None:
            out["id"] = self.id
        return out


# --------------------------------------------------------------------------- the connection


class ClientConnection:
    """One client connection's protocol state (see the module docstring).

    ``token``: resume this identity with the first :meth:`hello`. ``decode`` turns a frame body
    into a message (default: the whole body, checked and bounded as
    :func:`protocol.codec.decode_server_body` does), and ``read`` that message into its
    typed form (default: :func:`protocol.server_messages.read_server`, which checks every field).
    A client that needs only some fields may pass cheaper ones (bench/load.py does: it reads
    of a state only how many choices it has).
    """

    def __init__(
        self,
        token: str | None = None,
        *,
        max_frame: int | None = MAX_SERVER_FRAME,
        decode: Callable[[bytes], Message] = decode_server_body,
        read: Callable[[object], ServerMessage] = read_server,
    ) -> None:
        self.state = ConnState.IDLE
        self.token = token
        self.player: str | None = None
        self.server: str | None = None
        # where a ``moved`` sent us: the address the next connection should open (None: here)
        self.moved: str | None = None
        self._frames = FrameDecoder(max_frame)
        self._bodies: deque[bytes] = deque()  # received, not yet turned into events
        self._broken: FrameError | None = None  # a bad frame after those bodies
        self._eof = False
        self._decode = decode
        self._read = read
        self._out = bytearray()
        self._next_id = 1
        self._pending: dict[int, Request] = {}
        self._pending_acts = 0
        self._raw: dict[int, list[Raw]] = {}  # send_raw's requests with an int id, by id
        self._unnumbered = 0  # send_raw's requests whose reply carries no id
        self._blind = False  # send_bytes was used: replies may answer what we never saw

    # ------------------------------------------------------------------ sending

    @property
    def pending(self) -> Mapping[int, Request]:
        """Requests sent and not yet answered, by id."""
        return self._pending

    def awaiting(self, kind: type[Request] = Act) -> bool:
        """Whether a request of ``kind`` awaits its direct reply (then a broadcast that arrives
        now is not its result: the reply comes first)."""
        if kind is Act:
            return self._pending_acts > 0
        return any(isinstance(r, kind) for r in self._pending.values())

    def hello(self, name: str, token: str | None = None, guest: bool = False) -> Hello:
        """Send ``hello`` as ``name``, resuming ``token`` (default: the one this connection has);
        ``guest``: a new identity whose token the caller does not keep (no record, no rating)."""
        token = token if token is not None else self.token
        sent = self.send(
            Hello(name=name, protocol=PROTOCOL_VERSION, token=token, guest=guest or None)
        )
        assert isinstance(sent, Hello)
        return sent

    def send(self, request: Request) -> Request:
        """Queue ``request`` with a fresh id; return it as sent (with that id).

        Raises LocalProtocolError for a request the connection's state does not allow:
        anything but ``hello`` or ``ping`` before the welcome, a second ``hello``, anything once
        closed. A :class:`Raw` request is not checked (only a closed connection refuses it).
        """
        if self.state is ConnState.CLOSED:
            raise LocalProtocolError("the connection is closed")
        if isinstance(request, Hello):
            if self.state is not ConnState.IDLE:
                raise LocalProtocolError(f"hello in state {self.state.value}")
            self.state = ConnState.HELLO_SENT
            self.token = request.token
        elif self.state is not ConnState.READY and not isinstance(request, Ping | Raw):
            raise LocalProtocolError(f"{request.TYPE} before the welcome")
        rid = self._next_id
        self._next_id += 1
        sent = dataclasses.replace(request, id=rid)
        self._pending[rid] = sent
        if isinstance(sent, Act):
            self._pending_acts += 1
        self._queue(sent.to_wire())
        return sent

    def send_raw(self, message: Mapping[str, object]) -> Raw:
        """Queue ``message`` exactly as given, its ``id`` (or none, or a malformed one) included,
        unchecked; its reply is still matched to it. For tests and fuzzers."""
        if self.state is ConnState.CLOSED:
            raise LocalProtocolError("the connection is closed")
        rid = message.get("id")
        raw = Raw(message=message)
        # the server echoes an id only if it is an int (request_id in protocol.messages)
        if type(rid) is int:
            self._raw.setdefault(rid, []).append(raw)
            self._next_id = max(self._next_id, rid + 1)
        else:
            self._unnumbered += 1
        self._queue(raw.to_wire())
        return raw

    def send_bytes(self, data: bytes) -> None:
        """Queue ``data`` as it is (garbage, frames built by hand: fuzzers do). The connection
        cannot know what they ask, so from now on a reply to an unknown id, or without one,
        is passed on as a broadcast (``request`` None) instead of being a remote error."""
        if self.state is ConnState.CLOSED:
            raise LocalProtocolError("the connection is closed")
        self._blind = True
        self._out += data

    def _queue(self, message: Message) -> None:
        body = pack(message)
        self._out += HEADER.pack(len(body))
        self._out += body

    def data_to_send(self) -> bytes:
        """The bytes queued by :meth:`send` since the last call (b"" if none)."""
        data = bytes(self._out)
        self._out.clear()
        return data

    # ------------------------------------------------------------------ receiving

    def receive_data(self, data: bytes) -> Iterator[Event]:
        """Feed bytes read from the server (b"" at the end of the stream); return
        :meth:`events`, the events they complete.

        Events come out one at a time, each handled before the next is made, so that what the
        connection says meanwhile (:attr:`pending`, :meth:`awaiting`) is true as of that event:
        as h11 does it, with a generator in place of its ``next_event`` loop. Events not taken
        wait for the next call. A bad frame raises RemoteProtocolError when its turn comes.
        """
        if self.closed or self._eof:
            if data:
                raise LocalProtocolError("data received on a closed connection")
        elif not data:
            self._eof = True
        elif self._broken is None:
            try:
                self._bodies.extend(self._frames.feed(data))
            except FrameError as exc:
                self._broken = exc
            else:
                self._broken = self._frames.error
        return self.events()

    def events(self) -> Iterator[Event]:
        """The events received and not yet taken, one at a time (see :meth:`receive_data`)."""
        while (event := self.next_event()) is not None:
            yield event

    def next_event(self) -> Event | None:
        """The next event received, or None until more data comes (or once closed)."""
        if self.closed:
            return None  # nothing the server sends after bye or a closing error counts
        if self._bodies:
            body = self._bodies.popleft()
            try:
                message = self._decode(body)
            except FrameError as exc:
                self._close()
                raise RemoteProtocolError(f"bad frame from the server: {exc.message}") from exc
            return self._event(message)
        if self._broken is not None:
            self._close()
            raise RemoteProtocolError(f"bad frame from the server: {self._broken.message}")
        if self._eof:
            self._close()
            return ConnectionClosed()
        return None

    @property
    def closed(self) -> bool:
        """Whether the connection is over (drop the transport)."""
        return self.state is ConnState.CLOSED

    def _close(self) -> None:
        self.state = ConnState.CLOSED

    def _event(self, raw: Message) -> Event:
        try:
            message = self._read(raw)
            request = self._answered(message)
        except MalformedMessage as exc:
            self._close()
            raise RemoteProtocolError(f"malformed message from the server: {exc.message}") from exc
        except RemoteProtocolError:
            self._close()
            raise
        if isinstance(message, ErrorMessage):
            if isinstance(request, Hello):
                self.state = ConnState.IDLE  # refused: the caller may say hello again
                if message.code == "bad_token":
                    self.token = None  # the server does not know it: the next hello is new
            if message.closing:
                self._close()
        elif isinstance(message, WelcomeMessage):
            if isinstance(request, Hello):
                sent_token: object = request.token
            elif isinstance(request, Raw) and request.message.get("type") == "hello":
                sent_token = request.message.get("token")
            elif request is None:  # answers a send_raw or send_bytes hello without an id
                sent_token = None
            else:
                self._close()
                raise RemoteProtocolError("welcome that answers no hello")
            self.player, self.token = message.player, message.token
            self.server = message.server
            self.state = ConnState.READY
            # an unknown token gets bad_token instead
            return Welcome(message, request, resumed=sent_token is not None)
        elif message.TYPE == "bye":
            self._close()
        elif isinstance(message, MovedMessage):
            self.moved = message.address
        return event_of(message, request)

    def _answered(self, message: ServerMessage) -> Request | None:
        """The request ``message`` is the direct reply to (None for a broadcast)."""
        kind = message.TYPE
        if message.id is None:
            if message.REPLY_ONLY or (kind == "error" and self._unnumbered):
                if not self._unnumbered:
                    if self._blind:
                        return None
                    raise RemoteProtocolError(f"{kind} without the id of the request it answers")
                self._unnumbered -= 1
            return None
        rid = message.id
        request = self._pending.pop(rid, None)
        if request is None and rid in self._raw:
            raws = self._raw[rid]
            request = raws.pop(0)
            if not raws:
                del self._raw[rid]
        if request is None:
            if self._blind:
                return None
            raise RemoteProtocolError(f"{kind} answers id {rid!r}, which no pending request has")
        if isinstance(request, Act):
            self._pending_acts -= 1
        return request
