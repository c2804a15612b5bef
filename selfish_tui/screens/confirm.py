"""A yes/no question over the current screen (quitting mid-game, a fatal choice)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from selfish_tui.i18n import N_, _


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True (y / Enter on the yes button) or False (n / Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("n", "answer(False)", N_("No")),
        Binding("escape", "answer(False)", N_("No"), show=False),
    ]

    def __init__(self, question: str, yes: str | None = None, no: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes or _("Yes")
        self.no = no or _("No")

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            # The question can quote a choice label with players' names in it: plain text.
            yield Static(Text(self.question), id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(_("{no} (n)").format(no=self.no), id="no", variant="primary")
                yield Button(_("{yes} (y)").format(yes=self.yes), id="yes", variant="error")

    def on_mount(self) -> None:
        # The safe answer has the focus, so a stray Enter never does the drastic thing.
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer with a key."""
        self.dismiss(yes)
