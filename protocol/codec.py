"""msgpack encoding of messages and a sans-IO message decoder.

A message is one msgpack map with string keys. :func:`encode` turns a message into a complete
frame; :class:`MessageDecoder` turns received bytes into messages and raises
:class:`~protocol.errors.FrameError` on anything that is not a valid frame.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import compress
from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.errors import FrameError
from protocol.framing import MAX_CLIENT_FRAME, FrameDecoder, frame

Message = dict[str, Any]

_unpackb = msgpack.unpackb
_UNPACK_ERRORS = (ValueError, TypeError, msgpack.UnpackException)


@dataclass(frozen=True, slots=True)
class DecodeLimits:
    """Bounds on the work of decoding one frame body (PROTOCOL.md §1).

    msgpack enforces the lengths itself, before any Python object is built; ``max_depth`` and
    ``max_containers`` are checked by one walk without recursion, stopped at the first
    container past them. A frame past any of them is ``bad_frame``: a few bytes of nesting or
    of empty lists must not cost a recursion past Python's limit or milliseconds of walking.
    """

    max_depth: int
    max_str_len: int
    max_bin_len: int
    max_array_len: int
    max_map_len: int
    max_containers: int


#: What a server accepts in a client's frame: requests are small maps (a chat line is 300
#: characters, an ``act`` choice a map of a few keys, at most 8 variants).
FROM_CLIENT = DecodeLimits(
    max_depth=16,
    max_str_len=4_096,
    max_bin_len=4_096,
    max_array_len=256,
    max_map_len=64,
    max_containers=1_024,
)
#: What a client accepts in a server's frame: the same depth, lengths for the largest replies
#: (up to 2,000 events of history, 1,000 rooms, a replay's decisions).
FROM_SERVER = DecodeLimits(
    max_depth=16,
    max_str_len=1 << 20,
    max_bin_len=1 << 20,
    max_array_len=1 << 16,
    max_map_len=1 << 12,
    max_containers=1 << 20,
)

# The bytes that can open a container (fixmap, fixarray, map 16/32, array 16/32). A body with no
# more of them than the depth limit cannot nest too deep, so the walk is skipped (the usual case).
_CONTAINER_BYTES = bytes([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])


def _no_ext(code: int, data: bytes) -> object:
    """Refuse msgpack extension types: the protocol never uses them (``max_ext_len`` 0 refuses
    those with a body; this hook, the empty ones)."""
    raise ValueError(f"msgpack ext type {code} is not allowed")


def pack(obj: object) -> bytes:
    """msgpack-encode ``obj`` (str as str, bytes as bin)."""
    data = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def unpack(body: bytes, limits: DecodeLimits = FROM_CLIENT) -> object:
    """Decode exactly one msgpack object from ``body`` within ``limits``; raise ValueError on
    anything else."""
    # Every container msgpack builds counts towards the cyclic collector's thresholds: a frame
    # of 65,000 empty lists would set off full collections of the whole heap (100 ms a frame in
    # a busy server). What it builds is freed by reference counting, so the collector waits.
    collecting = gc.isenabled()
    gc.disable()
    try:
        obj = _unpackb(
            body,
            raw=False,
            strict_map_key=False,
            ext_hook=_no_ext,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_bin_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
        )
    except msgpack.StackError as exc:  # msgpack's own limit, 1,024 levels
        raise ValueError(f"nested deeper than {limits.max_depth}") from exc
    except _UNPACK_ERRORS as exc:
        if "max_ext_len" in str(exc):  # an ext type with a body: refused before it is read
            raise ValueError("msgpack ext types are not allowed") from exc
        raise ValueError(_reason(exc)) from exc
    finally:
        if collecting:
            gc.enable()
    # Each level of nesting needs a container's first byte: a body with no more of them than
    # the depth limit cannot break it, and most bodies are skipped by this one scan in C.
    if len(body) - len(body.translate(None, _CONTAINER_BYTES)) > limits.max_depth:
        _check_shape(obj, limits)
    return obj


def _check_shape(obj: object, limits: DecodeLimits) -> None:
    """Raise ValueError if ``obj`` nests deeper or holds more maps and arrays than ``limits``
    allow. One level at a time, never a recursion; the items of a level are sorted by C
    iterators (no Python call per item), and it stops at the first level past a limit."""
    level: list[Any] = [obj] if type(obj) in _CONTAINERS else []
    depth = containers = 0
    while level:
        depth += 1
        containers += len(level)
        if depth > limits.max_depth:
            raise ValueError(f"nested deeper than {limits.max_depth}")
        if containers > limits.max_containers:
            raise ValueError(f"more than {limits.max_containers} maps and arrays")
        below: list[Any] = []
        for item in level:
            if type(item) is dict:
                below += item  # the keys (any type: only the outer map's must be strings)
                below += item.values()
            else:
                below += item
        level = list(compress(below, map(_CONTAINERS.__contains__, map(type, below))))


_CONTAINERS = frozenset({dict, list})


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def decode_body(body: bytes, limits: DecodeLimits = FROM_CLIENT) -> Message:
    """Decode one frame body into a message; raise FrameError unless it is a str-keyed map
    within ``limits`` (a server reading a client: :data:`FROM_CLIENT`)."""
    try:
        obj = unpack(body, limits)
    except ValueError as exc:
        raise FrameError(f"body is not valid msgpack: {exc}") from exc
    if not isinstance(obj, dict):
        raise FrameError(f"body is a msgpack {type(obj).__name__}, not a map")
    if not str_keys(obj):
        raise FrameError("map keys must be strings")
    return obj


def str_keys(mapping: Mapping[Any, object]) -> bool:
    """Whether every key of ``mapping`` is a str."""
    # A plain loop: cheaper than all() over a generator, and no allocation.
    for key in mapping:  # noqa: SIM110
        if not isinstance(key, str):
            return False
    return True


def encode(message: Mapping[str, object]) -> bytes:
    """Encode ``message`` as a complete frame (length prefix included)."""
    return frame(pack(dict(message)))


def decode_server_body(body: bytes) -> Message:
    """:func:`decode_body` for a client reading the server (:data:`FROM_SERVER`)."""
    return decode_body(body, FROM_SERVER)


def normalize(obj: object) -> object:
    """``obj`` as it will look after a trip over the wire (tuples become lists, ...)."""
    return unpack(pack(obj), FROM_SERVER)


class MessageDecoder:
    """Feed bytes, get messages. ``max_size=None`` disables the frame limit (for clients);
    ``limits`` bound each body's decoding (default: :data:`FROM_CLIENT` with a frame limit,
    :data:`FROM_SERVER` without)."""

    def __init__(
        self, max_size: int | None = MAX_CLIENT_FRAME, limits: DecodeLimits | None = None
    ) -> None:
        self._frames = FrameDecoder(max_size)
        if limits is None:
            limits = FROM_CLIENT if max_size is not None else FROM_SERVER
        self._limits = limits

    @property
    def error(self) -> FrameError | None:
        """The error that poisoned this decoder, if any (see :meth:`feed`)."""
        return self._frames.error

    @property
    def buffered(self) -> int:
        """Bytes held back waiting for the rest of a frame."""
        return self._frames.buffered

    def feed(self, data: bytes) -> list[Message]:
        """Add ``data``; return the messages it completes.

        Raises FrameError on a bad frame when no good message precedes it in this call;
        otherwise the good messages are returned and :attr:`error` is set (check it after
        handling them). Every later call raises.
        """
        frames = self._frames
        body = frames.whole(data)
        if body is not None:
            try:
                return [decode_body(body, self._limits)]
            except FrameError as exc:
                frames.fail(exc)
                raise
        messages: list[Message] = []
        for body in frames.feed(data):
            try:
                messages.append(decode_body(body, self._limits))
            except FrameError as exc:
                frames.fail(exc)
                if not messages:
                    raise
                break
        return messages
