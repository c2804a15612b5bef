"""Sentences of the game in the active language: event lines, decision prompts, choice labels.

The server stays language-neutral: each event, prompt and choice carries a kind and its
arguments (engine issue 12), and the client renders the sentence from a template here. Every
template is an English msgid with named placeholders (msgctxt "event", "prompt" or "choice"), so
the English text is the template itself and a translation may put the names in any order.

Event templates are keyed by the engine's event ``key`` and filled from the event's ``args`` as
the wire sends them (:func:`render_event`; protocol/PROTOCOL.md lists every key with its args);
their English is exactly server/engine/english.py's (a test compares the tables), prompts are
keyed like english.py's ``PROMPTS``, choice labels by the choice's ``do``. Placeholders take
already-localised strings (:func:`arg_words` turns wire args into them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from selfish_tui.i18n import pgettext
from selfish_tui.i18n import pgettext as i18n_pgettext
from selfish_tui.keyed_text import card_name


def _msgid(context: str, message: str) -> str:
    """The untranslated msgid (the English), for the tables that also serve as patterns."""
    return message


def event_templates() -> dict[str, str]:
    """Event sentences by the engine's event ``key`` (protocol/PROTOCOL.md, server/engine/
    english.py ``EVENT_TEXTS``), as the seats that see every arg read them."""
    return {
        "setup": pgettext("event", "{player} is chosen to go first."),
        "turn": pgettext("event", "Turn {turn}: {player}."),
        "info.reshuffle": pgettext(
            "event", "The discard pile is shuffled to form a new draw pile."
        ),
        "info.reshuffle_locations": pgettext(
            "event", "The location discard pile is shuffled to form a new pile."
        ),
        "draw": pgettext("event", "{player} draws {card}."),
        "draw.none": pgettext("event", "{player} has nothing to draw."),
        "change": pgettext("event", "{player} makes change: {card} for {cards}."),
        "change.taken": pgettext("event", "{player} takes {card} as change."),
        "change.none": pgettext("event", "{player} gets no change: no single is left."),
        "pay": pgettext("event", "{player} discards {cards} ({reason})."),
        "steal": pgettext("event", "{thief} takes {cards} from {victim}."),
        "steal.card": pgettext("event", "{thief} takes {card} from {victim}."),
        "look": pgettext("event", "{looker} looks at {victim}'s hand: {cards}."),
        "take": pgettext("event", "{looker} takes {card} from {victim}."),
        "death.oxygen": pgettext(
            "event", "{player} runs out of oxygen and dies, discarding {cards}."
        ),
        "death.no_food": pgettext(
            "event", "{player} has no food for {reason} and dies, discarding {cards}."
        ),
        "death.eaten": pgettext(
            "event", "{player} is eaten by a shark and dies, discarding {cards}."
        ),
        "win.nobody": pgettext("event", "Nobody is left alive: nobody wins."),
        "win.ship": pgettext("event", "{player} reaches the ship: {player} wins!"),
        "win.wormhole": pgettext("event", "The Wormhole puts {player} on the ship: {player} wins!"),
        "win.last": pgettext("event", "{player} is the last castaway alive: {player} wins!"),
        "win.raft": pgettext("event", "{player} reaches the raft: {player} wins!"),
        "move.travel": pgettext("event", "{player} moves."),
        "move.blocked": pgettext("event", "{player} is at {goal} and cannot move forward."),
        "move": pgettext("event", "{player} moves forward to row {row}."),
        "move.freeloader": pgettext("event", "Freeloader: {player} is furthest back."),
        "location": pgettext("event", "{player} draws {location}."),
        "location.shark": pgettext("event", "{player} draws {location} (shark icon)."),
        "location.flare": pgettext(
            "event", "{player} is caught in a Solar Flare: no action cards while it lies below."
        ),
        "back": pgettext("event", "{player} moves back to row {row}."),
        "back.discard": pgettext(
            "event", "{player} moves back to row {row}, discarding {location}."
        ),
        "swap": pgettext("event", "{player} and {other} swap places."),
        "play": pgettext("event", "{player} plays {card}."),
        "play.on": pgettext("event", "{player} plays {card} on {target}."),
        "target": pgettext("event", "{player} aims {card} at {target}."),
        "react": pgettext("event", "{player} does not block."),
        "react.block": pgettext("event", "{player} blocks it with {card}."),
        "stay": pgettext("event", "{player} stays."),
        "stay.discard": pgettext("event", "{player} stays, discarding {cards}."),
        "discard.meteoroid": pgettext("event", "{player} discards {cards} (Meteoroid)."),
        "discard.hurricane": pgettext("event", "{player} discards {card} (Hurricane)."),
        "discard.lost": pgettext("event", "{player} loses {card} (Lost)."),
        "shark": pgettext("event", "A shark appears at {cell}!"),
        "shark.frenzy": pgettext("event", "Feeding Frenzy: a second shark appears at {cell}."),
        "shark.bait": pgettext("event", "{player} lures a shark to {cell}."),
        "shark.rest": pgettext(
            "event", "The sharks do not move in the turn the first shark appeared."
        ),
        "shark.fed": pgettext(
            "event", "A shark has eaten: the sharks stop, the other picks are discarded."
        ),
        "bite": pgettext("event", "A shark bites {player}!"),
        "drift": pgettext("event", "The raft drifts closer: it is now at row {row}."),
        "reveal": pgettext("event", "{player} reveals {card}: the sharks swim {dir}."),
        "pick": pgettext("event", "{player} has chosen."),
        # The room's notices (server/rooms/room.py), which are events too.
        "away.left": pgettext("event", "{player} left; a bot plays on."),
        "away.back": pgettext("event", "{player} is back."),
        "away.idle": pgettext("event", "{player} is away; their bot plays until they act."),
        "away.gone": pgettext(
            "event", "{player} is not connected; their bot plays until they come back."
        ),
        "bot": pgettext("event", "{player} is away; their bot chose: {label}."),
        "timeout": pgettext("event", "{player} ran out of time; their bot chose: {label}."),
    }


def public_event_templates() -> dict[str, str]:
    """The sentences of the events with secret args, as the others read them (the args
    without the secret ones), by event key."""
    return {
        "draw": pgettext("event", "{player} draws a card."),
        "change": pgettext("event", "{player} makes change: {card} for two singles."),
        "change.taken": pgettext("event", "{player} takes a single as change."),
        "steal": pgettext("event", "{thief} takes {resource} from {victim}."),
        "steal.card": pgettext("event", "{thief} takes a card from {victim}."),
        "look": pgettext("event", "{looker} looks at {victim}'s hand."),
        "take": pgettext("event", "{looker} takes a card from {victim}."),
        "bot": pgettext("event", "{player} is away; their bot decided."),
        "timeout": pgettext("event", "{player} ran out of time; their bot decided."),
    }


def prompt_templates(english: bool = False) -> dict[str, str]:
    """Decision prompts by the engine's prompt key (english.py ``PROMPTS``: the decision
    kinds), in the active language (``english``: the msgids themselves, which
    :func:`render_prompt` matches the server's English prompt against)."""
    pgettext = _msgid if english else i18n_pgettext
    return {
        "actions": pgettext("prompt", "Play an action card, make change, or go on."),
        "stay_or_move": pgettext("prompt", "Stay or move?"),
        "pay": pgettext("prompt", "Choose the {resource} to discard ({units}) for {reason}."),
        "give": pgettext("prompt", "Choose the {resource} {thief} takes ({units})."),
        "react": pgettext("prompt", "{player} plays {card} on you."),
        "target": pgettext("prompt", "{card}: who moves back?"),
        "take": pgettext("prompt", "Take one card from {victim}'s hand."),
        "meteoroid": pgettext("prompt", "Meteoroid: discard 2 cards."),
        "swap": pgettext("prompt", "{card}: swap places with whom?"),
        "shark_bait": pgettext("prompt", "Shark Bait: move a shark next to another castaway."),
        "freeloader": pgettext("prompt", "Freeloader: who moves forward?"),
        "hurricane": pgettext("prompt", "Hurricane: discard 1 card."),
        "pick": pgettext("prompt", "The sharks move: pick a card; its direction steers them."),
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
        "target": pgettext("choice", "Aim at {player}"),
        "advance": pgettext("choice", "{player} moves forward"),
        # The sharks' card is discarded, not given to anyone: "Pick".
        "pick": pgettext("choice", "Pick {card}"),
        "shark": pgettext("choice", "Shark {shark} to {cell}"),
    }


def reason_words() -> dict[str, str]:
    """Why a seat pays or dies (the ``reason`` arg): ``stay``, ``travel``, ``bite`` or a card
    key (english.py ``REASONS``)."""
    return {
        "stay": pgettext("reason", "staying"),
        "travel": pgettext("reason", "travelling"),
        "bite": pgettext("reason", "the shark"),
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


#: The arrows of the compass points (server/engine/cards.py ARROWS: the same notation).
ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}


def compass(direction: str | None) -> str:
    """A compass direction in the one notation of hand, prompt, choices and log: the arrow and
    the point's letter ("←W"; "←西" in Chinese); '' for none."""
    if direction not in ARROWS:
        return ""
    return f"{ARROWS[direction]}{direction_word(direction)}"


def with_direction(name: str, direction: str | None) -> str:
    """A Shipwrecked card's name with its compass point: "Pirate ↑N" ("海盗 ↑北")."""
    if not direction:
        return name
    template = pgettext("cards", "{name} {compass}")
    return template.format(name=name, compass=compass(direction))


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
            values.update(shark=int(choice["shark"]) + 1, cell=cell_words(column, row))
    except (KeyError, IndexError, TypeError, ValueError):
        return fallback
    return render(choice_templates, template_id, values, fallback)


def cell_words(column: int, row: int) -> str:
    """A cell of the board as sentences say it, from its wire form ``[col, row]`` (columns
    counted from 1, rows from 0, as the players count them)."""
    return pgettext("cell", "column {column}, row {row}").format(column=column + 1, row=row)


#: Event args that are seats (rendered as the player's name).
SEAT_ARGS = frozenset({"player", "other", "target", "thief", "victim", "looker"})


def arg_words(
    args: Mapping[str, Any],
    names: Sequence[str],
    card_names: Mapping[str, str],
    view: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """An event's (or prompt's) args as the words of the active language: seats by name, cards
    by name (``card_names``: English names by key, the catalogue's, for keys the catalog does
    not have), a ``location`` by its card name, lists of cards joined, ``cell`` in words,
    ``reason`` / ``goal`` / ``resource`` / ``dir`` as words, a bot's ``choice`` as its label
    (``label``, the engine's English one, when it does not resolve)."""

    def card(value: Mapping[str, Any]) -> str:
        key = str(value.get("key", ""))
        name = card_name(key, card_names.get(key, key))
        direction = value.get("dir")
        return with_direction(name, direction if isinstance(direction, str) else None)

    words: dict[str, str] = {}
    for name, value in args.items():
        if name in SEAT_ARGS and isinstance(value, int):
            words[name] = str(names[value])
        elif name in ("card", "location") and isinstance(value, Mapping):
            words[name] = card(value)
        elif name == "cards" and isinstance(value, list):
            words[name] = card_list([card(item) for item in value])
        elif name == "cell" and isinstance(value, list):
            words[name] = cell_words(int(value[0]), int(value[1]))
        elif name == "reason":
            reasons = reason_words()
            words[name] = reasons.get(str(value)) or card_name(
                str(value), card_names.get(str(value), str(value))
            )
        elif name == "goal":
            words[name] = goal_word("shipwrecked" if value == "raft" else "space")
        elif name == "resource":
            words[name] = resource_word("shipwrecked" if value == "food" else "space")
        elif name == "dir":
            words[name] = compass(str(value))
        elif name == "choice" and isinstance(value, Mapping):
            if view is not None:
                english = args.get("label", value.get("do", "?"))
                words["label"] = choice_label({**value, "label": english}, view)
        elif name == "label":
            words.setdefault(name, str(value))
        else:
            words[name] = str(value)
    return words


def render_event(
    event: Mapping[str, Any],
    names: Sequence[str],
    card_names: Mapping[str, str],
    view: Mapping[str, Any] | None = None,
) -> str:
    """An event of the wire (``key``, ``args``, ``text``) as a sentence of the active language.
    An event whose secret args were left out (the recipient may not see them) reads as its
    public sentence; an unknown key, or args that do not fit, show the server's ``text``."""
    fallback = str(event.get("text", ""))
    key = str(event.get("key", ""))
    args = event.get("args")
    if not isinstance(args, Mapping):
        return fallback
    try:
        values = arg_words(args, names, card_names, view)
    except (IndexError, KeyError, TypeError, ValueError):
        return fallback
    whole = event_templates().get(key)
    if whole is not None:
        try:
            return whole.format_map(values)
        except (KeyError, IndexError, ValueError):
            pass
    return render(public_event_templates, key, values, fallback)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{\w+\})", template)
    return re.compile(
        "".join(
            f"(?P<{part[1:-1]}>.+)" if part.startswith("{") else re.escape(part) for part in parts
        )
    )


def render_prompt(
    decision: Mapping[str, Any], card_names: Mapping[str, str], names: Sequence[str] = ()
) -> str:
    """A decision's prompt in the active language, from its ``prompt_key`` and ``prompt_args``
    (protocol/PROTOCOL.md §6; seats named by ``names``, cards by the catalog, else by
    ``card_names``, the catalogue's English names). From a server that does not send them, the
    args are read back from the English ``prompt`` by the prompt's template: names stay as they
    are, card names (with their direction) are looked up by their English name, the reason and
    resource words by their English. The server's ``prompt`` when nothing fits."""
    english = str(decision.get("prompt", ""))
    key = decision.get("prompt_key")
    args = decision.get("prompt_args")
    if isinstance(key, str) and isinstance(args, Mapping):
        try:
            words = arg_words(args, names, card_names)
        except (IndexError, KeyError, TypeError, ValueError):
            return english
        return render(prompt_templates, key, words, english)
    kind = str(decision.get("kind", ""))
    englishes = prompt_templates(english=True)
    order = [kind, *[key for key in englishes if key != kind]]
    keys_by_name = {name: key for key, name in card_names.items()}
    reasons_by_word = {word: reason for reason, word in ENGLISH_REASONS.items()}
    for key in order:
        template = englishes.get(key)
        if template is None:
            continue
        found = _pattern(template).fullmatch(english)
        if found is None:
            continue
        values: dict[str, str] = {}
        for name, text in found.groupdict().items():
            if name == "card":
                named = re.fullmatch(r"(.*) [↑→↓←]([NESW])", text)
                base, direction = (named.group(1), named.group(2)) if named else (text, None)
                card_key = keys_by_name.get(base)
                values[name] = with_direction(
                    card_name(card_key, base) if card_key else base, direction
                )
            elif name == "reason":
                reason = reasons_by_word.get(text)
                values[name] = reason_words().get(reason, text) if reason else text
            elif name == "resource":
                values[name] = resource_word("shipwrecked" if text == "food" else "space")
            else:
                values[name] = text
        return render(prompt_templates, key, values, english)
    return english


#: english.py ``REASONS``: the English words of the ``reason`` args (a test compares them).
ENGLISH_REASONS = {
    "stay": "staying",
    "travel": "travelling",
    "bite": "the shark",
    "cosmic_radiation": "Cosmic Radiation",
    "asteroid_field": "Asteroid Field",
    "hole_in_suit": "Hole in Suit",
    "sea_monster": "the Sea Monster",
}
