"""Before the game: the lobby's list of rooms, to create, join or watch one."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol.server_messages import RoomSummary
from selfish_tui.controllers.controller import Controller
from selfish_tui.i18n import N_, _, pgettext, word_cut
from selfish_tui.screen_messages import RefreshLobby, ServerRequest
from selfish_tui.screens.leaderboard import LeaderboardScreen
from selfish_tui.screens.profile import ProfileScreen
from selfish_tui.screens.replays import ReplaysScreen
from selfish_tui.screens.room_dialogs import CreateRoomScreen, JoinScreen
from selfish_tui.screens.room_words import edition_name
from selfish_tui.widgets.footer import LocalisedFooter

HOST_WIDTH = 10
# The room list's columns and their widths in cells.
COLUMNS = (
    (N_("Room"), 4),
    (N_("Edition"), 15),
    (N_("Seats"), 5),
    (N_("Bots"), 4),
    (N_("Status"), 7),
    (N_("Timer"), 5),
    (N_("Host"), HOST_WIDTH),
    (N_("Watching"), 8),
)


def room_status(status: object) -> str:
    """A room's status word ('waiting', 'playing', 'over') in the active language."""
    words = {
        "waiting": pgettext("room status", "waiting"),
        "playing": pgettext("room status", "playing"),
        "over": pgettext("room status", "over"),
    }
    return words.get(str(status), str(status))


class LobbyScreen(Screen[None]):
    """The server's public rooms. In local play it only shows progress while the game is set up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", N_("New room")),
        Binding("j", "join_code", N_("Join by code")),
        Binding("w", "watch", N_("Watch")),
        Binding("r", "refresh", N_("Refresh")),
        # Finished games, records and ratings (selfish_tui/screens/replays.py, profile.py,
        # leaderboard.py): said in the hint line, the footer has no room left at 80 columns.
        Binding("g", "replays", N_("Replays"), show=False),
        Binding("i", "profile", N_("Profile"), show=False),
        Binding("b", "leaderboard", N_("Ranks"), show=False),
    ]

    def __init__(self, controller: Controller) -> None:
        super().__init__()
        self.controller = controller
        self.local = not controller.has_lobby
        self.rooms: list[RoomSummary] = []
        self.status_text = _("Connecting…")
        self.offline = False
        self._ready = False

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby-box"):
            yield Static(Text(self.status_text), id="lobby-status")
            yield DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
            yield Static("", id="lobby-hint")
        yield LocalisedFooter()

    def on_mount(self) -> None:
        box = self.query_one("#lobby-box")
        box.border_title = _("Selfish — local game") if self.local else _("Selfish — lobby")
        table = self.query_one("#rooms", DataTable)
        # 74 cells at 80 columns (the box's border and padding, a scrollbar, each column's two
        # cells of padding): "Shipwrecked +V1" whole, and no column out of sight. The humans
        # are the seats taken less the bots.
        for label, width in COLUMNS:
            table.add_column(_(label), width=width)
        table.display = not self.local
        self.set_interval(5.0, self._poll_rooms)
        table.focus()
        self._ready = True
        if self.offline:
            self.set_offline(self.status_text)
        else:
            self.show_rooms(self.rooms)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # In local play there is no lobby to act on: hide its keys from the footer (but r,
        # which tries to connect again, while there is no connection).
        if self.local and action == "refresh":
            return self.offline
        # Records and ratings are the server's: a local game keeps them, but from its lobby
        # there is no room to watch or join.
        return not (self.local and action in {"create", "join_code", "watch"}) and not (
            self.offline and action in {"replays", "profile", "leaderboard"}
        )

    def set_status(self, text: str) -> None:
        """Show connection progress or the server's name."""
        self.status_text = text
        if self._ready:
            # query, not query_one: while the app shuts down the widget may already be gone.
            for status in self.query("#lobby-status").results(Static):
                status.update(Text(text))

    def set_offline(self, text: str) -> None:
        """Not connected: say why and how to retry, instead of an empty room list."""
        self.offline = True
        self.set_status(text)
        self.refresh_bindings()
        for hint in self.query("#lobby-hint").results(Static):
            hint.update(Text(_("Not connected to the server. r retries now; ctrl+q quits.")))

    def show_rooms(self, rooms: list[RoomSummary]) -> None:
        """Fill the table from a ``rooms`` message (a code listed twice is shown once: the
        table's rows are keyed by code, and a second row of one key would stop the app)."""
        unique: dict[str, RoomSummary] = {}
        for room in rooms:
            unique.setdefault(room.room, room)
        rooms = list(unique.values())
        self.rooms = rooms
        self.offline = False
        if not self._ready:
            return
        table = self.query_one("#rooms", DataTable)
        keep = table.cursor_row
        table.clear()
        for room in rooms:
            timer = _("{timer}s").format(timer=room.timer) if room.timer else _("off")
            # Text, not str: DataTable parses a str cell as markup, and these come from the
            # server (a host named "[/]" must not crash the lobby).
            edition = edition_name(room.edition)
            variants = " ".join(room.variants)
            cells = [
                f"{edition} +{variants}" if variants else edition,
                f"{room.filled}/{room.size}",
                str(room.bots),
                room_status(room.status),
                timer,
                # A room whose seated humans all left has no host (null): its bots play on.
                word_cut(room.host or "—", HOST_WIDTH),
                str(room.spectators),
            ]
            table.add_row(
                Text(room.room, style="bold"),
                *(Text(cell, no_wrap=True, overflow="ellipsis") for cell in cells),
                key=room.room,
            )
        hint = self.query_one("#lobby-hint", Static)
        if self.local:
            hint.update("")
        elif rooms:
            table.move_cursor(row=min(keep, len(rooms) - 1))
            hint.update(
                _(
                    "Enter joins the highlighted room · w watches it · n creates a room · "
                    "j joins a private room by its code · r refreshes"
                )
                + "\n"
                + _("g finished games and replays · i your profile · b the leaderboard")
            )
        else:
            hint.update(
                _(
                    "No public rooms yet: press n to create one, or j to join a private room "
                    "by code."
                )
                + "\n"
                + _("g finished games and replays · i your profile · b the leaderboard")
            )

    def _poll_rooms(self) -> None:
        # Not while offline: the status line already says so, a toast every 5 s would not.
        if self.is_current and not self.local and not self.offline:
            self.post_message(ServerRequest({"type": "list_rooms"}))

    def _selected(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if not self.rooms or table.cursor_row < 0 or table.cursor_row >= len(self.rooms):
            return None
        return self.rooms[table.cursor_row].room

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        code = self._selected()
        if code:
            room = self.rooms[self.query_one("#rooms", DataTable).cursor_row]
            # A game that has begun can only be watched; say so instead of failing.
            role = "player" if room.status == "waiting" else "spectator"
            self.post_message(ServerRequest({"type": "join_room", "room": code, "as": role}))

    def action_watch(self) -> None:
        """Join the highlighted room as a spectator."""
        code = self._selected()
        if code:
            self.post_message(ServerRequest({"type": "join_room", "room": code, "as": "spectator"}))

    def action_replays(self) -> None:
        """My finished games (Tab: the public ones)."""
        self.app.push_screen(ReplaysScreen())

    def action_profile(self) -> None:
        """My record and rating."""
        self.app.push_screen(ProfileScreen(None, self.controller.shell.player_name))

    def action_leaderboard(self) -> None:
        """The leaderboard of the edition last played, Space first."""
        self.app.push_screen(LeaderboardScreen())

    def action_refresh(self) -> None:
        """Ask the server for the room list again (or, while not connected, reconnect now)."""
        self.post_message(RefreshLobby())

    def action_create(self) -> None:
        """Open the new-room dialog."""

        def created(options: dict[str, Any] | None) -> None:
            if options:
                self.post_message(ServerRequest({"type": "create_room", **options}))

        self.app.push_screen(CreateRoomScreen(), created)

    def action_join_code(self) -> None:
        """Open the join-by-code dialog."""

        def chosen(result: tuple[str, str] | None) -> None:
            if result:
                code, role = result
                self.post_message(ServerRequest({"type": "join_room", "room": code, "as": role}))

        self.app.push_screen(JoinScreen(), chosen)
