"""The replay's timeline: one line per turn (its number, whose turn, what it ended in), the
turn on the board highlighted. Choosing a line (Enter, a click) jumps to that turn."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from protocol.game_types import Event
from selfish_tui.model import seat_colour
from selfish_tui.plain import cells, fit

#: The marks a turn's line ends in, by the key of an event of that turn.
#: The panel's width (the screen's layout gives it this many cells).
WIDTH = 24

MARKS = (("death.", "✝"), ("win.", "★"), ("shark", "▲"), ("swap", "⇄"))


def turn_marks(events: list[Event]) -> str:
    """The marks of what a turn's events did: ✝ a death, ★ a win, ▲ a shark, ⇄ a swap."""
    found = ""
    for prefix, mark in MARKS:
        if any(e.key.startswith(prefix) for e in events) and mark not in found:
            found += mark
    return found


class TurnTimeline(OptionList):
    """The turns of a replay. :meth:`show` fills it; :meth:`at` highlights the turn shown."""

    class TurnChosen(Message):
        """The player chose a turn to jump to."""

        def __init__(self, turn: int) -> None:
            self.turn = turn
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._turns: list[int] = []
        self._rows: list[tuple[int, int, str]] = []  # the turns the options show
        self._width = 0  # the width the lines were cut to
        self._shown: list[str] = []  # the marks each line shows

    def show(
        self,
        turns: list[tuple[int, int, str, str]],
        current: int,
        upto: int | None,
    ) -> None:
        """Fill the list: (turn, active seat, its name, marks) per turn; marks are shown only
        for turns up to ``upto`` (None: every turn), so that the list gives away nothing of
        what is still to come."""
        # The panel's inside less its scrollbar and the options' padding: a line never wraps
        # (before the first layout, as the screen's layout will make it).
        width = max(8, self.size.width - 3 if self.size.width else WIDTH - 5)
        shown = [marks if upto is None or turn <= upto else "" for turn, _, _, marks in turns]
        rows = [row[:3] for row in turns]
        if rows == self._rows and width == self._width:
            # The same turns: only the lines whose marks appear or go are redrawn (a new
            # list would lay out and draw the whole screen again on every turn stepped into).
            for index, (row, marks) in enumerate(zip(turns, shown, strict=True)):
                if marks != self._shown[index]:
                    self.replace_option_prompt_at_index(index, _line(row, marks, width))
        else:
            self.set_options(
                [Option(_line(row, marks, width)) for row, marks in zip(turns, shown, strict=True)]
            )
            self._rows, self._width = rows, width
            self._turns = [turn for turn, *_ in turns]
        self._shown = shown
        self.at(current)

    def at(self, turn: int) -> None:
        """Highlight ``turn`` (and scroll it into view)."""
        if turn in self._turns:
            index = self._turns.index(turn)
            if self.highlighted != index:
                self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._turns):
            self.post_message(self.TurnChosen(self._turns[event.option_index]))


def _line(row: tuple[int, int, str, str], shown: str, width: int) -> Text:
    """A turn's line: its number, the active seat's name, the marks shown, in ``width``."""
    turn, seat, name, _marks = row
    number = f"{turn:>3} "
    line = Text(number, style="dim", no_wrap=True, overflow="ellipsis")
    room = width - cells(number) - (cells(shown) + 1 if shown else 0)
    name = fit(name, max(1, room))
    line.append(name, style=seat_colour(seat))
    if shown:
        line.append(" " * (room - cells(name) + 1) + shown, style="bold")
    return line
