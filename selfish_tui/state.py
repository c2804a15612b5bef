"""What the client knows about the room it is in: plain data the screens render from.

The app updates one :class:`RoomState` per joined room as messages arrive, so a screen that is
mounted late (the table after the first ``state``, the game-over dialog) can draw everything at
once instead of depending on having seen each message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfish_tui import clock
from selfish_tui.event_text import render_event
from selfish_tui.model import Catalogue, View
from selfish_tui.since import SinceLastTurn


@dataclass
class LogEntry:
    """One line of the log: an event kind ('chat' for chat), its English text, for chat who
    said it, and for a game event the event itself (key and args), from which the line is said
    in the client's language when it is drawn."""

    kind: str
    text: str
    speaker: str | None = None
    event: dict[str, Any] | None = None


@dataclass
class RoomState:
    """A joined room: our role and seat, the latest room info, view, log, timers and result."""

    code: str
    role: str = "player"
    seat: int | None = None
    edition: str = "space"
    catalogue: Catalogue = field(default_factory=Catalogue)
    info: dict[str, Any] = field(default_factory=dict)
    view: View | None = None
    version: int = 0
    log: list[LogEntry] = field(default_factory=list)
    timers: dict[int, float] = field(default_factory=dict)
    timers_at: float = 0.0
    timers_version: int = -1
    game_over: dict[str, Any] | None = None
    result_shown: bool = False
    since: SinceLastTurn = field(default_factory=SinceLastTurn)  # for "since your last turn"

    @property
    def status(self) -> str:
        """'waiting', 'playing' or 'over' (from the last room message)."""
        return str(self.info.get("status", "waiting"))

    @property
    def is_host(self) -> bool:
        """Whether the server says we host this room (set by the app from the player id)."""
        return bool(self.info.get("_we_host"))

    def seconds_left(self, seat: int | None) -> float | None:
        """Seconds left on a seat's timer, counted from when the timer message arrived."""
        if seat is None or seat not in self.timers or self.timers_version != self.version:
            return None
        return max(0.0, self.timers[seat] - (clock.now() - self.timers_at))

    def presence(self) -> dict[int, str]:
        """Seat -> 'away' / 'offline' / 'bot' / 'left' / 'here', from the room's seat list."""
        marks: dict[int, str] = {}
        for entry in self.info.get("seats") or []:
            if not entry:
                continue
            seat = int(entry.get("seat", -1))
            if entry.get("left"):
                marks[seat] = "left"
            elif entry.get("away"):
                marks[seat] = "away"
            elif entry.get("kind") == "bot":
                marks[seat] = "bot"
            elif not entry.get("connected", True):
                marks[seat] = "offline"
            else:
                marks[seat] = "here"
        return marks

    def names(self) -> list[str]:
        """The seats' names: the view's, else the room's seat list's."""
        if self.view is not None and self.view.get("names"):
            return [str(name) for name in self.view["names"]]
        return [str((entry or {}).get("name", "?")) for entry in self.info.get("seats") or []]

    def line(self, entry: LogEntry) -> str:
        """A log entry's text in the active language (rendered from its event's key and args;
        the server's English when they do not resolve)."""
        if entry.event is None:
            return entry.text
        card_names = {key: str(c.get("name", key)) for key, c in self.catalogue.cards.items()}
        return render_event(entry.event, self.names(), card_names, self.view)

    def in_progress(self) -> bool:
        """True while a game we sit in is running (quitting then needs a confirmation)."""
        return self.view is not None and not self.view.get("over") and self.role == "player"
