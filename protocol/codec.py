"""msgpack encoding of messages and a sans-IO message decoder.

A message is one msgpack map with string keys. :func:`encode` turns a message into a complete
frame; :class:`MessageDecoder` turns received bytes into messages and raises
:class:`~protocol.errors.FrameError` on anything that is not a valid frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.errors import FrameError
from protocol.framing import MAX_CLIENT_FRAME, FrameDecoder, frame

Message = dict[str, Any]

_unpackb = msgpack.unpackb
_UNPACK_ERRORS = (ValueError, TypeError, msgpack.UnpackException)


def _no_ext(code: int, data: bytes) -> object:
    """Refuse msgpack extension types: the protocol never uses them."""
    raise ValueError(f"msgpack ext type {code} is not allowed")


def pack(obj: object) -> bytes:
    """msgpack-encode ``obj`` (str as str, bytes as bin)."""
    data = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def unpack(body: bytes) -> object:
    """Decode exactly one msgpack object from ``body``; raise ValueError on anything else."""
    try:
        obj = _unpackb(body, raw=False, strict_map_key=False, ext_hook=_no_ext)
    except _UNPACK_ERRORS as exc:
        raise ValueError(_reason(exc)) from exc
    # A timestamp's type byte is 0xff: a body without one cannot hold one (a fast scan).
    if b"\xff" in body and _has_timestamp(obj):
        raise ValueError("msgpack ext type -1 is not allowed")
    return obj


def _has_timestamp(obj: object) -> bool:
    """Whether ``obj`` holds a msgpack Timestamp (ext type -1, which msgpack decodes itself
    without calling the ext hook)."""
    if isinstance(obj, msgpack.Timestamp):
        return True
    if isinstance(obj, dict):
        return any(_has_timestamp(k) or _has_timestamp(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(_has_timestamp(item) for item in obj)
    return False


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def decode_body(body: bytes) -> Message:
    """Decode one frame body into a message; raise FrameError unless it is a str-keyed map."""
    try:
        obj = unpack(body)
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


def identical(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` are the same msgpack value, types included: ``48.0`` is not
    ``48`` and ``True`` is not ``1`` (Python's ``==`` says they are); a tuple and a list with
    the same items are the same array."""
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(identical(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and a.keys() == b.keys()
            and all(identical(value, b[key]) for key, value in a.items())
        )
    return type(a) is type(b) and a == b


def encode(message: Mapping[str, object]) -> bytes:
    """Encode ``message`` as a complete frame (length prefix included)."""
    return frame(pack(dict(message)))


def normalize(obj: object) -> object:
    """``obj`` as it will look after a trip over the wire (tuples become lists, ...)."""
    return unpack(pack(obj))


class MessageDecoder:
    """Feed bytes, get messages. ``max_size=None`` disables the frame limit (for clients)."""

    def __init__(self, max_size: int | None = MAX_CLIENT_FRAME) -> None:
        self._frames = FrameDecoder(max_size)

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
                return [decode_body(body)]
            except FrameError as exc:
                frames.fail(exc)
                raise
        messages: list[Message] = []
        for body in frames.feed(data):
            try:
                messages.append(decode_body(body))
            except FrameError as exc:
                frames.fail(exc)
                if not messages:
                    raise
                break
        return messages
