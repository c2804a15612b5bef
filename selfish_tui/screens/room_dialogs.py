"""The lobby's dialogs: a new room's settings, and a room code to join or watch."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from protocol.messages import IDLE_GRACE, LEFT_GRACE
from selfish_tui.i18n import N_, _
from selfish_tui.screens.room_words import bot_level_name, edition_name


def private_label(private: bool) -> str:
    """The private checkbox's label, which says its state in words."""
    if private:
        return _("Private: yes (join by code only)")
    return _("Private: no (listed in the lobby)")


class StateCheckbox(Checkbox):
    """A checkbox whose mark differs by shape, not only by colour: ✓ when on, blank when off
    (Textual draws the same X for both), so it reads in 16 colours and with NO_COLOR."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "✓" if self.value else " "
        return super()._button


# The graces a new room offers (seconds a dropped player, then an idle one, is waited for before
# the seat's bot plays it: PROTOCOL.md §7), the server's defaults first.
GRACES = ((LEFT_GRACE, IDLE_GRACE), (30, 60), (120, 300), (300, 600))


def minutes(seconds: int) -> str:
    """A grace as the dialog says it: "30 s", "2 min"."""
    if seconds % 60:
        return _("{seconds} s").format(seconds=seconds)
    return _("{minutes} min").format(minutes=seconds // 60)


def grace_label(left: int, idle: int) -> str:
    """One choice of graces: how long a dropped player, and an idle one, is waited for."""
    return _("dropped {left} · idle {idle}").format(left=minutes(left), idle=minutes(idle))


class CreateRoomScreen(ModalScreen[dict[str, Any] | None]):
    """Edition, seats, bots, bot level, timer, graces, private: everything ``create_room``
    takes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="create-box"):
            with Grid(id="create-grid"):
                yield Static(_("Edition"))
                yield Select(
                    [(edition_name(e), e) for e in ("space", "shipwrecked")],
                    value="space",
                    allow_blank=False,
                    compact=True,
                    id="new-edition",
                )
                yield Static(_("Seats"))
                yield Select(
                    [(str(n), n) for n in range(2, 6)],
                    value=4,
                    allow_blank=False,
                    compact=True,
                    id="new-seats",
                )
                yield Static(_("Bots"))
                yield Select(
                    [(str(n), n) for n in range(0, 5)],
                    value=2,
                    allow_blank=False,
                    compact=True,
                    id="new-bots",
                )
                yield Static(_("Bot level"))
                yield Select(
                    [(bot_level_name(level), level) for level in ("basic", "random", "expert")],
                    value="basic",
                    allow_blank=False,
                    compact=True,
                    id="new-level",
                )
                yield Static(_("Turn timer"))
                yield Select(
                    [(_("off"), 0)]
                    + [(_("{seconds} s").format(seconds=n), n) for n in (30, 60, 120)],
                    value=0,
                    allow_blank=False,
                    compact=True,
                    id="new-timer",
                )
                yield Static(_("Bots step in"))
                yield Select(
                    [(grace_label(left, idle), (left, idle)) for left, idle in GRACES],
                    value=(LEFT_GRACE, IDLE_GRACE),
                    allow_blank=False,
                    compact=True,
                    id="new-grace",
                )
                yield Static("")
                yield StateCheckbox(private_label(False), compact=True, id="new-private")
            with Horizontal(id="create-buttons"):
                yield Button(_("Cancel"), id="cancel", compact=True)
                yield Button(_("Create"), id="create", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#create-box").border_title = _("New room")
        self.query_one("#new-edition", Select).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        # The label says the state in words too, beside the box's mark.
        event.checkbox.label = private_label(event.value)

    def _value(self, widget_id: str) -> Any:
        return self.query_one(f"#new-{widget_id}", Select).value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "create":
            self.dismiss(None)
            return
        seats = int(self._value("seats"))
        bots = min(int(self._value("bots")), seats - 1)
        left_grace, idle_grace = self._value("grace")
        self.dismiss(
            {
                "edition": str(self._value("edition")),
                "seats": seats,
                "bots": bots,
                "bot_level": str(self._value("level")),
                "timer": int(self._value("timer")),
                "left_grace": int(left_grace),
                "idle_grace": int(idle_grace),
                "public": not self.query_one("#new-private", Checkbox).value,
            }
        )

    def action_cancel(self) -> None:
        """Close without creating."""
        self.dismiss(None)


class JoinScreen(ModalScreen[tuple[str, str] | None]):
    """A room code, then join as a player or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box"):
            yield Static(_("Room code (4 letters, 12 for a private room):"))
            yield Input(placeholder="QZKX", max_length=12, id="code", compact=True)
            with Horizontal(id="join-buttons"):
                yield Button(_("Watch"), id="spectator", compact=True)
                yield Button(_("Join"), id="player", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#join-box").border_title = _("Join a room")
        self.query_one("#code", Input).focus()

    def _finish(self, role: str) -> None:
        code = self.query_one("#code", Input).value.strip().upper()
        if len(code) not in (4, 12) or not code.isascii() or not code.isalpha():
            self.notify(_("A room code is 4 letters (12 for a private room)."), severity="warning")
            return
        self.dismiss((code, role))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._finish("player")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._finish(str(event.button.id))

    def action_cancel(self) -> None:
        """Close without joining."""
        self.dismiss(None)
