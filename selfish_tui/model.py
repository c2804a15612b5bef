"""Presentation helpers shared by the widgets: names, glyphs and colours for what a view shows.

Nothing here computes rules. The server's view says where everyone stands, what is in the
player's hand and which choices are legal; these helpers only decide how to *draw* that.
Card names and texts come from the client's catalogue (keyed_text.py), by the cards' keys.
"""

from __future__ import annotations

import os
from dataclasses import replace

from protocol.game_types import Card, Choice, Decision, Location
from protocol.view_types import View
from selfish_tui import event_text
from selfish_tui.i18n import ELLIPSIS, _, cell_width, cut, pgettext, word_cut
from selfish_tui.keyed_text import card_name, card_short, card_text

# One colour per seat. ANSI names keep them distinct in a 16-colour terminal, and every place that
# uses them also carries a non-colour cue (a marker or a name) so NO_COLOR stays readable.
SEAT_COLOURS = ("bright_cyan", "bright_magenta", "bright_yellow", "bright_green", "bright_blue")

SHARK = "▲"

EVENT_STYLES = {
    "turn": "bold",
    "death": "bold bright_red",
    "win": "bold bright_green",
    "bite": "bright_red",
    "shark": "cyan",
    "pick": "cyan",
    "reveal": "cyan",
    "drift": "cyan",
    "play": "bright_yellow",
    "react": "bright_magenta",
    "steal": "yellow",
    "look": "yellow",
    "take": "yellow",
    "move": "green",
    "back": "red",
    "swap": "magenta",
    "location": "blue",
    "pay": "default",
    "timeout": "italic yellow",
    "away": "italic yellow",
    "bot": "dim",
    "chat": "italic bright_magenta",
    "system": "italic",
    "notice": "bold italic",
    "error": "bright_red",
}


def seat_colour(seat: int | None) -> str:
    """The colour used for a seat's name and character ('default' under NO_COLOR, where the
    greys Textual turns colours into would leave some seats dark grey on black)."""
    if seat is None or os.environ.get("NO_COLOR"):
        return "default"
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def short_name(card: Location | None, width: int) -> str:
    """A location card's name shortened to ``width`` cells for the board."""
    if card is None:
        return ""
    full = card_name(card.key)
    if cell_width(full) <= width:
        return full
    name = card_short(card.key)
    if cell_width(name) <= width:
        return name
    # Cut after a word of the full name ("Cosmic…"), else inside the short one.
    whole = word_cut(full, width)
    return whole if cell_width(whole) > 1 and not _inside_word(whole, full) else cut(name, width)


def _inside_word(short: str, full: str) -> bool:
    """Whether ``short`` (ending in an ellipsis) stops inside one of ``full``'s words."""
    kept = short.removesuffix(ELLIPSIS)
    rest = full[len(kept) :]
    return bool(kept) and bool(rest) and rest[0].isalnum() and kept[-1].isalnum()


def resource_word(edition: str) -> str:
    """'oxygen' in Space, 'food' in Shipwrecked."""
    return event_text.resource_word(edition)


def goal_word(edition: str) -> str:
    """The goal card's name."""
    return pgettext("goal", "raft") if edition == "shipwrecked" else pgettext("goal", "ship")


def goal_label(edition: str) -> str:
    """The goal's label on the board ('SHIP', 'RAFT')."""
    return pgettext("goal", "RAFT") if edition == "shipwrecked" else pgettext("goal", "SHIP")


def compass_meaning(direction: str) -> str:
    """Where a picked card with this compass point pushes every shark (RULES W7)."""
    return {
        "N": _("sharks one cell towards the raft"),
        "S": _("sharks one cell towards the beach"),
        "E": _("sharks one strip to the right"),
        "W": _("sharks one strip to the left"),
    }.get(direction, "")


def compass_legend(width: int | None = None) -> str:
    """Where a card's compass point sends the sharks (RULES W7), the legend of the arrows
    beside the cards in the hand and the shark pick: one line ("↑N raft ↓S beach →E right
    ←W left"), or two of two pairs each when ``width`` cells cannot hold it."""
    compass = event_text.compass
    pairs = [
        " ".join((compass("N"), pgettext("compass legend", "raft"))),
        " ".join((compass("S"), pgettext("compass legend", "beach"))),
        " ".join((compass("E"), pgettext("compass legend", "right"))),
        " ".join((compass("W"), pgettext("compass legend", "left"))),
    ]
    line = " ".join(pairs)
    if width is None or cell_width(line) <= width:
        return line
    return f"{pairs[0]} {pairs[1]}\n{pairs[2]} {pairs[3]}"


def card_label(card: Card) -> str:
    """One-line description of a game card: name, value or 'action', compass arrow."""
    arrow = event_text.compass(card.dir)
    name = card_name(card.key)
    text = f"{name} ({card.value})" if card.kind == "resource" else name
    return f"{text} {arrow}".rstrip()


def hand(view: View | None) -> tuple[Card, ...]:
    """The seat's hand (none for a spectator)."""
    return view.own.hand if view is not None and view.own is not None else ()


def decision(view: View | None) -> Decision | None:
    """What the seat decides now (None: nothing, or a spectator)."""
    return view.own.decision if view is not None and view.own is not None else None


def own_seat(view: View | None) -> int | None:
    """The seat the view is for (None: a spectator)."""
    return view.own.seat if view is not None and view.own is not None else None


def seen_cards(view: View) -> dict[int, Card]:
    """The cards the seat sees by id: its hand and the cards its decision reveals."""
    return event_text.view_cards(view)


def choice_cards(choice: Choice) -> list[int]:
    """Card ids a choice mentions (played, blocked, paid, discarded, taken, picked)."""
    ids: list[int] = [] if choice.card is None else [choice.card]
    ids.extend(choice.cards or ())
    ids.extend(choice.discard or ())
    return ids


def playable_cards(view: View) -> set[int]:
    """Ids of hand cards that appear in at least one legal choice right now."""
    found: set[int] = set()
    for choice in view.legal:
        if choice.do in ("play", "block", "change"):
            found.update(choice_cards(choice))
    # The engine offers one choice per kind of card (identical copies are one choice), so mark
    # every copy that is the same as an offered card.
    cards = hand(view)
    kinds = {(c.key, c.dir) for c in cards if c.id in found}
    return {c.id for c in cards if (c.key, c.dir) in kinds} | found


def renamed(view: View, named: dict[int, str]) -> View:
    """``view`` with the seats in ``named`` under those names (a copy; the choices, which go
    back to the server by their place in the list, are untouched)."""
    if not named:
        return view
    public = view.public
    names = tuple(named.get(index, name) for index, name in enumerate(public.names))
    players = tuple(
        replace(p, name=named[p.seat]) if p.seat in named else p for p in public.players
    )
    return replace(view, public=replace(public, names=names, players=players))


def player_name(view: View, seat: int | None) -> str:
    """A seat's display name ('nobody' for None)."""
    names = view.public.names
    if seat is None or not 0 <= seat < len(names):
        return _("nobody")
    return names[seat]


def choice_label(choice: Choice, view: View) -> str:
    """A choice's label in the active language, from its values and the ``view`` (its cards
    from the seat's hand and revealed cards, its seats by the view's names)."""
    return event_text.choice_label(choice, view.public.names, view.public.edition, seen_cards(view))


def catalogue_text_for_choice(choice: Choice, view: View) -> str:
    """The detail line for a highlighted prompt choice: the texts of the cards it uses."""
    cards = seen_cards(view)
    parts: list[str] = []
    for card_id in choice_cards(choice):
        card = cards.get(card_id)
        if card is None:
            continue
        text = card_text(card.key)
        name = card_label(card)
        colon = pgettext("separator", ": ")  # the Chinese colon in Chinese, never ":"
        parts.append(f"{name}{colon}{text}" if text and card.kind != "resource" else name)
    if not parts:
        return choice_label(choice, view)
    return " · ".join(parts)
