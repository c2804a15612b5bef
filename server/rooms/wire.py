"""Encoding server frames; ``state`` frames with the view's shared part packed once per change.

Every message but two is a protocol.server_messages type, encoded by :func:`encode`. The
``state`` and ``events`` messages are made here from the engine's own wire forms (its views and
events are the wire maps of protocol.view_types and protocol.game_types: tests/protocol reads
them back with those types), so that a change costs no conversion: every seat's view is the
spectator view with the keys of
``views.SEAT_KEYS`` replaced, and a msgpack map is its header followed by its key/value pairs,
so a state frame for one recipient is the packed public pairs (packed once per change, whatever
the number of recipients; the board's and the piles' pairs only when their cards changed)
followed by that seat's own pairs (packed again only when they changed, :class:`StateFrames`).
The decoded message equals
``StateMessage(room=..., version=..., view=View.from_wire(game.view(seat))).to_wire()``. An
``events`` frame is made once per audience (:class:`EventFrames`).
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.framing import HEADER
from protocol.server_messages import EventsMessage, ServerMessage, StateMessage
from server.engine import Event, Game
from server.engine.cards import Card
from server.engine.views import SEAT_KEYS, SPECTATOR_SEAT_PART, table_cards, table_view

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
    return _events_frame(room, [event.to_wire(seat, shared=True) for event in events], history)


def _events_frame(room: str, wires: list[dict[str, object]], history: bool = False) -> bytes:
    body = encode_body(
        {"type": EventsMessage.TYPE, "room": room, "history": history, "events": wires}
    )
    return HEADER.pack(len(body)) + body


class EventFrames:
    """The ``events`` frames of one change, one per audience: each event is put in wire form
    once as everyone outside its ``to`` sees it, and once more only for the seats it is
    addressed to (their frame differs in those events alone). No events: empty frames."""

    def __init__(self, room: str, events: list[Event]) -> None:
        self._room = room
        self._events = events
        self._public = [event.to_wire(None, shared=True) for event in events]
        #: The seats some event is addressed to: the others all get the public frame.
        self.private = {seat for event in events if event.to is not None for seat in event.to}
        self._frames: dict[int | None, bytes] = {}

    def frame(self, seat: int | None) -> bytes:
        """The frame ``seat`` (None: a spectator) gets, made once per audience."""
        key = seat if seat in self.private else None
        data = self._frames.get(key)
        if data is None:
            data = self._frames[key] = self._make(key)
        return data

    def _make(self, seat: int | None) -> bytes:
        if not self._events:
            return b""
        wires = self._public
        if seat is not None:
            wires = [
                event.to_wire(seat, shared=True)
                if event.to is not None and seat in event.to
                else public
                for event, public in zip(self._events, wires, strict=True)
            ]
        return _events_frame(self._room, wires)


def _pairs(mapping: dict[str, Any]) -> bytes:
    """The packed key/value pairs of ``mapping``: its packed map without the map's header."""
    return encode_body(mapping)[len(_map_header(len(mapping))) :]


def _map_header(size: int) -> bytes:
    header: bytes = _packer.pack_map_header(size)
    return header


class StateFrames:
    """The ``state`` frames of a room's game, kept from one version to the next.

    :meth:`update` to a new version builds and packs the public part of the view once for every
    recipient. A seat's own part is packed when its frame is first asked for in a version, and
    only if it differs from what that seat was sent before: a seat with nothing to decide keeps
    its packed part for as long as it holds the same cards (``Card`` equality; its part is
    its hand and resources then), while a deciding seat's part is new at every version.
    """

    def __init__(self, room: str) -> None:
        self._room = room
        self.version: int | None = None  # the version the frames are of (None: none yet)
        self._game: Game | None = None
        self._shared = b""
        # the cards of the table view last packed (views.table_cards) and its (size, pairs)
        self._table_cards: tuple[object, ...] = ()
        self._table = (0, b"")
        self._spectator = _pairs(SPECTATOR_SEAT_PART)
        # seat -> (its hand, its packed part) while it has nothing to decide
        self._idle: dict[int, tuple[tuple[Card, ...], bytes]] = {}
        self._deciding: dict[int, bytes] = {}  # this version's parts of the seats deciding
        #: How many seat parts were built and packed (a test reads it: unchanged ones are not).
        self.packed_parts = 0

    def update(self, game: Game, version: int) -> None:
        """Make the frames those of ``version`` of ``game`` (nothing to do if they are)."""
        if version == self.version:
            return
        # A kept part stays right for a rematch's game too: it is the seat's hand and
        # resources, the same for the same cards (the edition does not change).
        self._game = game
        self.version = version
        self._deciding = {}
        # packed at once: its cards' maps are not copied; the board and piles come apart
        public = game.public_view(shared=True, table=False)
        for key in SEAT_KEYS:  # the public view's seat keys hold nothing; each frame adds its own
            del public[key]
        state = game.rules.state
        cards = table_cards(state)
        if cards != self._table_cards:  # most decisions leave the board and the piles alone
            self._table_cards = cards
            table = table_view(state, shared=True)
            self._table = (len(table), _pairs(table))
        head = {"type": StateMessage.TYPE, "room": self._room, "version": version}
        self._shared = b"".join(
            (
                _map_header(len(head) + 1),
                _pairs(head),
                encode_body("view"),
                _map_header(len(public) + self._table[0] + len(SEAT_KEYS)),
                _pairs(public),
                self._table[1],
            )
        )

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        return b"".join(self.frame_parts(seat))

    def frame_parts(self, seat: int | None) -> tuple[bytes, bytes, bytes]:
        """:meth:`frame` in three pieces (length prefix, shared part, the seat's part), for a
        caller that writes them with other frames without joining them first."""
        part = self._spectator if seat is None else self._seat_part(seat)
        return HEADER.pack(len(self._shared) + len(part)), self._shared, part

    def _seat_part(self, seat: int) -> bytes:
        """The packed own part of ``seat``'s view in this version."""
        game = self._game
        assert game is not None
        if game.legal(seat):
            part = self._deciding.get(seat)
            if part is None:
                part = self._deciding[seat] = self._pack_part(game, seat)
            return part
        hand = tuple(game.rules.state.hands[seat])
        kept = self._idle.get(seat)
        if kept is not None and kept[0] == hand:
            return kept[1]
        part = self._pack_part(game, seat)
        self._idle[seat] = (hand, part)
        return part

    def _pack_part(self, game: Game, seat: int) -> bytes:
        self.packed_parts += 1
        return _pairs(game.seat_view(seat, shared=True))
