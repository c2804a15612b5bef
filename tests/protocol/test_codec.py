"""Framing and codec: round trips under arbitrary splits, and every way a frame can be bad."""

from __future__ import annotations

import inspect
import struct
import sys

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import (
    FROM_CLIENT,
    MessageDecoder,
    decode_body,
    decode_server_body,
    encode,
    normalize,
    pack,
)
from protocol.errors import ErrorCode, FrameError
from protocol.framing import MAX_CLIENT_FRAME, FrameDecoder, frame

scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
messages = st.dictionaries(st.text(max_size=10), values, max_size=6).map(
    lambda m: {**m, "type": "x"}
)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """Cut ``data`` at the given offsets (sorted, deduplicated)."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, last = [], 0
    for p in points:
        pieces.append(data[last:p])
        last = p
    pieces.append(data[last:])
    return pieces


@settings(max_examples=200, deadline=None)
@given(st.lists(messages, min_size=1, max_size=5), st.lists(st.integers(0, 10_000), max_size=12))
def test_round_trip_with_random_splits(msgs: list[dict[str, object]], cuts: list[int]) -> None:
    stream = b"".join(encode(m) for m in msgs)
    decoder = MessageDecoder()
    out: list[dict[str, object]] = []
    for piece in split(stream, cuts):
        out.extend(decoder.feed(piece))
    assert out == msgs
    assert decoder.buffered == 0
    assert decoder.error is None


def test_one_byte_at_a_time() -> None:
    msgs = [{"type": "ping"}, {"type": "hello", "protocol": 1, "name": "Ann", "id": 3}]
    stream = b"".join(encode(m) for m in msgs)
    decoder = MessageDecoder()
    out = []
    for i in range(len(stream)):
        out.extend(decoder.feed(stream[i : i + 1]))
    assert out == msgs


def test_documented_example_bytes() -> None:
    assert encode({"type": "ping"}).hex(" ") == "00 00 00 0b 81 a4 74 79 70 65 a4 70 69 6e 67"


def test_limit_is_inclusive() -> None:
    chunks = ["a" * FROM_CLIENT.max_str_len] * (MAX_CLIENT_FRAME // FROM_CLIENT.max_str_len - 1)
    rest = next(
        n
        for n in range(MAX_CLIENT_FRAME)
        if len(pack({"type": "x", "pad": chunks, "end": "a" * n})) == MAX_CLIENT_FRAME
    )
    body = pack({"type": "x", "pad": chunks, "end": "a" * rest})
    assert len(body) == MAX_CLIENT_FRAME
    assert MessageDecoder().feed(frame(body))[0]["type"] == "x"


def test_oversize_rejected_from_header_alone() -> None:
    decoder = FrameDecoder()
    with pytest.raises(FrameError) as info:
        decoder.feed(struct.pack(">I", MAX_CLIENT_FRAME + 1))
    assert info.value.code == ErrorCode.BAD_FRAME
    with pytest.raises(FrameError):  # poisoned for good
        decoder.feed(b"")


def test_unbounded_decoder_for_clients() -> None:
    big = {"type": "state", "blob": "z" * (MAX_CLIENT_FRAME * 2)}
    assert MessageDecoder(max_size=None).feed(encode(big)) == [big]


@pytest.mark.parametrize(
    "body",
    [
        b"\xc1",  # never-used msgpack byte
        b"\x82\xa4type",  # truncated map
        msgpack.packb([1, 2]),  # not a map
        msgpack.packb("hello"),
        msgpack.packb({1: "x"}),  # non-string key
        msgpack.packb({"type": "ping"}) + b"\x00",  # trailing bytes
        msgpack.packb({"type": msgpack.ExtType(5, b"x")}),  # ext types are not allowed
        b"",  # empty body
        b"\xa2\xff\xfe",  # invalid utf-8 string
    ],
)
def test_garbage_bodies(body: bytes) -> None:
    with pytest.raises(FrameError):
        MessageDecoder().feed(frame(body))


def test_bin_values_decode_as_bytes() -> None:
    assert decode_body(b"\x81\xa4type\xc4\x01\xff") == {"type": b"\xff"}


def test_good_messages_before_a_bad_frame_are_kept() -> None:
    decoder = MessageDecoder()
    out = decoder.feed(encode({"type": "ping"}) + frame(b"\xc1") + encode({"type": "ping"}))
    assert out == [{"type": "ping"}]
    assert decoder.error is not None and decoder.error.code == ErrorCode.BAD_FRAME
    with pytest.raises(FrameError):
        decoder.feed(b"")


def test_oversize_after_good_frame() -> None:
    decoder = MessageDecoder()
    out = decoder.feed(encode({"type": "ping"}) + struct.pack(">I", 10**9))
    assert out == [{"type": "ping"}]
    assert decoder.error is not None


def test_normalize_turns_tuples_into_lists() -> None:
    assert normalize({"cell": (1, 2)}) == {"cell": [1, 2]}


# ---------------------------------------------------------------- bounded decoding


def _nested(depth: int) -> bytes:
    """A body ``{"type": "ping", "pad": [[...[]...]]}`` whose map nests ``depth`` levels deep."""
    return b"\x82\xa4type\xa4ping\xa3pad" + b"\x91" * (depth - 2) + b"\x90"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (pack({"type": "ping", "pad": [[]] * 65_000}), "max_array_len"),
        (pack({"type": "ping", "pad": [[[] for _ in range(250)] for _ in range(250)]}), "maps"),
        (_nested(900), "nested deeper"),
        (_nested(FROM_CLIENT.max_depth + 1), "nested deeper"),
        (pack({"type": "ping", "pad": "a" * (FROM_CLIENT.max_str_len + 1)}), "max_str_len"),
        (pack({"type": "ping", "pad": b"a" * (FROM_CLIENT.max_bin_len + 1)}), "max_bin_len"),
        (pack({"type": "ping", "pad": {str(i): i for i in range(100)}}), "max_map_len"),
    ],
    ids=["65000-lists", "250x250-lists", "900-deep", "one-too-deep", "str", "bin", "map"],
)
def test_frames_dear_to_decode_are_bad_frames(body: bytes, why: str) -> None:
    with pytest.raises(FrameError) as info:
        decode_body(body)
    assert info.value.code == ErrorCode.BAD_FRAME and why in info.value.message


def test_the_depth_limit_is_inclusive() -> None:
    assert decode_body(_nested(FROM_CLIENT.max_depth))["type"] == "ping"


def test_deep_input_is_checked_without_recursion() -> None:
    """Far below Python's recursion limit, a 900-deep frame (with a 0xff byte, which once sent
    the timestamp check recursing) is still an ordinary bad_frame."""
    body = b"\x83\xa4type\xa4ping\xa1x\xff\xa3pad" + b"\x91" * 900 + b"\x90"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 40)  # 40 frames to spare, not 900
    try:
        with pytest.raises(FrameError):
            decode_body(body)
        with pytest.raises(FrameError):
            decode_server_body(body)
    finally:
        sys.setrecursionlimit(limit)


def test_servers_frames_have_room_for_the_largest_replies() -> None:
    history = {"type": "events", "events": [{"kind": "draw", "args": {"card": {"id": 1}}}] * 2000}
    assert decode_server_body(pack(history)) == history
    with pytest.raises(FrameError):
        decode_body(pack(history))  # a client may not send that much
    assert MessageDecoder(max_size=None).feed(encode(history)) == [history]


def test_timestamps_are_refused_by_msgpack_itself() -> None:
    body = msgpack.packb({"type": "ping", "at": msgpack.Timestamp(1, 0)}, datetime=False)
    with pytest.raises(FrameError) as info:
        decode_server_body(body)
    assert "ext types are not allowed" in info.value.message
    with pytest.raises(FrameError):  # an empty ext -1 as well
        decode_body(b"\x82\xa4type\xa4ping\xa2at\xc7\x00\xff")
