"""The Hand panel: the player's own cards with their keys, values or effects, and which may be
played now."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from selfish_tui.choice_keys import KeyRing, hand_order
from selfish_tui.event_text import compass
from selfish_tui.i18n import _, ngettext
from selfish_tui.keyed_text import card_name, card_text
from selfish_tui.model import (
    Catalogue,
    View,
    playable_cards,
    resource_word,
)


class HandPanel(OptionList):
    """The player's hand as a list; the highlighted card's full text goes to the detail line."""

    class CardFocused(Message):
        """A card was highlighted; ``text`` is its full description."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    class CardChosen(Message):
        """Enter on a card: the table moves the prompt to the first choice using it."""

        def __init__(self, card_id: int) -> None:
            self.card_id = card_id
            super().__init__()

    def __init__(self, catalogue: Catalogue | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalogue = catalogue or Catalogue()
        self.cards: list[dict[str, Any]] = []
        self.spectating = False
        self._view: View | None = None
        self._keys: KeyRing | None = None

    def on_resize(self) -> None:
        # Lines are cut to the panel's width, so a new width needs new lines.
        if self._view is not None:
            self.update_view(self._view, self._keys)

    def update_view(self, view: View, keys: KeyRing | None = None) -> None:
        """Show the hand from a view (a spectator has none), each card with its key in
        ``keys`` (the room's: selfish_tui.choice_keys)."""
        self._view, self._keys = view, keys
        hand = view.get("hand")
        edition = str(view.get("edition", "space"))
        self.spectating = hand is None
        playable = playable_cards(view)
        previous = self.highlighted
        # Resources first (by value), then actions by name: a stable order is easier to scan.
        self.cards = hand_order(list(hand or []))
        self.clear_options()
        if hand is None:
            self.add_option(
                Option(Text(_("  Spectating: hands are hidden."), style="dim"), disabled=True)
            )
            self.border_subtitle = ""
            return
        if not self.cards:
            self.add_option(Option(Text(_("  No cards."), style="dim"), disabled=True))
        for card in self.cards:
            key = keys.card_key(card.get("id")) if keys is not None else ""
            line = self._line(card, card.get("id") in playable, key)
            self.add_option(Option(line, id=f"card-{card.get('id')}"))
        total = view.get("resources")
        if total is None:
            total = sum(int(c.get("value") or 0) for c in self.cards if c.get("kind") == "resource")
        count = len(self.cards)
        subtitle = ngettext(
            "{resource} {total} · {count} card", "{resource} {total} · {count} cards", count
        )
        self.border_subtitle = subtitle.format(
            resource=resource_word(edition), total=total, count=count
        )
        if self.cards:
            self.highlighted = min(previous or 0, len(self.cards) - 1)

    def _line(self, card: dict[str, Any], playable: bool, key: str = "") -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        # The card's key: every choice that uses this card is on it, for as long as it is here.
        line.append(key or " ", style="bold")
        line.append("● " if playable else "  ", style="bold bright_green")
        arrow = compass(card.get("dir"))
        if card.get("kind") == "resource":
            value = int(card.get("value") or 1)
            line.append(self.card_title(card), style="bright_cyan")
            line.append(f" ({value})", style="cyan")
        else:
            line.append(self.card_title(card), style="bold bright_yellow" if playable else "")
        if arrow:
            line.append(f" {arrow}", style="bold")
        if card.get("kind") != "resource":
            # The effect, cut to the panel's width; the full text is on the detail line.
            text = card_text(str(card.get("key", "")), self.catalogue.text(card.get("key")))
            if text:
                line.append(f" — {text}", style="dim")
        # OptionList wraps long prompts; one line per card keeps the whole hand in view.
        width = self.scrollable_content_region.width - 1
        if width > 10:
            line.truncate(width, overflow="ellipsis")
        return line

    @staticmethod
    def card_title(card: dict[str, Any]) -> str:
        return card_name(str(card.get("key", "")), str(card.get("name", "?")))

    def describe(self, card: dict[str, Any]) -> str:
        """A card's name, value or effect text, and compass direction, in one sentence."""
        parts = [self.card_title(card)]
        if card.get("kind") == "resource":
            parts.append(_("worth {value}").format(value=card.get("value", 1)))
        text = card_text(str(card.get("key", "")), self.catalogue.text(card.get("key")))
        if text:
            parts.append(text)
        if card.get("dir"):
            parts.append(_("compass {compass}").format(compass=compass(card["dir"])))
        return " — ".join(parts)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.cards):
            self.post_message(self.CardFocused(self.describe(self.cards[index])))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.cards):
            self.post_message(self.CardChosen(int(self.cards[index]["id"])))
