"""Encoding server frames; ``state`` frames with the view's shared part packed once per change.

Every message but two is a protocol.server_messages type, encoded by :func:`encode`. The
``state`` and ``events`` messages are made here from the engine's own wire forms (its views and
events are the wire maps of protocol.view_types and protocol.game_types: tests/protocol reads
them back with those types), so that a change costs no conversion: every seat's view is the
spectator view with the keys of
``views.SEAT_KEYS`` replaced, and a msgpack map is its header followed by its key/value pairs,
so a state frame for one recipient is the packed public pairs (packed once per change, whatever
the number of recipients; the setup's, the board's and the piles' pairs only when they changed)
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
from server.engine.views import (
    SEAT_KEYS,
    SPECTATOR_SEAT_PART,
    board_cards,
    board_view,
    choices_view,
    hand_view,
    pile_cards,
    piles_view,
    play_view,
    setup_of,
    setup_view,
)

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
    size = len(mapping)
    # msgpack's map header: 1 byte up to 15 keys (fixmap), then 3 (map 16), then 5 (map 32)
    return encode_body(mapping)[1 if size < 16 else 3 if size < 0x10000 else 5 :]


def _map_header(size: int) -> bytes:
    header: bytes = _packer.pack_map_header(size)
    return header


class _Kept:
    """One part of a view, packed again only when what it is made of is no longer equal to
    what it was made of when it was last packed."""

    def __init__(self) -> None:
        self._made_of: object = None
        self.size = 0  # how many keys
        self.pairs = b""

    def stale(self, made_of: object) -> bool:
        """Whether ``made_of`` differs from what the packed part is made of (then
        :meth:`pack` the part it makes)."""
        if made_of == self._made_of:
            return False
        self._made_of = made_of
        return True

    def pack(self, part: dict[str, Any]) -> None:
        """Keep ``part`` packed: the part :meth:`stale` said is to be packed again."""
        self.size = len(part)
        self.pairs = _pairs(part)


_VIEW_KEY = encode_body("view")

#: The own part of a spectator's view, and of a seat's with nothing to decide, after the hand.
_NO_HAND = _pairs({key: SPECTATOR_SEAT_PART[key] for key in SEAT_KEYS[:3]})
_NO_CHOICES = _pairs({key: SPECTATOR_SEAT_PART[key] for key in SEAT_KEYS[3:]})


class StateFrames:
    """The ``state`` frames of a room's game, kept from one version to the next.

    :meth:`update` to a new version packs the public part of the view once for every
    recipient: the parts that change at every decision (``views.play_view``), and the game's
    setup, its board and its piles only when what they are made of changed (compared by
    value: ``views.setup_of``, ``board_cards``, ``pile_cards``). A seat's own part is its
    hand (``views.hand_view``: packed again only when the seat holds other cards) and, for a
    seat that decides, its choices (``views.choices_view``: packed once per version, when
    the seat's frame is first asked for).
    """

    def __init__(self, room: str) -> None:
        self._room = room
        # the keys before the view's: type and room (the same at every version), version
        self._head = _map_header(4) + _pairs({"type": StateMessage.TYPE, "room": room})
        self.version: int | None = None  # the version the frames are of (None: none yet)
        self._game: Game | None = None
        self._shared = b""
        self._setup = _Kept()
        self._board = _Kept()
        self._piles = _Kept()
        self._hands: dict[int, _Kept] = {}  # seat -> its hand part
        self._choices: dict[int, bytes] = {}  # this version's choices of the seats deciding
        self._deciding: frozenset[int] = frozenset()  # the seats with legal choices
        #: How many seat parts were built and packed (a test reads it: unchanged ones are not).
        self.packed_parts = 0

    def update(self, game: Game, version: int) -> None:
        """Make the frames those of ``version`` of ``game`` (nothing to do if they are)."""
        if version == self.version:
            return
        # The kept parts stay right for a rematch's game too: they are compared by value.
        self._game = game
        self.version = version
        self._choices = {}
        self._deciding = frozenset(seat for seat in game.pending_seats() if game.legal(seat))
        state = game.rules.state
        setup, board, piles = self._setup, self._board, self._piles
        if setup.stale(setup_of(game)):
            setup.pack(setup_view(game))
        if board.stale(board_cards(state)):
            board.pack(board_view(state, shared=True))
        if piles.stale(pile_cards(state)):
            piles.pack(piles_view(state, shared=True))
        play = play_view(game)
        size = setup.size + len(play) + board.size + piles.size + len(SEAT_KEYS)
        self._shared = b"".join(
            (
                self._head,
                _pairs({"version": version}),
                _VIEW_KEY,
                _map_header(size),
                setup.pairs,
                _pairs(play),
                board.pairs,
                piles.pairs,
            )
        )

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        return b"".join(self.frame_parts(seat))

    def frame_parts(self, seat: int | None) -> tuple[bytes, bytes, bytes, bytes]:
        """:meth:`frame` in four pieces (length prefix, shared part, the seat's hand, its
        choices), for a caller that writes them with other frames without joining them."""
        if seat is None:
            hand, choices = _NO_HAND, _NO_CHOICES
        else:
            hand, choices = self._hand(seat), self._choices_of(seat)
        return (
            HEADER.pack(len(self._shared) + len(hand) + len(choices)),
            self._shared,
            hand,
            choices,
        )

    def _hand(self, seat: int) -> bytes:
        """The packed hand part of ``seat``'s view in this version."""
        game = self._game
        assert game is not None
        kept = self._hands.get(seat)
        if kept is None:
            kept = self._hands[seat] = _Kept()
        if kept.stale(tuple(game.rules.state.hands[seat])):
            kept.pack(hand_view(game, seat, shared=True))
            self.packed_parts += 1
        return kept.pairs

    def _choices_of(self, seat: int) -> bytes:
        """The packed choices part of ``seat``'s view in this version."""
        if seat not in self._deciding:
            return _NO_CHOICES
        part = self._choices.get(seat)
        if part is None:
            game = self._game
            assert game is not None
            self.packed_parts += 1
            part = self._choices[seat] = _pairs(choices_view(game, seat))
        return part
