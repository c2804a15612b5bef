"""The prompt: the pending decision and exactly the legal choices the server sent.

Choose with the key shown beside a choice (a card's key, a player's, or s / m / e / a for Stay,
Move, End actions and Do not block: selfish_tui.choice_keys), the arrow keys and Enter, or the
mouse; a card with several targets opens its targets (see selfish_tui.widgets.menu), Esc goes
back. A prompt that replaces another ignores choice keys for :data:`SETTLE` seconds and is
marked new, so a key meant for the old prompt (or for a dialog that just closed) never lands on
the new one; such a key, and one that stands for nothing here, is answered by a sign on the
prompt's lower border for :data:`SIGN` seconds, never by silence. A reaction (RULES C13) always
shows the same
frame, countdown and default (accept), whether or not a block is among the choices, so nothing
about the prompt's look or the time taken betrays the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from protocol.game_types import Card, Choice, Decision
from protocol.view_types import View
from selfish_tui import clock
from selfish_tui.choice_keys import KeyRing
from selfish_tui.event_text import card_list, render_prompt, template
from selfish_tui.i18n import _, cell_width, pgettext, word_cut
from selfish_tui.keyed_text import card_name, card_text
from selfish_tui.model import card_label, compass_legend, hand, own_seat, player_name
from selfish_tui.model import decision as own_decision
from selfish_tui.widgets import menu
from selfish_tui.widgets.menu import Entry


def titles() -> dict[str, str]:
    """Border titles by decision kind, in the active language. A reaction has the same title,
    countdown and default whether or not a block is among the choices."""
    return {
        "react": _("Reaction"),
        "pick": _("Shark pick"),
        "hurricane": _("Hurricane"),
        "take": _("Take a card"),
        "pay": _("Pay"),
        "meteoroid": _("Meteoroid"),
        "swap": _("Swap"),
        "shark_bait": _("Shark Bait"),
        "freeloader": _("Freeloader"),
    }


# Seconds a new prompt ignores choice keys; how long it is marked new; how long the sign for a
# key not taken stays.
SETTLE = 0.3
MARKED = 1.5
SIGN = 2.5
# Lines the victim's hand may take above the choices (#prompt-reveal's max-height), and the
# question with its countdown (#prompt-question's).
REVEAL_LINES = 3
QUESTION_LINES = 4


def incoming_effect(decision: Decision) -> str:
    """The rules text of the card a reaction prompt names ('Bot 1 plays Tether on you.'): its
    ``card`` arg's; '' when it names none."""
    card = decision.args.get("card")
    if not isinstance(card, Card):
        return ""
    key = card.key
    text = card_text(key)
    colon = pgettext("separator", ": ")  # the Chinese colon in Chinese
    return f"{card_name(key)}{colon}{text}" if text else ""


def actions_question(legal: Sequence[Choice]) -> str:
    """The actions prompt naming only what the legal choices allow: an action card to play,
    change to make, or neither (then only going on is left)."""
    kinds = {choice.do for choice in legal}
    play, change = "play" in kinds, "change" in kinds
    if play and change:
        return template("prompt", "actions")
    if play:
        return template("prompt", "actions.play")
    if change:
        return template("prompt", "actions.change")
    return template("prompt", "actions.none")


class PromptPanel(Vertical):
    """Shows the current decision; posts :class:`PromptPanel.Chosen` when the player picks."""

    class Chosen(Message):
        """The player picked one of the legal choices (sent back to the server by its place in
        the legal list)."""

        def __init__(self, choice: Choice) -> None:
            self.choice = choice
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Choice] = []  # the legal list, as the server sent it
        self.entries: list[Entry] = []  # its top-level menu
        self.group: Entry | None = None  # the open submenu (a card's targets), if any
        self.kind = ""
        self.title = _("Prompt")
        self.deadline: float | None = None
        self.settle_until = 0.0
        self._key: tuple[Any, ...] | None = None
        self._question = ""
        self._unmark_timer: Timer | None = None
        self._sign_timer: Timer | None = None
        self._hand: list[Card] = []
        self._revealed: list[Card] = []  # the victim's hand (Hack Suit, Pirate)

    def compose(self) -> ComposeResult:
        yield Static("", id="prompt-question")
        yield Static("", id="prompt-reveal")
        yield OptionList(id="prompt-options")

    def on_mount(self) -> None:
        self.border_title = _("Prompt")
        if not self.query("#prompt-reveal"):
            return  # its screen was replaced before it mounted: its widgets are gone
        self.query_one("#prompt-reveal", Static).display = False
        self.set_interval(0.5, self._tick)

    @property
    def options(self) -> OptionList:
        """The list of choices."""
        return self.query_one("#prompt-options", OptionList)

    @property
    def shown(self) -> list[Entry]:
        """The entries on screen: the open submenu's, else the top level."""
        return self.group.group if self.group is not None else self.entries

    def update_view(
        self, view: View, seconds_left: float | None = None, keys: KeyRing | None = None
    ) -> None:
        """Show the view's decision (or who we are waiting for), with the room's ``keys``."""
        legal = list(view.legal)
        decision = own_decision(view)
        kind = decision.kind if decision is not None and legal else ""
        waiting = [p.seat for p in view.public.pending if not p.done]
        # Whom we wait for matters only while we wait: during a decision all make at once
        # (Hurricane, shark picks) the others' "has chosen" must not make our unchanged
        # prompt new again, which would swallow the key being pressed.
        key = (
            view.public.turn,
            kind,
            repr(legal),
            repr(decision.reveal if decision is not None else None),
            () if legal else tuple(waiting),
            view.public.over,
        )
        self.deadline = None if seconds_left is None else clock.now() + seconds_left
        if key == self._key:
            self._draw_question()
            return
        self._key = key
        # A sign stays over a new prompt for its moment: it tells that the key pressed for it,
        # or just before it, was not taken.
        self.choices = legal
        self.kind = kind
        self.group = None
        reveal = self.query_one("#prompt-reveal", Static)
        if view.public.over:
            self.entries = []
            self._set_title(_("Game over"))
            self._question = _("The game is over.")
            reveal.display = False
            self._revealed = []
            self.remove_class("mine")
            self._fill()
            return
        if not legal:
            self.entries = []
            self._set_title(_("Waiting"))
            self.remove_class("mine")
            names = card_list([player_name(view, seat) for seat in waiting]) if waiting else ""
            names = names or _("the server")
            self._question = _("Waiting for {names}…").format(names=names)
            me = own_seat(view)
            if me is not None and any(p.seat == me and p.done for p in view.public.pending):
                self._question = _("Your pick is in. Waiting for {names}…").format(names=names)
            reveal.display = False
            self._revealed = []
            self._fill()
            return
        self.add_class("mine")
        assert decision is not None  # legal choices come with their decision
        self._hand = list(hand(view))
        self.entries = menu.build(view, keys)
        if keys is not None:
            keys.shown(menu.bindings(self.entries))
        self._set_title(titles().get(kind, _("Your move")))
        self._question = render_prompt(decision, view.public.names)
        if kind == "actions":
            self._question = actions_question(legal)
        if kind == "pick":
            for entry in self.entries:
                entry.note = _("All pick at once; flipped in turn, each pick moves the sharks.")
        if kind == "react":
            # What each answer does goes to the detail line as the choice is highlighted; the
            # same words whether or not a block is on offer (C13).
            effect = incoming_effect(decision)
            for entry in self.entries:
                if entry.choice is not None and entry.choice.do == "accept":
                    entry.note = (
                        _("Accept: {effect}").format(effect=effect)
                        if effect
                        else _("Accept the card.")
                    )
                elif entry.choice is not None and entry.choice.do == "block":
                    entry.note = _("Block: your card and theirs are both discarded.")
        self._revealed = list(decision.reveal)
        self._draw_reveal()
        self._fill()
        self.mark_new()

    def on_resize(self) -> None:
        # The question and the victim's hand are fitted to the panel's width.
        if self.query("#prompt-question"):
            self._draw_question()
        if self._revealed:
            self._draw_reveal()

    def _draw_reveal(self) -> None:
        """The victim's hand in at most :data:`REVEAL_LINES` lines: identical cards counted
        ("Oxygen (1) x4"), and "+N more" for the cards that do not fit (the log's line lists
        them all)."""
        reveal = self.query_one("#prompt-reveal", Static)
        if not self._revealed:
            reveal.display = False
            self._revealed = []
            return
        counts: dict[str, int] = {}
        for card in self._revealed:
            label = card_label(card)
            counts[label] = counts.get(label, 0) + 1
        items = [label if n == 1 else f"{label} ×{n}" for label, n in counts.items()]  # noqa: RUF001
        width = reveal.content_size.width or max(10, self.size.width - 4)
        head = _("Their hand: ")
        for shown in range(len(items), -1, -1):
            body = card_list(items[:shown]) if shown else ""
            if shown < len(items):
                more = _("+{count} more").format(count=len(items) - shown)
                body = f"{body} {more}" if body else more
            lines = Text(head + body).wrap(self.app.console, width)
            if len(lines) <= REVEAL_LINES:
                break
        text = Text(head, style="bold")
        text.append(body)
        reveal.update(text)
        reveal.display = True

    def mark_new(self, settle: bool = True) -> None:
        """Mark the prompt as new; with ``settle``, ignore choice keys for a moment."""
        if not self.choices:
            return
        if settle:
            self.settle_until = clock.now() + SETTLE
        self.add_class("fresh")
        self.border_title = Text(_("{title} · new").format(title=self.title))
        if self._unmark_timer is not None:
            self._unmark_timer.stop()
        self._unmark_timer = self.set_timer(MARKED, self._unmark)

    def _unmark(self) -> None:
        self.remove_class("fresh")
        self.border_title = Text(self.title)

    def _set_title(self, title: str) -> None:
        self.title = title
        self.border_title = Text(title)

    def _fill(self) -> None:
        """Put the shown entries in the option list and highlight the default."""
        options = self.options
        options.clear_options()
        for entry in self.shown:
            options.add_option(Option(self._line(entry)))
        if self.group is not None:
            options.add_option(Option(Text(_("Esc  back"), style="dim")))
        if self.shown:
            options.highlighted = self._default_index()
        self._draw_question()

    def _default_index(self) -> int:
        # Reactions default to accepting, so pressing Enter does the same thing whatever the hand.
        for index, entry in enumerate(self.shown):
            if entry.choice is not None and entry.choice.do == "accept":
                return index
        # A shark pick starts on a card that is not food or oxygen, when there is one.
        for index, entry in enumerate(self.shown):
            choice = entry.choice
            if (
                choice is not None
                and choice.do == "pick"
                and self._card_kind(choice.card) != "resource"
            ):
                return index
        return 0

    def _card_kind(self, card_id: int | None) -> str:
        for card in self._hand:
            if card.id == card_id:
                return card.kind
        return ""

    def _line(self, entry: Entry) -> Table:
        line = Text(no_wrap=False)
        if entry.fatal:
            line.append("☠ ", style="bold bright_red")
            line.append(entry.label, style="bright_red")
            line.append(_(" (fatal)"), style="bright_red")
        else:
            line.append(entry.label)
        # The key in a column of its own: a long label wraps under itself, never under the
        # key, where "singles" would read as a choice "s".
        row = Table.grid()
        row.add_column(width=2, no_wrap=True)
        # "fold": a line that fills the column exactly keeps its last word (Rich would put an
        # ellipsis over it when the line ends in a wide character and a space).
        row.add_column(ratio=1, overflow="fold")
        row.add_row(Text(entry.key or " ", style="bold"), line)
        return row

    def _tick(self) -> None:
        if self.deadline is not None:
            self._draw_question()

    def _draw_question(self) -> None:
        question = self._question
        if self.group is not None:
            question = f"{self.group.label.rstrip(' ▸')}"
        text = Text()
        if self.deadline is not None:
            # First, so that a long question never pushes the countdown out of the panel.
            left = max(0, int(self.deadline - clock.now() + 0.999))
            text.append(
                _("{left}s left").format(left=left) + "\n",
                style="bold bright_red" if left <= 5 else "bold",
            )
        legend = self.kind == "pick" and self.group is None
        # In the lines the panel keeps for it (#prompt-question's max-height): a question that
        # would be cut there (five long names to wait for) ends after a word with an ellipsis.
        room = QUESTION_LINES - (self.deadline is not None) - legend
        text.append(self._fitted(question, room), style="bold" if self.choices else "dim")
        if legend:
            # What the arrows on the cards do to the sharks (RULES W7).
            text.append("\n" + compass_legend(), style="dim")
        self.query_one("#prompt-question", Static).update(text)

    def _fitted(self, question: str, lines: int) -> str:
        """``question`` cut after a word so that it wraps into at most ``lines`` lines."""
        width = self.query_one("#prompt-question", Static).content_size.width
        if width <= 0 or not self.is_mounted:
            return question
        fitted = question
        while len(Text(fitted).wrap(self.app.console, width)) > max(1, lines):
            shorter = word_cut(question, max(1, cell_width(fitted) - width // 2))
            if shorter == fitted or len(shorter) <= 1:
                break
            fitted = shorter
        return fitted

    def settled(self) -> bool:
        """Whether choice keys count now (not in the moment after a new prompt appeared)."""
        return clock.now() >= self.settle_until

    def press(self, key: str) -> bool:
        """A choice key: pick or open that entry. False if the key means nothing here, or the
        prompt is too new to take it; either is said on the prompt (:meth:`sign`)."""
        entry = menu.find(self.shown, key)
        if entry is None:
            if self.choices:
                self.sign(_("{key}: no choice here").format(key=key))
            else:  # sent, or not ours: a key for a prompt that is not there yet
                self.sign(_("{key}: nothing to choose now").format(key=key))
            return False
        if not self.settled():
            self.sign(_("{key}: too soon, press again").format(key=key))
            return False
        self.unsign()
        self._take(entry)
        return True

    def sign(self, text: str) -> None:
        """Say on the prompt's lower border, for a moment, why a key was not taken."""
        self.border_subtitle = Text(f" {text} ", style="bold reverse")
        self.add_class("refused")
        if self._sign_timer is not None:
            self._sign_timer.stop()
        self._sign_timer = self.set_timer(SIGN, self.unsign)

    def unsign(self) -> None:
        """Take the sign away."""
        if self._sign_timer is not None:
            self._sign_timer.stop()
            self._sign_timer = None
        self.border_subtitle = ""
        self.remove_class("refused")

    def choose_index(self, index: int) -> bool:
        """Pick or open the shown entry at ``index`` (Enter or a click on it)."""
        if self.group is not None and index == len(self.shown):
            return self.back()
        if 0 <= index < len(self.shown):
            self._take(self.shown[index])
            return True
        return False

    def _take(self, entry: Entry) -> None:
        if entry.group:
            self.group = entry
            self._fill()
            return
        if entry.choice is not None:
            self.post_message(self.Chosen(entry.choice))

    def back(self) -> bool:
        """Close the open submenu; False if none is open."""
        if self.group is None:
            return False
        opened = self.group
        self.group = None
        self._fill()
        self.options.highlighted = self.entries.index(opened)
        return True

    def highlighted_entry(self) -> Entry | None:
        """The entry under the highlight (None on 'back' or when there is nothing)."""
        index = self.options.highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    def highlight_card(self, card_id: int) -> None:
        """Move the highlight to the first entry that uses a card and focus the list."""
        for index, entry in enumerate(self.shown):
            choices = [entry.choice] if entry.choice else [e.choice for e in entry.group]
            for choice in choices:
                if choice and (choice.card == card_id or card_id in (choice.cards or ())):
                    self.options.highlighted = index
                    self.options.focus()
                    return

    def clear(self) -> None:
        """Forget the current choices (after one was sent, until the next state arrives)."""
        self.choices = []
        self.entries = []
        self.group = None
        self._key = None
        self.options.clear_options()
        self._question = _("Sent. Waiting for the server…")
        # Not "Your move · new" over a sent choice: the move is made.
        if self._unmark_timer is not None:
            self._unmark_timer.stop()
        self.remove_class("fresh")
        self._set_title(_("Waiting"))
        self.remove_class("mine")
        self._draw_question()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose_index(event.option_index)
