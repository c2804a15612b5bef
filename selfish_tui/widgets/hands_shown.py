"""The replay's hands panel: the hand of the seat whose view is shown, or with everything
revealed every seat's hand and the draw pile in the order it is drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.widgets import Static

from protocol.game_types import Card
from protocol.view_types import View
from selfish_tui.event_text import card_display, resource_word
from selfish_tui.i18n import _, ngettext, pgettext
from selfish_tui.model import player_name, seat_colour
from selfish_tui.plain import cells, fit
from selfish_tui.screens.room_words import bot_level_name

#: How many cards of the draw pile the revealed view lists (the next ones).
DRAW_SHOWN = 4


def _cards_text(cards: Sequence[Card]) -> str:
    return pgettext("list", ", ").join(card_display(card) for card in cards) or pgettext(
        "hand", "(none)"
    )


def _units(cards: Sequence[Card]) -> int:
    return sum(c.value for c in cards if c.kind == "resource")


class HandsShown(Static):
    """What the replay's reader may see of the cards: a seat's own hand, or every hand."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self._lines = -1  # how many lines the text shown takes

    def show(
        self,
        view: View,
        hands: Sequence[Sequence[Card]] | None = None,
        draw: Sequence[Card] = (),
        bots: Mapping[int, str] | None = None,
    ) -> None:
        """Draw from a replay view: a seat's own (its hand), or with everything revealed
        every seat's ``hands`` and the ``draw`` pile, the next card first. ``bots``: the
        level of each seat a server bot held, said after its name (as the waiting room
        says it)."""
        edition = view.public.edition
        text = Text()
        levels = bots or {}

        def heading(seat: int | None, width: int) -> None:
            name = player_name(view, seat)
            if seat not in levels:
                text.append(fit(name, width), style=f"bold {seat_colour(seat)}")
                return
            said = "  " + _("bot ({level})").format(level=bot_level_name(levels[seat]))
            # The name keeps at least half the line; the level what is left of it.
            shown = fit(name, max(1, width - min(cells(said), width // 2)))
            text.append(shown, style=f"bold {seat_colour(seat)}")
            text.append(fit(said, width - cells(shown)), style="dim")

        if hands is None:
            own = view.own
            hand = own.hand if own is not None else ()
            seat = own.seat if own is not None else None
            width = max(4, self.size.width or 20)
            heading(seat, width)
            text.append("\n")
            text.append(
                ngettext("{count} card", "{count} cards", len(hand)).format(count=len(hand)),
                style="bold",
            )
            if own is not None:
                text.append(pgettext("separator", ", "))
                text.append(
                    pgettext("hand", "{units} {resource}").format(
                        units=own.resources, resource=resource_word(edition)
                    )
                )
            text.append("\n")
            for card in hand:
                style = "" if card.kind == "action" else "green"
                text.append(card_display(card) + "\n", style=style)
        else:
            text.append(_("Next to draw:") + " ", style="bold")
            text.append(_cards_text(draw[:DRAW_SHOWN]))
            if len(draw) > DRAW_SHOWN:
                more = _("+{count} more").format(count=len(draw) - DRAW_SHOWN)
                text.append(pgettext("list", ", ") + more)
            text.append("\n")
            width = max(4, self.size.width or 20)
            for seat, hand in enumerate(hands):
                heading(seat, width)
                text.append("\n")
                text.append(
                    pgettext("hand", "{units} {resource}: ").format(
                        units=_units(hand), resource=resource_word(edition)
                    ),
                    style="dim",
                )
                text.append(_cards_text(hand) + "\n")
        text.rstrip()
        # Laid out again only when the text takes another number of lines: a layout of the
        # whole screen costs more than drawing every panel (bench/replay_viewer.py).
        width = self.size.width
        lines = len(text.wrap(self.app.console, width)) if width else -1
        self.update(text, layout=lines != self._lines or lines < 0)
        self._lines = lines
