"""Encoding ``state`` frames once per change: the shared part of the view is packed once.

Every seat's view is the spectator view with the keys of ``views.SEAT_KEYS`` replaced. A msgpack
map is its header followed by its key/value pairs in any order, so a state frame for one
recipient is the packed shared pairs (built and packed once per change, whatever the number of
recipients) plus that seat's own pairs. The decoded message equals ``{"type": "state", "room":
..., "version": ..., "view": game.view(seat)}``; only the order of the view's keys differs.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from protocol.framing import HEADER as _HEADER
from server.engine import Game
from server.engine.views import SEAT_KEYS

_SEAT_KEYS = frozenset(SEAT_KEYS)


def _card_ids(cards: list[dict[str, Any]]) -> tuple[object, ...]:
    return tuple([card["id"] for card in cards])


def _board_ids(board: list[dict[str, Any]]) -> tuple[object, ...]:
    return tuple([(place["col"], place["row"], place["card"]["id"]) for place in board])


# The large parts of the shared view, which most changes leave as they were. Each has a compact
# fingerprint: a card's map is fixed by its id within a game, so equal fingerprints mean equal
# values, and the previous version's packed bytes are reused (checking costs a fraction of
# packing again, and a fingerprint is far smaller to keep than the value).
_STABLE_KEYS = {"discard": _card_ids, "board": _board_ids, "loc_discard": _card_ids}
_packer = msgpack.Packer(use_bin_type=True)  # reused: packb builds a new Packer every call


def _pack(obj: object) -> bytes:
    data = _packer.pack(obj)
    assert isinstance(data, bytes)
    return data


def _map_header(size: int) -> bytes:
    data = _packer.pack_map_header(size)
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


class StateFrames:
    """The ``state`` frames of one version of a room's game, built on demand per recipient."""

    def __init__(self, game: Game, room: str, version: int,
                 previous: StateFrames | None = None) -> None:  # fmt: skip
        self.game = game
        # fingerprint and packed pair of each of _STABLE_KEYS, from the previous version of
        # this game (fingerprints hold only within one game)
        self._stable: dict[str, tuple[object, bytes]] = (
            previous._stable if previous is not None and previous.game is game else {}
        )
        self.version = version
        self._head = b"".join((_map_header(4), _pack("type"), _pack("state"), _pack("room"),
                               _pack(room), _pack("version"), _pack(version), _pack("view")))
        self._shared: bytes | None = None
        self._spectator = b""
        self._size = 0
        self.legal: dict[int, list[dict[str, Any]]] = {}  # seat -> view.legal, as sent

    def _build_shared(self) -> bytes:
        view = self.game.public_view()
        self._size = len(view)
        self._spectator = _pairs({key: view[key] for key in SEAT_KEYS})
        stable: dict[str, tuple[object, bytes]] = {}
        parts = [self._head, _map_header(self._size)]
        for key, fingerprint in _STABLE_KEYS.items():
            value = view.pop(key)
            print_ = fingerprint(value)
            old = self._stable.get(key)
            packed = old[1] if old is not None and old[0] == print_ else _pack(key) + _pack(value)
            stable[key] = (print_, packed)
            parts.append(packed)
        self._stable = stable
        parts.append(_pairs({k: v for k, v in view.items() if k not in _SEAT_KEYS}))
        self._shared = b"".join(parts)
        return self._shared

    def frame(self, seat: int | None) -> bytes:
        """The complete frame (length prefix included) for ``seat`` (None: a spectator)."""
        shared = self._shared if self._shared is not None else self._build_shared()
        part = self._spectator if seat is None else self._seat_pairs(seat)
        return b"".join((_HEADER.pack(len(shared) + len(part)), shared, part))

    def _seat_pairs(self, seat: int) -> bytes:
        view = self.game.seat_view(seat)
        self.legal[seat] = view["legal"]
        return _pairs(view)
