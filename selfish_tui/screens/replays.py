"""The Replays screen: finished games, newest first, a page at a time: mine (the games I held a
seat in), the public ones, or another player's. Enter watches one; d plays its deal again."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol.records import GameSummary
from protocol.server_messages import ReplaysMessage
from selfish_tui.i18n import N_, _, ngettext, pgettext, word_cut
from selfish_tui.screen_messages import PlayersWanted, ReplayWanted, ServerRequest
from selfish_tui.widgets.footer import LocalisedFooter

#: (heading, width in cells): 74 cells at 80 columns, as the lobby's table.
COLUMNS = [
    (N_("Game"), 5),
    (N_("Edition"), 11),
    (N_("Players"), 21),
    (N_("Winner"), 12),
    (N_("Turns"), 5),
    (N_("Ended"), 8),
]
PAGE = 20

MINE, PUBLIC, PLAYER = "mine", "public", "player"


def edition_word(edition: str) -> str:
    """An edition's short name."""
    return (
        pgettext("edition", "Shipwrecked")
        if edition == "shipwrecked"
        else pgettext("edition", "Space")
    )


def ago(when: float, now: float | None = None) -> str:
    """How long ago a Unix time was, in a few cells ("5 min", "3 h", "2 d")."""
    seconds = max(0.0, (time.time() if now is None else now) - when)
    if seconds < 3600:
        return _("{count} min").format(count=max(1, int(seconds // 60)))
    if seconds < 86_400:
        return _("{count} h").format(count=int(seconds // 3600))
    return _("{count} d").format(count=int(seconds // 86_400))


def seat_label(seat: Any) -> str:
    """A seat's name as listed: a bot's with its level."""
    if seat.kind == "bot" and seat.level:
        return _("{name} ({level})").format(name=seat.name, level=seat.level)
    return str(seat.name)


class ReplaysScreen(Screen[None]):
    """A list of finished games. ``player`` (with ``name``) lists that player's games."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "watch", N_("Watch"), show=True, priority=True),
        Binding("tab", "switch", N_("Mine/public")),
        Binding("n", "page(1)", N_("Older")),
        Binding("p", "page(-1)", N_("Newer")),
        Binding("d", "play_deal", N_("Play this deal")),
        Binding("i", "profiles", N_("Players")),
        Binding("escape", "back", N_("Back")),
    ]

    def __init__(self, player: str | None = None, name: str = "") -> None:
        super().__init__()
        self.which = PLAYER if player is not None else MINE
        self.player = player
        self.player_name = name
        self.games: list[GameSummary] = []
        self._before: list[int | None] = [None]  # the ``before`` of each page shown so far
        self._next: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="replays-box"):
            yield Static("", id="replays-status")
            yield DataTable(id="replays-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="replays-hint")
        yield LocalisedFooter()

    def on_mount(self) -> None:
        table = self.query_one("#replays-table", DataTable)
        for label, width in COLUMNS:
            table.add_column(_(label), width=width)
        table.focus()
        self._title()
        self.ask()

    def _title(self) -> None:
        box = self.query_one("#replays-box")
        if self.which == PLAYER:
            box.border_title = Text(_("Games of {name}").format(name=self.player_name))
        elif self.which == PUBLIC:
            box.border_title = _("Replays — public games")
        else:
            box.border_title = _("Replays — my games")

    def ask(self) -> None:
        """Ask for the page that starts at the last ``before``."""
        request: dict[str, Any] = {"type": "list_replays", "limit": PAGE}
        before = self._before[-1]
        if before is not None:
            request["before"] = before
        if self.which == PUBLIC:
            request["public"] = True
        elif self.which == PLAYER and self.player is not None:
            request["player"] = self.player
        self.query_one("#replays-status", Static).update(_("Asking the server…"))
        self.post_message(ServerRequest(request))

    def show_page(self, page: ReplaysMessage) -> None:
        """Fill the table from a ``replays`` reply."""
        games = list(page.games)
        self._next = page.next
        self.games = games
        table = self.query_one("#replays-table", DataTable)
        table.clear()
        for game in games:
            winner = game.seats[game.winner].name if game.winner is not None else _("nobody")
            players = pgettext("list", ", ").join(seat_label(s) for s in game.seats)
            edition = edition_word(game.edition)
            if game.variants:
                edition += " +" + " ".join(game.variants)
            cells = [
                f"#{game.game}",
                edition,
                word_cut(players, COLUMNS[2][1]),
                word_cut(winner, COLUMNS[3][1]),
                str(game.turns),
                ago(game.ended),
            ]
            table.add_row(*(Text(c, no_wrap=True, overflow="ellipsis") for c in cells))
        page = len(self._before)
        status = ngettext("{count} game", "{count} games", len(games)).format(count=len(games))
        status += " · " + _("page {page}").format(page=page)
        self.query_one("#replays-status", Static).update(Text(status))
        hint = (
            _("Enter watches · d plays its deal again · i its players · n older · p newer")
            if games
            else _("No finished games here yet.")
        )
        self.query_one("#replays-hint", Static).update(hint)

    def _chosen(self) -> GameSummary | None:
        table = self.query_one("#replays-table", DataTable)
        if 0 <= table.cursor_row < len(self.games):
            return self.games[table.cursor_row]
        return None

    def action_watch(self) -> None:
        """Watch the highlighted game."""
        game = self._chosen()
        if game is not None:
            self.post_message(ReplayWanted(game.game))

    def action_switch(self) -> None:
        """My games, or the public ones (a player's list goes back to mine)."""
        self.which = PUBLIC if self.which != PUBLIC else MINE
        self._before = [None]
        self._title()
        self.ask()

    def action_page(self, by: int) -> None:
        """The next (older) or previous (newer) page."""
        if by > 0 and self._next is not None:
            self._before.append(self._next)
            self.ask()
        elif by < 0 and len(self._before) > 1:
            self._before.pop()
            self.ask()

    def action_play_deal(self) -> None:
        """A new room with the highlighted game's deal (edition, seats, variants, shuffle)."""
        game = self._chosen()
        if game is not None:
            self.post_message(
                ServerRequest({"type": "play_deal", "game": game.game, "public": True})
            )

    def action_profiles(self) -> None:
        """The highlighted game's players, to open one's profile."""
        game = self._chosen()
        if game is not None:
            self.post_message(PlayersWanted([(s.name, s.player, s.level) for s in game.seats]))

    def action_back(self) -> None:
        """Back to where the list was opened from."""
        self.dismiss(None)
