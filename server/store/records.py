"""Stored rows as plain values: players, the rows of ``games`` and ``decisions``, and the
waiting rooms (``waiting_rooms``) read back.

Every column is checked for the type it must have: SQLite keeps whatever a row was given (a
token stored as a BLOB, a seed as text), and one such row must not stop the server. A row that
cannot be used (a wrong type, bad JSON, a decision that is not a msgpack map) raises
:class:`CorruptRow`: the store then skips that player, or marks that game abandoned, or leaves
it out, with a log line.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import unpack
from server.store.tokens import is_hash

log = logging.getLogger("selfish.server")

# The columns of ``games`` that :func:`game_from_row` reads, in its order.
GAME_COLUMNS = (
    "id, room, edition, names, seats, settings, seed, version_base, status, winner, turns, ended, "
    "started, rated, digest"
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
    started: float = 0.0
    rated: bool = False  # counted for ratings (decided when it ended, server.store.ratings)
    digest: str | None = None  # the final-state check (server.engine.digest); None before it
    decisions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # the server's own events (position in the game's log, event record), in order
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # read with the game for a takeover (None: not read, the store reads them when asked):
    # the chat lines held for its players, and who watched it
    held_chat: list[dict[str, Any]] | None = None
    spectators: list[str] | None = None
    # read with it for a takeover (None: not read): its members' (id, token hash, name) by
    # id, those found (players made on another node need not be known here)
    players: dict[str, tuple[str, str, str]] | None = None

    @property
    def variants(self) -> list[str]:
        """The game's variants (rule ids of RULES V), kept in its settings; none in games
        stored before variants existed."""
        return [str(rule) for rule in self.settings.get("variants", [])]


# The columns of ``waiting_rooms`` that :func:`waiting_from_row` reads, in its order.
WAITING_COLUMNS = "room, edition, seats, members, settings"


@dataclass(frozen=True)
class StoredWaiting:
    """A room whose game has not started, as stored: enough to open it again."""

    room: str
    edition: str
    seats: list[dict[str, Any] | None]  # every seat in order, None for a free one
    members: dict[str, str]  # player id -> "player" or "spectator", in join order
    settings: dict[str, Any]
    # read with it for a takeover (None: not read): as StoredGame.players
    players: dict[str, tuple[str, str, str]] | None = None


class StoreUnavailable(Exception):
    """The database refuses writes: a new game cannot be recorded."""


class CorruptRow(ValueError):
    """A stored game whose row or decisions cannot be read back."""


# A player by its token, and a player's stored token hash: a hello's reads (the store's, and
# in a cluster the sideline's, server.cluster.node.Cluster.hello_later).
PLAYER_BY_TOKEN = "SELECT id, token, name FROM players WHERE token = ?"
TOKEN_OF = "SELECT token FROM players WHERE id = ?"


def player_from_rows(rows: list[tuple[Any, ...]]) -> tuple[str, str, str] | None:
    """(id, token hash, name) of the first of ``rows`` (:data:`PLAYER_BY_TOKEN`'s), or None;
    a row that cannot be used is logged and counts as none."""
    try:
        return player_from_row(rows[0]) if rows else None
    except CorruptRow as exc:
        log.error("%s; skipped", exc)
        return None


def token_from_rows(rows: list[tuple[Any, ...]]) -> str | None:
    """The token hash :data:`TOKEN_OF`'s ``rows`` hold (None once revoked or pruned)."""
    token = rows[0][0] if rows else None
    return token if isinstance(token, str) and is_hash(token) else None


def player_from_row(row: tuple[Any, ...]) -> tuple[str, str, str]:
    """(id, token hash, name) of a ``players`` row; raises CorruptRow unless all are text."""
    pid, token, name = row
    for column, value in (("id", pid), ("token", token), ("name", name)):
        if not isinstance(value, str):
            raise CorruptRow(f"player {pid!r}: {column} is {_kind(value)}, not text")
    return pid, token, name


def game_from_row(row: tuple[Any, ...]) -> StoredGame:
    """A game (without its decisions) from its :data:`GAME_COLUMNS`; raises CorruptRow."""
    try:
        return StoredGame(
            id=_typed(row[0], int, "id"),
            room=_typed(row[1], str, "room"),
            edition=_typed(row[2], str, "edition"),
            names=[_typed(name, str, "a name") for name in _json_list(row[3], "names")],
            seats=[_typed(seat, dict, "a seat") for seat in _json_list(row[4], "seats")],
            settings=_json_map(row[5], "settings"),
            seed=_typed(row[6], int, "seed"),
            version_base=_typed(row[7], int, "version_base"),
            status=_typed(row[8], str, "status"),
            winner=_optional(row[9], int, "winner"),
            turns=_optional(row[10], int, "turns"),
            ended=_optional(row[11], (int, float), "ended"),
            started=float(_typed(row[12], (int, float), "started")),
            rated=bool(_optional(row[13], int, "rated")),
            digest=_optional(row[14], str, "digest"),
        )
    except ValueError as exc:
        raise CorruptRow(f"game {row[0]}: {exc}") from exc


def waiting_from_row(row: tuple[Any, ...]) -> StoredWaiting:
    """A waiting room from its :data:`WAITING_COLUMNS`; raises CorruptRow."""
    try:
        members = _json_map(row[3], "members")
        return StoredWaiting(
            room=_typed(row[0], str, "room"),
            edition=_typed(row[1], str, "edition"),
            seats=[
                None if seat is None else _typed(seat, dict, "a seat")
                for seat in _json_list(row[2], "seats")
            ],
            members={
                _typed(player, str, "a member"): _typed(role, str, "a role")
                for player, role in members.items()
            },
            settings=_json_map(row[4], "settings"),
        )
    except ValueError as exc:
        raise CorruptRow(f"waiting room {row[0]!r}: {exc}") from exc


def choice_from_blob(game: int, n: int, blob: object) -> dict[str, Any]:
    """Decision ``n`` of ``game`` read back; raises CorruptRow unless it is a msgpack map."""
    if not isinstance(blob, bytes):
        raise CorruptRow(f"game {game}, decision {n} is {_kind(blob)}, not a BLOB")
    try:
        choice = unpack(blob)
    except ValueError as exc:
        raise CorruptRow(f"game {game}, decision {n}: {exc}") from exc
    if not isinstance(choice, dict):
        raise CorruptRow(f"game {game}, decision {n} is not a map")
    return choice


def event_from_row(game: int, position: object, event: object) -> tuple[int, dict[str, Any]]:
    """One of the server's own events of ``game`` read back; raises CorruptRow."""
    try:
        return _typed(position, int, "a server event's position"), _json_map(event, "an event")
    except ValueError as exc:
        raise CorruptRow(f"game {game}: {exc}") from exc


def json_text(value: object, what: str) -> Any:
    """The JSON ``value`` holds; ValueError unless it is text that decodes."""
    if not isinstance(value, str):
        raise ValueError(f"{what} is {_kind(value)}, not JSON text")
    try:
        return json.loads(value)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from exc


def _json_list(value: object, what: str) -> list[Any]:
    decoded = json_text(value, what)
    if not isinstance(decoded, list):
        raise ValueError(f"{what} is not a JSON list")
    return decoded


def _json_map(value: object, what: str) -> dict[str, Any]:
    decoded = json_text(value, what)
    if not isinstance(decoded, dict):
        raise ValueError(f"{what} is not a JSON map")
    return decoded


def _typed(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    # bool is an int to isinstance(); a stored JSON true is no seed or seat
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"{what} is {_kind(value)}")
    return value


def _optional(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    return None if value is None else _typed(value, kind, what)


def _kind(value: object) -> str:
    """How a log line names a stored value's type."""
    names = {bytes: "a BLOB", str: "text", int: "an integer", float: "a real", type(None): "NULL"}
    return names.get(type(value), f"a {type(value).__name__}")
