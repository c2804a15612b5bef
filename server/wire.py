"""Encoding ``state`` frames once per change: the shared part of the view is packed once.

Every seat's view is the spectator view with the keys of ``views.SEAT_KEYS`` replaced. A msgpack
map is its header followed by its key/value pairs in any order, so a state frame for one
recipient is the packed shared pairs (built and packed once per change, whatever the number of
recipients) plus that seat's own pairs. The decoded message equals ``{"type": "state", "room":
..., "version": ..., "view": game.view(seat)}``; only the order of the view's keys differs (the
seat's keys, ``legal`` last, come at the end).

Most of a change leaves most of a view as it was, and a busy server builds thousands of views a
second, so the bytes of what did not change are reused: each card's map is packed once for the
life of the process (the piles are joined from those bytes), the board and the piles are rebuilt
and repacked only when they changed, and a seat with nothing to decide keeps its packed part until
its hand changes.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.framing import HEADER as _HEADER
from server.engine import Game
from server.engine.views import PILE_MAPS, SEAT_KEYS, bulky_sources, bulky_value, idle_seat_key

_SEAT_KEYS = frozenset(SEAT_KEYS)
_packer = msgpack.Packer(use_bin_type=True)  # reused: packb builds a new Packer every call


def _pack(obj: object) -> bytes:
    data = _packer.pack(obj)
    assert isinstance(data, bytes)
    return data


def _map_header(size: int) -> bytes:
    data = _packer.pack_map_header(size)
    assert isinstance(data, bytes)
    return data


def _array_header(size: int) -> bytes:
    data = _packer.pack_array_header(size)
    assert isinstance(data, bytes)
    return data


def encode(message: dict[str, Any]) -> bytes:
    """``protocol.codec.encode`` with the server's reused Packer (the server is one thread)."""
    body = _pack(message)
    return _HEADER.pack(len(body)) + body


def _pairs(mapping: dict[str, Any]) -> bytes:
    """The packed key/value pairs of ``mapping`` without the map header."""
    packed = _pack(mapping)
    return packed[len(_map_header(len(mapping))) :]


# id(card) -> (card, its packed map). Cards are immutable module-level objects that live as long
# as the process (the engine deals from its static decks), so an id is never reused while the
# entry exists; the card is kept in the entry all the same.
_PACKED_CARDS: dict[int, tuple[object, bytes]] = {}


def _packed_bulky(key: str, source: list[Any]) -> bytes:
    """``key`` and its value, packed as :func:`server.engine.views.public_view` builds it; a
    pile is joined from its cards' packed maps."""
    to_map = PILE_MAPS.get(key)
    if to_map is None:
        return _pack(key) + _pack(bulky_value(key, source))
    parts = [_pack(key), _array_header(len(source))]
    for card in source:
        hit = _PACKED_CARDS.get(id(card))
        if hit is None or hit[0] is not card:
            hit = _PACKED_CARDS[id(card)] = (card, _pack(to_map(card)))
        parts.append(hit[1])
    return b"".join(parts)


class StateFrames:
    """The ``state`` frames of one version of a room's game, built on demand per recipient."""

    def __init__(self, game: Game, room: str, version: int,
                 previous: StateFrames | None = None) -> None:  # fmt: skip
        self.game = game
        # What the previous version of the same game had packed (prints hold within one game).
        # key of views.BULKY_KEYS -> (a copy of its source, its packed key and value)
        self._bulky: dict[str, tuple[list[Any], bytes]] = {}
        # seat -> (idle_seat_key, packed seat pairs) of the seats with nothing to decide
        self._idle: dict[int, tuple[tuple[int, ...], bytes]] = {}
        if previous is not None and previous.game is game:
            self._bulky, self._idle = previous._bulky, previous._idle
        self.version = version
        self._head = b"".join((_map_header(4), _pack("type"), _pack("state"), _pack("room"),
                               _pack(room), _pack("version"), _pack(version), _pack("view")))
        self._shared: bytes | None = None
        self._spectator = b""
        self.legal: dict[int, list[dict[str, Any]]] = {}  # seat -> view.legal, as sent

    def _build_shared(self) -> bytes:
        view = self.game.public_view(bulky=False)
        size = len(view)
        self._spectator = _pairs({key: view.pop(key) for key in SEAT_KEYS})
        parts = [self._head, _map_header(size)]
        bulky: dict[str, tuple[list[Any], bytes]] = {}
        for key, source in bulky_sources(self.game).items():
            del view[key]
            old = self._bulky.get(key)
            if old is None or old[0] != source:
                old = (list(source), _packed_bulky(key, source))
            bulky[key] = old
            parts.append(old[1])
        self._bulky = bulky
        parts.append(_pairs(view))
        self._shared = b"".join(parts)
        return self._shared

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        shared = self._shared if self._shared is not None else self._build_shared()
        part = self._spectator if seat is None else self._seat_pairs(seat)
        return b"".join((_HEADER.pack(len(shared) + len(part)), shared, part))

    def _seat_pairs(self, seat: int) -> bytes:
        key = idle_seat_key(self.game, seat)
        if key is not None:
            self.legal[seat] = []
            cached = self._idle.get(seat)
            if cached is not None and cached[0] == key:
                return cached[1]
        view = self.game.seat_view(seat)
        self.legal[seat] = view["legal"]
        packed = _pairs(view)
        if key is not None:
            self._idle[seat] = (key, packed)
        return packed

