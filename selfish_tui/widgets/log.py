"""The Log panel: the game's events as sentences, newest at the bottom, coloured by kind."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widgets import RichLog

from selfish_tui.i18n import fit as fit_cells
from selfish_tui.model import EVENT_STYLES
from selfish_tui.plain import fit
from selfish_tui.state import LogEntry, RoomState

KIND_MARKS = {
    "turn": "── ",
    "death": "✝ ",
    "win": "★ ",
    "chat": "» ",
    "error": "! ",
    "system": "· ",
    "notice": "· ",
}


class ChatLine:
    """A chat message whose every wrapped line starts with ``» name:``, so that no text a
    player types can pass for a game event or for someone else's line."""

    def __init__(self, speaker: str, text: str, style: str) -> None:
        self.speaker = speaker
        self.text = text
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        # A long name keeps at most half the line, so the message still has room.
        prefix = Text(f"{KIND_MARKS['chat']}{fit(self.speaker, max(4, width // 2))}: ")
        prefix.stylize(self.style)
        prefix.stylize("bold")
        body = Text(self.text, style=self.style)
        for line in body.wrap(console, max(1, width - prefix.cell_len)):
            line.rstrip()
            yield prefix + line


class SummaryBlock:
    """ "Since your last turn": a reversed heading, then one line per player, each wrapped
    under its own first word so that a player's line reads as one."""

    def __init__(self, title: str, lines: list[str]) -> None:
        self.title = title
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text(fit_cells(f" {self.title} ", width), style="bold reverse")
        for line in self.lines:
            body = Text(line)
            head = line.replace("\uff1a", ":").split(":", 1)[0]  # the Chinese colon too
            body.stylize("bold", 0, len(head) + 1)
            for index, part in enumerate(body.wrap(console, max(1, width - 2))):
                part.rstrip()
                yield Text("  ") + part if index else part


class GameLog(RichLog):
    """Scrollable event log. Chat lines carry a '»' marker so they read apart from game events."""

    class Appended(Message):
        """A line was added (the table uses it to ring the bell on chat, if enabled)."""

        def __init__(self, kind: str, text: str) -> None:
            self.kind = kind
            self.text = text
            super().__init__()

    # A new line changes the log's scrollable size, which Textual answers by laying out the
    # whole screen again and drawing every panel (most of a replay step's time,
    # bench/replay_viewer.py). The panel's own size never follows its lines (its height is
    # the layout's), so a new line only needs the log redrawn and its scrollbars updated
    # (a scrollbar that appears or goes still lays the screen out: that reactive asks for it).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        if self.styles.height is not None and self.styles.height.is_auto:
            self.refresh(layout=True)
        elif self.is_mounted and self.container_size:
            self._scroll_update(size)

    def __init__(self, room: RoomState | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("wrap", True)
        kwargs.setdefault("markup", False)
        kwargs.setdefault("auto_scroll", True)
        kwargs.setdefault("max_lines", 2000)
        # RichLog defaults to 78 columns of minimum width, which adds a horizontal scrollbar
        # to a half-width panel at 80x24; wrapping to the panel is what we want.
        kwargs.setdefault("min_width", 20)
        super().__init__(**kwargs)
        self.lines_text: list[str] = []
        self.room = room  # says each event in the active language

    def on_mount(self) -> None:
        # Kept on its newest line when the panel changes size too (a taller hand, the chat
        # input), not only when a line is added; scrolling up to read lets go until the next line.
        self.anchor()

    def clear(self) -> GameLog:
        """Remove every line (the text kept for tests and copying too)."""
        self.lines_text.clear()
        super().clear()
        return self

    def add(self, kind: str, text: str, speaker: str | None = None) -> None:
        """Append one event line of the given kind (a chat line names its ``speaker``)."""
        style = EVENT_STYLES.get(kind, "")
        if speaker is not None:
            self.lines_text.append(f"{KIND_MARKS['chat']}{speaker}: {text}")
            self.write(ChatLine(speaker, text, style))
        else:
            line = Text(KIND_MARKS.get(kind, ""), style=style)
            line.append(text, style=style)
            self.lines_text.append(line.plain)
            self.write(line)
        self.post_message(self.Appended(kind, text))

    def add_many(self, entries: list[tuple[str, str]]) -> None:
        """Append event lines (kind, text) at once, drawn as one block: a replay's log read
        again from another seat is hundreds of lines, which one by one take a tenth of a
        second. Nothing is announced (:class:`Appended` is for the live game's lines)."""
        if not entries:
            return
        block = Text()
        for index, (kind, text) in enumerate(entries):
            style = EVENT_STYLES.get(kind, "")
            line = KIND_MARKS.get(kind, "") + text
            self.lines_text.append(line)
            block.append(line + ("\n" if index + 1 < len(entries) else ""), style=style)
        self.write(block)

    def add_summary(self, title: str, lines: list[str]) -> None:
        """Append a "since your last turn" block, its heading kept in view: when the block is
        taller than the panel, the panel shows its top, not the newest line."""
        top = len(self.lines)
        self.lines_text.extend([title, *lines])
        self.write(SummaryBlock(title, lines), scroll_end=False, expand=True)

        def show() -> None:
            if len(self.lines) - top <= self.scrollable_content_region.height:
                self.scroll_end(animate=False)
            else:
                self.scroll_to(y=top, animate=False)

        self.call_after_refresh(show)

    def add_entry(self, entry: LogEntry) -> None:
        """Append one line of a room's log."""
        text = self.room.line(entry) if self.room is not None else entry.text
        self.add(entry.kind, text, entry.speaker)
