"""Length-prefixed framing, sans-IO.

A frame is a 4-byte big-endian unsigned length N followed by N body bytes. :class:`FrameDecoder`
accepts bytes in arbitrary pieces (one byte at a time included) and yields complete bodies; it
never touches a socket, so it is usable from asyncio, threads or tests alike.
"""

from __future__ import annotations

import struct

from protocol.errors import FrameError

#: The largest frame body a client may send (fixed by the design).
MAX_CLIENT_FRAME = 65_536

HEADER = struct.Struct(">I")
HEADER_SIZE = HEADER.size


def frame(body: bytes) -> bytes:
    """Prefix ``body`` with its 4-byte big-endian length."""
    if len(body) > 0xFFFF_FFFF:
        raise ValueError("frame body too large for a 32-bit length")
    return HEADER.pack(len(body)) + body


class FrameDecoder:
    """Turns a byte stream into frame bodies.

    ``max_size`` bounds the body length; ``None`` means unbounded (a client reading the server).
    After a :class:`FrameError` the decoder is poisoned: the stream can no longer be trusted to
    be aligned on frame boundaries, so every later ``feed`` raises again. Bodies completed before
    the bad frame in the same ``feed`` are still returned (a server should act on them); the error
    is then raised by the next ``feed`` and visible at once as :attr:`error`.
    """

    def __init__(self, max_size: int | None = MAX_CLIENT_FRAME) -> None:
        self.max_size = max_size
        # Received bytes not yet returned, the header of an incomplete frame included (so a
        # peer that sent a bare header is seen to be in the middle of a frame).
        self._buffer = bytearray()
        self._error: FrameError | None = None

    @property
    def error(self) -> FrameError | None:
        """The framing error that poisoned this decoder, if any."""
        return self._error

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as part of a body (headers included)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return every body completed by it, in order."""
        body = self.whole(data)
        if body is not None:
            return [body]
        if self._error is not None:
            raise self._error
        buffer = self._buffer
        buffer += data
        bodies: list[bytes] = []
        # Walk the frames by offset and cut the buffer once: deleting each frame from the front
        # would move the rest of the buffer every time (quadratic in a read full of small frames).
        pos, end = 0, len(buffer)
        while end - pos >= HEADER_SIZE:
            (size,) = HEADER.unpack_from(buffer, pos)
            # Reject oversize frames from the header alone: never buffer the body.
            if self.max_size is not None and size > self.max_size:
                self._error = FrameError(
                    f"frame of {size} bytes exceeds the limit of {self.max_size}"
                )
                self._buffer = bytearray()
                if not bodies:
                    raise self._error
                return bodies
            stop = pos + HEADER_SIZE + size
            if stop > end:
                break
            bodies.append(bytes(buffer[pos + HEADER_SIZE : stop]))
            pos = stop
        if pos == end:
            self._buffer = bytearray()  # a new one: the old one's memory goes back at once
        elif pos:
            del buffer[:pos]
        return bodies

    def whole(self, data: bytes) -> bytes | None:
        """The body of ``data`` if it is exactly one acceptable frame and nothing is pending.

        Otherwise None, and nothing is consumed: pass ``data`` to :meth:`feed`, which handles
        every other case (partial or several frames, oversize, a poisoned decoder).
        """
        # Most reads carry exactly one small request: slice it out without touching the buffer.
        if self._buffer or self._error is not None:
            return None
        if len(data) < HEADER_SIZE:
            return None
        (size,) = HEADER.unpack_from(data)
        if len(data) - HEADER_SIZE != size or (self.max_size is not None and size > self.max_size):
            return None
        return bytes(data[HEADER_SIZE:])

    def fail(self, error: FrameError) -> None:
        """Poison the decoder with ``error`` (a body that did not decode)."""
        self._error = error
