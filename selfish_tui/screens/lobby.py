"""Before the game: the lobby (rooms, create, join, watch), the create and join dialogs, and the
waiting room where the host adds bots and starts while everyone chats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, DataTable, Footer, Input, Select, Static

from selfish_tui.model import seat_colour
from selfish_tui.state import LogEntry, RoomState
from selfish_tui.widgets.log import GameLog

if TYPE_CHECKING:
    from selfish_tui.app import SelfishApp

EDITION_NAMES = {"space": "Space", "shipwrecked": "Shipwrecked"}
PRIVATE_LABELS = {
    False: "Private: no (listed in the lobby)",
    True: "Private: yes (join by code only)",
}


class LobbyScreen(Screen[None]):
    """The server's public rooms. In local play it only shows progress while the game is set up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", "New room"),
        Binding("j", "join_code", "Join by code"),
        Binding("w", "watch", "Watch"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, local: bool = False) -> None:
        super().__init__()
        self.local = local
        self.rooms: list[dict[str, Any]] = []
        self.status_text = "Connecting…"
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
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#lobby-box")
        box.border_title = "Selfish — local game" if self.local else "Selfish — lobby"
        table = self.query_one("#rooms", DataTable)
        for label, width in (
            ("Room", 4),
            ("Edition", 11),
            ("Seats", 5),
            ("Humans", 6),
            ("Bots", 4),
            ("Status", 7),
            ("Timer", 5),
            ("Host", 12),
            ("Watching", 8),
        ):
            table.add_column(label, width=width)
        table.display = not self.local
        self.set_interval(5.0, self._poll_rooms)
        table.focus()
        self._ready = True
        if self.offline:
            self.set_offline(self.status_text)
        else:
            self.show_rooms(self.rooms)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # In local play there is no lobby to act on: hide its keys from the footer.
        return not (self.local and action in {"create", "join_code", "watch", "refresh"})

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
        for hint in self.query("#lobby-hint").results(Static):
            hint.update(Text("Not connected to the server. r retries now; ctrl+q quits."))

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
            timer = f"{room.get('timer')}s" if room.get("timer") else "off"
            # Text, not str: DataTable parses a str cell as markup, and these come from the
            # server (a host named "[/]" must not crash the lobby).
            edition = EDITION_NAMES.get(str(room.get("edition")), str(room.get("edition")))
            variants = " ".join(str(v) for v in room.get("variants") or [])
            cells = [
                f"{edition} +{variants}" if variants else edition,
                f"{room.get('filled')}/{room.get('size')}",
                str(room.get("humans", "")),
                str(room.get("bots", "")),
                str(room.get("status", "")),
                timer,
                str(room.get("host", "")),
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
                "Enter joins the highlighted room · w watches it · n creates a room · "
                "j joins a private room by its code · r refreshes"
            )
        else:
            hint.update(
                "No public rooms yet: press n to create one, or j to join a private room by code."
            )

    def _poll_rooms(self) -> None:
        if self.is_current and not self.local:
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


class CreateRoomScreen(ModalScreen[dict[str, Any] | None]):
    """Edition, seats, bots, bot level, timer, private: everything ``create_room`` takes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="create-box"):
            with Grid(id="create-grid"):
                yield Static("Edition")
                yield Select(
                    [("Space", "space"), ("Shipwrecked", "shipwrecked")],
                    value="space",
                    allow_blank=False,
                    compact=True,
                    id="new-edition",
                )
                yield Static("Seats")
                yield Select(
                    [(str(n), n) for n in range(2, 6)],
                    value=4,
                    allow_blank=False,
                    compact=True,
                    id="new-seats",
                )
                yield Static("Bots")
                yield Select(
                    [(str(n), n) for n in range(0, 5)],
                    value=2,
                    allow_blank=False,
                    compact=True,
                    id="new-bots",
                )
                yield Static("Bot level")
                yield Select(
                    [("basic", "basic"), ("random", "random"), ("expert", "expert")],
                    value="basic",
                    allow_blank=False,
                    compact=True,
                    id="new-level",
                )
                yield Static("Turn timer")
                yield Select(
                    [("off", 0), ("30 s", 30), ("60 s", 60), ("120 s", 120)],
                    value=0,
                    allow_blank=False,
                    compact=True,
                    id="new-timer",
                )
                yield Static("")
                yield Checkbox(PRIVATE_LABELS[False], compact=True, id="new-private")
            with Horizontal(id="create-buttons"):
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Create", id="create", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#create-box").border_title = "New room"
        self.query_one("#new-edition", Select).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        # The box's mark differs only by colour, so the label says the state in words.
        event.checkbox.label = PRIVATE_LABELS[event.value]

    def _value(self, widget_id: str) -> Any:
        return self.query_one(f"#new-{widget_id}", Select).value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "create":
            self.dismiss(None)
            return
        seats = int(self._value("seats"))
        bots = min(int(self._value("bots")), seats - 1)
        self.dismiss(
            {
                "edition": str(self._value("edition")),
                "seats": seats,
                "bots": bots,
                "bot_level": str(self._value("level")),
                "timer": int(self._value("timer")),
                "public": not self.query_one("#new-private", Checkbox).value,
            }
        )

    def action_cancel(self) -> None:
        """Close without creating."""
        self.dismiss(None)


class JoinScreen(ModalScreen[tuple[str, str] | None]):
    """A room code, then join as a player or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box"):
            yield Static("Room code (4 letters, 12 for a private room):")
            yield Input(placeholder="QZKX", max_length=12, id="code", compact=True)
            with Horizontal(id="join-buttons"):
                yield Button("Watch", id="spectator", compact=True)
                yield Button("Join", id="player", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#join-box").border_title = "Join a room"
        self.query_one("#code", Input).focus()

    def _finish(self, role: str) -> None:
        code = self.query_one("#code", Input).value.strip().upper()
        if len(code) not in (4, 12) or not code.isascii() or not code.isalpha():
            self.notify("A room code is 4 letters (12 for a private room).", severity="warning")
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
        Binding("a", "add_bot('basic')", "Add bot"),
        Binding("A", "add_bot('random')", "Add random bot", show=False),
        Binding("e", "add_bot('expert')", "Add expert bot", show=False),
        Binding("x", "remove_bot", "Remove bot"),
        Binding("s", "start", "Start"),
        Binding("c", "chat", "Chat"),
        Binding("l", "leave", "Leave"),
        Binding("escape", "close_chat", "Close chat", show=False),
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
            yield GameLog(id="waiting-log")
        yield Input(
            placeholder="Say something (Enter sends, Esc closes)",
            id="waiting-chat",
            max_length=300,
            compact=True,
        )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#waiting-log").border_title = "Chat"
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
        seats_box.border_title = Text(f"Room {self.room.code}")
        text = Text()
        edition = EDITION_NAMES.get(str(info.get("edition")), str(info.get("edition", "")))
        timer = f"{info.get('timer')} s per decision" if info.get("timer") else "no timer"
        private = "public" if info.get("public", True) else "private"
        variants = ", ".join(str(v) for v in info.get("variants") or [])
        settings = f"{edition} · {timer} · {private}" + (
            f" · variants {variants}" if variants else ""
        )
        text.append(f"{settings}\n\n", style="bold")
        for index, entry in enumerate(info.get("seats") or []):
            text.append(f" {index + 1}. ")
            if not entry:
                text.append("(free seat)\n", style="dim")
                continue
            text.append(str(entry.get("name")), style=seat_colour(index))
            if entry.get("kind") == "bot":
                text.append(f"  bot ({entry.get('level')})", style="dim")
            elif not entry.get("connected", True):
                text.append("  offline", style="dim")
            if entry.get("player") and entry.get("player") == info.get("host"):
                text.append("  host", style="bold")
            if index == self.room.seat:
                text.append("  (you)")
            text.append("\n")
        watchers = info.get("spectators") or []
        if watchers:
            text.append(f"\nWatching: {', '.join(str(w.get('name')) for w in watchers)}\n")
        free = sum(1 for entry in info.get("seats") or [] if not entry)
        text.append("\n")
        if self.room.is_host:
            text.append(
                "You are the host: "
                + (
                    "press s to start."
                    if not free
                    else "a adds a bot (A a random one, e an expert), x removes one; "
                    "s starts once every seat is filled."
                )
            )
        else:
            text.append(f"Tell friends the code {self.room.code}. The host starts the game.")
        seats_box.update(text)
        self.refresh_bindings()

    def add_log(self, entry: LogEntry) -> None:
        """Append a chat or notice line."""
        if not self._ready:
            return  # on_mount replays the room's log
        self.query_one(GameLog).add_entry(entry)

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
