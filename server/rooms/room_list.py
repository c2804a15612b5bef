"""The ``rooms`` reply (list_rooms), made of each room's entry packed once per change.

Building the entries of 1,000 rooms on every call would let one address within its message rate
keep the server busy with nothing else. A room packs its entry when it is first listed
after a change (every change of what the entry says is followed by a ``room`` broadcast, which
forgets it), so a call costs the filter over the rooms and the writing of the bytes.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.framing import HEADER
from protocol.server_messages import RoomsMessage

_packer = msgpack.Packer(use_bin_type=True)


def rooms_frame(entries: Iterable[bytes], request: int | None) -> bytes:
    """The complete ``rooms`` frame holding the packed ``entries``: the same message as
    ``RoomsMessage(id=request, rooms=...).to_wire()`` (keys in another order)."""
    packed = list(entries)
    head: dict[str, object] = {"type": RoomsMessage.TYPE}
    if request is not None:
        head["id"] = request
    body = b"".join(
        (
            _packer.pack_map_header(len(head) + 1),
            *(_packer.pack(key) + _packer.pack(value) for key, value in head.items()),
            _packer.pack("rooms"),
            _packer.pack_array_header(len(packed)),
            *packed,
        )
    )
    return HEADER.pack(len(body)) + body


def pack_entry(entry: dict[str, object]) -> bytes:
    """One room's entry, packed."""
    data: bytes = _packer.pack(entry)
    return data
