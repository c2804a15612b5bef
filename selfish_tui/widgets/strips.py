"""The Strips panel: the board (RULES C2) drawn as one column per seat, goal row on top."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from protocol.game_types import Location
from protocol.view_types import Player, View
from selfish_tui.i18n import _, ngettext, pgettext, word_cut
from selfish_tui.keyed_text import card_name, card_text
from selfish_tui.model import (
    SHARK,
    goal_label,
    goal_word,
    own_seat,
    seat_colour,
    short_name,
)
from selfish_tui.plain import cells, fit

LABEL_WIDTH = 2


def presence_words() -> dict[str, str]:
    """Short words for a seat's connection state in the narrow header."""
    return {
        "away": pgettext("presence", "away"),
        "offline": pgettext("presence", "off"),
        "left": pgettext("presence", "left"),
    }


class StripsBoard(Widget, can_focus=True):
    """The board. Focus it and move the cursor with the arrow keys to read a cell in full."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1, 0)", "Left", show=False),
        Binding("right", "cursor(1, 0)", "Right", show=False),
        Binding("up", "cursor(0, 1)", "Up", show=False),
        Binding("down", "cursor(0, -1)", "Down", show=False),
    ]

    class CellFocused(Message):
        """The cursor moved onto a cell; ``text`` describes it in full for the detail line."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    cursor: reactive[tuple[int, int]] = reactive((0, 0))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view_data: View | None = None
        self.presence: dict[int, str] = {}
        self._changed: set[tuple[int, int]] = set()
        # Seats whose hand size changed with the latest view (a steal, a payment, a draw): the
        # board does not show those moves, the header does.
        self._hands_changed: set[int] = set()
        self._swapped: set[int] = set()  # seats whose character changed strips last move

    def update_view(self, view: View, presence: dict[int, str] | None = None) -> None:
        """Show a new view; cells that changed since the last one are marked as the last move."""
        previous = self.view_data
        if previous is not None and previous.public.edition == view.public.edition:
            changed = _cell_map(view).items() ^ _cell_map(previous).items()
            if changed:
                # Only a change on the board replaces the highlight, so the last move stays
                # visible while cards are played or paid.
                self._changed = {cell for cell, _ in changed}
            before = {p.seat: p.hand_count for p in previous.public.players}
            columns = {p.seat: p.col for p in previous.public.players}
            moved = {
                p.seat
                for p in view.public.players
                if p.seat in columns and columns[p.seat] != p.col
            }
            if changed:
                # A swap (Wormhole, Whirlpool) moves characters to other strips, and the
                # headers follow them: ⇄ marks the swapped ones until the board next changes.
                self._swapped = moved
            self._hands_changed = {
                p.seat for p in view.public.players if before.get(p.seat) != p.hand_count
            }
        self.view_data = view
        self.border_subtitle = Text(piles(view))  # plain text, never markup
        if presence is not None:
            self.presence = presence
        seat = own_seat(view)
        if self.cursor == (0, 0) and seat is not None:
            me = _player(view, seat)
            if me is not None:
                self.cursor = (me.col, me.row)
        self.refresh()

    def set_presence(self, presence: dict[int, str]) -> None:
        """Mark seats as away / bot etc. (from the room's seat list)."""
        self.presence = presence
        self.refresh()

    def action_cursor(self, dx: int, dy: int) -> None:
        """Move the reading cursor within the board."""
        if not self.view_data:
            return
        cols = self.view_data.public.seats
        rows = self.view_data.public.rows
        x, y = self.cursor
        self.cursor = (max(0, min(cols - 1, x + dx)), max(0, min(rows - 1, y + dy)))

    def watch_cursor(self) -> None:
        if self.view_data is not None and self.has_focus:
            self.post_message(self.CellFocused(self.describe(*self.cursor)))
        self.refresh()

    def on_focus(self) -> None:
        if self.view_data is not None:
            self.post_message(self.CellFocused(self.describe(*self.cursor)))
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def describe(self, col: int, row: int) -> str:
        """Everything on one cell, in words."""
        parts = [_("Column {column}, row {row}").format(column=col + 1, row=row)]
        if self.view_data is None:
            return parts[0]
        view = self.view_data.public
        edition = view.edition
        goal = view.goal_row
        if row == goal:
            parts[0] += _(" ({goal})").format(goal=goal_word(edition))
        elif row > goal:
            parts[0] += _(" (past the raft)")
        for player in view.players:
            if (player.col, player.row) == (col, row):
                state = "" if player.alive else _(" (dead)")
                you = _(" (you)") if player.seat == own_seat(self.view_data) else ""
                name = f"{player.name}{you}"
                parts.append(_("{name} stands here{state}").format(name=name, state=state))
                count = player.hand_count
                held = ngettext("{count} card", "{count} cards", count).format(count=count)
                presence = presence_words().get(self.presence.get(player.seat, ""), "")
                parts.append(f"{held} · {presence}" if presence else held)
        for cell in view.board:
            if (cell.col, cell.row) == (col, row):
                card = cell.card
                key = card.key
                text = card_text(key)
                shark = _(" Shark icon.") if card.shark else ""
                colon = pgettext("separator", ": ")  # the Chinese colon in Chinese
                name = card_name(key)
                parts.append(f"{name}{colon}{text}{shark}".strip())
        sharks = sum(1 for shark in view.sharks if shark == (col, row))
        if sharks:
            parts.append(_("a shark swims here") if sharks == 1 else _("two sharks swim here"))
        return " — ".join(parts)

    def render(self) -> Text:
        view = self.view_data
        if view is None:
            return Text(_("Waiting for the game…"), style="dim")
        return self._draw(view, self.content_size.width)

    def _draw(self, view: View, width: int) -> Text:
        public = view.public
        seats = public.seats
        rows = public.rows
        goal = public.goal_row
        water = public.edition == "shipwrecked"
        colw = max(5, min(16, (width - LABEL_WIDTH) // max(1, seats)))
        active = public.active
        pending = {p.seat for p in public.pending if not p.done}
        by_cell_player = {(p.col, p.row): p for p in public.players}
        by_cell_card = {(c.col, c.row): c.card for c in public.board}
        shark_count: dict[tuple[int, int], int] = {}
        for shark in public.sharks:
            shark_count[shark] = shark_count.get(shark, 0) + 1
        players = {p.seat: p for p in public.players}

        out = Text(no_wrap=True, overflow="crop")
        # Header: the column's number (the log's "column 3"), ▶ on the seats the server waits
        # for, the name of the character standing on that strip (it follows them through
        # swaps, with their hand size and ☀), reversed for the player whose turn it is.
        standing = {p.col: p for p in public.players}
        over = public.over
        out.append(" " * LABEL_WIDTH)
        for col in range(seats):
            p = standing.get(col) or players.get(col)
            seat = p.seat if p is not None else col
            out.append(f"{col + 1}", style="dim")
            if seat in pending and not over:
                out.append("▶", style="bold")
            elif seat in self._swapped:
                out.append("⇄", style="bold bright_magenta")
            else:
                out.append(" ")
            # Cut in cells, not characters: a wide or combining name keeps its column.
            name = fit(p.name if p is not None else "?", colw - 3)
            style = seat_colour(seat)
            if seat == active and not over:
                style += " bold reverse"
            out.append(name, style=style)
            out.append(" " * (colw - 2 - cells(name)))
        out.append("\n")
        out.append(" " * LABEL_WIDTH)
        for col in range(seats):
            p = standing.get(col) or players.get(col)
            seat = p.seat if p is not None else col
            count = p.hand_count if p is not None else 0
            alive = p.alive if p is not None else True
            words = presence_words()
            # Whole words only: the hand size, and the seat's state when there is room for
            # both; a narrow column says the state alone (the cursor's line gives the count).
            cards = ngettext("{count} card", "{count} cards", count).format(count=count)
            if not alive:
                state = _("dead")
            elif self.presence.get(seat) in words:
                word = words[self.presence[seat]]
                state = f"{cards} {word}" if cells(f"{cards} {word}") <= colw - 1 else word
            else:
                state = cards
            if p is not None and p.flared:
                state = f"{word_cut(state, colw - 3)} ☀"
            cell = fit(state, colw - 1)
            style = "dim" if not alive else ""
            if seat in self._hands_changed:
                style += " underline"
            out.append(" ")
            out.append(cell, style=style.strip())
            out.append(" " * (colw - 1 - cells(cell)))
        out.append("\n")

        for row in range(rows - 1, -1, -1):
            out.append(f"{row} " if row != goal else "★ ", style="bold" if row == goal else "dim")
            for col in range(seats):
                out.append_text(
                    self._cell(
                        view, col, row, colw, goal, water, by_cell_player, by_cell_card, shark_count
                    )
                )
            if row:
                out.append("\n")
        return out

    def _cell(
        self,
        view: View,
        col: int,
        row: int,
        colw: int,
        goal: int,
        water: bool,
        by_player: dict[tuple[int, int], Player],
        by_card: dict[tuple[int, int], Location],
        sharks: dict[tuple[int, int], int],
    ) -> Text:
        player = by_player.get((col, row))
        card = by_card.get((col, row))
        n_sharks = sharks.get((col, row), 0)
        body = Text(no_wrap=True)
        if n_sharks:
            body.append(SHARK * n_sharks, style="bold bright_red")
        room = colw - 1 - body.cell_len
        if player is not None:
            alive = player.alive
            # Your own character is ◉ wherever swaps take it; the others are @.
            mark = ("◉" if player.seat == own_seat(view) else "@") if alive else "✝"
            style = seat_colour(player.seat) + (" bold" if alive else " dim strike")
            if player.seat == view.public.active and alive:
                style += " reverse"
            body.append(mark + fit(player.name, room - 1), style=style)
        elif card is not None:
            # Shark-icon cards (W2) in italic cyan; underline is kept for the last move.
            style = "bright_white" if not card.shark else "italic cyan"
            body.append(short_name(card, room), style=style)
        elif row == goal:
            body.append(fit(goal_label(view.public.edition), room), style="bold")
        elif row > goal:
            body.append("", style="dim")
        elif not n_sharks:
            body.append("~" if water else "·", style="blue" if water else "dim")
        body.truncate(colw - 1)
        body.pad_right(colw - 1 - body.cell_len)
        if (col, row) in self._changed:
            body.stylize("underline")
        if row == goal:
            body.stylize("bold")
        if self.has_focus and self.cursor == (col, row):
            body.stylize("reverse")
        cell = Text(" ")
        cell.append_text(body)
        return cell


def piles(view: View) -> str:
    """The public piles (RULES C4) in a few words: the deck's size and the discard pile."""
    discard = view.public.discard  # card ids; the top card comes whole
    top = ""
    card = view.public.discard_top
    if card is not None:
        top = _(", top: {card}").format(card=card_name(card.key))
    piles = _("deck {count} · discards {discards}")
    return piles.format(count=view.public.draw_count, discards=len(discard)) + top


def _player(view: View, seat: int) -> Player | None:
    return next((p for p in view.public.players if p.seat == seat), None)


def _cell_map(view: View) -> dict[tuple[int, int], str]:
    """What stands on each cell, as comparable strings (for the last-move highlight)."""
    cells: dict[tuple[int, int], str] = {}
    for p in view.public.players:
        cells[(p.col, p.row)] = f"p{p.seat}{p.alive}"
    for c in view.public.board:
        key = (c.col, c.row)
        cells[key] = cells.get(key, "") + f"c{c.card.id}"
    for shark in view.public.sharks:
        cells[shark] = cells.get(shark, "") + "s"
    return cells
