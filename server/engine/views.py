"""Per-seat views: the only way state leaves the engine, redacted as RULES C4 requires.

A view is the wire form of protocol.view_types.View: the public part (:func:`public_view`) and
the seat's own part (:func:`seat_view`, its keys :data:`SEAT_KEYS`), made of plain values: keys,
ids, seats and counts, never words."""

from __future__ import annotations

from typing import Any, Protocol

from .actions import Choice, Decision
from .cards import Card
from .events import card_dict, location_dict, wire_value
from .rules import Rules
from .state import State


class GameLike(Protocol):
    """What a view reads of a game (``game.Game``): its rules, setup and open decision."""

    rules: Rules
    seed: int
    variants: tuple[str, ...]
    decisions: list[tuple[int, Choice]]
    picked: dict[int, Choice]

    @property
    def decision(self) -> Decision | None:
        """The open decision."""

    @property
    def over(self) -> bool:
        """Whether the game has ended."""

    def pending_seats(self) -> list[int]:
        """Seats that must decide now."""

    def legal(self, seat: int) -> list[Choice]:
        """A seat's legal choices now."""


#: The keys in which one seat's view differs from the spectator view (see :func:`seat_view`):
#: those of :func:`hand_view`, then those of :func:`choices_view`.
SEAT_KEYS = ("seat", "hand", "resources", "decision", "legal")

#: The public view's values of the :data:`SEAT_KEYS`: a spectator has no hand and no choices.
SPECTATOR_SEAT_PART: dict[str, Any] = {
    "seat": None,
    "hand": None,
    "resources": None,
    "decision": None,
    "legal": [],
}


def build_view(game: GameLike, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now; ``None`` is a spectator (no hand, public events only)."""
    view = public_view(game)
    if seat is not None:
        view.update(seat_view(game, seat))  # same keys: their order stays that of public_view
    return view


def seat_view(game: GameLike, seat: int, shared: bool = False) -> dict[str, Any]:
    """The :data:`SEAT_KEYS` part of ``seat``'s view: with :func:`public_view` it makes the
    whole view, so a server can build the shared part once per change for every seat.
    ``shared``: the hand's cards are the cards' own wire maps, not copies, for a caller that
    only packs the view (the server's frames) and must not change them."""
    return {**hand_view(game, seat, shared), **choices_view(game, seat)}


def hand_view(game: GameLike, seat: int, shared: bool = False) -> dict[str, Any]:
    """The first keys of :func:`seat_view`: the seat, its hand and its resources, which are
    the same for the same cards in the hand (a server compares those instead of building it)."""
    state = game.rules.state
    hand = state.hands[seat]
    return {
        "seat": seat,
        "hand": [c.wire for c in hand] if shared else [card_dict(c) for c in hand],
        "resources": state.units(seat),
    }


def choices_view(game: GameLike, seat: int) -> dict[str, Any]:
    """The last keys of :func:`seat_view`: the seat's open decision and its legal choices (None
    and none when it has nothing to decide)."""
    decision = game.decision
    legal: list[Choice] = [decorate(game, seat, choice) for choice in game.legal(seat)]
    mine = None
    if decision is not None and legal:
        mine = {
            "kind": decision.kind.value,
            "args": {name: wire_value(value) for name, value in decision.args.items()},
            "reveal": [card_dict(c) for c in decision.reveal.get(seat, [])],
        }
    return {"decision": mine, "legal": legal}


def public_view(game: GameLike) -> dict[str, Any]:
    """The spectator view: what everyone may see (the :data:`SEAT_KEYS` hold no secrets). It is
    made of parts that change at different paces, in this order: :func:`setup_view`,
    :func:`play_view`, :func:`board_view`, :func:`piles_view`, then the seat keys (a server
    packs each part apart, and the parts that did not change not again)."""
    state = game.rules.state
    view = setup_view(game)
    view.update(play_view(game))
    view.update(board_view(state))
    view.update(piles_view(state))
    view.update(SPECTATOR_SEAT_PART)
    view["legal"] = []  # every view gets a list of its own
    return view


def setup_view(game: GameLike) -> dict[str, Any]:
    """The public view's keys that a game's setup decides (:func:`setup_of`)."""
    state = game.rules.state
    return {
        "edition": state.edition.value,
        "variants": list(game.variants),
        "seats": state.seats,
        "names": list(state.names),
        "rows": 7,
    }


def setup_of(game: GameLike) -> tuple[object, ...]:
    """What :func:`setup_view` is made of: equal for games set up alike."""
    state = game.rules.state
    return state.edition, tuple(game.variants), tuple(state.names)


def play_view(game: GameLike) -> dict[str, Any]:
    """The public view's keys that nearly every decision changes: the turn, the open decision's
    seats and the players on the table."""
    rules = game.rules
    state = rules.state
    decision = game.decision
    pending = []
    if decision is not None:
        kind = decision.kind.value
        pending = [{"seat": o, "kind": kind, "done": o in game.picked} for o in decision.options]
    return {
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "goal_row": state.goal_row,  # Shipwrecked: Raft Drift moves the raft (W6)
        "over": state.over,
        "winner": state.winner,
        "actions_played": state.actions_played,
        "last_moved": rules.last_moved,
        "sharks": [[col, row] for col, row in state.sharks],
        "draw_count": len(state.draw),
        "loc_draw_count": len(state.loc_draw),
        "pending": pending,
        "players": [
            {
                "seat": o,
                "name": state.names[o],
                "col": state.cols[o],
                "row": state.rows[o],
                "alive": state.alive[o],
                "hand_count": len(state.hands[o]),
                "face_down": o in state.held,
                "flared": rules.flared(o),
            }
            for o in range(state.seats)
        ],
    }


def board_view(state: State, shared: bool = False) -> dict[str, Any]:
    """The public view's board (``shared`` as in :func:`seat_view`), made of
    :func:`board_cards`; most decisions leave it as it was."""
    return {
        "board": [
            {"col": col, "row": row, "card": loc.wire if shared else location_dict(loc)}
            for (col, row), loc in sorted(state.board.items())
        ],
    }


def board_cards(state: State) -> tuple[object, ...]:
    """What :func:`board_view` is made of: equal cards on the same cells make an equal board
    (a server compares these instead of building it)."""
    return tuple(state.board.items())


def piles_view(state: State, shared: bool = False) -> dict[str, Any]:
    """The public view's discard piles (``shared`` as in :func:`seat_view`), made of
    :func:`pile_cards`."""
    return {
        # The piles by card id, and the top card whole: the discard pile was most of a
        # view's bytes, and a client shows its size and its top card.
        "discard": [card.id for card in state.discard],
        "discard_top": _top(state.discard, shared),
        "loc_discard": [loc.id for loc in state.loc_discard],
    }


def pile_cards(state: State) -> tuple[object, ...]:
    """What :func:`piles_view` is made of: equal cards in the same piles make equal piles."""
    return tuple(state.discard), tuple(state.loc_discard)


def _top(pile: list[Card], shared: bool) -> dict[str, Any] | None:
    """A pile's top card in wire form (its own map if ``shared``), None for an empty pile."""
    if not pile:
        return None
    return pile[-1].wire if shared else card_dict(pile[-1])


def decorate(game: GameLike, seat: int, choice: Choice) -> Choice:
    """The choice as the view shows it: a copy marked ``fatal`` where it certainly kills
    (C18), else the choice itself."""
    rules = game.rules
    if rules.edition_rules.fatal(rules, seat, choice, rules.attack):
        return {**choice, "fatal": True}
    return choice


def snapshot(game: GameLike) -> dict[str, Any]:
    """The complete state as plain data, secrets included: every field of the state and of the
    rules' own bookkeeping, the pending decision and its picks so far, and the random
    generator's whole state. Two games with equal snapshots go on alike whatever is decided."""
    rules = game.rules
    state = rules.state
    return {
        "edition": state.edition.value,
        "variants": list(game.variants),
        "names": list(state.names),
        "seed": game.seed,
        "decisions": len(game.decisions),
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "goal_row": state.goal_row,
        "over": state.over,
        "winner": state.winner,
        "actions_played": state.actions_played,
        "draw": [c.id for c in state.draw],
        "discard": [c.id for c in state.discard],
        "hands": [[c.id for c in hand] for hand in state.hands],
        "held": {str(k): v.id for k, v in sorted(state.held.items())},
        "cols": list(state.cols),
        "rows": list(state.rows),
        "alive": list(state.alive),
        "board": [[col, row, loc.id] for (col, row), loc in sorted(state.board.items())],
        "loc_draw": [loc.id for loc in state.loc_draw],
        "loc_discard": [loc.id for loc in state.loc_discard],
        "sharks": [list(cell) for cell in state.sharks],
        "first": state.first,
        "shark_turn": state.shark_turn,
        "travelling": rules.travelling,
        "last_moved": rules.last_moved,
        "attack": rules.attack,
        "rng": list(state.rng.getstate()[1]),
        "pending": {str(k): v for k, v in (game.decision.options.items() if game.decision else [])},
        "picked": {str(k): v for k, v in sorted(game.picked.items())},
    }
