"""Before the game: the lobby (rooms, create, join, watch), the create and join dialogs, and the
waiting room where the host adds bots and starts while everyone chats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, DataTable, Input, Select, Static

from protocol.messages import IDLE_GRACE, LEFT_GRACE
from selfish_tui.event_text import card_list
from selfish_tui.i18n import N_, _, pgettext, word_cut
from selfish_tui.model import seat_colour
from selfish_tui.state import LogEntry, RoomState, seat_name
from selfish_tui.widgets.footer import LocalisedFooter
from selfish_tui.widgets.log import GameLog

if TYPE_CHECKING:
    from selfish_tui.app import SelfishApp


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


def edition_name(edition: object) -> str:
    """An edition's short name in the active language ('Space', 太空版)."""
    names = {"space": _("Space"), "shipwrecked": _("Shipwrecked")}
    return names.get(str(edition), str(edition))


def private_label(private: bool) -> str:
    """The private checkbox's label, which says its state in words."""
    if private:
        return _("Private: yes (join by code only)")
    return _("Private: no (listed in the lobby)")


def room_status(status: object) -> str:
    """A room's status word ('waiting', 'playing', 'over') in the active language."""
    words = {
        "waiting": pgettext("room status", "waiting"),
        "playing": pgettext("room status", "playing"),
        "over": pgettext("room status", "over"),
    }
    return words.get(str(status), str(status))


def bot_level_name(level: object) -> str:
    """A bot level ('basic', 'random', 'expert') in the active language."""
    words = {
        "basic": pgettext("bot level", "basic"),
        "random": pgettext("bot level", "random"),
        "expert": pgettext("bot level", "expert"),
    }
    return words.get(str(level), str(level))


class StateCheckbox(Checkbox):
    """A checkbox whose mark differs by shape, not only by colour: ✓ when on, blank when off
    (Textual draws the same X for both), so it reads in 16 colours and with NO_COLOR."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "✓" if self.value else " "
        return super()._button


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

    def __init__(self, local: bool = False) -> None:
        super().__init__()
        self.local = local
        self.rooms: list[dict[str, Any]] = []
        self.status_text = _("Connecting…")
        self.offline = False
        self._ready = False

    @property
    def selfish(self) -> SelfishApp:
        """The app, with its Selfish-specific methods."""
        return self.app  # type: ignore[return-value]

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

    def show_rooms(self, rooms: list[dict[str, Any]]) -> None:
        """Fill the table from a ``rooms`` message."""
        self.rooms = rooms
        self.offline = False
        if not self._ready:
            return
        table = self.query_one("#rooms", DataTable)
        keep = table.cursor_row
        table.clear()
        for room in rooms:
            timer = _("{timer}s").format(timer=room.get("timer")) if room.get("timer") else _("off")
            # Text, not str: DataTable parses a str cell as markup, and these come from the
            # server (a host named "[/]" must not crash the lobby).
            edition = edition_name(room.get("edition"))
            variants = " ".join(str(v) for v in room.get("variants") or [])
            cells = [
                f"{edition} +{variants}" if variants else edition,
                f"{room.get('filled')}/{room.get('size')}",
                str(room.get("bots", "")),
                room_status(room.get("status", "")),
                timer,
                # A room whose seated humans all left has no host (null): its bots play on.
                word_cut(str(room.get("host") or "—"), HOST_WIDTH),
                str(room.get("spectators", 0)),
            ]
            table.add_row(
                Text(str(room.get("room")), style="bold"),
                *(Text(cell, no_wrap=True, overflow="ellipsis") for cell in cells),
                key=str(room.get("room")),
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
            self.selfish.request({"type": "list_rooms"})

    def _selected(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if not self.rooms or table.cursor_row < 0 or table.cursor_row >= len(self.rooms):
            return None
        return str(self.rooms[table.cursor_row].get("room"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        code = self._selected()
        if code:
            room = self.rooms[self.query_one("#rooms", DataTable).cursor_row]
            # A game that has begun can only be watched; say so instead of failing.
            role = "player" if room.get("status") == "waiting" else "spectator"
            self.selfish.request({"type": "join_room", "room": code, "as": role})

    def action_watch(self) -> None:
        """Join the highlighted room as a spectator."""
        code = self._selected()
        if code:
            self.selfish.request({"type": "join_room", "room": code, "as": "spectator"})

    def action_replays(self) -> None:
        """My finished games (Tab: the public ones)."""
        from selfish_tui.screens.replays import ReplaysScreen

        self.app.push_screen(ReplaysScreen())

    def action_profile(self) -> None:
        """My record and rating."""
        from selfish_tui.screens.profile import ProfileScreen

        self.app.push_screen(ProfileScreen(None, self.selfish.player_name))

    def action_leaderboard(self) -> None:
        """The leaderboard of the edition last played, Space first."""
        from selfish_tui.screens.leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen())

    def action_refresh(self) -> None:
        """Ask the server for the room list again (or, while not connected, reconnect now)."""
        if not self.selfish.retry_now():
            self.selfish.request({"type": "list_rooms"})

    def action_create(self) -> None:
        """Open the new-room dialog."""

        def created(options: dict[str, Any] | None) -> None:
            if options:
                self.selfish.request({"type": "create_room", **options})

        self.app.push_screen(CreateRoomScreen(), created)

    def action_join_code(self) -> None:
        """Open the join-by-code dialog."""

        def chosen(result: tuple[str, str] | None) -> None:
            if result:
                code, role = result
                self.selfish.request({"type": "join_room", "room": code, "as": role})

        self.app.push_screen(JoinScreen(), chosen)


# The graces a new room offers (seconds a dropped player, then an idle one, is waited for before
# the seat's bot plays it: PROTOCOL.md §7), the server's defaults first.
GRACES = ((LEFT_GRACE, IDLE_GRACE), (30, 60), (120, 300), (300, 600))


def minutes(seconds: int) -> str:
    """A grace as the dialog says it: "30 s", "2 min"."""
    if seconds % 60:
        return _("{seconds} s").format(seconds=seconds)
    return _("{minutes} min").format(minutes=seconds // 60)


def grace_label(left: int, idle: int) -> str:
    """One choice of graces: how long a dropped player, and an idle one, is waited for."""
    return _("dropped {left} · idle {idle}").format(left=minutes(left), idle=minutes(idle))


class CreateRoomScreen(ModalScreen[dict[str, Any] | None]):
    """Edition, seats, bots, bot level, timer, graces, private: everything ``create_room``
    takes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="create-box"):
            with Grid(id="create-grid"):
                yield Static(_("Edition"))
                yield Select(
                    [(edition_name(e), e) for e in ("space", "shipwrecked")],
                    value="space",
                    allow_blank=False,
                    compact=True,
                    id="new-edition",
                )
                yield Static(_("Seats"))
                yield Select(
                    [(str(n), n) for n in range(2, 6)],
                    value=4,
                    allow_blank=False,
                    compact=True,
                    id="new-seats",
                )
                yield Static(_("Bots"))
                yield Select(
                    [(str(n), n) for n in range(0, 5)],
                    value=2,
                    allow_blank=False,
                    compact=True,
                    id="new-bots",
                )
                yield Static(_("Bot level"))
                yield Select(
                    [(bot_level_name(level), level) for level in ("basic", "random", "expert")],
                    value="basic",
                    allow_blank=False,
                    compact=True,
                    id="new-level",
                )
                yield Static(_("Turn timer"))
                yield Select(
                    [(_("off"), 0)]
                    + [(_("{seconds} s").format(seconds=n), n) for n in (30, 60, 120)],
                    value=0,
                    allow_blank=False,
                    compact=True,
                    id="new-timer",
                )
                yield Static(_("Bots step in"))
                yield Select(
                    [(grace_label(left, idle), (left, idle)) for left, idle in GRACES],
                    value=(LEFT_GRACE, IDLE_GRACE),
                    allow_blank=False,
                    compact=True,
                    id="new-grace",
                )
                yield Static("")
                yield StateCheckbox(private_label(False), compact=True, id="new-private")
            with Horizontal(id="create-buttons"):
                yield Button(_("Cancel"), id="cancel", compact=True)
                yield Button(_("Create"), id="create", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#create-box").border_title = _("New room")
        self.query_one("#new-edition", Select).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        # The label says the state in words too, beside the box's mark.
        event.checkbox.label = private_label(event.value)

    def _value(self, widget_id: str) -> Any:
        return self.query_one(f"#new-{widget_id}", Select).value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "create":
            self.dismiss(None)
            return
        seats = int(self._value("seats"))
        bots = min(int(self._value("bots")), seats - 1)
        left_grace, idle_grace = self._value("grace")
        self.dismiss(
            {
                "edition": str(self._value("edition")),
                "seats": seats,
                "bots": bots,
                "bot_level": str(self._value("level")),
                "timer": int(self._value("timer")),
                "left_grace": int(left_grace),
                "idle_grace": int(idle_grace),
                "public": not self.query_one("#new-private", Checkbox).value,
            }
        )

    def action_cancel(self) -> None:
        """Close without creating."""
        self.dismiss(None)


class JoinScreen(ModalScreen[tuple[str, str] | None]):
    """A room code, then join as a player or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box"):
            yield Static(_("Room code (4 letters, 12 for a private room):"))
            yield Input(placeholder="QZKX", max_length=12, id="code", compact=True)
            with Horizontal(id="join-buttons"):
                yield Button(_("Watch"), id="spectator", compact=True)
                yield Button(_("Join"), id="player", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#join-box").border_title = _("Join a room")
        self.query_one("#code", Input).focus()

    def _finish(self, role: str) -> None:
        code = self.query_one("#code", Input).value.strip().upper()
        if len(code) not in (4, 12) or not code.isascii() or not code.isalpha():
            self.notify(_("A room code is 4 letters (12 for a private room)."), severity="warning")
            return
        self.dismiss((code, role))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._finish("player")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._finish(str(event.button.id))

    def action_cancel(self) -> None:
        """Close without joining."""
        self.dismiss(None)


class WaitingRoomScreen(Screen[None]):
    """A room before its game starts: seats, host controls (bots, start) and chat."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add_bot('basic')", N_("Add bot")),
        Binding("A", "add_bot('random')", N_("Add random bot"), show=False),
        Binding("e", "add_bot('expert')", N_("Add expert bot"), show=False),
        Binding("x", "remove_bot", N_("Remove bot")),
        Binding("s", "start", N_("Start")),
        Binding("c", "chat", N_("Chat")),
        Binding("l", "leave", N_("Leave")),
        Binding("i", "players", N_("Players"), show=False),
        Binding("escape", "close_chat", N_("Close chat"), show=False),
    ]

    def __init__(self, room: RoomState) -> None:
        super().__init__()
        self.room = room
        self._ready = False  # set once on_mount has drawn the room (see TableScreen)

    @property
    def selfish(self) -> SelfishApp:
        """The app, with its Selfish-specific methods."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Horizontal(id="waiting-top"):
            yield Static("", id="seats")
            yield GameLog(self.room, id="waiting-log")
        yield Input(
            placeholder=_("Say something (Enter sends, Esc closes)"),
            id="waiting-chat",
            max_length=300,
            compact=True,
        )
        yield LocalisedFooter()

    def on_mount(self) -> None:
        self.query_one("#waiting-log").border_title = _("Chat")
        self.query_one("#waiting-chat", Input).display = False
        self._ready = True
        log = self.query_one(GameLog)
        for entry in self.room.log:
            log.add_entry(entry)
        self.refresh_room()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action in {"add_bot", "remove_bot", "start"} and not self.room.is_host)

    def refresh_room(self) -> None:
        """Redraw the seat list from the latest ``room`` message."""
        if not self._ready:
            return  # on_mount draws the latest room info
        info = self.room.info
        seats_box = self.query_one("#seats", Static)
        seats_box.border_title = Text(_("Room {code}").format(code=self.room.code))
        text = Text()
        edition = edition_name(info.get("edition", ""))
        timer = (
            _("{timer} s per decision").format(timer=info.get("timer"))
            if info.get("timer")
            else _("no timer")
        )
        private = _("public") if info.get("public", True) else _("private")
        variants = ", ".join(str(v) for v in info.get("variants") or [])
        settings = f"{edition} · {timer} · {private}" + (
            _(" · variants {variants}").format(variants=variants) if variants else ""
        )
        text.append(f"{settings}\n", style="bold")
        # One row per seat, a long name wrapping under itself, never under the seat's number.
        seats = Table.grid(padding=(0, 1))
        seats.add_column(no_wrap=True)
        seats.add_column(ratio=1)
        for index, entry in enumerate(info.get("seats") or []):
            number = Text(f"{index + 1}.")
            if not entry:
                seats.add_row(number, Text(_("(free seat)"), style="dim"))
                continue
            line = Text(seat_name(entry), style=seat_colour(index))
            if entry.get("kind") == "bot":
                level = bot_level_name(entry.get("level"))
                line.append("  " + _("bot ({level})").format(level=level), style="dim")
            elif not entry.get("connected", True):
                line.append("  " + _("offline"), style="dim")
            if entry.get("player") and entry.get("player") == info.get("host"):
                line.append("  " + _("host"), style="bold")
            if index == self.room.seat:
                line.append("  " + _("(you)"))
            seats.add_row(number, line)
        after = Text()
        watchers = info.get("spectators") or []
        if watchers:
            names = card_list([str(w.get("name")) for w in watchers])
            after.append("\n" + _("Watching: {names}").format(names=names) + "\n")
        free = sum(1 for entry in info.get("seats") or [] if not entry)
        after.append("\n")
        if self.room.is_host:
            after.append(
                _("You are the host: ")
                + (
                    _("press s to start.")
                    if not free
                    else _(
                        "a adds a bot (A a random one, e an expert), x removes one; "
                        "s starts once every seat is filled."
                    )
                )
            )
        else:
            after.append(
                _("Tell friends the code {code}. The host starts the game.").format(
                    code=self.room.code
                )
            )
        door = self.selfish.front_door
        if door.resume_command and self.room.role == "player":
            after.append(
                "\n\n"
                + _("If you are cut off, `{command}` brings you back to this seat.").format(
                    command=door.resume_command
                ),
                style="bold",
            )
        seats_box.update(Group(text, seats, after))
        self.refresh_bindings()

    def add_log(self, entry: LogEntry) -> None:
        """Append a chat or notice line."""
        if not self._ready:
            return  # on_mount replays the room's log
        self.query_one(GameLog).add_entry(entry)

    def action_players(self) -> None:
        """The room's players, to open one's profile."""
        self.selfish.replays.players(self.room)

    def action_add_bot(self, level: str) -> None:
        """Fill the lowest free seat with a bot."""
        self.selfish.request({"type": "add_bot", "room": self.room.code, "level": level})

    def action_remove_bot(self) -> None:
        """Remove the bot in the highest bot seat."""
        bots = [
            e["seat"] for e in self.room.info.get("seats") or [] if e and e.get("kind") == "bot"
        ]
        if bots:
            self.selfish.request({"type": "remove_bot", "room": self.room.code, "seat": max(bots)})

    def action_start(self) -> None:
        """Start the game (host)."""
        self.selfish.request({"type": "start", "room": self.room.code})

    def action_leave(self) -> None:
        """Leave the room and go back to the lobby."""
        self.selfish.leave_room(self.room)

    def action_chat(self) -> None:
        """Open the chat input."""
        chat = self.query_one("#waiting-chat", Input)
        chat.display = True
        chat.focus()

    def action_close_chat(self) -> None:
        """Hide the chat input."""
        chat = self.query_one("#waiting-chat", Input)
        chat.value = ""
        chat.display = False

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.selfish.send_chat(self.room, event.value.strip())
        self.action_close_chat()
