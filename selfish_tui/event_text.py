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
keyed_text.py puts them in the catalogue template, and tests/tui/test_catalogue.py plays seeded
games of both editions to check that every key the engine sends is one of them, rendered whole in
both languages. A key this client does not know (a newer server) reads as a line of its own that
names the key; never as another text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from selfish_tui.i18n import _, keyed, pgettext
from selfish_tui.keyed_text import card_name

EVENT_KEYS: tuple[str, ...] = (
    "setup",
    "turn",
    "info.reshuffle",
    "info.reshuffle_locations",
    "draw",
    "draw.none",
    "change",
    "change.taken",
    "change.none",
    "pay",
    "steal",
    "steal.card",
    "look",
    "take",
    "death.oxygen",
    "death.no_food",
    "death.eaten",
    "win.nobody",
    "win.ship",
    "win.wormhole",
    "win.last",
    "win.raft",
    "move.travel",
    "move.blocked",
    "move",
    "move.freeloader",
    "location",
    "location.shark",
    "location.flare",
    "back",
    "back.discard",
    "swap",
    "play",
    "play.on",
    "target",
    "react",
    "react.block",
    "stay",
    "stay.discard",
    "discard.meteoroid",
    "discard.hurricane",
    "discard.lost",
    "shark",
    "shark.frenzy",
    "shark.bait",
    "shark.rest",
    "shark.fed",
    "bite",
    "drift",
    "reveal",
    "pick",
    # The room's notices (a seat's person and its bot), which are events too.
    "away.left",
    "away.back",
    "away.idle",
    "away.gone",
    "bot",
    "timeout",
)
"""Every event key, by msgctxt ``event``."""

PUBLIC_EVENT_KEYS: tuple[str, ...] = (
    "draw",
    "change",
    "change.taken",
    "steal",
    "steal.card",
    "look",
    "take",
    "bot",
    "timeout",
)
"""The events with secret args: their sentence without them (msgctxt ``event public``)."""

PROMPT_KEYS: tuple[str, ...] = (
    "actions",
    # The actions prompt naming only what the legal choices allow (widgets/prompt.py).
    "actions.play",
    "actions.change",
    "actions.none",
    "stay_or_move",
    "pay",
    "give",
    "react",
    "target",
    "take",
    "meteoroid",
    "swap",
    "shark_bait",
    "freeloader",
    "hurricane",
    "pick",
)
"""Every prompt key (a decision kind, ``give``, and the actions prompt's variants)."""

CHOICE_KEYS: tuple[str, ...] = (
    "play",
    "play.on",
    "change",
    "done",
    "stay",
    "stay.discarding",
    "move",
    "pay",
    "discard",
    "block",
    "accept",
    "take",
    "swap",
    "target",
    "advance",
    "pick",
    "shark",
)
"""Every choice label: a choice's ``do``, ``play.on`` (with a target) and ``stay.discarding``."""

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


def card_display(card: Mapping[str, Any]) -> str:
    """A card of the wire (``key``, ``dir``) by its name in the active language, with its
    compass point in Shipwrecked."""
    direction = card.get("dir")
    return with_direction(
        card_name(str(card.get("key", ""))), direction if isinstance(direction, str) else None
    )


def cell_words(column: int, row: int) -> str:
    """A cell of the board as sentences say it, from its wire form ``[col, row]`` (columns
    counted from 1, rows from 0, as the players count them)."""
    return pgettext("cell", "column {column}, row {row}").format(column=column + 1, row=row)


def view_cards(view: Mapping[str, Any] | None) -> dict[int, Mapping[str, Any]]:
    """The cards a view shows by id: the hand and the cards a decision reveals."""
    if not view:
        return {}
    decision = view.get("decision") or {}
    return {
        int(card["id"]): card
        for card in [*(view.get("hand") or []), *(decision.get("reveal") or [])]
        if isinstance(card, Mapping) and isinstance(card.get("id"), int)
    }


def choice_label(
    choice: Mapping[str, Any],
    view: Mapping[str, Any],
    cards: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    """A choice's label in the active language, from its own fields (``do``, ``card``,
    ``cards`` / ``discard``, ``target``, ``shark``, ``cell``): cards named from ``cards`` (by
    id; the view's hand and revealed cards when not given), seats from the view's names. A card
    that is in neither reads as "a card"; a ``do`` this client does not know names itself."""
    try:
        return _choice_label(choice, view, cards, strict=False)
    except MissingText:
        return _("(a choice this client does not know: {do})").format(do=choice.get("do", "?"))


def strict_choice_label(
    choice: Mapping[str, Any],
    view: Mapping[str, Any],
    cards: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    """:func:`choice_label`, raising :class:`MissingText` where it would name the unknown (a
    card not in ``cards``, a ``do`` without a label)."""
    return _choice_label(choice, view, cards, strict=True)


def _choice_label(
    choice: Mapping[str, Any],
    view: Mapping[str, Any],
    cards: Mapping[int, Mapping[str, Any]] | None,
    strict: bool,
) -> str:
    known = view_cards(view) if cards is None else cards
    names = view.get("names") or []

    def card(card_id: object) -> str:
        found = known.get(card_id) if isinstance(card_id, int) else None
        if found is not None:
            return card_display(found)
        if strict:
            raise MissingText(f"card {card_id!r}")
        return pgettext("cards", "a card")

    do = str(choice.get("do", ""))
    key = do
    values: dict[str, object] = {"resource": resource_word(str(view.get("edition", "space")))}
    if "card" in choice:
        values["card"] = card(choice["card"])
    listed = choice.get("cards", choice.get("discard"))
    if isinstance(listed, list):
        values["cards"] = card_pair([card(item) for item in listed])
    target = choice.get("target")
    if isinstance(target, int) and 0 <= target < len(names):
        values["player"] = str(names[target])
        if do == "play":
            key = "play.on"
    if do == "stay" and "discard" in choice:
        key = "stay.discarding"
    cell = choice.get("cell")
    if do == "shark" and isinstance(cell, list | tuple) and len(cell) == 2:
        values.update(shark=int(choice.get("shark", 0)) + 1, cell=cell_words(*map(int, cell)))
    return fill("choice", key, values)


#: Event args that are seats (rendered as the player's name).
SEAT_ARGS = frozenset({"player", "other", "target", "thief", "victim", "looker"})


def arg_words(
    args: Mapping[str, Any],
    names: Sequence[str],
    view: Mapping[str, Any] | None = None,
    cards: Mapping[int, Mapping[str, Any]] | None = None,
) -> dict[str, str]:
    """An event's (or prompt's) args as words of the active language: seats by name, cards by
    name (with their compass point), lists of cards joined, ``cell`` in words, ``reason`` /
    ``goal`` / ``resource`` / ``dir`` as words, a bot's ``choice`` as its ``label`` (from
    ``view`` and ``cards``, as :func:`choice_label`)."""
    words: dict[str, str] = {}
    for name, value in args.items():
        if name in SEAT_ARGS and isinstance(value, int) and 0 <= value < len(names):
            words[name] = str(names[value])
        elif name in ("card", "location") and isinstance(value, Mapping):
            words[name] = card_display(value)
        elif name == "cards" and isinstance(value, list):
            words[name] = card_list([card_display(item) for item in value])
        elif name == "cell" and isinstance(value, list | tuple) and len(value) == 2:
            words[name] = cell_words(int(value[0]), int(value[1]))
        elif name == "reason":
            words[name] = reason_word(str(value))
        elif name == "goal":
            words[name] = goal_word("shipwrecked" if value == "raft" else "space")
        elif name == "resource":
            words[name] = resource_word("shipwrecked" if value == "food" else "space")
        elif name == "dir":
            words[name] = compass(str(value))
        elif name == "choice" and isinstance(value, Mapping):
            words["label"] = choice_label(value, view or {"names": names}, cards)
        elif isinstance(value, int | str) and not isinstance(value, bool):
            words[name] = str(value)
    return words


def strict_event_line(
    event: Mapping[str, Any],
    names: Sequence[str],
    view: Mapping[str, Any] | None = None,
    cards: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    """:func:`render_event`, raising :class:`MissingText` where it would say it does not know."""
    key = str(event.get("key", ""))
    args = event.get("args")
    values = arg_words(args if isinstance(args, Mapping) else {}, names, view, cards)
    try:
        return fill("event", key, values)
    except MissingText:
        if key not in PUBLIC_EVENT_KEYS:
            raise
    return fill("event public", key, values)


def render_event(
    event: Mapping[str, Any],
    names: Sequence[str],
    view: Mapping[str, Any] | None = None,
    cards: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    """An event of the wire (``key``, ``args``) as a sentence of the active language. An event
    whose secret args were left out (the recipient may not see them) reads as its public
    sentence; a key this client does not know, or args that do not fit it, read as a line that
    names the key."""
    try:
        return strict_event_line(event, names, view, cards)
    except MissingText:
        return _("(an event this client does not know: {key})").format(key=event.get("key", "?"))


def strict_prompt(decision: Mapping[str, Any], names: Sequence[str]) -> str:
    """:func:`render_prompt`, raising :class:`MissingText` where it would ask in general."""
    key = decision.get("prompt_key") or decision.get("kind")
    args = decision.get("prompt_args")
    values = arg_words(args if isinstance(args, Mapping) else {}, names)
    return fill("prompt", str(key), values)


def render_prompt(decision: Mapping[str, Any], names: Sequence[str]) -> str:
    """A decision's prompt in the active language, from its ``prompt_key`` (else its ``kind``)
    and ``prompt_args`` (protocol/PROTOCOL.md §6; seats named by ``names``). A prompt this
    client does not know asks to choose."""
    try:
        return strict_prompt(decision, names)
    except MissingText:
        return _("Choose:")
