"""`selfish play` found an unfinished local game: resume it, start the new one, or cancel."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from selfish_tui.i18n import N_, _, pgettext
from selfish_tui.state import RoomState


def edition_name(edition: str) -> str:
    """'Space Edition' or 'Shipwrecked Edition', in the active language."""
    return _("Shipwrecked Edition") if edition == "shipwrecked" else _("Space Edition")


def question(unfinished: RoomState, new_edition: str) -> str:
    """What the dialog asks: which game is unfinished, and what starting the new one costs."""
    view = unfinished.view
    names = list(view.public.names) if view is not None else []
    return pgettext(
        "resume",
        "You have an unfinished game: {edition}, turn {turn}, with {players}.\n\n"
        "Resume it, or start the new {new_edition} game? Starting it closes the unfinished "
        "one for good.",
    ).format(
        edition=edition_name(unfinished.edition),
        turn=view.public.turn if view is not None else "?",
        players=pgettext("resume", ", ").join(names),
        new_edition=edition_name(new_edition),
    )


class ResumeScreen(ModalScreen[str]):
    """Dismisses with 'resume', 'new' or 'cancel' (r, n, c / Esc, or the buttons)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('resume')", N_("Resume")),
        Binding("n", "choose('new')", N_("New game")),
        Binding("c", "choose('cancel')", N_("Cancel")),
        Binding("escape", "choose('cancel')", N_("Cancel"), show=False),
    ]

    def __init__(self, unfinished: RoomState, new_edition: str) -> None:
        super().__init__()
        self.unfinished = unfinished
        self.new_edition = new_edition

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-box"):
            # The names are the players' own: plain text, never markup.
            yield Static(Text(question(self.unfinished, self.new_edition)), id="resume-question")
            with Horizontal(id="resume-buttons"):
                yield Button(pgettext("resume", "Resume (r)"), id="resume", variant="primary")
                yield Button(pgettext("resume", "New game (n)"), id="new", variant="error")
                yield Button(pgettext("resume", "Cancel (c)"), id="cancel")

    def on_mount(self) -> None:
        self.query_one("#resume-box").border_title = pgettext("resume", "Unfinished game")
        # Resuming loses nothing, so a stray Enter does that.
        self.query_one("#resume", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(str(event.button.id))

    def action_choose(self, what: str) -> None:
        """Answer with a key."""
        self.dismiss(what)
