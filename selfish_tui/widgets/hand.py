"""The Hand panel: the player's own cards with their keys, values or effects, and which may be
played now."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from protocol.game_types import Card
from protocol.view_types import View
from selfish_tui.choice_keys import KeyRing, hand_order
from selfish_tui.event_text import compass
from selfish_tui.i18n import _, cell_width, ngettext, word_cut
from selfish_tui.keyed_text import card_name, card_text
from selfish_tui.model import (
    compass_legend,
    compass_meaning,
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
        """Enter on a card: the table moves the prompt to the first choice using it (or, for
        a line of identical copies, using any of them: ``card_ids``)."""

        def __init__(self, card_id: int, card_ids: tuple[int, ...] = ()) -> None:
            self.card_id = card_id
            self.card_ids = card_ids or (card_id,)
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[Card] = []
        # The lines shown: identical copies (same card, same compass point) share one, so a
        # hand of 12 or more cards still fits the panel at 24 rows.
        self.rows: list[list[Card]] = []
        self.spectating = False
        self._view: View | None = None
        self._keys: KeyRing | None = None
        self._subtitle = ""  # the resources and the hand's size

    def on_resize(self) -> None:
        # Lines are cut to the panel's width, so a new width needs new lines.
        if self._view is not None:
            self.update_view(self._view, self._keys)

    def update_view(self, view: View, keys: KeyRing | None = None) -> None:
        """Show the hand from a view (a spectator has none), each card with its key in
        ``keys`` (the room's: selfish_tui.choice_keys)."""
        self._view, self._keys = view, keys
        own = view.own
        edition = view.public.edition
        self.spectating = own is None
        playable = playable_cards(view)
        previous = self.highlighted
        # Resources first (by value), then actions by key: a stable order is easier to scan.
        self.cards = hand_order(own.hand if own is not None else ())
        self.rows = []
        self.clear_options()
        if own is None:
            self.add_option(
                Option(Text(_("  Spectating: hands are hidden."), style="dim"), disabled=True)
            )
            self.border_subtitle = self._subtitle = ""
            return
        if not self.cards:
            self.add_option(Option(Text(_("  No cards."), style="dim"), disabled=True))
        for card in self.cards:
            # One line a card, never copies folded into one: each card shows its own key.
            self.rows.append([card])
            key = keys.card_key(card.id) if keys is not None else ""
            line = self._line(card, card.id in playable, key)
            self.add_option(Option(line, id=f"card-{card.id}"))
        room = len(self.rows) + 2 <= self.scrollable_content_region.height
        if room and any(card.dir for card in self.cards):
            # The arrows' legend under the cards, when the panel has rows to spare.
            width = self.scrollable_content_region.width - 1
            legend = compass_legend(width if width > 0 else None)
            self.add_option(Option(Text(legend, style="dim"), disabled=True))
        total = own.resources
        count = len(self.cards)
        subtitle = ngettext(
            "{resource} {total} · {count} card", "{resource} {total} · {count} cards", count
        )
        self.border_subtitle = subtitle.format(
            resource=resource_word(edition), total=total, count=count
        )
        self._subtitle = self.border_subtitle
        if self.rows:
            self.highlighted = min(previous or 0, len(self.rows) - 1)
        self._say_more()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._say_more()

    def _say_more(self) -> None:
        """The subtitle, saying how many lines are below the panel's edge, if any (the
        resource total then stays, the card count is in the board's header)."""
        height = self.scrollable_content_region.height
        below = self.option_count - int(self.scroll_y) - height
        if height <= 0 or below <= 0 or not self.rows:
            self.border_subtitle = self._subtitle
            return
        view = self._view
        own = view.own if view is not None else None
        edition = view.public.edition if view is not None else "space"
        total = own.resources if own is not None else 0
        self.border_subtitle = _("↓ {count} more · {resource} {total}").format(
            count=below, resource=resource_word(edition), total=total
        )

    def _line(self, card: Card, playable: bool, key: str = "") -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        # The card's key: every choice that uses this card is on it, for as long as it is here.
        line.append(key or " ", style="bold")
        line.append("● " if playable else "  ", style="bold bright_green")
        arrow = compass(card.dir)
        if card.kind == "resource":
            value = card.value
            line.append(self.card_title(card), style="bright_cyan")
            line.append(f" ({value})", style="cyan")
        else:
            line.append(self.card_title(card), style="bold bright_yellow" if playable else "")
        if arrow:
            line.append(f" {arrow}", style="bold")
        # OptionList wraps long prompts; one line per card keeps the whole hand in view.
        width = self.scrollable_content_region.width - 1
        if card.kind != "resource":
            # The effect, cut at a word to the panel's width (the ellipsis says there is more);
            # the full text is on the detail line.
            text = card_text(card.key)
            room = width - line.cell_len - 3 if width > 10 else 1000
            if text and room >= 1:
                line.append(" — " + word_cut(text, room, inside=False), style="dim")
        if width > 10 and cell_width(line.plain) > width:
            line.truncate(width, overflow="ellipsis")
        return line

    @staticmethod
    def card_title(card: Card) -> str:
        return card_name(card.key)

    def describe(self, card: Card) -> str:
        """A card's name, value or effect text, and compass direction, in one sentence."""
        parts = [self.card_title(card)]
        if card.kind == "resource":
            parts.append(_("worth {value}").format(value=card.value))
        text = card_text(card.key)
        if text:
            parts.append(text)
        if card.dir:
            parts.append(
                _("compass {compass}: {meaning}").format(
                    compass=compass(card.dir), meaning=compass_meaning(card.dir)
                )
            )
        return " — ".join(parts)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.rows):
            copies = self.rows[index]
            text = self.describe(copies[0])
            if len(copies) > 1:
                text = _("{count} × {card}").format(count=len(copies), card=text)  # noqa: RUF001
            self.post_message(self.CardFocused(text))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.rows):
            ids = tuple(card.id for card in self.rows[index])
            self.post_message(self.CardChosen(ids[0], ids))
