"""Encoding ``state`` frames once per change: the shared part of the view is packed once.

Every seat's view is the spectator view with the keys of ``views.SEAT_KEYS`` replaced. A msgpack
map is its header followed by its key/value pairs in any order, so a state frame for one
recipient is the packed shared pairs (built and packed once per change, whatever the number of
recipients) plus that seat's own pairs. The decoded message equals ``{"type": "state", "room":
..., "version": ..., "view": game.view(seat)}``; only the order of the view's keys differs (the
seat's keys, ``legal`` last, come at the end).

Most of a change leaves most of a view as it was, and a busy server builds thousands of views a
second, so the bytes of what did not change are reused: each card's map is packed once, at import
(the piles and hands are joined from those bytes), the keys fixed for a game are packed once per
game, the board and the piles are rebuilt and repacked only when they changed, and a seat with
nothing to decide keeps its packed part until its hand changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped,import-not-found,unused-ignore]

from protocol.framing import HEADER as _HEADER
from server.engine import Game
from server.engine.cards import GAME_DECKS, LOCATION_DECKS
from server.engine.views import (
    BULKY_KEYS,
    PILE_MAPS,
    SEAT_KEYS,
    SPECTATOR_SEAT_PART,
    bulky_sources,
    bulky_value,
    card_dict,
    game_part,
    idle_seat_key,
    location_dict,
    seat_choices,
    turn_part,
)

_packer = msgpack.Packer(use_bin_type=True)  # reused: packb builds a new Packer every call
# The Packer's methods, called directly: a wrapper per call costs more than most packs.
_pack: Callable[[object], bytes] = _packer.pack
_map_header: Callable[[int], bytes] = _packer.pack_map_header
_array_header: Callable[[int], bytes] = _packer.pack_array_header


def encode(message: dict[str, Any]) -> bytes:
    """``protocol.codec.encode`` with the server's reused Packer (the server is one thread)."""
    body = _pack(message)
    return _HEADER.pack(len(body)) + body


def _pairs(mapping: dict[str, Any]) -> bytes:
    """The packed key/value pairs of ``mapping`` without the map header."""
    size = len(mapping)
    return _pack(mapping)[1 if size < 16 else len(_map_header(size)) :]  # a fixmap: 1 byte


# id(card) -> its packed map, for every card of the static decks the engine deals from. They live
# as long as the process, so no other object can have their id.
_DECK_BYTES: dict[int, bytes] = {
    id(card): _pack(card_dict(card)) for deck in GAME_DECKS.values() for card in deck
}
_DECK_BYTES.update(
    {id(loc): _pack(location_dict(loc)) for deck in LOCATION_DECKS.values() for loc in deck}
)


def _packed_cards(cards: list[Any], to_map: Callable[[Any], dict[str, Any]]) -> bytes:
    """The packed list of ``cards``' maps, joined from each card's bytes packed once."""
    try:
        return _array_header(len(cards)) + b"".join([_DECK_BYTES[id(card)] for card in cards])
    except KeyError:  # a card made outside the static decks (a test's stacked deck)
        return _pack([to_map(card) for card in cards])


def _packed_bulky(key: str, source: list[Any]) -> bytes:
    """``key`` and its value, packed as :func:`server.engine.views.public_view` builds it."""
    to_map = PILE_MAPS.get(key)
    if to_map is None:
        return _pack(key) + _pack(bulky_value(key, source))
    return _pack(key) + _packed_cards(source, to_map)


# A state frame's packed keys: its head (up to the room code) and the keys of a seat's part, in
# SEAT_KEYS order; the seat and hand keys are joined with the seat numbers.
_HEAD = _map_header(4) + _pack("type") + _pack("state") + _pack("room")
_VERSION, _VIEW = _pack("version"), _pack("view")
_SEAT, _HAND, _RESOURCES, _DECISION, _LEGAL = (_pack(key) for key in SEAT_KEYS)
_SEAT_HAND = [_SEAT + _pack(seat) + _HAND for seat in range(16)]
# A spectator's seat part, the same for every game.
_SPECTATOR = _pairs(SPECTATOR_SEAT_PART)


class _GameCache:
    """What stays packed from one version of a game to the next."""

    def __init__(self, game: Game) -> None:
        constant = game_part(game)
        size = len(constant) + len(turn_part(game)) + len(BULKY_KEYS) + len(SEAT_KEYS)
        # the view's map header, then the pairs of the keys fixed for the game
        self.constant = _map_header(size) + _pairs(constant)
        # key of views.BULKY_KEYS -> (a copy of its source, its packed key and value)
        self.bulky: dict[str, tuple[list[Any], bytes]] = {}
        # seat -> (idle_seat_key, packed seat pairs) of the seats with nothing to decide
        self.idle: dict[int, tuple[tuple[int, ...], bytes]] = {}


class StateFrames:
    """The ``state`` frames of one version of a room's game, built on demand per recipient."""

    def __init__(self, game: Game, room: str, version: int,
                 previous: StateFrames | None = None) -> None:  # fmt: skip
        self.game = game
        self._cache: _GameCache
        if previous is not None and previous.game is game:
            self._cache = previous._cache
        else:
            self._cache = _GameCache(game)
        self.version = version
        self._head = b"".join((_HEAD, _pack(room), _VERSION, _pack(version), _VIEW))
        self._shared: bytes | None = None
        self.legal: dict[int, list[dict[str, Any]]] = {}  # seat -> view.legal, as sent

    def _build_shared(self) -> bytes:
        cache = self._cache
        parts = [self._head, cache.constant, _pairs(turn_part(self.game))]
        old_bulky = cache.bulky
        bulky: dict[str, tuple[list[Any], bytes]] = {}
        for key, source in bulky_sources(self.game).items():
            old = old_bulky.get(key)
            if old is None or old[0] != source:
                old = (list(source), _packed_bulky(key, source))
            bulky[key] = old
            parts.append(old[1])
        cache.bulky = bulky
        self._shared = b"".join(parts)
        return self._shared

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        shared = self._shared if self._shared is not None else self._build_shared()
        part = _SPECTATOR if seat is None else self._seat_pairs(seat)
        return b"".join((_HEADER.pack(len(shared) + len(part)), shared, part))

    def _seat_pairs(self, seat: int) -> bytes:
        game = self.game
        key = idle_seat_key(game, seat)
        if key is not None:
            self.legal[seat] = []
            cached = self._cache.idle.get(seat)
            if cached is not None and cached[0] == key:
                return cached[1]
            mine: dict[str, Any] | None = None
            legal: list[dict[str, Any]] = []
        else:
            mine, legal = seat_choices(game, seat)
            self.legal[seat] = legal
        s = game.rules.s
        packed = b"".join((_SEAT_HAND[seat], _packed_cards(s.hands[seat], card_dict),
                           _RESOURCES, _pack(s.units(seat)), _DECISION, _pack(mine),
                           _LEGAL, _pack(legal)))  # fmt: skip
        if key is not None:
            self._cache.idle[seat] = (key, packed)
        return packed
