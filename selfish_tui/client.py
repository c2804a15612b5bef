"""The network worker: the one owner of the connection to a Selfish server.

It runs as a Textual worker on the app's event loop and is only the socket side of the protocol:
:class:`protocol.client.ClientConnection` (the client library ``selfish bot``, the load generator
and the tests speak through too) frames and checks what goes out and comes in, numbers the
requests, says ``hello`` with the stored token (so the server hands back our seats, PROTOCOL.md
§3) and matches each reply to its request. What arrives is posted to the app as messages
(selfish_tui.messages); requests go out through :meth:`NetworkClient.send`. When the connection
drops it retries with exponential backoff, with the token it was last given, on the next of
the server's addresses when it was given several (the nodes of a cluster). A ``moved`` reply (a
cluster's room run by another node, PROTOCOL.md §5) is followed at once and unsaid: the worker
connects to that node, says hello with its token and sends the request again; if that node
goes, the next connection tries the server's own addresses again. Until a first
connection has got in, a failure is said at once and the worker waits for the player to ask
again (:meth:`NetworkClient.retry_now`): a wrong address or a server that is down is better
told than tried in silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
from collections.abc import Callable, Sequence
from typing import Any

from textual.message import Message

from protocol.client import (
    Bye,
    ClientConnection,
    Error,
    Event,
    Moved,
    Pong,
    RemoteProtocolError,
    Welcome,
)
from protocol.client_events import Said
from protocol.codec import decode_server_body
from protocol.messages import Act, Hello, Ping, Request
from selfish_tui.i18n import _
from selfish_tui.keyed_text import error_message
from selfish_tui.messages import Connecting, ConnectionLost, ServerMessage, Welcomed
from selfish_tui.plain import clean_message

BACKOFF: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
PING_EVERY = 25.0
# Seconds to open a connection, and then to be welcomed: a listener that is not a Selfish server
# (or a server that hangs) is said, not waited on forever.
OPEN_TIMEOUT = 10.0
HAPPY_EYEBALLS = 0.5  # seconds before also trying a name's next address (RFC 8305)
WELCOME_TIMEOUT = 10.0
# Errors in reply to hello that retrying cannot fix.
FATAL_HELLO_ERRORS = {"unsupported_protocol", "bad_name"}


def parse_address(text: str, default_port: int = 7777) -> tuple[str, int]:
    """Split 'HOST[:PORT]' (IPv6 as '[::1]:7777', or bare '::1' without a port; a path starting
    with '/' is a Unix socket, port 0); raise ValueError with one sentence for a person, in
    the active language, when it is not an address."""
    text = text.strip()
    if text.startswith("/"):
        return text, 0  # a Unix socket (the SSH gateway's clients reach the game this way)
    shown = repr(text)
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed:
            raise ValueError(_("{address} is not an address: ']' is missing").format(address=shown))
        if rest and not rest.startswith(":"):
            raise ValueError(
                _("{address} is not an address: ':PORT' may follow ']', nothing else").format(
                    address=shown
                )
            )
        port, has_port = rest[1:], bool(rest)
    elif text.count(":") == 1:
        host, port = text.split(":")
        has_port = True
    else:
        host, port, has_port = text, "", False
    if not host:
        raise ValueError(_("{address} has no host before the port").format(address=shown))
    if not has_port:
        return host, default_port
    if not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ValueError(
            _("{address}: the port must be a number from 1 to 65535").format(address=shown)
        )
    return host, int(port)


def parse_addresses(text: str, default_port: int = 7777) -> list[tuple[str, int]]:
    """The addresses of ``HOST[:PORT],HOST[:PORT],...`` (a cluster's nodes), each as
    :func:`parse_address` reads it, without repeats; ValueError as it raises."""
    addresses = [parse_address(part, default_port) for part in text.split(",") if part.strip()]
    if not addresses:
        return [parse_address(text, default_port)]  # says what is wrong with it
    return list(dict.fromkeys(addresses))


def decode_clean(body: bytes) -> dict[str, Any]:
    """A frame body decoded, every string in it cleaned (selfish_tui.plain).

    The client library builds its events from what this returns, so this is the one place where
    frames become the client's model: from here on no string holds a terminal control.
    """
    message: dict[str, Any] = clean_message(decode_server_body(body))
    return message


class NetworkClient:
    """Owns one logical connection (reconnecting as needed) and posts what arrives to ``post``;
    ``guest``: a new player says ``hello`` as a guest (no record, no rating)."""

    def __init__(
        self,
        post: Callable[[Message], Any],
        host: str,
        port: int,
        name: str,
        token: str | None = None,
        *,
        backoff: Sequence[float] = BACKOFF,
        ping_every: float = PING_EVERY,
        others: Sequence[tuple[str, int]] = (),
        guest: bool = False,
    ) -> None:
        self.post = post
        self.host = host
        self.port = port
        # Every address of the server (a cluster's nodes): a failed connection tries the next.
        self.addresses = [(host, port), *(a for a in others if a != (host, port))]
        self.name = name
        self.token = token
        # A guest's identity lasts while this client does (its token, kept in memory only,
        # resumes it after a dropped connection): the server keeps no record of it.
        self.guest = guest
        self.backoff = tuple(backoff)
        self.ping_every = ping_every
        self.player: str | None = None
        self.ever_welcomed = False  # some connection of this client got in
        self.attempts = 0  # connection attempts so far
        self._conn = ClientConnection(token, decode=decode_clean)
        self._writer: asyncio.StreamWriter | None = None
        self._stopping = False
        self._last_sent = 0.0
        self._welcomed_this_session = False
        self._keep_alives: set[int] = set()  # our own pings' ids: their pongs are not the app's
        self._retry = asyncio.Event()
        self._moved = False  # the session ended to follow a ``moved``
        self._again: Request | None = None  # the request answered ``moved``: sent again

    @property
    def address(self) -> str:
        """'host:port' for messages to the user."""
        return "the game server" if self.host.startswith("/") else f"{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        """True between our welcome and the connection's loss."""
        return self._writer is not None and self._welcomed_this_session and not self._conn.closed

    def send(self, request: Request) -> int | None:
        """Send ``request`` (the connection gives it a fresh ``id``); returns the id, or None if
        not connected."""
        if not self.connected:
            return None
        sent = self._conn.send(request)
        self._flush()
        return sent.id

    def awaiting_act(self, room: str) -> bool:
        """Whether an ``act`` of ours in ``room`` still awaits its reply. The server replies
        before it broadcasts what the act changed, so until then a broadcast (a ``timer``, say)
        still describes the decision we already answered."""
        return any(isinstance(r, Act) and r.room == room for r in self._conn.pending.values())

    def _flush(self) -> None:
        writer = self._writer
        data = self._conn.data_to_send()
        if writer is None or writer.is_closing() or not data:
            return
        writer.write(data)
        self._last_sent = asyncio.get_running_loop().time()

    def retry_now(self) -> None:
        """Cut the wait before the next connection attempt short (the player pressed r)."""
        self._retry.set()

    async def stop(self) -> None:
        """Close the connection for good (no reconnect)."""
        self._stopping = True
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def run(self) -> None:
        """Connect, read until the connection ends, and reconnect with backoff, until stopped."""
        failures = 0
        while not self._stopping:
            self.attempts += 1
            self.post(Connecting(self.address, failures + 1))
            reason, retry = await self._session()
            if self._stopping:
                return
            if self._moved:  # follow it now, unsaid: the player sees no reconnection
                self._moved = False
                continue
            if self._welcomed_this_session:
                failures = 0
            if not retry:
                self.post(ConnectionLost(reason, None))
                return
            self._retry.clear()
            if not self.ever_welcomed:
                # Never in: say why now, and try again when the player asks (r).
                self.post(ConnectionLost(reason, None, held=True))
                await self._retry.wait()
                continue
            delay = self.backoff[min(failures, len(self.backoff) - 1)]
            failures += 1
            self._next_address()
            self.post(ConnectionLost(reason, delay))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._retry.wait(), delay)

    def _next_address(self) -> None:
        """Try the server's next address (if it has several) with the next connection. A node
        that ``moved`` sent us to is none of them: once it fails, the first is tried again, so
        that a client sent on to a node that dies comes back through the nodes it was given
        (the survivor takes the room over and hands its seat back)."""
        here = (self.host, self.port)
        index = self.addresses.index(here) if here in self.addresses else -1
        self.host, self.port = self.addresses[(index + 1) % len(self.addresses)]

    async def _session(self) -> tuple[str, bool]:
        """One connection from open to close: returns (reason, whether to retry)."""
        self._welcomed_this_session = False
        try:
            opening = (
                asyncio.open_unix_connection(self.host)
                if self.host.startswith("/")
                # A name that resolves to several addresses (a cluster's nodes) tries the next
                # when one does not answer within HAPPY_EYEBALLS seconds, or refuses at once.
                else asyncio.open_connection(
                    self.host, self.port, happy_eyeballs_delay=HAPPY_EYEBALLS
                )
            )
            reader, writer = await asyncio.wait_for(opening, timeout=OPEN_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            return _("cannot reach {address}: {error}").format(
                address=self.address, error=_unreachable(exc)
            ), True
        # A fresh connection: what was pending on the old one will never be answered.
        self._conn = ClientConnection(self.token, decode=decode_clean)
        self._keep_alives.clear()
        self._writer = writer
        self._conn.hello(self.name, guest=self.guest)
        self._flush()
        pinger = asyncio.create_task(self._keep_alive())
        loop = asyncio.get_running_loop()
        welcome_by = loop.time() + WELCOME_TIMEOUT
        try:
            while True:
                if self._welcomed_this_session:
                    data = await reader.read(65536)
                else:
                    try:
                        left = max(0.0, welcome_by - loop.time())
                        data = await asyncio.wait_for(reader.read(65536), left)
                    except TimeoutError:
                        return _("{address} does not answer as a Selfish server").format(
                            address=self.address
                        ), True
                # One event at a time: each is handled before the next is made, so what the
                # connection says about pending requests is true as of that event.
                for event in self._conn.receive_data(data):
                    outcome = self._handle(event)
                    if outcome is not None:
                        return outcome
        except RemoteProtocolError as exc:
            return _("garbled data from the server ({error})").format(error=exc), True
        except OSError as exc:
            return _("connection lost: {error}").format(error=_plain(exc)), True
        finally:
            pinger.cancel()
            if self._writer is writer:
                self._writer = None
            writer.close()

    def _handle(self, event: Event) -> tuple[str, bool] | None:
        """React to one event; a tuple ends the session with (reason, retry)."""
        if isinstance(event, Welcome):
            self.player, self.token = event.player, event.token
            self._welcomed_this_session = self.ever_welcomed = True
            self.post(Welcomed(event.player, event.token, event.server, event.resumed))
            again, self._again = self._again, None
            if again is not None:
                self._conn.send(dataclasses.replace(again, id=None))
                self._flush()
            return None
        if isinstance(event, Moved):
            try:
                self.host, self.port = parse_address(event.address, self.port)
            except ValueError:
                return _("the server sent us to {address}, which is not an address").format(
                    address=repr(event.address)
                ), True
            self._moved = True
            self._again = event.request
            return "", True  # never said: run() follows the move without a word
        if isinstance(event, Error) and isinstance(event.request, Hello):
            if event.code == "bad_token":
                # The server forgot us (a new database): the connection stays open and the
                # library has dropped the token, so say hello again as a new player.
                self.post(ServerMessage(event.message, event.request))
                self.token = None
                self._conn.hello(self.name, guest=self.guest)
                self._flush()
                return None
            self.post(ServerMessage(event.message, event.request))
            return error_message(event.code), event.code not in FATAL_HELLO_ERRORS
        if (
            isinstance(event, Pong)
            and event.request is not None
            and event.request.id in self._keep_alives
        ):
            self._keep_alives.discard(event.request.id)
            return None  # the answer to a keep-alive ping; the app's own pings go to it
        if not isinstance(event, Said):
            return _("the server closed the connection"), True
        self.post(ServerMessage(event.message, event.request))
        if isinstance(event, Bye):
            if event.reason == "replaced":
                return _("this identity connected from somewhere else"), False
            return _("the server is shutting down"), True
        if isinstance(event, Error) and event.closing:
            return error_message(event.code), True
        return None

    async def _keep_alive(self) -> None:
        """Ping when we have been quiet, so the server's idle timeout never fires."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.ping_every / 5)
            if loop.time() - self._last_sent >= self.ping_every and not self._conn.closed:
                sent = self._conn.send(Ping())
                assert sent.id is not None
                self._keep_alives.add(sent.id)
                self._flush()


def _unreachable(exc: BaseException) -> str:
    """Why a connection could not be opened, in words (not '[Errno 111] Connect call failed')."""
    if isinstance(exc, ConnectionRefusedError):
        return _("connection refused")
    if isinstance(exc, TimeoutError):
        return _("no answer")
    if isinstance(exc, socket.gaierror):
        return _("unknown host name")
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return _plain(exc)


def _plain(exc: BaseException) -> str:
    """An exception as a short phrase for the user ('connection reset by peer', not
    '[Errno 104] Connection reset by peer')."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    text = str(exc).strip()
    return text or type(exc).__name__
