"""The English texts of the engine: event sentences, decision prompts and choice labels.

The rules never build sentences; they record what happened as a key and arguments (events.py)
and what a seat must decide as a decision kind (actions.py). This module is the one table of
templates that turns those into English; a client in another language renders the same keys and
arguments from its own table (protocol/PROTOCOL.md lists them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import GAME_DECKS, Card, Edition, Location, compass

# Event key -> (the sentence, the sentence for those who may not see the secret args, or None
# when they see nothing). Seats are named, cards shown by name (with their direction).
EVENT_TEXTS: dict[str, tuple[str, str | None]] = {
    "setup": ("{player} is chosen to go first.", None),
    "turn": ("Turn {turn}: {player}.", None),
    "info.reshuffle": ("The discard pile is shuffled to form a new draw pile.", None),
    "info.reshuffle_locations": (
        "The location discard pile is shuffled to form a new pile.",
        None,
    ),
    "draw": ("{player} draws {card}.", "{player} draws a card."),
    "draw.none": ("{player} has nothing to draw.", None),
    "change": (
        "{player} makes change: {card} for {cards}.",
        "{player} makes change: {card} for two singles.",
    ),
    "change.taken": ("{player} takes {card} as change.", "{player} takes a single as change."),
    "change.none": ("{player} gets no change: no single is left.", None),
    "pay": ("{player} discards {cards} ({reason}).", None),
    "steal": ("{thief} takes {cards} from {victim}.", "{thief} takes {resource} from {victim}."),
    "steal.card": ("{thief} takes {card} from {victim}.", "{thief} takes a card from {victim}."),
    "look": ("{looker} looks at {victim}'s hand: {cards}.", "{looker} looks at {victim}'s hand."),
    "take": ("{looker} takes {card} from {victim}.", "{looker} takes a card from {victim}."),
    "death.oxygen": ("{player} runs out of oxygen and dies, discarding {cards}.", None),
    "death.no_food": ("{player} has no food for {reason} and dies, discarding {cards}.", None),
    "death.eaten": ("{player} is eaten by a shark and dies, discarding {cards}.", None),
    "win.nobody": ("Nobody is left alive: nobody wins.", None),
    "win.ship": ("{player} reaches the ship: {player} wins!", None),
    "win.wormhole": ("The Wormhole puts {player} on the ship: {player} wins!", None),
    "win.last": ("{player} is the last castaway alive: {player} wins!", None),
    "win.raft": ("{player} reaches the raft: {player} wins!", None),
    "move.travel": ("{player} moves.", None),
    "move.blocked": ("{player} is at {goal} and cannot move forward.", None),
    "move": ("{player} moves forward to row {row}.", None),
    "move.freeloader": ("Freeloader: {player} is furthest back.", None),
    "location": ("{player} draws {location}.", None),
    "location.shark": ("{player} draws {location} (shark icon).", None),
    "location.flare": (
        "{player} is caught in a Solar Flare: no action cards while it lies below.",
        None,
    ),
    "back": ("{player} moves back to row {row}.", None),
    "back.discard": ("{player} moves back to row {row}, discarding {location}.", None),
    "swap": ("{player} and {other} swap places.", None),
    "play": ("{player} plays {card}.", None),
    "play.on": ("{player} plays {card} on {target}.", None),
    "target": ("{player} aims {card} at {target}.", None),
    "react": ("{player} does not block.", None),
    "react.block": ("{player} blocks it with {card}.", None),
    "stay": ("{player} stays.", None),
    "stay.discard": ("{player} stays, discarding {cards}.", None),
    "discard.meteoroid": ("{player} discards {cards} (Meteoroid).", None),
    "discard.hurricane": ("{player} discards {card} (Hurricane).", None),
    "discard.lost": ("{player} loses {card} (Lost).", None),
    "shark": ("A shark appears at {cell}!", None),
    "shark.frenzy": ("Feeding Frenzy: a second shark appears at {cell}.", None),
    "shark.bait": ("{player} lures a shark to {cell}.", None),
    "shark.rest": ("The sharks do not move in the turn the first shark appeared.", None),
    "shark.fed": ("A shark has eaten: the sharks stop, the other picks are discarded.", None),
    "bite": ("A shark bites {player}!", None),
    "drift": ("The raft drifts closer: it is now at row {row}.", None),
    "reveal": ("{player} reveals {card}: the sharks swim {dir}.", None),
    "pick": ("{player} has chosen.", None),
    # Events of the server's rooms (server/rooms/room.py), about a seat's person and bot.
    "away.left": ("{player} left; a bot plays on.", None),
    "away.back": ("{player} is back.", None),
    "away.idle": ("{player} is away; their bot plays until they act.", None),
    "away.gone": ("{player} is not connected; their bot plays until they come back.", None),
    "bot": ("{player} is away; their bot chose: {label}.", "{player} is away; their bot decided."),
    "timeout": (
        "{player} ran out of time; their bot chose: {label}.",
        "{player} ran out of time; their bot decided.",
    ),
}

#: Event args that are seats (rendered as the player's name).
SEAT_ARGS = frozenset({"player", "other", "target", "thief", "victim", "looker"})

#: ``reason`` args (why a seat pays or dies): a card key, or one of these.
REASONS: dict[str, str] = {
    "stay": "staying",
    "travel": "travelling",
    "bite": "the shark",
    "cosmic_radiation": "Cosmic Radiation",
    "asteroid_field": "Asteroid Field",
    "hole_in_suit": "Hole in Suit",
    "sea_monster": "the Sea Monster",
}

GOALS = {"ship": "the ship", "raft": "the raft"}


def card_list(cards: Sequence[Card]) -> str:
    """Display names joined for a sentence."""
    return ", ".join([card.display for card in cards]) if cards else "nothing"


def where(cell: tuple[int, int]) -> str:
    """A cell in words."""
    return f"column {cell[0] + 1}, row {cell[1]}"


def _word(name: str, value: Any, names: Sequence[str]) -> str:
    if name in SEAT_ARGS:
        return str(names[value])
    if isinstance(value, Card):
        return value.display
    if isinstance(value, Location):
        return value.type.name
    if isinstance(value, list):
        return card_list(value)
    if isinstance(value, tuple):
        return where(value)
    if name == "reason":
        return REASONS.get(value, str(value))
    if name == "goal":
        return GOALS.get(value, str(value))
    if name == "dir":
        return compass(str(value))
    return str(value)


def render_event(
    key: str, args: Mapping[str, Any], names: Sequence[str], redacted: bool
) -> str | None:
    """The English sentence of an event (``redacted``: as those outside its ``to`` read it;
    None when they read nothing)."""
    whole, public = EVENT_TEXTS[key]
    template = public if redacted else whole
    if template is None:
        return None
    return template.format_map({name: _word(name, value, names) for name, value in args.items()})


# Decision kind (its value) -> prompt; the prompt's args are named like the events'.
PROMPTS: dict[str, str] = {
    "actions": "Play an action card, make change, or go on.",
    "stay_or_move": "Stay or move?",
    "pay": "Choose the {resource} to discard ({units}) for {reason}.",
    "give": "Choose the {resource} {thief} takes ({units}).",
    "react": "{player} plays {card} on you.",
    "target": "{card}: who moves back?",
    "take": "Take one card from {victim}'s hand.",
    "meteoroid": "Meteoroid: discard 2 cards.",
    "swap": "{card}: swap places with whom?",
    "shark_bait": "Shark Bait: move a shark next to another castaway.",
    "freeloader": "Freeloader: who moves forward?",
    "hurricane": "Hurricane: discard 1 card.",
    "pick": "The sharks move: pick a card; its direction steers them.",
}


def render_prompt(template: str, args: Mapping[str, Any], names: Sequence[str]) -> str:
    """A decision's prompt from its template and args."""
    return PROMPTS[template].format_map(
        {name: _word(name, value, names) for name, value in args.items()}
    )


def _card(edition: Edition, card_id: object) -> str:
    assert isinstance(card_id, int)
    return GAME_DECKS[edition][card_id].display


def _cards(edition: Edition, ids: object) -> str:
    assert isinstance(ids, list)
    return " and ".join(_card(edition, card_id) for card_id in ids)


def label(choice: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> str:
    """A short English text for a choice, used by prompts."""
    do = choice["do"]
    target = choice.get("target")
    whom = names[target] if isinstance(target, int) else ""
    resource = "oxygen" if edition is Edition.SPACE else "food"
    if do == "play":
        text = f"Play {_card(edition, choice['card'])}"
        return f"{text} on {whom}" if whom else text
    if do == "change":
        return f"Make change: {_card(edition, choice['card'])} for two singles"
    if do == "done":
        return "End actions (go on to stay or move)"
    if do == "stay":
        if "discard" in choice:
            return "Stay, discarding " + _cards(edition, choice["discard"])
        return f"Stay (pay 1 {resource})"
    if do == "move":
        return f"Move forward (pay 2 {resource})"
    if do == "pay":
        return "Pay with " + _cards(edition, choice["cards"])
    if do == "discard":
        return "Discard " + _cards(edition, choice["cards"])
    if do == "block":
        return f"Block with {_card(edition, choice['card'])}"
    if do == "accept":
        return "Do not block"
    if do == "take":
        return f"Take {_card(edition, choice['card'])}"
    if do == "swap":
        return f"Swap places with {whom}"
    if do == "target":
        return f"Aim at {whom}"
    if do == "advance":
        return f"{whom} moves forward"
    if do == "pick":
        return f"Pick {_card(edition, choice['card'])}"
    if do == "shark":
        cell = choice["cell"]
        return f"Shark {int(choice['shark']) + 1} to {where((cell[0], cell[1]))}"
    return str(do)
