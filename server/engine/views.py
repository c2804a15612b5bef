"""Per-seat views: the only way state leaves the engine, redacted as RULES C4 requires."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .actions import Choice, Decision
from .cards import Card, Location
from .english import label
from .events import wire_value
from .rules import Rules


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


# Views are built for every seat after every decision, and a card's map never changes: each is
# made once and shared by every view after (views are read-only: copying each card's map for every
# view of every change cost more than all the rest of building it). Keyed by id() with the card
# kept in the entry, so that an id cannot be reused by another object while its entry exists.
_CARD_DICTS: dict[int, tuple[object, dict[str, Any]]] = {}


def card_dict(card: Card) -> dict[str, Any]:
    """A game card as a wire-safe map."""
    hit = _CARD_DICTS.get(id(card))
    if hit is None or hit[0] is not card:
        hit = _CARD_DICTS[id(card)] = (
            card,
            {
                "id": card.id,
                "key": card.key,
                "name": card.type.name,
                "kind": card.type.kind.value,
                "value": card.value,
                "dir": card.dir,
            },
        )
    return hit[1]


def location_dict(loc: Location) -> dict[str, Any]:
    """A location card as a wire-safe map."""
    hit = _CARD_DICTS.get(id(loc))
    if hit is None or hit[0] is not loc:
        hit = _CARD_DICTS[id(loc)] = (
            loc,
            {"id": loc.id, "key": loc.key, "name": loc.type.name, "shark": loc.shark},
        )
    return hit[1]


#: The keys in which one seat's view differs from the spectator view (see :func:`seat_view`).
SEAT_KEYS = ("seat", "hand", "resources", "decision", "legal")


def build_view(game: GameLike, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now; ``None`` is a spectator (no hand, public events only)."""
    view = public_view(game)
    if seat is not None:
        view.update(seat_view(game, seat))  # same keys: their order stays that of public_view
    return view


def seat_view(game: GameLike, seat: int) -> dict[str, Any]:
    """The :data:`SEAT_KEYS` part of ``seat``'s view: with :func:`public_view` it makes the
    whole view, so a server can build the shared part once per change for every seat."""
    state = game.rules.state
    mine, legal = seat_choices(game, seat)
    return {
        "seat": seat,
        "hand": [card_dict(c) for c in state.hands[seat]],
        "resources": state.units(seat),
        "decision": mine,
        "legal": legal,
    }


def seat_choices(game: GameLike, seat: int) -> tuple[dict[str, Any] | None, list[Choice]]:
    """The ``decision`` and ``legal`` values of ``seat``'s view: its open decision (None when
    it has nothing to decide) and its legal choices, labelled (and marked when fatal)."""
    decision = game.decision
    legal: list[Choice] = [decorate(game, seat, choice) for choice in game.legal(seat)]
    mine = None
    if decision is not None and legal:
        mine = {
            "kind": decision.kind.value,
            "prompt": decision.prompt,
            # The prompt's key and args (wire form) let each client say it in its own language.
            "prompt_key": decision.prompt_key or decision.kind.value,
            "prompt_args": {
                name: wire_value(value) for name, value in decision.prompt_args.items()
            },
            "reveal": [card_dict(c) for c in decision.reveal.get(seat, [])],
        }
    return mine, legal


def idle_seat_key(game: GameLike, seat: int) -> tuple[int, ...] | None:
    """While ``seat`` has nothing to decide, its :func:`seat_view` is fixed by the ids of the
    cards in its hand (in order), which this returns; None while it has choices. A server keeps
    the encoded seat part of a waiting seat and reuses it until its hand changes."""
    if game.legal(seat):
        return None
    return tuple([card.id for card in game.rules.state.hands[seat]])


#: The keys of the public view built from long lists of cards: most of a view's bytes, and mostly
#: unchanged from one change to the next (see :func:`bulky_sources`).
BULKY_KEYS = ("board", "discard", "loc_discard")


def bulky_sources(game: GameLike) -> dict[str, list[Any]]:
    """What each of :data:`BULKY_KEYS` is built from (by :func:`bulky_value`), as lists that
    compare equal exactly when the built values do: the piles' cards (immutable objects, so equal
    lists compare by identity, fast) and the board's (cell, location) pairs in the board's own
    order. A server rebuilds and re-encodes a part only when its source changed."""
    state = game.rules.state
    return {
        "board": list(state.board.items()),
        "discard": state.discard,
        "loc_discard": state.loc_discard,
    }


#: The piles among :data:`BULKY_KEYS` and how each maps its cards: a pile's value is the list of
#: its cards' maps, bottom to top.
PILE_MAPS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "discard": card_dict,
    "loc_discard": location_dict,
}


def bulky_value(key: str, source: list[Any]) -> list[dict[str, Any]]:
    """The view's value of ``key`` (one of :data:`BULKY_KEYS`) from its :func:`bulky_sources`."""
    if key == "board":
        return [board_entry(cell, loc) for cell, loc in sorted(source)]
    to_map = PILE_MAPS[key]
    return [to_map(card) for card in source]


def board_entry(cell: tuple[int, int], loc: Location) -> dict[str, Any]:
    """One entry of the view's ``board``: a face-up location card and its cell."""
    return {"col": cell[0], "row": cell[1], "card": location_dict(loc)}


def game_part(game: GameLike) -> dict[str, Any]:
    """The keys of the public view that stay the same for a whole game: a server encodes them
    once per game."""
    state = game.rules.state
    return {
        "edition": state.edition.value,
        "variants": list(game.variants),
        "seats": state.seats,
        "names": list(state.names),
        "rows": 7,
    }


def turn_part(game: GameLike, players: bool = True) -> dict[str, Any]:
    """The public view's keys that change from turn to turn, apart from the
    :data:`BULKY_KEYS`: with :func:`game_part`, the bulky keys and the :data:`SEAT_KEYS` (all
    None or empty in the public view) it makes the whole of :func:`public_view`.

    ``players=False`` leaves out the ``players`` key, for a caller that builds it from
    :func:`player_values` itself."""
    rules = game.rules
    state = rules.state
    decision = game.decision
    pending = []
    if decision is not None:
        picked = game.picked
        kind = decision.kind.value
        pending = [{"seat": o, "kind": kind, "done": o in picked} for o in decision.options]
    part = {
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
    }
    if players:
        part["players"] = [
            dict(zip(PLAYER_KEYS, values, strict=True)) for values in player_values(game)
        ]
    return part


#: The keys of an entry of the view's ``players``, in the order of :func:`player_values`.
PLAYER_KEYS = ("seat", "name", "col", "row", "alive", "hand_count", "face_down", "flared")


def player_values(game: GameLike) -> list[tuple[Any, ...]]:
    """The entries of the view's ``players``, each as its values in :data:`PLAYER_KEYS` order:
    tuples, so that a server can keep each entry encoded under them."""
    rules = game.rules
    state = rules.state
    names, cols, rows, alive, hands, held = (
        state.names,
        state.cols,
        state.rows,
        state.alive,
        state.hands,
        state.held,
    )
    flared = rules.flared
    return [
        (o, names[o], cols[o], rows[o], alive[o], len(hands[o]), o in held, flared(o))
        for o in range(state.seats)
    ]


#: The public view's values of the :data:`SEAT_KEYS`: a spectator has no hand and no choices.
SPECTATOR_SEAT_PART: dict[str, Any] = {
    "seat": None,
    "hand": None,
    "resources": None,
    "decision": None,
    "legal": [],
}


def public_view(game: GameLike) -> dict[str, Any]:
    """The spectator view: what everyone may see (the :data:`SEAT_KEYS` hold no secrets)."""
    view = game_part(game)
    view.update(turn_part(game))
    for key, source in bulky_sources(game).items():
        view[key] = bulky_value(key, source)
    view.update(SPECTATOR_SEAT_PART)
    view["legal"] = []  # every view gets a list of its own
    return view


def decorate(game: GameLike, seat: int, choice: Choice) -> Choice:
    """A copy of a choice with its English label and, where it certainly kills, ``fatal``."""
    rules = game.rules
    state = rules.state
    out = dict(choice)
    out["label"] = label(choice, state.edition, state.names)
    if rules.edition_rules.fatal(rules, seat, choice, rules.attack):
        out["fatal"] = True
    return out


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
