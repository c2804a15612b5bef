"""The network worker: the one owner of the connection to a Selfish server.

It runs as a Textual worker on the app's event loop. Frames in are decoded with the ``protocol``
package and posted to the app as messages (selfish_tui.messages); requests out go through
:meth:`NetworkClient.send`. When the connection drops it retries with exponential backoff and
says ``hello`` again with the stored token, so the server hands back our seats (PROTOCOL.md §3).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Sequence
from typing import Any

from textual.message import Message

from protocol.codec import MessageDecoder, encode
from protocol.errors import FrameError
from selfish_tui.i18n import _
from selfish_tui.messages import Connecting, ConnectionLost, ServerMessage, Welcomed
from selfish_tui.plain import clean_message

PROTOCOL_VERSION = 1
# Server frames have no size limit; PROTOCOL.md asks clients to accept at least 16 MiB.
MAX_SERVER_FRAME = 16 * 1024 * 1024
BACKOFF: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
PING_EVERY = 25.0
# Errors in reply to hello that retrying cannot fix.
FATAL_HELLO_ERRORS = {"unsupported_protocol", "bad_name"}


def parse_address(text: str, default_port: int = 7777) -> tuple[str, int]:
    """Split 'HOST[:PORT]' (IPv6 as '[::1]:7777'; a path starting with '/' is a Unix socket,
    port 0); raise ValueError on a bad port."""
    text = text.strip()
    if text.startswith("/"):
        return text, 0  # a Unix socket (the SSH gateway's clients reach the game this way)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port = text.split(":")
    else:
        host, port = text, ""
    if not host:
        raise ValueError(f"no host in {text!r}")
    number = int(port) if port else default_port
    if not 0 < number < 65536:
        raise ValueError(f"port out of range in {text!r}")
    return host, number


class NetworkClient:
    """Owns one logical connection (reconnecting as needed) and posts what arrives to ``post``."""

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
    ) -> None:
        self.post = post
        self.host = host
        self.port = port
        self.name = name
        self.token = token
        self.backoff = tuple(backoff)
        self.ping_every = ping_every
        self.player: str | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._welcomed = False
        self._next_id = 1
        self._stopping = False
        self._last_sent = 0.0
        self._sent_token = False
        self._welcomed_once_this_session = False

    @property
    def address(self) -> str:
        """'host:port' for messages to the user."""
        return _("the game server") if self.host.startswith("/") else f"{self.host}:{self.port}"

    @property
    def connected(self) -> bool:
        """True between our welcome and the connection's loss."""
        return self._writer is not None and self._welcomed

    def send(self, message: dict[str, Any]) -> int | None:
        """Send a request with a fresh ``id``; returns the id, or None if not connected."""
        if not self.connected:
            return None
        request_id = self._next_id
        self._next_id += 1
        self._write({**message, "id": request_id})
        return request_id

    def _write(self, message: dict[str, Any]) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        writer.write(encode(message))
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
            self.post(Connecting(self.address, failures + 1))
            reason, retry = await self._session()
            if self._stopping:
                return
            if self._welcomed_once_this_session:
                failures = 0
            if not retry:
                self.post(ConnectionLost(reason, None))
                return
            delay = self.backoff[min(failures, len(self.backoff) - 1)]
            failures += 1
            self.post(ConnectionLost(reason, delay))
            self._retry.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._retry.wait(), delay)

    async def _session(self) -> tuple[str, bool]:
        """One connection from open to close: returns (reason, whether to retry)."""
        self._welcomed_once_this_session = False
        self.ever_welcomed = False
        self._retry = asyncio.Event()
        try:
            opening = (
                asyncio.open_unix_connection(self.host)
                if self.host.startswith("/")
                else asyncio.open_connection(self.host, self.port)
            )
            reader, writer = await asyncio.wait_for(opening, timeout=10)
        except (OSError, TimeoutError) as exc:
            reason = _("cannot reach {address}: {error}")
            return reason.format(address=self.address, error=_unreachable(exc)), True
        self._writer = writer
        self._welcomed = False
        decoder = MessageDecoder(max_size=MAX_SERVER_FRAME)
        hello: dict[str, Any] = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "name": self.name,
            "id": 0,
        }
        self._sent_token = bool(self.token)
        if self.token:
            hello["token"] = self.token
        self._write(hello)
        pinger = asyncio.create_task(self._keep_alive())
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return _("the server closed the connection"), True
                for message in decoder.feed(data):
                    outcome = self._handle(message)
                    if outcome is not None:
                        return outcome
                if decoder.error is not None:
                    garbled = _("garbled data from the server ({error})")
                    return garbled.format(error=decoder.error.message), True
        except FrameError as exc:
            return _("garbled data from the server ({error})").format(error=exc.message), True
        except (OSError, asyncio.IncompleteReadError) as exc:
            return _("connection lost: {error}").format(error=_plain(exc)), True
        finally:
            pinger.cancel()
            self._welcomed = False
            if self._writer is writer:
                self._writer = None
            writer.close()

    def _handle(self, message: dict[str, Any]) -> tuple[str, bool] | None:
        """React to one message; a tuple ends the session with (reason, retry)."""
        # The one place where frames become the client's model: from here on no string holds a
        # terminal control (see selfish_tui.plain).
        message = clean_message(message)
        kind = message.get("type")
        if kind == "welcome":
            resumed = self._sent_token
            self.player = str(message.get("player"))
            self.token = str(message.get("token"))
            self._welcomed = True
            self._welcomed_once_this_session = True
            self.ever_welcomed = True
            self.post(Welcomed(self.player, self.token, str(message.get("server", "")), resumed))
            return None
        if kind == "error" and not self._welcomed and message.get("id") == 0:
            code = str(message.get("code"))
            if code == "bad_token":
                # The server forgot us (new database): start over as a new player.
                self.token = None
                self.post(ServerMessage(message))
                return _("the server did not know our token; joining as a new player"), True
            self.post(ServerMessage(message))
            return str(message.get("message", code)), code not in FATAL_HELLO_ERRORS
        if kind == "bye":
            reason = str(message.get("reason", ""))
            self.post(ServerMessage(message))
            if reason == "replaced":
                return _("this identity connected from somewhere else"), False
            return str(message.get("message") or _("the server is shutting down")), True
        if kind == "pong" and message.get("id") is None:
            return None  # the answer to a keep-alive ping; requested pongs go to the app
        self.post(ServerMessage(message))
        return None

    async def _keep_alive(self) -> None:
        """Ping when we have been quiet, so the server's idle timeout never fires."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.ping_every / 5)
            if loop.time() - self._last_sent >= self.ping_every:
                self._write({"type": "ping"})


def _unreachable(exc: BaseException) -> str:
    """Why a connection could not be opened, in words (not '[Errno 111] Connect call failed')."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return "no answer"
    if isinstance(exc, socket.gaierror):
        return "unknown host name"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return _plain(exc)


def _plain(exc: BaseException) -> str:
    """An exception as a short phrase for the user."""
    text = str(exc).strip()
    return text or type(exc).__name__
