"""One client connection: bytes in through the sans-IO decoder, requests to the lobby, frames out.

A session is the connection's ``asyncio.Protocol``: the transport calls
:meth:`Session.data_received`, which feeds the decoder and handles every completed message on
the spot. There is no task per connection and no coroutine waiting on a read (the streams API):
at thousands of messages a second, waking a task and entering a timeout context around every
read cost about a fifth of the server's CPU.

A session enforces the per-connection limits (frame size, message rate, idle time, time to say
hello, unread output) so that a misbehaving client only ever hurts itself. The message rate is
charged per frame before the frame is decoded, to the connection and to its address
(``server.limits.ratelimit``), and so are the frame's bytes to its address's budget (decoding costs
per byte: 64 KiB of empty lists is 65,000 objects): a flooding client costs the server little
more than the read, gets one ``rate_limited`` error per second, and is cut off once
``flood_limit`` frames were dropped. Frames before ``hello`` are charged alike.

Its deadlines are plain floats, moved on each message, and one timer per connection fires at
the earliest of them; a timer that finds its deadline moved later is set again for the new one.
So a busy connection never touches the event loop's timer heap, and a silent one is still
dropped on time.

Output is never paused (``pause_writing`` is left asyncio.Protocol's no-op): the game cannot
wait for one slow client, so :meth:`Session.flush` cuts off a client whose unread output passes
``max_write_buffer`` instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from protocol.codec import decode_body
from protocol.errors import ErrorCode, FrameError, ProtocolError
from protocol.framing import FrameDecoder
from protocol.messages import Hello, Ping, parse_client, request_id
from protocol.server_messages import PongMessage, ServerMessage
from server.config import ServerConfig
from server.limits.addresses import address_group
from server.limits.bucket import TokenBucket
from server.lobby.lobby import Lobby, Player
from server.net.outbox import Outbox
from server.rooms.outgoing import error_message
from server.rooms.wire import encode

T = TypeVar("T")

# Seconds a closing connection has to take its last frames (an error, ``bye``) and close its end
# before it is cut off: a peer that stops reading must not keep a closed session in memory.
CLOSE_GRACE = 1.0

# Bytes a closing connection may send that are read and thrown away (so that closing does not
# reset the connection before the client read why); past them reading stops: a client that
# goes on writing as fast as it can would otherwise be read at 600 MB/s for the whole grace.
DISCARD_LIMIT = 65_536

# Seconds between two ``rate_limited`` answers to a connection whose frames are being dropped.
RATE_REPLY_INTERVAL = 1.0


class Registry(Protocol):
    """Where sessions are counted (``server.net.tcp.RunningServer``)."""

    def admit(self, session: Session) -> bool:
        """Count a new connection; False (after telling the client why) if it is refused."""

    def release(self, session: Session) -> None:
        """Forget an admitted connection that has ended."""

    def identified(self, session: Session) -> None:
        """An admitted connection said hello (it no longer counts as unidentified)."""


class Session(asyncio.Protocol):
    """A connection speaking the Selfish protocol (over TCP, or the SSH gateway's Unix
    socket: ``server.gateway.link``)."""

    transport: asyncio.Transport  # set by connection_made, before anything else can run

    def __init__(
        self, lobby: Lobby, config: ServerConfig, outbox: Outbox, registry: Registry
    ) -> None:
        self.lobby = lobby
        self.config = config
        self.outbox = outbox
        self.registry = registry
        self._loop = asyncio.get_running_loop()
        self._out: list[bytes] = []  # frames queued this tick (see server.net.outbox)
        self.address = ""  # the client's IP address (an IPv6 one's network, see connection_made)
        self.peer = ""  # address:port, for the log
        self.decoder = FrameDecoder(config.max_frame)
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst)
        # Frames dropped for rate, beyond which the connection is closed.
        self._flood = TokenBucket(config.rate_per_second, config.flood_limit)
        self._rate_replied = -RATE_REPLY_INTERVAL  # loop time of the last rate_limited answer
        self.player: Player | None = None
        self.closing = False
        self._discarded = 0  # bytes received while closing
        self._admitted = False
        # Deadlines count from complete messages, not from bytes: a client that trickles a byte
        # now and then must not keep its connection (and a half-read frame) alive forever.
        self._idle_end = 0.0
        self._hello_end = 0.0  # until hello
        self._frame_end: float | None = None  # set while part of a frame is buffered
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._rid: int | None = None  # the id of the request being handled
        # While a request waits for a round trip (after()): the messages that came meanwhile.
        self._waiting: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------ transport events

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it
        self.transport = cast(asyncio.Transport, transport)
        ip, self.peer = self.identify(transport)
        # what every per-address limit counts: an IPv6 client as its /64 (server.limits.addresses)
        self.address = address_group(ip, self.config.ipv6_prefix)
        if not self.registry.admit(self):
            self.closing = True
            self.transport.close()
            return
        self._admitted = True
        self.lobby.errors.line(logging.INFO, "%s connected", self.peer)
        now = self._loop.time()
        self._idle_end = now + self.config.idle_timeout
        self._hello_end = now + self.config.hello_timeout
        self._arm(min(self._idle_end, self._hello_end))

    def identify(self, transport: asyncio.BaseTransport) -> tuple[str, str]:
        """The client's (address, address:port): what the limits count and the log shows.
        The SSH gateway's sessions override it with the SSH client's address."""
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple):
            return str(peer[0]), f"{peer[0]}:{peer[1]}"
        return str(peer), str(peer)

    def data_received(self, data: bytes) -> None:
        if self.closing:
            self._discarded += len(data)
            if self._discarded > DISCARD_LIMIT:
                self.transport.pause_reading()
            return
        decoder = self.decoder
        try:
            bodies = decoder.feed(data)
        except FrameError as exc:
            self._fail(exc)
            return
        now = self._loop.time()
        if bodies:
            self._idle_end = now + self.config.idle_timeout
        if not decoder.buffered:
            self._frame_end = None
        elif self._frame_end is None or bodies:  # a new frame has begun
            self._frame_end = now + self.config.frame_timeout
            self._arm(self._frame_end)
        for body in bodies:
            if self.closing:
                return
            if not self._charge(now, len(body)):
                continue
            try:
                message = decode_body(body)
            except FrameError as exc:
                self._fail(exc)
                return
            except Exception:  # a decoder bug: never asyncio's "Fatal error" and traceback
                self.lobby.errors.exception("decoding a frame", self.peer)
                self._fail(FrameError("the frame could not be decoded"))
                return
            if self._waiting is not None:
                self._waiting.append(message)
            else:
                self._handle(message)
        if decoder.error is not None and not self.closing:
            self._fail(decoder.error)
        elif self._waiting is not None and not self.closing:
            self.transport.pause_reading()  # until the request that waits is answered

    def eof_received(self) -> bool:
        # The client will send nothing more: as with a read returning b"", the connection ends,
        # after the answers to what it did send.
        if not self.closing:
            if self._out:
                self.outbox.flush_now()
            self._close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self._out = []  # nobody left to read them
        if self._timer is not None:
            self._timer.cancel()  # a pending timer would keep this session alive
            self._timer = None
        if not self._admitted:
            return
        self._admitted = False
        try:
            self.lobby.disconnect(self, self.player)
        except Exception:
            self.lobby.errors.exception("disconnecting", self.peer)
        self.registry.release(self)
        who = f" ({self.player.name})" if self.player else ""
        self.lobby.errors.line(logging.INFO, "%s disconnected%s", self.peer, who)

    # ------------------------------------------------------------------ deadlines

    def _arm(self, when: float) -> None:
        """Have the connection's timer fire by ``when``. A later deadline needs nothing: the
        timer, firing early, sets itself again."""
        if self._timer is not None:
            if self._timer_at <= when:
                return
            self._timer.cancel()
        self._timer_at = when
        self._timer = self._loop.call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self.closing:
            return
        idle_end, frame_end = self._idle_end, self._frame_end
        end = idle_end if frame_end is None else min(idle_end, frame_end)
        now = self._loop.time()
        if self.player is None and self._hello_end <= now:
            text = f"no hello within {self.config.hello_timeout:g} seconds"
            self._fail(ProtocolError(ErrorCode.IDLE_TIMEOUT, text))
        elif end > now:
            # messages came since: the deadline moved
            self._arm(end if self.player is not None else min(end, self._hello_end))
        elif frame_end is not None and frame_end <= idle_end:
            text = f"a frame took over {self.config.frame_timeout:g} seconds"
            self._fail(ProtocolError(ErrorCode.IDLE_TIMEOUT, text))
        else:
            text = f"no message for {self.config.idle_timeout:g} seconds"
            self._fail(ProtocolError(ErrorCode.IDLE_TIMEOUT, text))

    # ------------------------------------------------------------------ output

    def send(self, message: ServerMessage) -> None:
        """Queue one frame; it is written at the end of the tick, after the store commits."""
        if not self.closing:
            self.send_parts(
                (encode(message),)
            )  # server.rooms.wire.encode: one Packer for the server

    def send_frame(self, data: bytes) -> None:
        """Queue one frame that is already encoded (a broadcast encodes once for everyone)."""
        self.send_parts((data,))

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue frames given in pieces (empty ones allowed). They are written as they are, in
        one system call with the rest of the tick's output, never joined into one string."""
        if self.closing:
            return
        out = self._out
        if not out:
            self.outbox.queue(self)
        out.extend(parts)

    def flush(self) -> None:
        """Write the queued frames at once; never blocks. A client that stops reading is cut
        off."""
        self.write(self.take())

    def take(self) -> list[bytes]:
        """The queued frames, no longer queued (the outbox holds them for their commit)."""
        out, self._out = self._out, []
        return out

    def write(self, out: list[bytes]) -> None:
        """Write frames taken by :meth:`take`; never blocks. A client that stops reading is
        cut off."""
        if not out:
            return
        transport = self.transport
        if transport.is_closing():
            return
        if len(out) == 1:
            transport.write(out[0])
        else:  # one writev (uvloop; the standard loop joins them)
            transport.writelines(out)
        if transport.get_write_buffer_size() > self.config.max_write_buffer:
            self.lobby.errors.line(
                logging.WARNING, "%s: not reading its messages; closing", self.peer
            )
            self.closing = True
            transport.abort()

    def close_after(self, message: ServerMessage) -> None:
        """Send ``message``, then close the connection."""
        if self.closing:
            return
        self.send(message)
        self.outbox.flush_now()  # commit and write what is queued, this frame included, first
        self._close()

    def cut(self) -> None:
        """Drop the queued frames and close the connection now (the client reconnects)."""
        self._out = []
        self.closing = True
        self.transport.abort()

    def _close(self) -> None:
        self.closing = True
        transport = self.transport
        # Half-close first (after the queued output) and go on reading, discarding: closing a
        # socket with unread input makes the kernel reset the connection, and a client still
        # sending (a trickler, a flooder) would lose the error that says why it was cut off. The
        # client's own close (eof_received) then ends the connection, or the grace timer does.
        if transport.can_write_eof():
            try:
                transport.write_eof()
            except OSError:  # the peer is gone already (its reset not yet read): nothing to say
                transport.abort()
                return
        else:
            transport.close()  # connection_lost follows once the output is written
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_later(CLOSE_GRACE, transport.abort)

    def _fail(self, error: ProtocolError) -> None:
        self.lobby.errors.line(logging.INFO, "%s: %s; closing", self.peer, error)
        self.close_after(error_message(error))

    # ------------------------------------------------------------------ input

    def _charge(self, now: float, size: int) -> bool:
        """Charge one frame of ``size`` body bytes to the connection's and the address's
        rates and to the address's bytes; False if it is to be dropped (answered at most once a
        second; past ``flood_limit`` drops, the connection is closed)."""
        limits = self.lobby.limits
        if (
            self.bucket.allow()
            and limits.messages.allow(self.address)
            and limits.frame_bytes.take(self.address, size)
        ):
            return True
        if not self._flood.allow():
            self._fail(ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; closing"))
            # Stop reading at once: discarding a flood until the close grace ends costs the
            # server as much as reading it.
            self.transport.pause_reading()
        elif now - self._rate_replied >= RATE_REPLY_INTERVAL:
            self._rate_replied = now
            text = "too many messages or bytes; slow down (dropped ones get no other answer)"
            self.send(error_message(ProtocolError(ErrorCode.RATE_LIMITED, text)))
        return False

    def _handle(self, message: dict[str, Any]) -> None:
        """One decoded message: validate, dispatch; errors become ``error`` frames."""
        rid = request_id(message)
        kind = message.get("type")
        self._answer(rid, kind, lambda: self._dispatch(message))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if self.player is None and message.get("type") not in ("hello", "ping"):
            raise ProtocolError(ErrorCode.HELLO_REQUIRED, "send hello first")
        request = parse_client(message)
        if isinstance(request, Ping):
            self.send(PongMessage(id=request.id))
        elif self.player is None:
            assert isinstance(request, Hello)
            self.lobby.hello(self, request, self._welcomed)
        else:
            self.lobby.handle(self, self.player, request)

    def _welcomed(self, player: Player) -> None:
        """The hello is done (at once, or once its round trip is back): ``player`` speaks on
        this connection; if it ended meanwhile, the player is away again at once."""
        self.player = player
        self.registry.identified(self)
        if self.closing and not self._admitted:  # connection_lost ran before the player was
            self.lobby.disconnect(self, player)

    def _answer(self, rid: int | None, kind: object, run: Callable[[], None]) -> None:
        """Run (part of) the handling of request ``rid``: its errors become its answer."""
        self._rid = rid
        try:
            run()
        except ProtocolError as exc:
            self.send(error_message(exc, rid))
        except Exception:
            self.lobby.errors.exception(f"request {kind!r}", self.peer)
            failed = ProtocolError(ErrorCode.INTERNAL_ERROR, "the server failed on this request")
            self.send(error_message(failed, rid))

    def after(self, done: concurrent.futures.Future[T], then: Callable[[T], None]) -> None:
        """Finish the request being handled once ``done`` is done (see
        ``server.lobby.players.Connection.after``): until then the messages that come are
        kept, and reading stops."""
        rid, loop = self._rid, self._loop
        self._waiting = []
        # the future given to the callback, not ``done`` from here: a concurrent future keeps
        # its callbacks, and one holding the future would make a cycle of them (and of the
        # request ``then`` holds) for the cyclic collector
        done.add_done_callback(
            lambda finished: loop.call_soon_threadsafe(self._resume, rid, finished, then)
        )

    def _resume(
        self, rid: int | None, done: concurrent.futures.Future[T], then: Callable[[T], None]
    ) -> None:
        """``done`` is done: finish its request, then handle what came meanwhile, in order
        (one of them may wait in turn), and read again."""
        waiting, self._waiting = self._waiting or [], None
        self._answer(rid, "continued", lambda: then(done.result()))
        for at, message in enumerate(waiting):
            if self.closing:
                return
            if self._waiting is not None:  # the last one waits for a round trip of its own
                self._waiting.extend(waiting[at:])
                return
            self._handle(message)
        if not self.closing and self._waiting is None:
            self.transport.resume_reading()
