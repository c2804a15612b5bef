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
        elif isinstance(event, State) and event.view["legal"]:
            conn.send(Act(room=event.room, version=event.version, choice=...))
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

from protocol import records
from protocol.codec import Message, decode_server_body, pack
from protocol.errors import CLOSING_CODES, FrameError
from protocol.framing import HEADER, FrameDecoder
from protocol.messages import (
    PROTOCOL_VERSION,
    SERVER_TYPES,
    Act,
    Hello,
    Ping,
    Request,
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


# --------------------------------------------------------------------------- events


@dataclass(slots=True)
class Event:
    """Something the server said. ``message`` is the map as received (extra keys kept);
    ``request`` is the request this is the direct reply to, or None for a broadcast."""

    message: Message
    request: Request | None


@dataclass(slots=True)
class Welcome(Event):
    """The reply to ``hello``: our identity. ``resumed``: the token we sent was taken."""

    player: str
    token: str
    server: str
    resumed: bool


@dataclass(slots=True)
class Error(Event):
    """An ``error``: the reply to ``request``, or (request None) the server's own, which it
    sends before closing (``closing`` true: ``bad_frame``, ``idle_timeout``, ...)."""

    code: str
    text: str
    closing: bool


@dataclass(slots=True)
class Ok(Event):
    """``ok``: ``request`` succeeded (its broadcasts follow)."""


@dataclass(slots=True)
class Pong(Event):
    """``pong``: the answer to a ping."""


@dataclass(slots=True)
class Rooms(Event):
    """``rooms``: the public rooms."""

    rooms: list[Message]


@dataclass(slots=True)
class Joined(Event):
    """``joined``: we are a member of ``room`` (a reply, or after a resuming welcome)."""

    room: str
    role: str
    seat: int | None


@dataclass(slots=True)
class RoomUpdate(Event):
    """``room``: the room's seats, host and status changed."""

    room: str


@dataclass(slots=True)
class State(Event):
    """``state``: the game at ``version``, as ``view`` (PROTOCOL.md §6) shows it to us."""

    room: str
    version: int
    view: Message


@dataclass(slots=True)
class Events(Event):
    """``events``: log lines (``history``: the whole log so far, on join, resume or sync)."""

    room: str
    events: list[Message]
    history: bool


@dataclass(slots=True)
class Timer(Event):
    """``timer``: seconds left for the seats the server would decide for; ``grace``, the
    countdowns before a bot takes a missing player's seat (seat, reason, seconds; empty from
    a server that sends none)."""

    room: str
    timers: list[Message]
    grace: list[Message]


@dataclass(slots=True)
class GameOver(Event):
    """``game_over``: the game ``game`` in ``room`` ended."""

    room: str
    game: int
    winner: int | None
    winner_name: str | None
    turns: int


@dataclass(slots=True)
class ChatLine(Event):
    """``chat``: someone in ``room`` said ``text``."""

    room: str
    name: str
    text: str


@dataclass(slots=True)
class Replays(Event):
    """``replays``: a page of finished games, newest first. ``next``: send it as
    ``ListReplays(before=next)`` for the page after this one; None once the list ends."""

    games: list[Message]
    next: int | None


@dataclass(slots=True)
class Replay(Event):
    """``replay``: one finished game's setup and decisions."""

    game: int


@dataclass(slots=True)
class ProfileReply(Event):
    """``profile``: a player's records and ratings (protocol.records.Profile)."""

    profile: records.Profile


@dataclass(slots=True)
class LeaderboardReply(Event):
    """``leaderboard``: one page of an edition's board (protocol.records.Leaderboard)."""

    leaderboard: records.Leaderboard


@dataclass(slots=True)
class ReviewUpdate(Event):
    """``review``: a shared review as it is now (protocol.records.Review)."""

    review: records.Review


@dataclass(slots=True)
class Bye(Event):
    """``bye``: the server closes the connection (``shutdown`` or ``replaced``)."""

    reason: str
    text: str


@dataclass(slots=True)
class ConnectionClosed(Event):
    """The stream ended (``receive_data(b"")``) without a ``bye``."""


# The fields each server message must carry, by type: (key, the exact types it may have; a
# decoded msgpack value is exactly one of int, bool, float, str, bytes, list, dict, None).
Field = tuple[str, tuple[type, ...]]
_NULL = type(None)
_FIELDS: dict[str, tuple[Field, ...]] = {
    "welcome": (("player", (str,)), ("token", (str,))),
    "error": (("code", (str,)), ("message", (str,))),
    "pong": (),
    "ok": (),
    "rooms": (("rooms", (list,)),),
    "joined": (("room", (str,)), ("role", (str,)), ("seat", (int, _NULL))),
    "room": (("room", (str,)), ("seats", (list,))),
    "state": (("room", (str,)), ("version", (int,)), ("view", (dict,))),
    "events": (("room", (str,)), ("events", (list,))),
    "timer": (("room", (str,)), ("timers", (list,))),
    "game_over": (
        ("room", (str,)),
        ("game", (int,)),
        ("winner", (int, _NULL)),
        ("winner_name", (str, _NULL)),
        ("turns", (int,)),
    ),
    "chat": (("room", (str,)), ("name", (str,)), ("text", (str,))),
    "replays": (("games", (list,)), ("next", (int, _NULL))),
    "replay": (("game", (int,)), ("decisions", (list,))),
    "profile": (("player", (str,)), ("editions", (list,))),
    "leaderboard": (("edition", (str,)), ("entries", (list,))),
    "review": (("room", (str,)), ("game", (int,)), ("step", (int,))),
    "bye": (("reason", (str,)),),
}
assert set(_FIELDS) == SERVER_TYPES
#: Types that only ever come as a direct reply (never as a broadcast).
_REPLIES = frozenset(
    {"welcome", "ok", "pong", "rooms", "replays", "replay", "profile", "leaderboard"}
)


def _check(message: Message) -> str:
    """The message's type, after checking it is a server type with its fields; else raise."""
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise RemoteProtocolError(f"unknown message type {kind!r}")
    for key, expected in _FIELDS[kind]:
        # exact types: a bool is an int to isinstance(), not on the wire
        if type(message.get(key)) not in expected:
            raise RemoteProtocolError(f"{kind}: {key!r} missing or of the wrong type")
    return kind


# --------------------------------------------------------------------------- the connection


class ClientConnection:
    """One client connection's protocol state (see the module docstring).

    ``token``: resume this identity with the first :meth:`hello`. ``decode`` turns a frame body
    into a message (default: the whole body, checked and bounded as
    :func:`protocol.codec.decode_server_body` does); a client that needs only some fields
    may pass a cheaper one (bench/load.py does).
    """

    def __init__(
        self,
        token: str | None = None,
        *,
        max_frame: int | None = MAX_SERVER_FRAME,
        decode: Callable[[bytes], Message] = decode_server_body,
    ) -> None:
        self.state = ConnState.IDLE
        self.token = token
        self.player: str | None = None
        self.server: str | None = None
        self._frames = FrameDecoder(max_frame)
        self._bodies: deque[bytes] = deque()  # received, not yet turned into events
        self._broken: FrameError | None = None  # a bad frame after those bodies
        self._eof = False
        self._decode = decode
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
            return ConnectionClosed({}, None)
        return None

    @property
    def closed(self) -> bool:
        """Whether the connection is over (drop the transport)."""
        return self.state is ConnState.CLOSED

    def _close(self) -> None:
        self.state = ConnState.CLOSED

    def _event(self, message: Message) -> Event:
        try:
            kind = _check(message)
            request = self._answered(kind, message)
        except RemoteProtocolError:
            self._close()
            raise
        if kind == "state":
            return State(message, request, message["room"], message["version"], message["view"])
        if kind == "events":
            history = message.get("history") is True
            return Events(message, request, message["room"], message["events"], history)
        if kind == "ok":
            return Ok(message, request)
        if kind == "timer":
            grace = message.get("grace")
            countdowns = (
                [g for g in grace if isinstance(g, dict)] if isinstance(grace, list) else []
            )
            return Timer(message, request, message["room"], message["timers"], countdowns)
        if kind == "room":
            return RoomUpdate(message, request, message["room"])
        if kind == "error":
            code = message["code"]
            closing = code in CLOSING_CODES
            if isinstance(request, Hello):
                self.state = ConnState.IDLE  # refused: the caller may say hello again
                if code == "bad_token":
                    self.token = None  # the server does not know it: the next hello is new
            if closing:
                self._close()
            return Error(message, request, code, message["message"], closing)
        if kind == "welcome":
            if isinstance(request, Hello):
                sent_token: object = request.token
            elif isinstance(request, Raw) and request.message.get("type") == "hello":
                sent_token = request.message.get("token")
            elif request is None:  # answers a send_raw or send_bytes hello without an id
                sent_token = None
            else:
                self._close()
                raise RemoteProtocolError("welcome that answers no hello")
            resumed = sent_token is not None  # an unknown token gets bad_token instead
            self.player, self.token = message["player"], message["token"]
            self.server = str(message.get("server", ""))
            self.state = ConnState.READY
            return Welcome(
                message, request, message["player"], message["token"], self.server, resumed
            )
        if kind == "joined":
            return Joined(message, request, message["room"], message["role"], message["seat"])
        if kind == "game_over":
            m = message
            return GameOver(
                m, request, m["room"], m["game"], m["winner"], m["winner_name"], m["turns"]
            )
        if kind == "chat":
            return ChatLine(message, request, message["room"], message["name"], message["text"])
        if kind == "bye":
            self._close()
            return Bye(message, request, message["reason"], str(message.get("message", "")))
        if kind == "pong":
            return Pong(message, request)
        if kind == "rooms":
            return Rooms(message, request, message["rooms"])
        if kind == "replays":
            return Replays(message, request, message["games"], message.get("next"))
        if kind == "replay":
            return Replay(message, request, message["game"])
        try:
            if kind == "profile":
                return ProfileReply(message, request, records.Profile.from_wire(message))
            if kind == "leaderboard":
                return LeaderboardReply(message, request, records.Leaderboard.from_wire(message))
            return ReviewUpdate(message, request, records.Review.from_wire(message))
        except records.MalformedMessage as exc:
            self._close()
            raise RemoteProtocolError(str(exc)) from exc

    def _answered(self, kind: str, message: Message) -> Request | None:
        """The request ``message`` is the direct reply to (None for a broadcast)."""
        if "id" not in message:
            if kind in _REPLIES or (kind == "error" and self._unnumbered):
                if not self._unnumbered:
                    if self._blind:
                        return None
                    raise RemoteProtocolError(f"{kind} without the id of the request it answers")
                self._unnumbered -= 1
            return None
        rid = message["id"]
        request: Request | None = None
        if type(rid) is int:
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
