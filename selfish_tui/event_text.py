"""Sentences of the game in the active language: event lines, decision prompts, choice labels.

The server sends no words: each event, decision and choice is a key and its arguments
(protocol/PROTOCOL.md lists them). The words are the catalogue's, one per language
(``locale/<lang>/LC_MESSAGES/selfish.po``), looked up by the engine's own keys: msgctxt
``event`` (the sentence as the seats that see every arg read it), ``event public`` (as the others
read it, without the secret args), ``prompt`` (by decision kind, or ``give``), ``choice`` (by the
choice's ``do``, or a variant of it) and ``reason``. Each entry is a template with named
placeholders, so a translation may put the names in any order; the placeholders take words that
are already in the active language (:func:`arg_words` turns wire args into them).

The key tables below are every key the client has words for; :func:`extract_keys` of
extraction.py puts them in the catalogue template, and tests/tui/test_catalogue.py plays seeded
games of both editions to check that every key the engine sends is one of them, rendered whole in
both languages. A key this client does not know (a newer server) reads as a line of its own that
names the key; never as another text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from protocol.game_types import Arg, Card, Choice, Decision, Event, Location
from protocol.view_types import View
from protocol.vocabulary import ARG_TYPES, CHOICES, DECISIONS, EVENTS, ArgType
from selfish_tui.i18n import _, keyed, pgettext
from selfish_tui.keyed_text import card_name

EVENT_KEYS: tuple[str, ...] = tuple(EVENTS)
"""Every event key (protocol.vocabulary.EVENTS), by msgctxt ``event``."""

PUBLIC_EVENT_KEYS: tuple[str, ...] = tuple(key for key, event in EVENTS.items() if event.secret)
"""The events with secret args: their sentence without them (msgctxt ``event public``)."""

PROMPT_KEYS: tuple[str, ...] = (
    *DECISIONS,
    # The actions prompt naming only what the legal choices allow (widgets/prompt.py).
    "actions.play",
    "actions.change",
    "actions.none",
)
"""Every prompt key: a decision kind (protocol.vocabulary.DECISIONS), and the actions prompt's
variants."""

CHOICE_KEYS: tuple[str, ...] = (*CHOICES, "play.on", "stay.discarding")
"""Every choice label: a choice's ``do`` (protocol.vocabulary.CHOICES), ``play.on`` (with a
target) and ``stay.discarding`` (with cards to discard)."""

REASON_KEYS: tuple[str, ...] = (
    "stay",
    "travel",
    "bite",
    "cosmic_radiation",
    "asteroid_field",
    "hole_in_suit",
    "sea_monster",
)
"""Why a seat pays or dies (the ``reason`` arg); any other reason is a card key."""

KEYED_CONTEXTS: dict[str, tuple[str, ...]] = {
    "event": EVENT_KEYS,
    "event public": PUBLIC_EVENT_KEYS,
    "prompt": PROMPT_KEYS,
    "choice": CHOICE_KEYS,
    "reason": REASON_KEYS,
}
"""The game's sentences by msgctxt: the keys each context has an entry for."""


class MissingText(LookupError):
    """The catalogue has no entry for a key, or a template names an arg that is not there."""


def template(context: str, key: str) -> str:
    """The template of ``key`` in ``context`` in the active language; raises
    :class:`MissingText` when the catalogue has none."""
    text = keyed(context, key)
    if text is None:
        raise MissingText(f"{context}|{key}")
    return text


def fill(context: str, key: str, values: Mapping[str, object]) -> str:
    """The template of ``key`` filled with ``values`` (inserted as they are: a name with braces
    is never read as a template); raises :class:`MissingText` when a placeholder has no value."""
    try:
        return template(context, key).format_map(values)
    except (KeyError, IndexError, ValueError) as exc:
        raise MissingText(f"{context}|{key}: {exc}") from None


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


def reason_word(reason: str) -> str:
    """Why a seat pays or dies, in words: a reason of :data:`REASON_KEYS`, else a card key
    (its name)."""
    return keyed("reason", reason) or card_name(reason)


#: The arrows of the compass points (the same notation as the engine's cards).
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
    return pgettext("cards", "{name} {compass}").format(name=name, compass=compass(direction))


def card_display(card: Card | Location) -> str:
    """A card by its name in the active language, with its compass point in Shipwrecked."""
    return with_direction(card_name(card.key), card.dir if isinstance(card, Card) else None)


def cell_words(column: int, row: int) -> str:
    """A cell of the board as sentences say it, from its wire form ``[col, row]`` (columns
    counted from 1, rows from 0, as the players count them)."""
    return pgettext("cell", "column {column}, row {row}").format(column=column + 1, row=row)


def view_cards(view: View | None) -> dict[int, Card]:
    """The cards a view shows the seat by id: its hand and the cards a decision reveals."""
    if view is None or view.own is None:
        return {}
    decision = view.own.decision
    reveal = decision.reveal if decision is not None else ()
    return {card.id: card for card in (*view.own.hand, *reveal)}


def choice_label(
    choice: Choice, names: Sequence[str], edition: str, cards: Mapping[int, Card]
) -> str:
    """A choice's label in the active language, from its typed values (``do``, ``card``,
    ``cards`` / ``discard``, ``target``, ``shark``, ``cell``): cards named from ``cards`` (by
    id), seats by ``names``. A card that is not in ``cards`` reads as "a card"."""
    try:
        return _choice_label(choice, names, edition, cards, strict=False)
    except MissingText:
        return _("(a choice this client does not know: {do})").format(do=choice.do)


def strict_choice_label(
    choice: Choice, names: Sequence[str], edition: str, cards: Mapping[int, Card]
) -> str:
    """:func:`choice_label`, raising :class:`MissingText` where it would name the unknown (a
    card not in ``cards``, a seat not in ``names``, a ``do`` without a label)."""
    return _choice_label(choice, names, edition, cards, strict=True)


def _choice_label(
    choice: Choice,
    names: Sequence[str],
    edition: str,
    cards: Mapping[int, Card],
    strict: bool,
) -> str:
    def card(card_id: int) -> str:
        found = cards.get(card_id)
        if found is not None:
            return card_display(found)
        if strict:
            raise MissingText(f"card {card_id}")
        return pgettext("cards", "a card")

    key = choice.do
    values: dict[str, object] = {"resource": resource_word(edition)}
    if choice.card is not None:
        values["card"] = card(choice.card)
    listed = choice.cards if choice.cards is not None else choice.discard
    if listed is not None:
        values["cards"] = card_pair([card(item) for item in listed])
    if choice.target is not None and 0 <= choice.target < len(names):
        values["player"] = str(names[choice.target])
        if choice.do == "play":
            key = "play.on"
    if choice.do == "stay" and choice.discard is not None:
        key = "stay.discarding"
    if choice.shark is not None and choice.cell is not None:
        values.update(shark=choice.shark + 1, cell=cell_words(*choice.cell))
    return fill("choice", key, values)


def arg_words(
    args: Mapping[str, Arg],
    names: Sequence[str],
    edition: str = "space",
    cards: Mapping[int, Card] | None = None,
) -> dict[str, str]:
    """An event's (or decision's) args as words of the active language, each by the type its
    name has (protocol.vocabulary.ARG_TYPES): seats by name, cards by name (with their compass
    point), lists of cards joined, a cell in words, ``reason`` / ``goal`` / ``resource`` /
    ``dir`` as words, a bot's ``choice`` as its ``label`` (its cards from ``cards``)."""
    words: dict[str, str] = {}
    for name, value in args.items():
        kind = ARG_TYPES.get(name)
        if kind is ArgType.SEAT and isinstance(value, int):
            if 0 <= value < len(names):
                words[name] = str(names[value])
        elif isinstance(value, Card | Location):
            words[name] = card_display(value)
        elif kind is ArgType.CARDS and isinstance(value, tuple):
            words[name] = card_list(
                [card_display(item) for item in value if isinstance(item, Card)]
            )
        elif kind is ArgType.CELL and isinstance(value, tuple) and len(value) == 2:
            column, row = value
            if isinstance(column, int) and isinstance(row, int):
                words[name] = cell_words(column, row)
        elif kind is ArgType.REASON:
            words[name] = reason_word(str(value))
        elif kind is ArgType.GOAL:
            words[name] = goal_word("shipwrecked" if value == "raft" else "space")
        elif kind is ArgType.RESOURCE:
            words[name] = resource_word("shipwrecked" if value == "food" else "space")
        elif kind is ArgType.DIRECTION:
            words[name] = compass(str(value))
        elif isinstance(value, Choice):
            words["label"] = choice_label(value, names, edition, cards or {})
        elif isinstance(value, int | str):
            words[name] = str(value)
    return words


def strict_event_line(
    event: Event,
    names: Sequence[str],
    edition: str = "space",
    cards: Mapping[int, Card] | None = None,
) -> str:
    """:func:`render_event`, raising :class:`MissingText` where it would say it does not know."""
    values = arg_words(event.args, names, edition, cards)
    try:
        return fill("event", event.key, values)
    except MissingText:
        if event.key not in PUBLIC_EVENT_KEYS:
            raise
    return fill("event public", event.key, values)


def render_event(
    event: Event,
    names: Sequence[str],
    edition: str = "space",
    cards: Mapping[int, Card] | None = None,
) -> str:
    """An event as a sentence of the active language, from its key and args (a bot's choice
    names its cards from ``cards``, by id). An event whose secret args were left out (the
    recipient may not see them) reads as its public sentence; a key this client does not know,
    or args that do not fit it, read as a line that names the key."""
    try:
        return strict_event_line(event, names, edition, cards)
    except MissingText:
        return _("(an event this client does not know: {key})").format(key=event.key)


def strict_prompt(decision: Decision, names: Sequence[str]) -> str:
    """:func:`render_prompt`, raising :class:`MissingText` where it would ask in general."""
    return fill("prompt", decision.kind, arg_words(decision.args, names))


def render_prompt(decision: Decision, names: Sequence[str]) -> str:
    """A decision's prompt in the active language, from its ``kind`` and ``args``
    (protocol/PROTOCOL.md §6; seats named by ``names``). A prompt this client does not know
    asks to choose."""
    try:
        return strict_prompt(decision, names)
    except MissingText:
        return _("Choose:")
