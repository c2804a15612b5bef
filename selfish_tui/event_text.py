"""Sentences of the game in the active language: event lines, decision prompts, choice labels.

The server stays language-neutral: each event, prompt and choice carries a kind and its
arguments (engine issue 12), and the client renders the sentence from a template here. Every
template is an English msgid with named placeholders (msgctxt "event", "prompt" or "choice"), so
the English text is the template itself and a translation may put the names in any order.

The template ids are the sentences the engine writes today (server/engine/rules.py, space.py,
shipwrecked.py, action_cards.py, views.py, and the room's notices in server/room.py); docs/i18n.md
maps them to the engine's event kinds once those exist. Placeholders take already-localised
strings: ``player`` / ``other`` are seat names, ``card`` / ``cards`` card names (see
:func:`card_list`), ``resource`` / ``goal`` the words of :func:`resource_word` /
:func:`goal_word`, ``row`` / ``column`` / ``turn`` / ``units`` / ``shark`` numbers (as the players
count them), ``direction`` a :func:`direction_word`, ``reason`` a :func:`reason_word`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from selfish_tui.i18n import pgettext
from selfish_tui.keyed_text import card_name


def event_templates() -> dict[str, str]:
    """Event lines by template id, in the active language."""
    return {
        "setup.first": pgettext("event", "{player} is chosen to go first."),
        "turn": pgettext("event", "Turn {turn}: {player}."),
        "stay": pgettext("event", "{player} stays."),
        "stay.discarding": pgettext("event", "{player} stays, discarding {cards}."),
        "draw": pgettext("event", "{player} draws {card}."),
        "draw.hidden": pgettext("event", "{player} draws a card."),
        "draw.nothing": pgettext("event", "{player} has nothing to draw."),
        "draw.reshuffle": pgettext(
            "event", "The discard pile is shuffled to form a new draw pile."
        ),
        "change": pgettext("event", "{player} makes change: {card} for {cards}."),
        "change.taken": pgettext("event", "{player} takes {card} as change."),
        "change.none": pgettext("event", "{player} gets no change: no single is left."),
        "pay": pgettext("event", "{player} discards {cards} ({reason})."),
        "steal": pgettext("event", "{player} takes {cards} from {other}."),
        "steal.hidden": pgettext("event", "{player} takes {resource} from {other}."),
        "death.oxygen": pgettext(
            "event", "{player} runs out of oxygen and dies, discarding {cards}."
        ),
        "death.no_food": pgettext(
            "event", "{player} has no food for {reason} and dies, discarding {cards}."
        ),
        "death.shark": pgettext(
            "event", "{player} is eaten by a shark and dies, discarding {cards}."
        ),
        "win.nobody": pgettext("event", "Nobody is left alive: nobody wins."),
        "win.ship": pgettext("event", "{player} ends the turn on the ship: {player} wins!"),
        "win.last": pgettext("event", "{player} is the last castaway alive: {player} wins!"),
        "win.raft": pgettext("event", "{player} reaches the raft: {player} wins!"),
        "win.wormhole": pgettext("event", "The Wormhole puts {player} on the ship: {player} wins!"),
        "move": pgettext("event", "{player} moves."),
        "move.blocked": pgettext("event", "{player} is at {goal} and cannot move forward."),
        "move.forward": pgettext("event", "{player} moves forward to row {row}."),
        "location": pgettext("event", "{player} draws {card}."),
        "location.shark": pgettext("event", "{player} draws {card} (shark icon)."),
        "location.reshuffle": pgettext(
            "event", "The location discard pile is shuffled to form a new pile."
        ),
        "back": pgettext("event", "{player} moves back to row {row}."),
        "back.discarding": pgettext(
            "event", "{player} moves back to row {row}, discarding {card}."
        ),
        "swap": pgettext("event", "{player} and {other} swap places."),
        "play": pgettext("event", "{player} plays {card}."),
        "play.on": pgettext("event", "{player} plays {card} on {other}."),
        "react.block": pgettext("event", "{player} blocks it with {card}."),
        "react.accept": pgettext("event", "{player} does not block."),
        "take": pgettext("event", "{player} takes {card} from {other}."),
        "take.hidden": pgettext("event", "{player} takes a card from {other}."),
        "look": pgettext("event", "{player} looks at {other}'s hand: {cards}."),
        "look.hidden": pgettext("event", "{player} looks at {other}'s hand."),
        "lost": pgettext("event", "{player} loses {card} (Lost)."),
        "solar_flare": pgettext(
            "event", "{player} is caught in a Solar Flare: no action cards while it lies below."
        ),
        "meteoroid": pgettext("event", "{player} discards {cards} (Meteoroid)."),
        "hurricane": pgettext("event", "{player} discards {card} (Hurricane)."),
        "pick.done": pgettext("event", "{player} has chosen."),
        "reveal": pgettext("event", "{player} reveals {card}: the sharks swim {direction}."),
        "shark.first": pgettext("event", "A shark appears at column {column}, row {row}!"),
        "shark.frenzy": pgettext(
            "event", "Feeding Frenzy: a second shark appears at column {column}, row {row}."
        ),
        "shark.bait": pgettext("event", "{player} lures a shark to column {column}, row {row}."),
        "bite": pgettext("event", "A shark bites {player}!"),
        "freeloader": pgettext("event", "Freeloader: {player} is furthest back."),
        "raft_drift": pgettext("event", "The raft drifts closer: it is now at row {row}."),
        # The room's notices (server/room.py), which are events too.
        "seat.left": pgettext("event", "{player} left; a bot plays on."),
        "seat.back": pgettext("event", "{player} is back."),
        "seat.away": pgettext("event", "{player} is away; their bot plays until they act."),
        "bot.away": pgettext("event", "{player} is away; their bot chose: {choice}."),
        "bot.away.hidden": pgettext("event", "{player} is away; their bot decided."),
        "bot.timeout": pgettext("event", "{player} ran out of time; their bot chose: {choice}."),
        "bot.timeout.hidden": pgettext("event", "{player} ran out of time; their bot decided."),
    }


def prompt_templates() -> dict[str, str]:
    """Decision prompts by template id (the decision kinds), in the active language."""
    return {
        "actions": pgettext("prompt", "Play an action card, make change, or go on."),
        "stay_or_move": pgettext("prompt", "Stay or move?"),
        "pay": pgettext("prompt", "Choose the {resource} to discard ({units}) for {reason}."),
        "give": pgettext("prompt", "Choose the {resource} {player} takes ({units})."),
        "react": pgettext("prompt", "{player} plays {card} on you."),
        "meteoroid": pgettext("prompt", "Meteoroid: discard 2 cards."),
        "swap.wormhole": pgettext("prompt", "Wormhole: swap places with whom?"),
        "swap.whirlpool": pgettext("prompt", "Whirlpool: swap places with whom?"),
        "shark_bait": pgettext("prompt", "Shark Bait: move a shark next to another castaway."),
        "freeloader": pgettext("prompt", "Freeloader: who moves forward?"),
        "hurricane": pgettext("prompt", "Hurricane: discard 1 card."),
        "pick": pgettext("prompt", "The sharks move: pick a card; its direction steers them."),
        "take": pgettext("prompt", "Take one card from {player}'s hand."),
    }


def choice_templates() -> dict[str, str]:
    """Choice labels by template id (the choices' ``do``), in the active language."""
    return {
        "play": pgettext("choice", "Play {card}"),
        "play.on": pgettext("choice", "Play {card} on {player}"),
        "change": pgettext("choice", "Make change: {card} for two singles"),
        "done": pgettext("choice", "End actions (go on to stay or move)"),
        "stay": pgettext("choice", "Stay (pay 1 {resource})"),
        "stay.discarding": pgettext("choice", "Stay, discarding {cards}"),
        "move": pgettext("choice", "Move forward (pay 2 {resource})"),
        "pay": pgettext("choice", "Pay with {cards}"),
        "discard": pgettext("choice", "Discard {cards}"),
        "block": pgettext("choice", "Block with {card}"),
        "accept": pgettext("choice", "Do not block"),
        "take": pgettext("choice", "Take {card}"),
        "swap": pgettext("choice", "Swap places with {player}"),
        "advance": pgettext("choice", "{player} moves forward"),
        "pick": pgettext("choice", "Give {card}"),
        "shark": pgettext("choice", "Shark {shark} to column {column}, row {row}"),
    }


def reason_words() -> dict[str, str]:
    """What a payment is for (the ``reason`` placeholder), by the engine's reason."""
    return {
        "staying": pgettext("reason", "staying"),
        "travelling": pgettext("reason", "travelling"),
        "cosmic_radiation": pgettext("reason", "Cosmic Radiation"),
        "asteroid_field": pgettext("reason", "Asteroid Field"),
        "hole_in_suit": pgettext("reason", "Hole in Suit"),
        "sea_monster": pgettext("reason", "the Sea Monster"),
    }


def render(
    templates: Callable[[], dict[str, str]],
    template_id: str,
    values: Mapping[str, object],
    fallback: str,
) -> str:
    """The sentence ``template_id`` of ``templates`` filled with ``values``; ``fallback`` (the
    server's English text) when the id is unknown or a placeholder has no value, so a newer
    server never shows a broken line."""
    template = templates().get(template_id)
    if template is None:
        return fallback
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):
        return fallback


def card_list(names: Sequence[str]) -> str:
    """Card names joined for a sentence ("A, B" / "A、B"); "nothing" / "无" when empty."""
    if not names:
        return pgettext("cards", "nothing")
    return pgettext("cards", ", ").join(names)


def card_pair(names: Sequence[str]) -> str:
    """Card names joined for a choice label ("A and B" / "A和B")."""
    return pgettext("cards", " and ").join(names)


def direction_word(direction: str) -> str:
    """A compass point (N, E, S, W) as the sentence says it (北, 东, 南, 西 in Chinese)."""
    words = {
        "N": pgettext("direction", "N"),
        "E": pgettext("direction", "E"),
        "S": pgettext("direction", "S"),
        "W": pgettext("direction", "W"),
    }
    return words.get(direction, direction)


def resource_word(edition: str) -> str:
    """'oxygen' (氧气) in Space, 'food' (食物) in Shipwrecked."""
    if edition == "shipwrecked":
        return pgettext("resource", "food")
    return pgettext("resource", "oxygen")


def goal_word(edition: str) -> str:
    """The goal with its article, as sentences use it: 'the ship' (飞船), 'the raft' (救援艇)."""
    if edition == "shipwrecked":
        return pgettext("goal", "the raft")
    return pgettext("goal", "the ship")


def with_direction(name: str, direction: str | None) -> str:
    """A Shipwrecked card's name with its compass point: "Pirate (N)" (fullwidth in Chinese)."""
    if not direction:
        return name
    template = pgettext("cards", "{name} ({direction})")
    return template.format(name=name, direction=direction_word(direction))


def card_display(card: Mapping[str, Any]) -> str:
    """A game card of a view (hand, revealed hand) by its name in the active language, with
    its compass point in Shipwrecked."""
    name = card_name(str(card.get("key", "")), str(card.get("name", "?")))
    direction = card.get("dir")
    return with_direction(name, direction if isinstance(direction, str) else None)


def choice_label(choice: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """A legal choice's label in the active language, rendered from its own fields (``do``,
    ``card``, ``cards`` / ``discard``, ``target``, ``shark``, ``cell``) and the view (the hand,
    a revealed hand, the names); the engine's ``label`` when something does not resolve."""
    fallback = str(choice.get("label") or choice.get("do", "?"))
    decision = view.get("decision") or {}
    cards = {c.get("id"): c for c in [*(view.get("hand") or []), *(decision.get("reveal") or [])]}
    names = view.get("names") or []
    do = str(choice.get("do", ""))
    template_id = do
    values: dict[str, object] = {"resource": resource_word(str(view.get("edition", "space")))}
    try:
        if "card" in choice:
            values["card"] = card_display(cards[choice["card"]])
        listed = choice.get("cards", choice.get("discard"))
        if isinstance(listed, list):
            values["cards"] = card_pair([card_display(cards[card]) for card in listed])
        target = choice.get("target")
        if isinstance(target, int):
            values["player"] = str(names[target])
            template_id = "play.on" if do == "play" else do
        if do == "stay" and "discard" in choice:
            template_id = "stay.discarding"
        if do == "shark":
            column, row = choice["cell"]
            values.update(shark=int(choice["shark"]) + 1, column=int(column) + 1, row=int(row))
    except (KeyError, IndexError, TypeError, ValueError):
        return fallback
    return render(choice_templates, template_id, values, fallback)
