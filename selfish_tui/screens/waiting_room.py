"""A room before its game starts: seats, the host's controls (bots, start) and chat."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Input, Static

from selfish_tui.controllers.controller import Controller
from selfish_tui.event_text import card_list
from selfish_tui.i18n import N_, _
from selfish_tui.model import seat_colour
from selfish_tui.screen_messages import ChatSaid, LeaveRoom, PlayersWanted, ServerRequest
from selfish_tui.screens.room_words import bot_level_name, edition_name
from selfish_tui.state import LogEntry, RoomState, room_players, seat_name
from selfish_tui.widgets.footer import LocalisedFooter
from selfish_tui.widgets.log import GameLog


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

    def __init__(self, room: RoomState, controller: Controller) -> None:
        super().__init__()
        self.room = room
        self.controller = controller
        self._ready = False  # set once on_mount has drawn the room (see TableScreen)

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
        if info is None:
            return  # drawn when the room's first ``room`` message comes
        seats_box = self.query_one("#seats", Static)
        seats_box.border_title = Text(_("Room {code}").format(code=self.room.code))
        text = Text()
        edition = edition_name(info.edition)
        timer = (
            _("{timer} s per decision").format(timer=info.timer) if info.timer else _("no timer")
        )
        private = _("public") if info.public else _("private")
        variants = ", ".join(info.variants)
        settings = f"{edition} · {timer} · {private}" + (
            _(" · variants {variants}").format(variants=variants) if variants else ""
        )
        text.append(f"{settings}\n", style="bold")
        # One row per seat, a long name wrapping under itself, never under the seat's number.
        seats = Table.grid(padding=(0, 1))
        seats.add_column(no_wrap=True)
        seats.add_column(ratio=1)
        for index, entry in enumerate(info.seats):
            number = Text(f"{index + 1}.")
            if entry is None:
                seats.add_row(number, Text(_("(free seat)"), style="dim"))
                continue
            line = Text(seat_name(entry), style=seat_colour(index))
            if entry.kind == "bot":
                level = bot_level_name(entry.level)
                line.append("  " + _("bot ({level})").format(level=level), style="dim")
            elif not entry.connected:
                line.append("  " + _("offline"), style="dim")
            if entry.player and entry.player == info.host:
                line.append("  " + _("host"), style="bold")
            if index == self.room.seat:
                line.append("  " + _("(you)"))
            seats.add_row(number, line)
        after = Text()
        watchers = info.spectators
        if watchers:
            names = card_list([w.name for w in watchers])
            after.append("\n" + _("Watching: {names}").format(names=names) + "\n")
        free = sum(1 for entry in info.seats if entry is None)
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
        door = self.controller.front_door
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
        self.post_message(PlayersWanted(room_players(self.room)))

    def action_add_bot(self, level: str) -> None:
        """Fill the lowest free seat with a bot."""
        self.post_message(
            ServerRequest({"type": "add_bot", "room": self.room.code, "level": level})
        )

    def action_remove_bot(self) -> None:
        """Remove the bot in the highest bot seat."""
        seats = self.room.info.seats if self.room.info is not None else ()
        bots = [e.seat for e in seats if e is not None and e.kind == "bot"]
        if bots:
            request = {"type": "remove_bot", "room": self.room.code, "seat": max(bots)}
            self.post_message(ServerRequest(request))

    def action_start(self) -> None:
        """Start the game (host)."""
        self.post_message(ServerRequest({"type": "start", "room": self.room.code}))

    def action_leave(self) -> None:
        """Leave the room and go back to the lobby."""
        self.post_message(LeaveRoom(self.room.code))

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
            self.post_message(ChatSaid(self.room.code, event.value.strip()))
        self.action_close_chat()
