"""The app `selfish replay` runs: the replay viewer alone, over a record already fetched or read
from a file (no connection is kept: stepping through a game needs only the engine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from selfish_tui import i18n
from selfish_tui.i18n import N_, _
from selfish_tui.replay import Replay
from selfish_tui.screens.replay import ReplayScreen


class ReplayApp(App[None]):
    """One replay on screen; closing the viewer quits."""

    CSS_PATH = "app.tcss"
    TITLE = "Selfish"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False),
        Binding("f2", "switch_language", N_("中文"), priority=True, show=False),
    ]

    def __init__(
        self,
        replay: Replay,
        *,
        seat: int | None = None,
        turn: int | None = None,
        on_export: Callable[[Replay], str] | None = None,
        title: str = "",
    ) -> None:
        super().__init__()
        self.replay = replay
        self.seat = seat
        self.turn = turn
        self.on_export = on_export
        self.game_title = title

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast, always plain text (it may hold a path or a name: never markup)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def on_mount(self) -> None:
        self.title = _("Selfish replay")
        self._open(self.turn)

    def _open(self, turn: int | None) -> ReplayScreen:
        screen = ReplayScreen(
            self.replay, self.seat, turn=turn, on_export=self.on_export, title=self.game_title
        )
        self.push_screen(screen, lambda _: self.exit())
        return screen

    def action_switch_language(self) -> None:
        """The other language, at the same moment of the game and from the same view."""
        old = self.screen
        i18n.set_language("en" if i18n.current_language() == "zh" else "zh")
        if isinstance(old, ReplayScreen):
            index, perspective = old.index, old.perspective
            self.pop_screen()
            screen = self._open(None)
            screen.index, screen.perspective = index, perspective
