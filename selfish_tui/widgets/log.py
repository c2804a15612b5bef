"""The Log panel: the game's events as sentences, newest at the bottom, coloured by kind."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import RichLog

from selfish_tui.model import EVENT_STYLES

KIND_MARKS = {
    "turn": "── ",
    "death": "✝ ",
    "win": "★ ",
    "chat": "» ",
    "error": "! ",
    "system": "· ",
}


class GameLog(RichLog):
    """Scrollable event log. Chat lines carry a '»' marker so they read apart from game events."""

    class Appended(Message):
        """A line was added (the table uses it to ring the bell on chat, if enabled)."""

        def __init__(self, kind: str, text: str) -> None:
            self.kind = kind
            self.text = text
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("wrap", True)
        kwargs.setdefault("markup", False)
        kwargs.setdefault("auto_scroll", True)
        kwargs.setdefault("max_lines", 2000)
        # RichLog defaults to 78 columns of minimum width, which adds a horizontal scrollbar
        # to a half-width panel at 80x24; wrapping to the panel is what we want.
        kwargs.setdefault("min_width", 20)
        super().__init__(**kwargs)
        self.lines_text: list[str] = []

    def add(self, kind: str, text: str) -> None:
        """Append one event line of the given kind."""
        line = Text(KIND_MARKS.get(kind, ""), style=EVENT_STYLES.get(kind, ""))
        line.append(text, style=EVENT_STYLES.get(kind, ""))
        self.lines_text.append(line.plain)
        self.write(line)
        self.post_message(self.Appended(kind, text))

    def add_events(self, events: list[dict[str, Any]]) -> None:
        """Append a batch of server events (each has a ``text`` and a ``kind``)."""
        for event in events:
            text = event.get("text")
            if text:
                self.add(str(event.get("kind", "info")), str(text))

    def add_chat(self, name: str, text: str) -> None:
        """Append a chat message."""
        self.add("chat", f"{name}: {text}")
