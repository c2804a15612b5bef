"""The prompt: the pending decision and exactly the legal choices the server sent.

Choose with the arrow keys and Enter, a number key (1-9), or the mouse. A reaction (RULES C13)
always shows the same frame, countdown and default (accept), whether or not a block is among the
choices, so nothing about the prompt's look or the time taken betrays the hand.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from selfish_tui import clock
from selfish_tui.model import Choice, View, card_label, choice_label, player_name

# Border titles by decision kind. A reaction has the same title, countdown and default
# whether or not a block is among the choices.
TITLES = {
    "react": "Reaction",
    "pick": "Shark pick",
    "hurricane": "Hurricane",
    "take": "Take a card",
    "pay": "Pay",
    "meteoroid": "Meteoroid",
    "swap": "Swap",
    "shark_bait": "Shark Bait",
    "freeloader": "Freeloader",
}


class PromptPanel(Vertical):
    """Shows the current decision; posts :class:`PromptPanel.Chosen` when the player picks."""

    class Chosen(Message):
        """The player picked one of the legal choices (sent back to the server verbatim)."""

        def __init__(self, choice: Choice) -> None:
            self.choice = choice
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Choice] = []
        self.kind = ""
        self.deadline: float | None = None
        self._key: tuple[Any, ...] | None = None
        self._question = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="prompt-question")
        yield Static("", id="prompt-reveal")
        yield OptionList(id="prompt-options")

    def on_mount(self) -> None:
        self.border_title = "Prompt"
        self.query_one("#prompt-reveal", Static).display = False
        self.set_interval(0.5, self._tick)

    @property
    def options(self) -> OptionList:
        """The list of choices."""
        return self.query_one("#prompt-options", OptionList)

    def update_view(self, view: View, seconds_left: float | None = None) -> None:
        """Show the view's decision (or who we are waiting for)."""
        legal = list(view.get("legal") or [])
        decision = view.get("decision") or {}
        kind = str(decision.get("kind", "")) if legal else ""
        key = (view.get("turn"), kind, repr(legal), repr(decision.get("reveal")))
        self.deadline = None if seconds_left is None else clock.now() + seconds_left
        if key == self._key:
            self._draw_question()
            return
        self._key = key
        self.choices = legal
        self.kind = kind
        reveal = self.query_one("#prompt-reveal", Static)
        options = self.options
        options.clear_options()
        if view.get("over"):
            self.border_title = "Game over"
            self._question = "The game is over."
            reveal.display = False
            self.remove_class("mine")
            self._draw_question()
            return
        if not legal:
            self.border_title = "Waiting"
            self.remove_class("mine")
            waiting = [p for p in view.get("pending", []) if not p.get("done")]
            names = ", ".join(player_name(view, p["seat"]) for p in waiting) or "the server"
            self._question = f"Waiting for {names}…"
            if view.get("seat") is not None and any(
                p.get("seat") == view.get("seat") and p.get("done") for p in view.get("pending", [])
            ):
                self._question = f"Your pick is in. Waiting for {names}…"
            reveal.display = False
            self._draw_question()
            return
        self.add_class("mine")
        self.border_title = TITLES.get(kind, "Your move")
        self._question = str(decision.get("prompt") or "Choose:")
        revealed = decision.get("reveal")
        if revealed:
            lines = Text("Their hand: ", style="bold")
            lines.append(", ".join(card_label(c) for c in revealed))
            reveal.update(lines)
            reveal.display = True
        else:
            reveal.display = False
        for index, choice in enumerate(legal):
            options.add_option(Option(self._line(index, choice)))
        options.highlighted = self._default_index(legal)
        self._draw_question()

    def _default_index(self, legal: list[Choice]) -> int:
        # Reactions default to accepting, so pressing Enter does the same thing whatever the hand.
        for index, choice in enumerate(legal):
            if choice.get("do") == "accept":
                return index
        return 0

    def _line(self, index: int, choice: Choice) -> Text:
        line = Text(no_wrap=False)
        line.append(f"{index + 1}" if index < 9 else " ", style="bold")
        line.append(" ")
        if choice.get("fatal"):
            line.append("☠ ", style="bold bright_red")
            line.append(choice_label(choice), style="bright_red")
            line.append(" (fatal)", style="bright_red")
        else:
            line.append(choice_label(choice))
        return line

    def _tick(self) -> None:
        if self.deadline is not None:
            self._draw_question()

    def _draw_question(self) -> None:
        text = Text(self._question, style="bold" if self.choices else "dim")
        if self.deadline is not None:
            left = max(0, int(self.deadline - clock.now() + 0.999))
            text.append(f"\n{left}s left", style="bold bright_red" if left <= 5 else "bold")
        self.query_one("#prompt-question", Static).update(text)

    def choose_index(self, index: int) -> bool:
        """Pick the choice at ``index`` (0-based), as a number key does. False if there is none."""
        if 0 <= index < len(self.choices):
            self.post_message(self.Chosen(self.choices[index]))
            return True
        return False

    def highlight_card(self, card_id: int) -> None:
        """Move the highlight to the first choice that uses a card and focus the list."""
        for index, choice in enumerate(self.choices):
            if choice.get("card") == card_id or card_id in (choice.get("cards") or []):
                self.options.highlighted = index
                self.options.focus()
                return

    def clear(self) -> None:
        """Forget the current choices (after one was sent, until the next state arrives)."""
        self.choices = []
        self._key = None
        self.options.clear_options()
        self._question = "Sent. Waiting for the server…"
        self.remove_class("mine")
        self._draw_question()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose_index(event.option_index)
