"""The Selfish Textual app: a shell over one connection controller.

How a local game, a server's lobby, hosting and the LAN search differ is the controller's
(selfish_tui/controllers/); the session underneath (selfish_tui/session.py) keeps the rooms up
to date from the server, and the navigation (selfish_tui/navigation.py) decides which screen
shows. This module wires them up, carries out what the screens post
(selfish_tui/screen_messages.py), and owns the app's own keys: quit, help and the language.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, ClassVar

from textual import events
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from selfish_tui import i18n
from selfish_tui.controllers.controller import Controller
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.i18n import N_, _
from selfish_tui.replay_desk import WATCH
from selfish_tui.screen_messages import (
    BellToggled,
    ChatSaid,
    ChoiceMade,
    DecisionDue,
    LeaveRoom,
    PlayersWanted,
    RefreshLobby,
    ReplayWanted,
    ResultWanted,
    ServerRequest,
    TableSettled,
)
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.help import HelpScreen, help_markdown, help_width, rendered_help
from selfish_tui.screens.lobby import LobbyScreen
from selfish_tui.session import Session


class SelfishApp(Session):
    """The client, playing the way ``controller`` says (default: a server's lobby without a
    connection; tests feed it messages)."""

    CSS_PATH = "app.tcss"
    TITLE = "Selfish"  # in the active language from on_mount on
    # The palette (ctrl+p) offers only the app's own commands (get_system_commands): its theme
    # switcher would undo the 16-colour-safe styling. The footers do not list it: the game's
    # keys need the room at 80 columns.
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("question_mark", "help", N_("Help")),
        Binding("f1", "help", N_("Help"), show=False),
        # F2 is free on every screen: the other language, the game kept (see switch_language).
        # The footer names the other language: 中文 in English, English in Chinese.
        Binding("f2", "switch_language", N_("中文"), priority=True),
    ]

    def __init__(
        self,
        controller: Controller | None = None,
        *,
        name: str = "Player",
        bell: bool = False,
        backoff: tuple[float, ...] | None = None,
    ) -> None:
        controller = controller or RemoteLobby()
        super().__init__(controller, name, backoff)
        controller.attach(self)
        self.bell_enabled = bell
        self._help_timer: Timer | None = None

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette's entries: the language, help and quit (no theme switcher)."""
        yield SystemCommand(
            _("Language: 中文 / English"),
            _("Switch the interface to the other language (F2); the game goes on"),
            self.action_switch_language,
        )
        yield SystemCommand(_("Help"), _("The keys and the rules (?)"), self.action_help)
        yield SystemCommand(_("Quit"), _("Quit Selfish (ctrl+q)"), self.action_quit)

    def action_switch_language(self) -> None:
        """Show everything in the other language (F2 or the palette), the game kept."""
        self.switch_language("en" if i18n.current_language() == "zh" else "zh")

    def switch_language(self, language: str) -> None:
        """Make ``language`` the client's and draw every screen again in it.

        Everything a screen shows is drawn from the rooms' state (views, logs with their
        events' keys and args), so the screens are built anew: the lobby keeps its room list,
        the current room its table or waiting room, and the game goes on untouched.
        """
        i18n.set_language(language)
        for each in self.rooms.values():
            each.relocalise()
        self.title = _("Selfish")
        old = self.lobby
        self.lobby = LobbyScreen(self.controller)
        self.lobby.rooms, self.lobby.offline = old.rooms, old.offline
        self.lobby.status_text = old.status_text
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(self.lobby)
        room = self.rooms.get(self.current or "")
        if room is not None:
            self.show_room(room)
            if room.result_shown and room.over:
                self.show_game_over(room)
        self.controller.language_switched()
        self._check_size(self.size.width, self.size.height)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast, always plain text: toasts show names, server messages and errors, which must
        never be parsed as markup (a name like ``[/]`` would crash the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # --- lifecycle ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.title = _("Selfish")
        self.push_screen(self.lobby)
        self.controller.start()
        self._check_size(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        # The event carries the new size; self.size may still be the old one (ssh-gateway note).
        self._check_size(event.size.width, event.size.height)
        if self._table() is not None:
            # The help's lines at the new width, once the resizing has stopped.
            if self._help_timer is not None:
                self._help_timer.stop()
            width = event.size.width
            self._help_timer = self.set_timer(0.5, lambda: self.prepare_help(width))

    # --- what the screens ask for ------------------------------------------------------------

    def on_server_request(self, message: ServerRequest) -> None:
        self.request(message.request)

    def on_choice_made(self, message: ChoiceMade) -> None:
        room = self.rooms.get(message.room)
        if room is None or not self.act(room, message.version, message.choice):
            table = self._table()
            if table is not None and table.room.code == message.room:
                table.restore_prompt()  # it did not go out: the choices again

    def on_chat_said(self, message: ChatSaid) -> None:
        room = self.rooms.get(message.room)
        if room is not None:
            self.send_chat(room, message.text)

    def on_leave_room(self, message: LeaveRoom) -> None:
        room = self.rooms.get(message.room)
        if room is not None:
            self.leave_room(room)

    def on_refresh_lobby(self, message: RefreshLobby) -> None:
        if not self.retry_now():
            self.request({"type": "list_rooms"})

    def on_result_wanted(self, message: ResultWanted) -> None:
        room = self.rooms.get(message.room)
        if room is not None:
            self.show_game_over(room)

    def on_replay_wanted(self, message: ReplayWanted) -> None:
        self.replays.fetch(message.game, WATCH)

    def on_players_wanted(self, message: PlayersWanted) -> None:
        self.replays.players(message.seats)

    def on_table_settled(self, message: TableSettled) -> None:
        self.prepare_help()

    def on_decision_due(self, message: DecisionDue) -> None:
        if self.bell_enabled:
            self.bell()

    def on_bell_toggled(self, message: BellToggled) -> None:
        self.bell_enabled = not self.bell_enabled
        self.notify(
            _("Bell on: it rings when you must decide.") if self.bell_enabled else _("Bell off.")
        )

    # --- the app's own keys --------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit, asking first when a game we play in (or host) is still running."""
        question = self.controller.quit_question(self.rooms.get(self.current or ""))
        if question is None:
            self.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(question, yes=_("Quit"), no=_("Keep playing")), answered)

    def _help_subject(self) -> tuple[str | None, list[str]]:
        """The edition and variants the help explains: the current room's, else the game the
        controller asked for."""
        edition, variants = self.controller.game_asked_for()
        room = self.rooms.get(self.current or "")
        if room is None:
            return edition, variants
        return room.edition, room.variants or variants

    def action_help(self) -> None:
        """Show the keys and the rules of the current edition."""
        if isinstance(self.screen, HelpScreen):
            return
        edition, variants = self._help_subject()
        # One help screen per edition and variants, kept once built: it opens again without
        # redrawing the rules.
        name = "-".join(["help", i18n.current_language(), str(edition), *variants])
        if not self.is_screen_installed(name):
            self.install_screen(HelpScreen(edition, variants), name)
        self.push_screen(name)

    def prepare_help(self, screen_width: int | None = None) -> None:
        """Render the current room's help in a thread, at this terminal's width, so that ``?``
        only has to paint it (screens/help.py :func:`rendered_help`)."""
        markdown = help_markdown(*self._help_subject())
        width = help_width(screen_width or self.size.width)
        self.run_worker(
            functools.partial(rendered_help, markdown, width),
            name="prepare-help",
            group="prepare-help",
            thread=True,
            exit_on_error=False,
        )
