"""Stored games as plain values: the rows of ``games`` and ``decisions`` read back.

A column that does not decode (bad JSON, a decision that is not a msgpack map) raises
:class:`CorruptRow`: the store then marks that game abandoned, or leaves it out, with a log
line, instead of stopping the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import unpack

# The columns of ``games`` that :func:`game_from_row` reads, in its order.
GAME_COLUMNS = (
    "id, room, edition, names, seats, settings, seed, version_base, status, winner, turns, ended"
)


@dataclass
class StoredGame:
    """One game as stored: enough to rebuild it with the engine and resume the room."""

    id: int
    room: str
    edition: str
    names: list[str]
    seats: list[dict[str, Any]]
    settings: dict[str, Any]
    seed: int
    version_base: int
    status: str
    winner: int | None
    turns: int | None
    ended: float | None
    decisions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # the server's own events (position in the game's log, event record), in order
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    @property
    def variants(self) -> list[str]:
        """The game's variants (rule ids of RULES V), kept in its settings; none in games
        stored before variants existed."""
        return [str(rule) for rule in self.settings.get("variants", [])]


class StoreUnavailable(Exception):
    """The database refuses writes: a new game cannot be recorded."""


class CorruptRow(ValueError):
    """A stored game whose row or decisions cannot be read back."""


def game_from_row(row: tuple[Any, ...]) -> StoredGame:
    """A game (without its decisions) from its :data:`GAME_COLUMNS`; raises CorruptRow."""
    try:
        return StoredGame(
            id=row[0],
            room=row[1],
            edition=row[2],
            names=_json_list(row[3]),
            seats=_json_list(row[4]),
            settings=_json_map(row[5]),
            seed=row[6],
            version_base=row[7],
            status=row[8],
            winner=row[9],
            turns=row[10],
            ended=row[11],
        )
    except ValueError as exc:
        raise CorruptRow(f"game {row[0]}: {exc}") from exc


def choice_from_blob(game: int, n: int, blob: bytes) -> dict[str, Any]:
    """Decision ``n`` of ``game`` read back; raises CorruptRow unless it is a msgpack map."""
    try:
        choice = unpack(blob)
    except ValueError as exc:
        raise CorruptRow(f"game {game}, decision {n}: {exc}") from exc
    if not isinstance(choice, dict):
        raise CorruptRow(f"game {game}, decision {n} is not a map")
    return choice


def _json_list(text: str) -> list[Any]:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError("not a JSON list")
    return value


def _json_map(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON map")
    return value
