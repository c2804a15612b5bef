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
from server.engine.cards import GAME_DECKS, LOCATION_DECKS, Location
from server.engine.views import (
    BULKY_KEYS,
    PILE_MAPS,
    PLAYER_KEYS,
    SEAT_KEYS,
    SPECTATOR_SEAT_PART,
    board_entry,
    bulky_sources,
    card_dict,
    game_part,
    idle_seat_key,
    location_dict,
    player_values,
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


def _joined(cards: list[Any], to_map: Callable[[Any], dict[str, Any]]) -> bytes:
    """``cards``' maps packed one after the other (a packed list without its header), joined
    from each card's bytes packed once."""
    try:
        return b"".join([_DECK_BYTES[id(card)] for card in cards])
    except KeyError:  # a card made outside the static decks (a test's stacked deck)
        return b"".join([_pack(to_map(card)) for card in cards])


def _packed_cards(cards: list[Any], to_map: Callable[[Any], dict[str, Any]]) -> bytes:
    """The packed list of ``cards``' maps."""
    return _array_header(len(cards)) + _joined(cards, to_map)


# A bulky key's entry in a game's cache: (a copy of its source, its key and value packed, and
# for a pile its cards packed without the list header).
_Bulky = tuple[list[Any], bytes, bytes]


def _bulky_entry(key: str, source: list[Any], old: _Bulky | None) -> _Bulky:
    """The cache entry of ``key`` (one of ``views.BULKY_KEYS``) for ``source``. A pile mostly
    grows by a card or two on top: its old cards' bytes are then reused as they are."""
    to_map = PILE_MAPS.get(key)
    if to_map is None:  # the board, the one bulky key that is not a pile
        return list(source), _pack(key) + _packed_board(source), b""
    if old is not None and len(source) > len(old[0]) and source[: len(old[0])] == old[0]:
        cards = old[2] + _joined(source[len(old[0]) :], to_map)
    else:
        cards = _joined(source, to_map)
    return list(source), _pack(key) + _array_header(len(source)) + cards, cards


# (col, row, id(location)) -> (the location, its packed board entry). At most the cells of a
# board times the static location cards, and a move changes one or two entries of a board.
_BOARD_ENTRIES: dict[tuple[int, int, int], tuple[object, bytes]] = {}


def _packed_board(source: list[tuple[tuple[int, int], Location]]) -> bytes:
    """The packed ``board`` of :func:`server.engine.views.bulky_value`, joined from each
    entry's bytes."""
    cells = sorted(source)
    parts = [_array_header(len(cells))]
    for cell, loc in cells:
        key = (cell[0], cell[1], id(loc))
        hit = _BOARD_ENTRIES.get(key)
        if hit is None or hit[0] is not loc:
            hit = _BOARD_ENTRIES[key] = (loc, _pack(board_entry(cell, loc)))
        parts.append(hit[1])
    return b"".join(parts)


# A state frame's packed keys: its head (up to the room code) and the keys of a seat's part, in
# SEAT_KEYS order; the seat and hand keys are joined with the seat numbers.
_HEAD = _map_header(4) + _pack("type") + _pack("state") + _pack("room")
_VERSION, _VIEW = _pack("version"), _pack("view")
_SEAT, _HAND, _RESOURCES, _DECISION, _LEGAL = (_pack(key) for key in SEAT_KEYS)
_SEAT_HAND = [_SEAT + _pack(seat) + _HAND for seat in range(16)]
_PLAYERS = _pack("players")
# A spectator's seat part, the same for every game.
_SPECTATOR = _pairs(SPECTATOR_SEAT_PART)


class _GameCache:
    """What stays packed from one version of a game to the next."""

    def __init__(self, game: Game) -> None:
        constant = game_part(game)
        # the turn part's keys and "players" (packed apart), the bulky keys and the seat keys
        size = len(constant) + len(turn_part(game, players=False)) + 1 + len(BULKY_KEYS)
        size += len(SEAT_KEYS)
        # the view's map header, then the pairs of the keys fixed for the game
        self.constant = _map_header(size) + _pairs(constant)
        # key of views.BULKY_KEYS -> its entry
        self.bulky: dict[str, _Bulky] = {}
        # seat -> (idle_seat_key, packed seat pairs) of the seats with nothing to decide
        self.idle: dict[int, tuple[tuple[int, ...], bytes]] = {}
        # views.player_values entry -> its packed map: most changes leave most players as they
        # were; the entries seen in one game are few (positions, hand sizes, ...)
        self.players: dict[tuple[Any, ...], bytes] = {}


class StateFrames:
    """The ``state`` frames of one version of a room's game, built on demand per recipient."""

    def __init__(
        self, game: Game, room: str, version: int, previous: StateFrames | None = None
    ) -> None:
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
        game = self.game
        parts = [self._head, cache.constant, _pairs(turn_part(game, players=False)), _PLAYERS]
        values = player_values(game)
        parts.append(_array_header(len(values)))
        players = cache.players
        for entry in values:
            packed = players.get(entry)
            if packed is None:
                packed = players[entry] = _pack(dict(zip(PLAYER_KEYS, entry, strict=True)))
            parts.append(packed)
        old_bulky = cache.bulky
        bulky: dict[str, _Bulky] = {}
        for key, source in bulky_sources(game).items():
            old = old_bulky.get(key)
            new = old if old is not None and old[0] == source else _bulky_entry(key, source, old)
            bulky[key] = new
            parts.append(new[1])
        cache.bulky = bulky
        self._shared = b"".join(parts)
        return self._shared

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        return b"".join(self.frame_parts(seat))

    def frame_parts(self, seat: int | None) -> tuple[bytes, bytes, bytes]:
        """:meth:`frame` in three pieces, for a caller that joins them with other frames: a
        frame is a few kilobytes, and every copy of it counts at thousands a second."""
        shared = self._shared if self._shared is not None else self._build_shared()
        part = _SPECTATOR if seat is None else self._seat_pairs(seat)
        return _HEADER.pack(len(shared) + len(part)), shared, part

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
        state = game.rules.state
        packed = b"".join(
            (
                _SEAT_HAND[seat],
                _packed_cards(state.hands[seat], card_dict),
                _RESOURCES,
                _pack(state.units(seat)),
                _DECISION,
                _pack(mine),
                _LEGAL,
                _pack(legal),
            )
        )
        if key is not None:
            self._cache.idle[seat] = (key, packed)
        return packed
