"""Shown instead of a broken layout while the terminal is smaller than 80x24."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from selfish_tui.i18n import _

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmallScreen(Screen[None]):
    """A notice with the current and the needed size; the app removes it once big enough."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.width = width
        self.height = height

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="too-small")

    def _text(self) -> str:
        return _(
            "Terminal too small\n\n{width}x{height} — Selfish needs at least "
            "{min_width}x{min_height}.\nEnlarge the window (or zoom out) to continue.\n\n"
            "ctrl+q quits"
        ).format(width=self.width, height=self.height, min_width=MIN_WIDTH, min_height=MIN_HEIGHT)

    def on_screen_resume(self) -> None:
        # Back on top after a dialog above it closed: gone if the terminal has grown since.
        size = self.app.size
        if size.width >= MIN_WIDTH and size.height >= MIN_HEIGHT:
            self.app.call_later(self._leave)

    def _leave(self) -> None:
        if self.app.screen is self:
            self.app.pop_screen()

    def set_size(self, width: int, height: int) -> None:
        """Update the size shown."""
        self.width, self.height = width, height
        for notice in self.query("#too-small").results(Static):  # none before it is composed
            notice.update(self._text())
