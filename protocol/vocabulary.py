"""The game's words as keys: every event key, decision kind and choice the server may send,
with the names and types of their arguments.

This is the protocol's side of the rules engine's vocabulary (the engine says events and asks
decisions by these keys; tests/engine checks that it says nothing else). A client renders each
key with its arguments in its own language; :mod:`protocol.game_types` reads the values by the
types named here. PROTOCOL.md's tables are checked against these registries by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ArgType(StrEnum):
    """What an event or decision argument holds, by its name (:data:`ARG_TYPES`)."""

    SEAT = "seat"  # a seat number
    INT = "int"  # a row, a turn, a number of units
    CARD = "card"  # a game card (game_types.Card)
    CARDS = "cards"  # a list of game cards
    LOCATION = "location"  # a location card (game_types.Location)
    CELL = "cell"  # [col, row]
    DIRECTION = "direction"  # "N", "E", "S" or "W"
    GOAL = "goal"  # "ship" or "raft"
    RESOURCE = "resource"  # "oxygen" or "food"
    REASON = "reason"  # why a seat pays or dies: one of REASONS or a card key
    CHOICE = "choice"  # a choice (game_types.Choice), as its bot made it


#: Every argument name, and what it holds: one name means one type everywhere.
ARG_TYPES: dict[str, ArgType] = {
    "player": ArgType.SEAT,
    "other": ArgType.SEAT,
    "target": ArgType.SEAT,
    "thief": ArgType.SEAT,
    "victim": ArgType.SEAT,
    "looker": ArgType.SEAT,
    "turn": ArgType.INT,
    "row": ArgType.INT,
    "units": ArgType.INT,
    "card": ArgType.CARD,
    "cards": ArgType.CARDS,
    "location": ArgType.LOCATION,
    "cell": ArgType.CELL,
    "dir": ArgType.DIRECTION,
    "goal": ArgType.GOAL,
    "resource": ArgType.RESOURCE,
    "reason": ArgType.REASON,
    "choice": ArgType.CHOICE,
}

DIRECTIONS = ("N", "E", "S", "W")
GOALS = ("ship", "raft")
RESOURCES = ("oxygen", "food")
#: ``reason`` values that are not a card key (a card key names the card that made one pay).
REASONS = ("stay", "travel", "bite")


@dataclass(frozen=True, slots=True)
class EventKey:
    """An event key's family (``kind``, what a client styles by), its argument names, and
    those that only the event's addressees see (the others get the event without them)."""

    kind: str
    args: tuple[str, ...]
    secret: tuple[str, ...] = ()


def _event(kind: str, *args: str, secret: tuple[str, ...] = ()) -> EventKey:
    return EventKey(kind, args, secret)


#: Every event key.
EVENTS: dict[str, EventKey] = {
    "setup": _event("setup", "player"),
    "turn": _event("turn", "turn", "player"),
    "info.reshuffle": _event("info"),
    "info.reshuffle_locations": _event("info"),
    "draw": _event("draw", "player", "card", secret=("card",)),
    "draw.none": _event("draw", "player"),
    "change": _event("change", "player", "card", "cards", secret=("cards",)),
    "change.taken": _event("change", "player", "card", secret=("card",)),
    "change.none": _event("change", "player"),
    "pay": _event("pay", "player", "cards", "reason"),
    "steal": _event("steal", "thief", "victim", "cards", "resource", secret=("cards",)),
    "steal.card": _event("steal", "thief", "victim", "card", secret=("card",)),
    "look": _event("look", "looker", "victim", "cards", secret=("cards",)),
    "take": _event("take", "looker", "victim", "card", secret=("card",)),
    "death.oxygen": _event("death", "player", "cards"),
    "death.no_food": _event("death", "player", "cards", "reason"),
    "death.eaten": _event("death", "player", "cards"),
    "win.nobody": _event("win"),
    "win.ship": _event("win", "player"),
    "win.wormhole": _event("win", "player"),
    "win.last": _event("win", "player"),
    "win.raft": _event("win", "player"),
    "move.travel": _event("move", "player"),
    "move.blocked": _event("move", "player", "goal"),
    "move": _event("move", "player", "row"),
    "move.freeloader": _event("move", "player"),
    "location": _event("location", "player", "location"),
    "location.shark": _event("location", "player", "location"),
    "location.flare": _event("location", "player"),
    "back": _event("back", "player", "row"),
    "back.discard": _event("back", "player", "row", "location"),
    "swap": _event("swap", "player", "other"),
    "play": _event("play", "player", "card"),
    "play.on": _event("play", "player", "card", "target"),
    "target": _event("target", "player", "card", "target"),
    "react": _event("react", "player"),
    "react.block": _event("react", "player", "card"),
    "stay": _event("stay", "player"),
    "stay.discard": _event("stay", "player", "cards"),
    "discard.meteoroid": _event("discard", "player", "cards"),
    "discard.hurricane": _event("discard", "player", "card"),
    "discard.lost": _event("discard", "player", "card"),
    "shark": _event("shark", "cell"),
    "shark.frenzy": _event("shark", "cell"),
    "shark.bait": _event("shark", "player", "cell"),
    "shark.rest": _event("shark"),
    "shark.fed": _event("shark"),
    "bite": _event("bite", "player"),
    "drift": _event("drift", "row"),
    "reveal": _event("reveal", "player", "card", "dir"),
    "pick": _event("pick", "player"),
    # The server's own events (its rooms), about a seat's person and bot.
    "away.left": _event("away", "player"),
    "away.back": _event("away", "player"),
    "away.idle": _event("away", "player"),
    "away.gone": _event("away", "player"),
    "bot": _event("bot", "player", "choice", secret=("choice",)),
    "timeout": _event("timeout", "player", "choice", secret=("choice",)),
}

#: Every decision kind, and its argument names.
DECISIONS: dict[str, tuple[str, ...]] = {
    "actions": (),
    "stay_or_move": (),
    "pay": ("resource", "units", "reason"),
    "give": ("resource", "units", "thief"),
    "react": ("player", "card"),
    "target": ("card",),
    "take": ("victim",),
    "meteoroid": (),
    "swap": ("location",),
    "shark_bait": (),
    "freeloader": (),
    "hurricane": (),
    "pick": (),
}


class ChoiceField(StrEnum):
    """The values a choice may carry besides its ``do``."""

    CARD = "card"  # a card id
    TARGET = "target"  # a seat
    CARDS = "cards"  # card ids
    DISCARD = "discard"  # card ids (V1: two action cards discarded to stay)
    SHARK = "shark"  # which shark (0 or 1)
    CELL = "cell"  # [col, row]


@dataclass(frozen=True, slots=True)
class ChoiceShape:
    """What a choice ``do`` carries: the fields it always has and those it may have."""

    required: tuple[ChoiceField, ...] = ()
    optional: tuple[ChoiceField, ...] = ()


_C = ChoiceField
#: Every choice ``do``, and its fields.
CHOICES: dict[str, ChoiceShape] = {
    "play": ChoiceShape((_C.CARD,), (_C.TARGET,)),
    "change": ChoiceShape((_C.CARD,)),
    "done": ChoiceShape(),
    "stay": ChoiceShape((), (_C.DISCARD,)),
    "move": ChoiceShape(),
    "pay": ChoiceShape((_C.CARDS,)),
    "target": ChoiceShape((_C.TARGET,)),
    "block": ChoiceShape((_C.CARD,)),
    "accept": ChoiceShape(),
    "take": ChoiceShape((_C.CARD,)),
    "discard": ChoiceShape((_C.CARDS,)),
    "swap": ChoiceShape((_C.TARGET,)),
    "shark": ChoiceShape((_C.SHARK, _C.CELL)),
    "advance": ChoiceShape((_C.TARGET,)),
    "pick": ChoiceShape((_C.CARD,)),
}
