"""The tutorial's dialogs: a lesson over the table, and the first run's offer of the tutorial."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from selfish_tui.i18n import N_, _, pgettext
from selfish_tui.tutorial import Lesson
from selfish_tui.widgets.footer import LocalisedFooter


class LessonScreen(ModalScreen[None]):
    """One lesson of the tutorial over the table; Enter, Space or Esc closes it.

    While it is open the table takes no keys, and when it closes the prompt settles before it
    takes keys again (TableScreen.on_screen_resume), so the key that closed the lesson never
    makes a choice.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", N_("Go on")),
        Binding("space", "close", N_("Go on"), show=False),
        Binding("escape", "close", N_("Go on"), show=False),
    ]

    def __init__(self, lesson: Lesson, edition: str, number: int, total: int) -> None:
        super().__init__()
        self.lesson = lesson
        self.edition = edition
        self.number = number
        self.total = total

    def compose(self) -> ComposeResult:
        with Vertical(id="lesson-box"):
            yield Static(Text(self.lesson.text(self.edition)), id="lesson-text")
            yield Static(Text(pgettext("tutorial", "Enter: go on"), style="bold"), id="lesson-keys")
        yield LocalisedFooter()  # the dialog's keys, not the table's behind it

    def on_mount(self) -> None:
        self.query_one("#lesson-box").border_title = pgettext(
            "tutorial", "Tutorial {number}/{total} · {title}"
        ).format(number=self.number, total=self.total, title=_(self.lesson.title))

    def action_close(self) -> None:
        """The player has read it."""
        self.dismiss(None)


class TutorialOfferScreen(ModalScreen[bool]):
    """The first `selfish play`: play the tutorial first? Dismisses with True (t) or False
    (n / Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "answer(True)", N_("Tutorial")),
        Binding("y", "answer(True)", N_("Tutorial"), show=False),
        Binding("n", "answer(False)", N_("Normal game")),
        Binding("escape", "answer(False)", N_("Normal game"), show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="offer-box"):
            yield Static(
                Text(
                    pgettext(
                        "tutorial",
                        "Welcome to Selfish! Is this your first game? The tutorial is a short "
                        "game against two bots that stops to explain each step the first time "
                        "it comes: drawing, actions, staying or moving, reactions (and in "
                        "Shipwrecked the arrows and the sharks).\n\n"
                        "This is asked only once; `selfish play --tutorial` plays it any time.",
                    )
                ),
                id="offer-question",
            )
            with Horizontal(id="offer-buttons"):
                yield Button(pgettext("tutorial", "Tutorial (t)"), id="tutorial", variant="primary")
                yield Button(pgettext("tutorial", "Normal game (n)"), id="normal")
        yield LocalisedFooter()

    def on_mount(self) -> None:
        self.query_one("#offer-box").border_title = pgettext("tutorial", "First game")
        self.query_one("#tutorial", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "tutorial")

    def action_answer(self, yes: bool) -> None:
        """Answer with a key."""
        self.dismiss(yes)
