"""Per-seat views: the only way state leaves the engine, redacted as RULES C4 requires."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .actions import Choice, first_payment
from .cards import GAME_DECKS, Card, Location, card_name

if TYPE_CHECKING:
    from .game import Game
    from .rules import Rules


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


def build_view(game: Game, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now; ``None`` is a spectator (no hand, public events only)."""
    view = public_view(game)
    if seat is not None:
        view.update(seat_view(game, seat))  # same keys: their order stays that of public_view
    return view


def seat_view(game: Game, seat: int) -> dict[str, Any]:
    """The :data:`SEAT_KEYS` part of ``seat``'s view: with :func:`public_view` it makes the
    whole view, so a server can build the shared part once per change for every seat."""
    s = game.rules.s
    mine, legal = seat_choices(game, seat)
    return {
        "seat": seat,
        "hand": [card_dict(c) for c in s.hands[seat]],
        "resources": s.units(seat),
        "decision": mine,
        "legal": legal,
    }


def seat_choices(game: Game, seat: int) -> tuple[dict[str, Any] | None, list[Choice]]:
    """The ``decision`` and ``legal`` values of ``seat``'s view: its open decision (None when
    it has nothing to decide) and its legal choices, labelled (and marked when fatal)."""
    rules = game.rules
    decision = game.decision
    legal: list[Choice] = [decorate(rules, seat, choice) for choice in game.legal(seat)]
    mine = None
    if decision is not None and legal:
        mine = {
            "kind": decision.kind,
            "prompt": decision.prompt,
            "reveal": [card_dict(c) for c in decision.reveal.get(seat, [])],
        }
    return mine, legal


def idle_seat_key(game: Game, seat: int) -> tuple[int, ...] | None:
    """While ``seat`` has nothing to decide, its :func:`seat_view` is fixed by the ids of the
    cards in its hand (in order), which this returns; None while it has choices. A server keeps
    the encoded seat part of a waiting seat and reuses it until its hand changes."""
    if game.legal(seat):
        return None
    return tuple([card.id for card in game.rules.s.hands[seat]])


#: The keys of the public view built from long lists of cards: most of a view's bytes, and mostly
#: unchanged from one change to the next (see :func:`bulky_sources`).
BULKY_KEYS = ("board", "discard", "loc_discard")


def bulky_sources(game: Game) -> dict[str, list[Any]]:
    """What each of :data:`BULKY_KEYS` is built from (by :func:`bulky_value`), as lists that
    compare equal exactly when the built values do: the piles' cards (immutable objects, so equal
    lists compare by identity, fast) and the board's (cell, location) pairs in the board's own
    order. A server rebuilds and re-encodes a part only when its source changed."""
    s = game.rules.s
    return {"board": list(s.board.items()), "discard": s.discard, "loc_discard": s.loc_discard}


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


def game_part(game: Game) -> dict[str, Any]:
    """The keys of the public view that stay the same for a whole game: a server encodes them
    once per game."""
    s = game.rules.s
    return {
        "edition": s.edition.value,
        "variants": list(game.variants),
        "seats": s.seats,
        "names": list(s.names),
        "rows": 7,
    }


def turn_part(game: Game, players: bool = True) -> dict[str, Any]:
    """The public view's keys that change from turn to turn, apart from the
    :data:`BULKY_KEYS`: with :func:`game_part`, the bulky keys and the :data:`SEAT_KEYS` (all
    None or empty in the public view) it makes the whole of :func:`public_view`.

    ``players=False`` leaves out the ``players`` key, for a caller that builds it from
    :func:`player_values` itself."""
    rules = game.rules
    s = rules.s
    decision = game.decision
    pending = []
    if decision is not None:
        picked = game._picks
        kind = decision.kind
        pending = [{"seat": o, "kind": kind, "done": o in picked} for o in decision.options]
    part = {
        "turn": s.turn,
        "active": s.active,
        "phase": s.phase,
        "goal_row": s.goal_row,  # Shipwrecked: Raft Drift moves the raft (W6)
        "over": s.over,
        "winner": s.winner,
        "actions_played": s.actions_played,
        "last_moved": rules.last_moved,
        "sharks": [[col, row] for col, row in s.sharks],
        "draw_count": len(s.draw),
        "loc_draw_count": len(s.loc_draw),
        "pending": pending,
    }
    if players:
        part["players"] = [
            dict(zip(PLAYER_KEYS, values, strict=True)) for values in player_values(game)
        ]
    return part


#: The keys of an entry of the view's ``players``, in the order of :func:`player_values`.
PLAYER_KEYS = ("seat", "name", "col", "row", "alive", "hand_count", "face_down", "flared")


def player_values(game: Game) -> list[tuple[Any, ...]]:
    """The entries of the view's ``players``, each as its values in :data:`PLAYER_KEYS` order:
    tuples, so that a server can keep each entry encoded under them."""
    rules = game.rules
    s = rules.s
    names, cols, rows, alive, hands, held = s.names, s.cols, s.rows, s.alive, s.hands, s.held
    flared = rules.flared
    return [
        (o, names[o], cols[o], rows[o], alive[o], len(hands[o]), o in held, flared(o))
        for o in range(s.seats)
    ]


#: The public view's values of the :data:`SEAT_KEYS`: a spectator has no hand and no choices.
SPECTATOR_SEAT_PART: dict[str, Any] = {
    "seat": None,
    "hand": None,
    "resources": None,
    "decision": None,
    "legal": [],
}


def public_view(game: Game) -> dict[str, Any]:
    """The spectator view: what everyone may see (the :data:`SEAT_KEYS` hold no secrets)."""
    view = game_part(game)
    view.update(turn_part(game))
    for key, source in bulky_sources(game).items():
        view[key] = bulky_value(key, source)
    view.update(SPECTATOR_SEAT_PART)
    view["legal"] = []  # every view gets a list of its own
    return view


def decorate(rules: Rules, seat: int, choice: Choice) -> Choice:
    """A copy of a choice with its prompt label and, where it certainly kills, ``fatal``."""
    out = dict(choice)
    out["label"] = label(rules, seat, choice)
    if is_fatal(rules, seat, choice):
        out["fatal"] = True
    return out


def _card(rules: Rules, card_id: object) -> str:
    assert isinstance(card_id, int)
    return card_name(GAME_DECKS[rules.s.edition][card_id])


def label(rules: Rules, seat: int, choice: Choice) -> str:
    """A short human text for a choice, used by prompts."""
    names = rules.s.names
    do = choice["do"]
    target = choice.get("target")
    whom = names[target] if isinstance(target, int) else ""
    if do == "play":
        text = f"Play {_card(rules, choice['card'])}"
        return f"{text} on {whom}" if whom else text
    if do == "change":
        return f"Make change: {_card(rules, choice['card'])} for two singles"
    if do == "done":
        return "End actions (go on to stay or move)"
    if do == "stay":
        if "discard" in choice:
            cards = choice["discard"]
            assert isinstance(cards, list)
            return "Stay, discarding " + " and ".join(_card(rules, c) for c in cards)
        return f"Stay (pay 1 {rules.res})"
    if do == "move":
        return f"Move forward (pay 2 {rules.res})"
    if do in ("pay", "discard"):
        cards = choice["cards"]
        assert isinstance(cards, list)
        verb = "Pay with" if do == "pay" else "Discard"
        return f"{verb} " + " and ".join(_card(rules, c) for c in cards)
    if do == "block":
        return f"Block with {_card(rules, choice['card'])}"
    if do == "accept":
        return "Do not block"
    if do == "take":
        return f"Take {_card(rules, choice['card'])}"
    if do == "swap":
        return f"Swap places with {whom}"
    if do == "target":
        return f"Aim at {whom}"
    if do == "advance":
        return f"{whom} moves forward"
    if do == "pick":
        return f"Give {_card(rules, choice['card'])}"
    if do == "shark":
        cell = choice["cell"]
        assert isinstance(cell, list)
        return f"Shark {int(str(choice['shark'])) + 1} to column {cell[0] + 1}, row {cell[1]}"
    return str(do)


def is_fatal(rules: Rules, seat: int, choice: Choice) -> bool:
    """C18: the choice certainly kills the chooser."""
    s = rules.s
    do = choice["do"]
    if do == "stay" and "discard" not in choice:
        return _oxygen_left(rules, seat, 1) <= 0 if rules.space else s.units(seat) == 0
    if do == "accept" and rules.space:
        attack = rules.attack
        if attack == "hole_in_suit":
            return _oxygen_left(rules, seat, 1) <= 0
        if attack == "oxygen_siphon":
            return _oxygen_left(rules, seat, 2) <= 0
        if attack in ("tractor_beam", "hack_suit"):
            # Losing a card certainly kills only when the one card held is oxygen.
            hand = s.hands[seat]
            return len(hand) == 1 and hand[0].value > 0
    if do == "discard" and rules.space:  # Meteoroid
        cards = choice["cards"]
        assert isinstance(cards, list)
        deck = GAME_DECKS[s.edition]
        return s.units(seat) - sum(deck[card_id].value for card_id in cards) <= 0
    if not rules.space:
        return _eaten_for_sure(rules, seat, choice)
    return False


_MAY_MEET_A_SHARK = frozenset(("move", "play", "advance", "swap", "accept"))


def _eaten_for_sure(rules: Rules, seat: int, choice: Choice) -> bool:
    """Shipwrecked (C18, W7): the choice puts the chooser on a shark's cell with no food left."""
    s = rules.s
    do = choice["do"]
    if do not in _MAY_MEET_A_SHARK:
        return False
    col, row = s.pos(seat)
    units = s.units(seat)
    ahead = (col, row + 1)
    if do == "move":
        cell, units = ahead, units - 2  # 2 units are always paid exactly (C6)
    elif do == "play":
        card_id = choice["card"]
        assert isinstance(card_id, int)
        if GAME_DECKS[s.edition][card_id].key not in ("freestyle_sprint", "ride_the_wave"):
            return False
        cell = ahead
    elif do == "advance" and choice["target"] == seat:  # Freeloader
        cell = ahead
    elif do == "swap":  # Whirlpool
        target = choice["target"]
        assert isinstance(target, int)
        cell = s.pos(target)
    elif do == "accept" and rules.attack == "rogue_wave":
        cell = (col, row - 1)
    else:
        return False
    return units <= 0 and cell in s.sharks


def _oxygen_left(rules: Rules, seat: int, lost: int) -> int:
    """Space: the oxygen a seat keeps after paying or giving ``lost`` units (C6, C8)."""
    s = rules.s
    paid = sum(card.value for card in first_payment(s.hands[seat], lost))
    change = 1 if paid > lost and rules.singles_available(1) else 0
    return s.units(seat) - paid + change


def snapshot(game: Game) -> dict[str, Any]:
    """The complete state (secrets included) as plain data."""
    s = game.rules.s
    return {
        "edition": s.edition.value,
        "names": list(s.names),
        "seed": game.seed,
        "decisions": len(game.decisions),
        "turn": s.turn,
        "active": s.active,
        "phase": s.phase,
        "goal_row": s.goal_row,
        "over": s.over,
        "winner": s.winner,
        "actions_played": s.actions_played,
        "draw": [c.id for c in s.draw],
        "discard": [c.id for c in s.discard],
        "hands": [[c.id for c in hand] for hand in s.hands],
        "held": {str(k): v.id for k, v in sorted(s.held.items())},
        "cols": list(s.cols),
        "rows": list(s.rows),
        "alive": list(s.alive),
        "board": [[col, row, loc.id] for (col, row), loc in sorted(s.board.items())],
        "loc_draw": [loc.id for loc in s.loc_draw],
        "loc_discard": [loc.id for loc in s.loc_discard],
        "sharks": [list(cell) for cell in s.sharks],
        "rng": repr(s.rng.getstate()[1][:4]),
        "pending": {str(k): v for k, v in (game.decision.options.items() if game.decision else [])},
    }
