"""A player's profile (their record and rating in each edition), and the list of a game's or a
room's players to open one from. A bot level has a profile of its own; a guest has none."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from protocol.server_messages import ProfileMessage
from selfish_tui.i18n import N_, _
from selfish_tui.plain import fit
from selfish_tui.screen_messages import ServerRequest
from selfish_tui.screens.replays import edition_word
from selfish_tui.widgets.footer import LocalisedFooter

#: (heading, width in cells) of a profile's table, one row per edition.
COLUMNS = [
    (N_("Edition"), 11),
    (N_("Rating"), 7),
    (N_("Games"), 5),
    (N_("Wins"), 5),
    (N_("No winner"), 9),
    (N_("Streak"), 6),
    (N_("Best"), 4),
    (N_("Last played"), 11),
]


def day(when: float) -> str:
    """A Unix time as a date (the player's local one)."""
    return time.strftime("%Y-%m-%d", time.localtime(when))


class ProfileScreen(Screen[None]):
    """``player``: an id, ``bot:LEVEL``, or None for one's own. ``name``: shown until the
    server's answer names them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "games", N_("Their games")),
        Binding("escape", "back", N_("Back")),
    ]

    def __init__(self, player: str | None = None, name: str = "") -> None:
        super().__init__()
        self.player = player
        self.own = player is None
        self.name_shown = name
        self.profile: ProfileMessage | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-box"):
            yield Static("", id="profile-status")
            yield DataTable(id="profile-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="profile-hint")
        yield LocalisedFooter()

    def on_mount(self) -> None:
        table = self.query_one("#profile-table", DataTable)
        for label, width in COLUMNS:
            table.add_column(_(label), width=width)
        self._title()
        request: dict[str, Any] = {"type": "get_profile"}
        if self.player is not None:
            request["player"] = self.player
        self.query_one("#profile-status", Static).update(_("Asking the server…"))
        self.post_message(ServerRequest(request))

    def _title(self) -> None:
        name = self.profile.name if self.profile is not None else self.name_shown
        box = self.query_one("#profile-box")
        box.border_title = Text(_("Profile: {name}").format(name=name)) if name else _("Profile")

    def wants(self, message: ProfileMessage) -> bool:
        """Whether a ``profile`` reply is this screen's."""
        return self.profile is None and (self.player is None or message.player == self.player)

    def show_profile(self, profile: ProfileMessage) -> None:
        """Fill the screen from a ``profile`` reply."""
        self.profile = profile
        self.player = profile.player
        self._title()
        table = self.query_one("#profile-table", DataTable)
        table.clear()
        for record in profile.editions:
            rating = record.rating.shown() if record.rating is not None else "—"
            cells = [
                edition_word(record.edition),
                rating,
                str(record.games),
                str(record.wins),
                str(record.no_winner),
                str(record.streak),
                str(record.best_streak),
                day(record.last_played),
            ]
            table.add_row(*(Text(c, no_wrap=True) for c in cells))
        if profile.bot:
            status = _("A bot level: its rating stays where it was set, an anchor for the scale.")
        elif not profile.editions:
            status = _("No finished games yet.")
        else:
            status = _("A rating with ? is provisional: a few more rated games settle it.")
        self.query_one("#profile-status", Static).update(Text(status))
        if profile.bot:
            hint = ""
        elif self.own:
            hint = _("g lists your games · Esc goes back")
        else:
            hint = _("g lists their games · Esc goes back")
        self.query_one("#profile-hint", Static).update(hint)

    def action_games(self) -> None:
        """The player's finished games."""
        from selfish_tui.screens.replays import ReplaysScreen

        if self.profile is not None and not self.profile.bot:
            self.app.push_screen(ReplaysScreen(self.profile.player, self.profile.name))

    def action_back(self) -> None:
        """Back to where the profile was opened from."""
        self.dismiss(None)


class PlayersScreen(ModalScreen[None]):
    """A game's or a room's seats: Enter opens the highlighted one's profile. ``seats``:
    (name, player id or None, bot level or None); a guest (no id, no level) has no profile."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", N_("Back"))]

    def __init__(self, seats: list[tuple[str, str | None, str | None]]) -> None:
        super().__init__()
        self.seats = seats

    def compose(self) -> ComposeResult:
        with Vertical(id="players-box"):
            options = []
            for name, player, level in self.seats:
                shown = fit(name, 40)
                if level is not None and player is None:
                    shown = _("{name} ({level})").format(name=shown, level=level)
                options.append(Option(Text(shown), disabled=player is None and level is None))
            yield OptionList(*options, id="players-list")
            yield Static(_("Enter opens a profile · Esc closes"), id="players-hint")

    def on_mount(self) -> None:
        self.query_one("#players-box").border_title = _("Players")
        self.query_one("#players-list", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        name, player, level = self.seats[event.option_index]
        self.dismiss(None)
        self.app.push_screen(ProfileScreen(player or f"bot:{level}", name))

    def action_back(self) -> None:
        """Close the list."""
        self.dismiss(None)
