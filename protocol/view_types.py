"""The view inside a ``state``: the public part every member sees (players, board, piles,
who decides), and the seat's own (its hand and what it decides), as classes that read
themselves from the wire (``from_wire``, checking every field) and write themselves back. The
rules engine makes these maps (server/engine/views.py); PROTOCOL.md §6 describes every field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import MalformedMessage
from protocol.fields import (
    as_cell,
    as_map,
    get_bool,
    get_choice_of,
    get_count,
    get_int,
    get_ints,
    get_items,
    get_opt_int,
    get_str,
    get_strs,
)
from protocol.game_types import EDITIONS, Card, Cell, Choice, Decision, Location
from protocol.vocabulary import DECISIONS

PHASES = ("setup", "draw", "actions", "stay_or_move", "over")


@dataclass(frozen=True, slots=True)
class Player:
    """A seat's character as everyone sees it."""

    seat: int
    name: str
    col: int
    row: int
    alive: bool
    hand_count: int
    face_down: bool  # a shark pick of theirs lies face down
    flared: bool  # Solar Flare below: no action cards

    @classmethod
    def from_wire(cls, value: object, where: str = "player") -> Player:
        """Read a player."""
        m = as_map(value, where)
        return cls(
            get_count(m, "seat", where),
            get_str(m, "name", where),
            get_int(m, "col", where),
            get_int(m, "row", where),
            get_bool(m, "alive", where),
            get_count(m, "hand_count", where),
            get_bool(m, "face_down", where),
            get_bool(m, "flared", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The player's wire map."""
        return {
            "seat": self.seat,
            "name": self.name,
            "col": self.col,
            "row": self.row,
            "alive": self.alive,
            "hand_count": self.hand_count,
            "face_down": self.face_down,
            "flared": self.flared,
        }


@dataclass(frozen=True, slots=True)
class Placed:
    """A location card lying on the board at (``col``, ``row``)."""

    col: int
    row: int
    card: Location

    @classmethod
    def from_wire(cls, value: object, where: str = "board") -> Placed:
        """Read a placed location card."""
        m = as_map(value, where)
        card = Location.from_wire(m.get("card"), f"{where}.card")
        return cls(get_int(m, "col", where), get_int(m, "row", where), card)

    def to_wire(self) -> dict[str, Any]:
        """The placed card's wire map."""
        return {"col": self.col, "row": self.row, "card": self.card.to_wire()}


@dataclass(frozen=True, slots=True)
class Pending:
    """A seat that must decide now (public): the decision's kind, and whether it has already
    picked (a simultaneous decision)."""

    seat: int
    kind: str
    done: bool

    @classmethod
    def from_wire(cls, value: object, where: str = "pending") -> Pending:
        """Read a pending seat."""
        m = as_map(value, where)
        kind = get_choice_of(m, "kind", tuple(DECISIONS), where)
        return cls(get_count(m, "seat", where), kind, get_bool(m, "done", where))

    def to_wire(self) -> dict[str, Any]:
        """The pending seat's wire map."""
        return {"seat": self.seat, "kind": self.kind, "done": self.done}


def _top_card(m: Mapping[str, Any], key: str, where: str) -> Card | None:
    """``m[key]``: a card, or None; present either way."""
    if key not in m:
        raise MalformedMessage(f"{where}.{key}", "a card or None")
    value = m[key]
    return None if value is None else Card.from_wire(value, f"{where}.{key}")


@dataclass(frozen=True)
class PublicView:
    """What everyone in the room sees of the game (the spectator view)."""

    edition: str
    variants: tuple[str, ...]
    seats: int
    names: tuple[str, ...]
    rows: int
    turn: int
    active: int
    phase: str
    goal_row: int
    over: bool
    winner: int | None
    actions_played: int
    last_moved: int | None
    sharks: tuple[Cell, ...]
    draw_count: int
    loc_draw_count: int
    pending: tuple[Pending, ...]
    players: tuple[Player, ...]
    board: tuple[Placed, ...]
    #: The discard piles by card id, bottom first (game cards and location cards are numbered
    #: apart), and the game discard pile's top card whole (None when the pile is empty).
    discard: tuple[int, ...]
    discard_top: Card | None
    loc_discard: tuple[int, ...]

    @classmethod
    def from_wire(cls, value: object, where: str = "view") -> PublicView:
        """Read the public part of a view."""
        m = as_map(value, where)
        return cls(
            edition=get_choice_of(m, "edition", EDITIONS, where),
            variants=get_strs(m, "variants", where),
            seats=get_count(m, "seats", where),
            names=get_strs(m, "names", where),
            rows=get_count(m, "rows", where),
            turn=get_count(m, "turn", where),
            active=get_count(m, "active", where),
            phase=get_choice_of(m, "phase", PHASES, where),
            goal_row=get_int(m, "goal_row", where),
            over=get_bool(m, "over", where),
            winner=get_opt_int(m, "winner", where),
            actions_played=get_count(m, "actions_played", where),
            last_moved=get_opt_int(m, "last_moved", where),
            sharks=get_items(m, "sharks", where, as_cell),
            draw_count=get_count(m, "draw_count", where),
            loc_draw_count=get_count(m, "loc_draw_count", where),
            pending=get_items(m, "pending", where, Pending.from_wire),
            players=get_items(m, "players", where, Player.from_wire),
            board=get_items(m, "board", where, Placed.from_wire),
            discard=get_ints(m, "discard", where),
            discard_top=_top_card(m, "discard_top", where),
            loc_discard=get_ints(m, "loc_discard", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The public part's wire map."""
        return {
            "edition": self.edition,
            "variants": list(self.variants),
            "seats": self.seats,
            "names": list(self.names),
            "rows": self.rows,
            "turn": self.turn,
            "active": self.active,
            "phase": self.phase,
            "goal_row": self.goal_row,
            "over": self.over,
            "winner": self.winner,
            "actions_played": self.actions_played,
            "last_moved": self.last_moved,
            "sharks": [list(cell) for cell in self.sharks],
            "draw_count": self.draw_count,
            "loc_draw_count": self.loc_draw_count,
            "pending": [p.to_wire() for p in self.pending],
            "players": [p.to_wire() for p in self.players],
            "board": [p.to_wire() for p in self.board],
            "discard": list(self.discard),
            "discard_top": None if self.discard_top is None else self.discard_top.to_wire(),
            "loc_discard": list(self.loc_discard),
        }


#: The keys in which a seat's view differs from the spectator view (see :class:`SeatPart`).
SEAT_KEYS = ("seat", "hand", "resources", "decision", "legal")
#: Their values in the spectator view: no seat, no hand, nothing to decide.
SPECTATOR_PART: dict[str, Any] = {
    "seat": None,
    "hand": None,
    "resources": None,
    "decision": None,
    "legal": [],
}


@dataclass(frozen=True)
class SeatPart:
    """What only the seat itself sees: its hand, its resource units, and what it decides now
    (``decision`` None and ``legal`` empty when it has nothing to decide)."""

    seat: int
    hand: tuple[Card, ...]
    resources: int
    decision: Decision | None
    legal: tuple[Choice, ...]

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], where: str = "view") -> SeatPart:
        """Read the seat's part of a view (its :data:`SEAT_KEYS`)."""
        decision = m.get("decision")
        legal = get_items(m, "legal", where, Choice.from_wire)
        part = cls(
            get_count(m, "seat", where),
            get_items(m, "hand", where, Card.from_wire),
            get_count(m, "resources", where),
            None if decision is None else Decision.from_wire(decision, f"{where}.decision"),
            legal,
        )
        if (part.decision is None) != (not legal):
            raise MalformedMessage(f"{where}.legal", "empty exactly when there is no decision")
        return part

    def to_wire(self) -> dict[str, Any]:
        """The seat part's wire map."""
        return {
            "seat": self.seat,
            "hand": [c.to_wire() for c in self.hand],
            "resources": self.resources,
            "decision": None if self.decision is None else self.decision.to_wire(),
            "legal": [c.to_wire() for c in self.legal],
        }


@dataclass(frozen=True)
class View:
    """A ``state``'s view: the public part, and the seat's own part (None: a spectator)."""

    public: PublicView
    own: SeatPart | None = None

    @classmethod
    def from_wire(cls, value: object, where: str = "view") -> View:
        """Read a view: one flat map, the spectator's :data:`SPECTATOR_PART` or a seat's."""
        m = as_map(value, where)
        public = PublicView.from_wire(m, where)
        if m.get("seat") is None:
            for key, empty in SPECTATOR_PART.items():
                if m.get(key, empty) != empty or type(m.get(key, empty)) is not type(empty):
                    raise MalformedMessage(f"{where}.{key}", f"{empty!r} in a spectator's view")
            return cls(public, None)
        own = SeatPart.from_wire(m, where)
        if own.seat >= public.seats:
            raise MalformedMessage(f"{where}.seat", "one of the game's seats")
        return cls(public, own)

    def to_wire(self) -> dict[str, Any]:
        """The view's wire map."""
        out = self.public.to_wire()
        out.update(SPECTATOR_PART if self.own is None else self.own.to_wire())
        return out

    @property
    def legal(self) -> tuple[Choice, ...]:
        """The seat's legal choices now (none for a spectator)."""
        return () if self.own is None else self.own.legal
