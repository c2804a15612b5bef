"""Encoding server frames; ``state`` frames with the view's shared part packed once per change.

Every message but two is a protocol.server_messages type, encoded by :func:`encode`. The
``state`` and ``events`` messages are made here from the engine's own wire forms (its views and
events are protocol.game_types's wire maps: tests/protocol reads them back with those types), so
that a change costs no conversion: every seat's view is the spectator view with the keys of
``views.SEAT_KEYS`` replaced, and a msgpack map is its header followed by its key/value pairs,
so a state frame for one recipient is the packed public pairs (packed once per change, whatever
the number of recipients) followed by that seat's own pairs. The decoded message equals
``StateMessage(room=..., version=..., view=View.from_wire(game.view(seat))).to_wire()``.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.framing import HEADER
from protocol.server_messages import EventsMessage, ServerMessage, StateMessage
from server.engine import Event, Game
from server.engine.views import SEAT_KEYS, SPECTATOR_SEAT_PART

_packer = msgpack.Packer(use_bin_type=True)  # reused: packb builds a new Packer every call


def encode_body(obj: object) -> bytes:
    """``protocol.codec.pack`` with the server's reused Packer: the same bytes."""
    data: bytes = _packer.pack(obj)
    return data


def encode(message: ServerMessage) -> bytes:
    """``message``'s frame: ``protocol.codec.encode`` of its wire map, with the server's reused
    Packer (the server is one thread)."""
    body = encode_body(message.to_wire())
    return HEADER.pack(len(body)) + body


def encode_events(room: str, events: list[Event], seat: int | None, history: bool = False) -> bytes:
    """The ``events`` frame of ``events`` as ``seat`` (None: a spectator) may see them."""
    body = encode_body(
        {
            "type": EventsMessage.TYPE,
            "room": room,
            "history": history,
            "events": [event.to_wire(seat) for event in events],
        }
    )
    return HEADER.pack(len(body)) + body


def _pairs(mapping: dict[str, Any]) -> bytes:
    """The packed key/value pairs of ``mapping``: a map's bytes after its header."""
    return b"".join(encode_body(key) + encode_body(value) for key, value in mapping.items())


def _map_header(size: int) -> bytes:
    header: bytes = _packer.pack_map_header(size)
    return header


class StateFrames:
    """The ``state`` frames of one version of a room's game: the public part of the view is
    packed when the frames are made, each seat's part when that seat's frame is asked for."""

    def __init__(self, game: Game, room: str, version: int) -> None:
        self.game = game
        self.version = version
        public = game.public_view()
        for key in SEAT_KEYS:  # the public view's seat keys hold nothing; each frame adds its own
            del public[key]
        head = {"type": StateMessage.TYPE, "room": room, "version": version}
        self._shared = b"".join(
            (
                _map_header(len(head) + 1),
                _pairs(head),
                encode_body("view"),
                _map_header(len(public) + len(SEAT_KEYS)),
                _pairs(public),
            )
        )
        self._spectator = _pairs(SPECTATOR_SEAT_PART)

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        return b"".join(self.frame_parts(seat))

    def frame_parts(self, seat: int | None) -> tuple[bytes, bytes, bytes]:
        """:meth:`frame` in three pieces (length prefix, shared part, the seat's part), for a
        caller that writes them with other frames without joining them first."""
        part = self._spectator if seat is None else _pairs(self.game.seat_view(seat))
        return HEADER.pack(len(self._shared) + len(part)), self._shared, part
