"""One client connection: bytes in through the sans-IO decoder, requests to the lobby, frames out.

A session enforces the per-connection limits (frame size, message rate, idle time, unread
output) so that a misbehaving client only ever hurts itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from protocol.codec import MessageDecoder
from protocol.errors import ErrorCode, FrameError, ProtocolError
from protocol.messages import Hello, Ping, parse_client, reply, request_id
from server.config import ServerConfig
from server.limits import TokenBucket
from server.lobby import Lobby, Player
from server.outbox import Outbox
from server.wire import encode

log = logging.getLogger("selfish.server")

READ_CHUNK = 65_536


class Session:
    """A TCP connection speaking the Selfish protocol."""

    def __init__(self, lobby: Lobby, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 config: ServerConfig, outbox: Outbox) -> None:  # fmt: skip
        self.lobby = lobby
        self.outbox = outbox
        self._out: list[bytes] = []  # frames queued this tick (see server.outbox)
        self.reader = reader
        self.writer = writer
        self.config = config
        peer = writer.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.decoder = MessageDecoder(config.max_frame)
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst)
        self.chat_bucket = TokenBucket(config.chat_per_second, config.chat_burst)
        self.player: Player | None = None
        self.closing = False

    # ------------------------------------------------------------------ output

    def send(self, message: dict[str, Any]) -> None:
        """Queue one frame; it is written at the end of the tick, after the store commits."""
        if self.closing:
            return
        self._out.append(encode(message))  # server.wire.encode: one Packer for the server
        if len(self._out) == 1:
            self.outbox.queue(self)

    def send_frame(self, data: bytes) -> None:
        """Queue one frame that is already encoded (a broadcast encodes once for everyone)."""
        if self.closing:
            return
        self._out.append(data)
        if len(self._out) == 1:
            self.outbox.queue(self)

    def flush(self) -> None:
        """Write the queued frames at once; never blocks. A client that stops reading is cut
        off."""
        out = self._out
        if not out:
            return
        self._out = []
        if self.writer.is_closing():
            return
        self.writer.write(out[0] if len(out) == 1 else b"".join(out))
        if self.writer.transport.get_write_buffer_size() > self.config.max_write_buffer:
            log.warning("%s: not reading its messages; closing", self.peer)
            self.closing = True
            self.writer.transport.abort()

    def close_after(self, message: dict[str, Any]) -> None:
        """Send ``message``, then close the connection (the read loop then ends)."""
        self.send(message)
        self.outbox.flush()  # commit and write what is queued, this frame included, first
        self.closing = True
        self.writer.close()

    def _fail(self, error: ProtocolError) -> None:
        log.info("%s: %s; closing", self.peer, error)
        self.close_after(error.to_wire())

    # ------------------------------------------------------------------ input

    async def run(self) -> None:
        """Read until the client leaves, breaks the framing, idles out, or the server stops."""
        log.info("%s connected", self.peer)
        loop = asyncio.get_running_loop()
        # Deadlines count from complete messages, not from bytes: a client that trickles a byte
        # now and then must not keep its connection (and a half-read frame) alive forever.
        idle_end = loop.time() + self.config.idle_timeout
        frame_end: float | None = None  # set while part of a frame is buffered
        try:
            while not self.closing:
                end = idle_end if frame_end is None else min(idle_end, frame_end)
                try:
                    # timeout_at, not wait_for: on 3.11 wait_for wraps every read in a new Task
                    async with asyncio.timeout_at(end):
                        data = await self.reader.read(READ_CHUNK)
                except TimeoutError:
                    if frame_end is not None and frame_end <= idle_end:
                        text = f"a frame took over {self.config.frame_timeout:g} seconds"
                    else:
                        text = f"no message for {self.config.idle_timeout:g} seconds"
                    self._fail(ProtocolError(ErrorCode.IDLE_TIMEOUT, text))
                    break
                if not data:
                    break
                try:
                    messages = self.decoder.feed(data)
                except FrameError as exc:
                    self._fail(exc)
                    break
                now = loop.time()
                if messages:
                    idle_end = now + self.config.idle_timeout
                if not self.decoder.buffered:
                    frame_end = None
                elif frame_end is None or messages:  # a new frame has begun
                    frame_end = now + self.config.frame_timeout
                for message in messages:
                    if self.closing:
                        break
                    self._handle(message)
                if self.decoder.error is not None and not self.closing:
                    self._fail(self.decoder.error)
        except (ConnectionError, OSError):
            pass
        finally:
            self.closing = True
            try:
                self.lobby.disconnect(self, self.player)
            except Exception:
                log.exception("%s: error while disconnecting", self.peer)
            self.writer.close()
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                await asyncio.wait_for(self.writer.wait_closed(), 1.0)
            who = f" ({self.player.name})" if self.player else ""
            log.info("%s disconnected%s", self.peer, who)

    def _handle(self, message: dict[str, Any]) -> None:
        """One decoded message: rate limit, validate, dispatch; errors become ``error`` frames."""
        rid = request_id(message)
        try:
            if not self.bucket.allow():
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
            if self.player is None and message.get("type") not in ("hello", "ping"):
                raise ProtocolError(ErrorCode.HELLO_REQUIRED, "send hello first")
            request = parse_client(message)
            if isinstance(request, Ping):
                self.send(reply("pong", request.id))
            elif self.player is None:
                assert isinstance(request, Hello)
                self.player = self.lobby.hello(self, request)
            else:
                self.lobby.handle(self, self.player, request)
        except ProtocolError as exc:
            self.send(exc.to_wire(rid))
        except Exception:
            log.exception("%s: request %r failed", self.peer, message.get("type"))
            self.send(ProtocolError(ErrorCode.INTERNAL_ERROR, "the server failed on this request")
                      .to_wire(rid))  # fmt: skip
