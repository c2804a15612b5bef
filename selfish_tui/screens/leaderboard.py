"""The leaderboard of an edition: players whose rating is settled and who played a rated game
in the last 30 days, best first, a page at a time (bots and guests are never on it)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol.server_messages import LeaderboardMessage
from selfish_tui.i18n import N_, _, word_cut
from selfish_tui.screen_messages import ServerRequest
from selfish_tui.screens.profile import ProfileScreen, day
from selfish_tui.screens.replays import edition_word
from selfish_tui.widgets.footer import LocalisedFooter

COLUMNS = [
    (N_("Rank"), 5),
    (N_("Player"), 28),
    (N_("Rating"), 7),
    (N_("Games"), 5),
    (N_("Wins"), 5),
    (N_("Last played"), 11),
]
PAGE = 20


class LeaderboardScreen(Screen[None]):
    """One edition's leaderboard; Tab shows the other edition's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "profile", N_("Profile"), priority=True),
        Binding("tab", "switch", N_("Edition")),
        Binding("n", "page(1)", N_("Next")),
        Binding("p", "page(-1)", N_("Previous")),
        Binding("escape", "back", N_("Back")),
    ]

    def __init__(self, edition: str = "space") -> None:
        super().__init__()
        self.edition = edition
        self.board: LeaderboardMessage | None = None
        self._after: list[str | None] = [None]

    def compose(self) -> ComposeResult:
        with Vertical(id="leaderboard-box"):
            yield Static("", id="leaderboard-status")
            yield DataTable(id="leaderboard-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="leaderboard-hint")
        yield LocalisedFooter()

    def on_mount(self) -> None:
        table = self.query_one("#leaderboard-table", DataTable)
        for label, width in COLUMNS:
            table.add_column(_(label), width=width)
        table.focus()
        self.ask()

    def ask(self) -> None:
        """Ask for the current page."""
        self.query_one("#leaderboard-box").border_title = _("Leaderboard — {edition}").format(
            edition=edition_word(self.edition)
        )
        request: dict[str, Any] = {"type": "get_leaderboard", "edition": self.edition}
        request["limit"] = PAGE
        if self._after[-1] is not None:
            request["after"] = self._after[-1]
        self.query_one("#leaderboard-status", Static).update(_("Asking the server…"))
        self.post_message(ServerRequest(request))

    def show_board(self, board: LeaderboardMessage) -> None:
        """Fill the table from a ``leaderboard`` reply (of this screen's edition)."""
        if board.edition != self.edition:
            return
        self.board = board
        table = self.query_one("#leaderboard-table", DataTable)
        table.clear()
        for entry in board.entries:
            cells = [
                str(entry.rank),
                word_cut(entry.name, COLUMNS[1][1]),
                entry.rating.shown(),
                str(entry.games),
                str(entry.wins),
                day(entry.last_played),
            ]
            table.add_row(*(Text(c, no_wrap=True, overflow="ellipsis") for c in cells))
        status = (
            _("Rated players active in the last 30 days, best first.")
            if board.entries
            else _("Nobody is on this board yet: it lists settled ratings of the last 30 days.")
        )
        self.query_one("#leaderboard-status", Static).update(status)
        self.query_one("#leaderboard-hint", Static).update(
            _("Enter opens a profile · Tab the other edition · n next page · p previous")
        )

    def action_profile(self) -> None:
        """The highlighted player's profile."""
        table = self.query_one("#leaderboard-table", DataTable)
        if self.board is not None and 0 <= table.cursor_row < len(self.board.entries):
            entry = self.board.entries[table.cursor_row]
            self.app.push_screen(ProfileScreen(entry.player, entry.name))

    def action_switch(self) -> None:
        """The other edition's board."""
        self.edition = "shipwrecked" if self.edition == "space" else "space"
        self._after = [None]
        self.ask()

    def action_page(self, by: int) -> None:
        """The next or previous page."""
        if by > 0 and self.board is not None and self.board.next is not None:
            self._after.append(self.board.next)
            self.ask()
        elif by < 0 and len(self._after) > 1:
            self._after.pop()
            self.ask()

    def action_back(self) -> None:
        """Back to the lobby."""
        self.dismiss(None)
