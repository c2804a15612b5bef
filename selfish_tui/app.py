"""The Selfish Textual app: routes server messages to the screens and player input to the server.

Screens render from :class:`~selfish_tui.state.RoomState`; this module keeps those up to date from
the network worker's messages and decides which screen is showing: the lobby (or, in local play,
a setup notice), the waiting room, the table, and the game-over, help, confirm and too-small
screens over them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from protocol.errors import ProtocolError
from protocol.messages import IDLE_GRACES, Act, Request, parse_client
from selfish_tui import clock, i18n, tutorial
from selfish_tui.client import NetworkClient
from selfish_tui.front_door import FrontDoor
from selfish_tui.i18n import N_, _, ngettext
from selfish_tui.keyed_text import error_message
from selfish_tui.messages import Connecting, ConnectionLost, ServerMessage, Welcomed
from selfish_tui.model import Catalogue
from selfish_tui.paths import identity_key
from selfish_tui.plain import clean_message
from selfish_tui.replay_desk import ReplayDesk
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.help import HelpScreen, help_markdown, help_width, rendered_help
from selfish_tui.screens.lesson import LessonScreen, TutorialOfferScreen
from selfish_tui.screens.lobby import LobbyScreen, WaitingRoomScreen
from selfish_tui.screens.resume import ResumeScreen
from selfish_tui.screens.servers import ServersScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.screens.toosmall import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from selfish_tui.state import LogEntry, RoomState, with_chat
from selfish_tui.tutorial import Lesson, Tutor
from selfish_tui.widgets.status import StatusLine

# Server error codes worth a plainer sentence than the server's own message (the English;
# keyed_text.error_message gives every code's sentence in the active language).
PLAIN_ERRORS = {
    "no_such_room": N_("There is no room with that code."),
    "room_full": N_("That room is full. You can still watch it (w)."),
    "game_started": N_("That game has already begun. You can watch it (w)."),
    "not_host": N_("Only the host can do that."),
    "seats_empty": N_("Every seat must be filled first: add bots (a) or wait for players."),
    "rate_limited": N_("Slow down a little: the server dropped that message."),
    "bad_name": N_("The server refused that name"),
    "server_full": N_("The server has too many rooms right now."),
    "too_many_rooms": N_("You are in too many rooms already."),
    "illegal_choice": N_("That choice is no longer possible; the prompt has been refreshed."),
    "not_your_turn": N_("It is not your decision any more."),
    "bad_option": N_("The server refused that option"),
}
# Refusals that only mean "the game moved on": the fresh state is already on screen.
QUIET_ERRORS = {"stale_version"}


@dataclass
class LocalPlan:
    """What `selfish play` asks for once connected to its embedded server."""

    edition: str = "space"
    bots: int = 3
    seed: int | None = None
    resume: bool = False
    bot_level: str = "basic"
    variants: tuple[str, ...] = ()  # rule ids of RULES V (e.g. "V1")
    tutorial: bool = False  # the edition's tutorial game (selfish_tui/tutorial.py)
    offer_tutorial: bool = False  # a first run: ask whether to play the tutorial first


@dataclass
class LanSearch:
    """What `selfish connect` without an address asks for: the servers found on the LAN, on
    ``interfaces`` (None: every interface); ``wanted`` (`selfish connect NAME`) joins the one of
    that name. Tokens are kept per address, as for a typed one."""

    interfaces: list[str] | None = None
    wanted: str | None = None
    load_token: Callable[[str], str | None] = field(default=lambda address: None)
    save_token: Callable[[str, str], None] = field(default=lambda address, token: None)


@dataclass
class HostPlan:
    """What `selfish host` tells the app about the server it runs for the LAN."""

    name: str  # the name it is announced under
    addresses: list[str]  # "host:port" for those who type
    problem: str | None = None  # why it is not announced, if it is not
    running_games: Callable[[], int] = field(default=lambda: 0)

    def note(self) -> str:
        """The lobby's line telling the host how others join."""
        where = _(" or ").join(self.addresses)
        if self.problem is not None:
            return _(
                "Your server is not announced on the LAN ({problem}): others type {where}."
            ).format(problem=self.problem, where=where)
        return _(
            "Your server {name} is on the LAN: others run `selfish connect` (or type {where})."
        ).format(name=repr(self.name), where=where)


NetworkMessage = TypeVar("NetworkMessage", Connecting, Welcomed, ConnectionLost, ServerMessage)


def while_running(
    handler: Callable[[SelfishApp, NetworkMessage], None],
) -> Callable[[SelfishApp, NetworkMessage], None]:
    """Drop what the network worker posted once the app has begun to shut down.

    Textual removes the screens' widgets before the app's queue is empty, so a message handled
    then (say the ``rooms`` reply that crossed the exit) would query widgets that are gone.
    """

    @functools.wraps(handler)
    def guarded(app: SelfishApp, message: NetworkMessage) -> None:
        if app.is_running:
            handler(app, message)

    return guarded


def countdowns(grace: Any) -> list[tuple[int, str, float]]:
    """A ``timer`` message's ``grace`` list as (seat, reason, seconds); an entry that is not one
    (a hostile or newer server) is left out."""
    out = []
    for entry in grace if isinstance(grace, list) else []:
        if not isinstance(entry, dict):
            continue
        seat, reason, seconds = entry.get("seat"), entry.get("reason"), entry.get("seconds")
        if (
            isinstance(seat, int)
            and not isinstance(seat, bool)
            and reason in ("left", "idle")
            and isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and 0 <= seconds < 86_400
        ):
            out.append((seat, str(reason), float(seconds)))
    return out


class SelfishApp(App[None]):
    """The client. Without ``host`` it has no connection (tests feed it messages directly)."""

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
        host: str | None = None,
        port: int = 7777,
        name: str = "Player",
        token: str | None = None,
        *,
        plan: LocalPlan | None = None,
        bell: bool = False,
        on_token: Callable[[str], None] | None = None,
        on_room: Callable[[str], None] | None = None,
        backoff: tuple[float, ...] | None = None,
        search: LanSearch | None = None,
        hosting: HostPlan | None = None,
        goto: tuple[str, str] | None = None,
        front_door: FrontDoor | None = None,
        on_tutorial_answer: Callable[[bool], None] | None = None,
    ) -> None:
        super().__init__()
        # How the player reached us, so how they come back to a seat (the quit dialog)
        self.front_door = front_door or FrontDoor(
            "local" if plan is not None else "tcp",
            address=f"{host}:{port}" if host is not None else "",
        )
        self.on_tutorial_answer = on_tutorial_answer
        self.tutor: Tutor | None = None  # in a tutorial game: which lessons are due
        self._lessons: list[Lesson] = []  # due, not shown yet
        self._lesson: Lesson | None = None  # the one on screen
        self.search = search
        self.hosting = hosting
        self._backoff = backoff
        # (role, code): join_room as "player" or "spectator" once connected, instead of the
        # lobby (`selfish connect --join/--watch`, `ssh host join ABCD`)
        self.goto = goto
        self.player_name = name
        self.plan = plan
        self.local = plan is not None
        self.bell_enabled = bell
        self.on_token = on_token
        self.on_room = on_room
        self.rooms: dict[str, RoomState] = {}
        self.current: str | None = None
        self.lobby = LobbyScreen(local=self.local)
        self.client: NetworkClient | None = None
        if host is not None:
            kwargs: dict[str, Any] = {"backoff": backoff} if backoff else {}
            self.client = NetworkClient(self.post_message, host, port, name, token, **kwargs)
        self._sync_id: int | None = None
        self._plan_done = False
        self._lost_notified = False
        self.player_id: str | None = None
        self._rejoined: set[str] = set()  # rooms the server confirmed since the last welcome
        self._help_timer: Timer | None = None
        self.replays = ReplayDesk(self)  # finished games: records, the viewer, the review

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
        self.lobby = LobbyScreen(local=self.local)
        self.lobby.rooms, self.lobby.offline = old.rooms, old.offline
        self.lobby.status_text = old.status_text
        servers = self._screen_of(ServersScreen) is not None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(self.lobby)
        room = self.rooms.get(self.current or "")
        if room is not None:
            self._show_room(room)
            if room.result_shown and (room.view or {}).get("over"):
                self.show_game_over(room)
        elif servers and self.search is not None:
            self._show_servers()
        if self._lesson is not None:  # the lesson being read, now in the other language
            self._lessons.insert(0, self._lesson)
            self._lesson = None
            self._next_lesson()
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
        if self.client is not None:
            self.run_worker(self.client.run(), name="network", exclusive=True)
        elif self.search is not None:
            self._show_servers()
        self._check_size(self.size.width, self.size.height)

    def _server_chosen(self, address: tuple[str, int] | None) -> None:
        if address is not None:
            self.connect_to(*address)

    def _show_servers(self) -> None:
        assert self.search is not None
        self.lobby.set_status(_("Choose a server on the LAN, or type an address."))
        screen = ServersScreen(self.search.interfaces, self.search.wanted)
        self.push_screen(screen, self._server_chosen)

    def _back_to_servers(self, reason: str) -> None:
        """A server chosen from the LAN list could not be reached: stop trying, say why, and
        show the list again (another server, or a typed address)."""
        for worker in self.workers:
            if worker.name == "network":
                worker.cancel()
        address = self.client.address if self.client is not None else _("the server")
        self.client = None
        self.notify(
            _("Could not join {address} ({reason}).").format(address=address, reason=reason),
            title=_("Connection"),
            severity="error",
        )
        if self.search is not None:
            # Not the same name again: it would be joined at once, and fail the same way.
            self.search = dataclasses.replace(self.search, wanted=None)
            self._show_servers()

    def connect_to(self, host: str, port: int) -> None:
        """Connect to a server chosen after start-up (from the LAN list) and show its lobby."""
        key = identity_key(f"{host}:{port}", self.player_name)  # one identity per server and name
        self.front_door = FrontDoor("tcp", address=f"{host}:{port}")
        search = self.search or LanSearch()
        self.on_token = lambda token: search.save_token(key, token)
        kwargs: dict[str, Any] = {"backoff": self._backoff} if self._backoff else {}
        self.client = NetworkClient(
            self.post_message, host, port, self.player_name, search.load_token(key), **kwargs
        )
        self.run_worker(self.client.run(), name="network", exclusive=True)

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.stop()

    def on_resize(self, event: events.Resize) -> None:
        # The event carries the new size; self.size may still be the old one (ssh-gateway note).
        self._check_size(event.size.width, event.size.height)
        if self._table() is not None:
            # The help's lines at the new width, once the resizing has stopped.
            if self._help_timer is not None:
                self._help_timer.stop()
            width = event.size.width
            self._help_timer = self.set_timer(0.5, lambda: self.prepare_help(width))

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Push a screen; on a terminal below 80x24 the too-small notice stays on top of it,
        so a dialog (the unfinished-game question, a confirmation) is never drawn cut off."""
        result = super().push_screen(screen, *args, **kwargs)
        if not isinstance(screen, TooSmallScreen):
            self._check_size(self.size.width, self.size.height)
        return result

    def _check_size(self, width: int, height: int) -> None:
        top = self.screen_stack[-1] if self.screen_stack else None
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small and not isinstance(top, TooSmallScreen):
            self.push_screen(TooSmallScreen(width, height))
        elif small and isinstance(top, TooSmallScreen):
            top.set_size(width, height)
        elif not small and isinstance(top, TooSmallScreen):
            self.pop_screen()

    # --- requests ------------------------------------------------------------------------------

    def request(self, message: dict[str, Any]) -> int | None:
        """Send a request; tell the player if we are not connected. Returns the request id."""
        if self.client is None:
            return None
        try:
            # Checked as the server checks it: a request it would refuse is refused here, with
            # the same error, and never sent.
            request = parse_client(message)
        except ProtocolError as exc:
            self._on_error({"type": "error", "code": str(exc.code), "message": exc.message})
            return None
        request_id = self.client.send(request)
        if request_id is None:
            self.notify(
                _("Not connected to the server right now; try again in a moment."),
                severity="warning",
            )
        return request_id

    def act(self, room: RoomState, choice: dict[str, Any]) -> bool:
        """Send one legal choice (as its index in the view's ``legal``, protocol 2); True if
        it went out."""
        legal = (room.raw_view or {}).get("legal") or []
        index = next((i for i, c in enumerate(legal) if c == choice), None)
        if index is None:  # not a choice of the latest state: nothing to send
            return False
        request_id = self.request(
            {"type": "act", "room": room.code, "version": room.version, "choice": index}
        )
        return request_id is not None

    def send_chat(self, room: RoomState, text: str) -> None:
        """Send a chat line to a room."""
        self.request({"type": "chat", "room": room.code, "text": text[:300]})

    def leave_room(self, room: RoomState) -> None:
        """Leave a room: back to the lobby (or, in local play, quit)."""
        self.request({"type": "leave_room", "room": room.code})
        self.rooms.pop(room.code, None)
        if self.current == room.code:
            self.current = None
        if self.local:
            self.exit()
            return
        self._show_lobby()
        self.request({"type": "list_rooms"})

    def retry_now(self) -> bool:
        """Reconnect at once instead of waiting out the backoff; False when connected."""
        if self.client is None or self.client.connected:
            return False
        self.client.retry_now()
        return True

    def can_rematch(self, room: RoomState) -> bool:
        """Whether we may ask for a rematch (the host of a finished game)."""
        return room.is_host and room.role == "player"

    def ring_bell(self) -> None:
        """Ring the terminal bell if the player turned it on."""
        if self.bell_enabled:
            self.bell()

    # --- actions -------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit, asking first when a game we play in is still running."""
        room = self.rooms.get(self.current or "")
        games = self.hosting.running_games() if self.hosting is not None else 0
        if games:
            question = ngettext(
                "{count} game is running on your server: quitting stops it for everyone. "
                "Games are saved; `selfish host` again resumes them.",
                "{count} games are running on your server: quitting stops them for everyone. "
                "Games are saved; `selfish host` again resumes them.",
                games,
            ).format(count=games)
        elif room is None or not room.in_progress():
            self.exit()
            return
        elif self.local:
            question = _("Quit this game? It is saved: `selfish play --resume` continues it.")
        else:
            question = _(
                "Quit while the game is running? Your seat waits for you (or its bot "
                "plays when the timer runs out); {come_back}."
            ).format(come_back=self.front_door.come_back())

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(question, yes=_("Quit"), no=_("Keep playing")), answered)

    def _help_subject(self) -> tuple[str | None, Catalogue | None, list[str]]:
        """The edition, catalogue and variants the help explains: the current room's."""
        room = self.rooms.get(self.current or "")
        edition = room.edition if room else (self.plan.edition if self.plan else None)
        variants = [str(v) for v in room.info.get("variants") or []] if room else []
        if not variants and self.plan:
            variants = list(self.plan.variants)
        return edition, room.catalogue if room else None, variants

    def action_help(self) -> None:
        """Show the keys and the rules of the current edition."""
        if isinstance(self.screen, HelpScreen):
            return
        edition, catalogue, variants = self._help_subject()
        # One help screen per edition and variants, kept once built: it opens again without
        # redrawing the rules.
        name = "-".join(["help", i18n.current_language(), str(edition), *variants])
        if not self.is_screen_installed(name):
            self.install_screen(HelpScreen(edition, catalogue, variants), name)
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

    # --- connection events ---------------------------------------------------------------------

    @while_running
    def on_connecting(self, message: Connecting) -> None:
        what = _("the local game server") if self.local else message.address
        self.lobby.set_status(
            _("Connecting to {what}…").format(what=what)
            if message.attempt == 1
            else _("Connecting to {what} (attempt {attempt})…").format(
                what=what, attempt=message.attempt
            )
        )

    @while_running
    def on_welcomed(self, message: Welcomed) -> None:
        self.player_id = message.player
        if self.on_token is not None:
            self.on_token(message.token)
        if self._lost_notified:
            self.notify(_("Reconnected."), title=_("Connection"))
            self._lost_notified = False
        self._rejoined = set()
        table = self._table()
        if table is not None:
            table.query_one(StatusLine).set_connection_note("")
        where = _("the local game server") if self.local else message.server
        self.lobby.set_status(
            _("Connected to {where} as {name}.").format(where=where, name=self.player_name)
            if not self.local
            else _("Setting up your game…")
        )
        if self.hosting is not None:
            self.lobby.set_status(self.hosting.note())
        # The server sends back every room we are in right after welcome; a ping is answered in
        # order, so its pong marks the end of that replay.
        self._sync_id = self.request({"type": "ping"})

    @while_running
    def on_connection_lost(self, message: ConnectionLost) -> None:
        if self.search is not None and self.player_id is None:
            self._back_to_servers(message.reason)
            return
        if message.held:
            # The first connection failed: said at once, tried again when the player asks.
            note = lobby_note = _("{reason} — r tries again, ctrl+q quits").format(
                reason=message.reason
            )
            self.notify(
                _("{reason}.").format(reason=message.reason),
                title=_("Cannot connect"),
                severity="error",
            )
        elif message.retry_in is None:
            lobby_note = _("Disconnected: {reason}").format(reason=message.reason)
            note = _("Disconnected")  # the status line keeps its room: the toast says why
            self.notify(lobby_note, title=_("Connection"), severity="error", timeout=30)
        else:
            seconds = f"{message.retry_in:g}"
            # Short, so that the status line keeps its room and turn at 80 columns.
            note = _("Offline: retry in {seconds}s").format(seconds=seconds)
            # The lobby says why (say "cannot reach HOST:PORT: connection refused"), not an
            # empty room list, and r there retries at once.
            lobby_note = _("{reason}; retrying in {seconds} s — r retries now").format(
                reason=message.reason, seconds=seconds
            )
            if not self._lost_notified:
                self.notify(
                    _("{reason}. Retrying…").format(reason=message.reason),
                    title=_("Connection lost"),
                    severity="warning",
                )
                self._lost_notified = True
        self.lobby.set_offline(lobby_note)
        table = self._table()
        if table is not None:
            table.query_one(StatusLine).set_connection_note(note)

    # --- server messages -----------------------------------------------------------------------

    @while_running
    def on_server_message(self, message: ServerMessage) -> None:
        data = message.data
        if message.type == "error":
            self._on_error(data, message.request)
            return
        handler = getattr(self, f"_on_{message.type}", None)
        if handler is not None:
            handler(data)

    def feed(self, data: dict[str, Any]) -> None:
        """Handle one server message directly (tests and fixtures use this), cleaned as the
        network worker cleans what it receives."""
        self.on_server_message(ServerMessage(clean_message(data)))

    def _on_pong(self, data: dict[str, Any]) -> None:
        if data.get("id") is not None and data.get("id") == self._sync_id:
            self._sync_id = None
            self._after_sync()

    def _after_sync(self) -> None:
        """Every resumed room has arrived: start the local plan, or show the lobby or a room."""
        if self.plan is not None and not self._plan_done:
            self._plan_done = True
            resumable = [r for r in self.rooms.values() if r.in_progress()]
            if self.plan.resume and resumable:
                self._resume_local(resumable[-1])
                return
            if self.plan.resume:
                self.notify(_("There is no unfinished local game; starting a new one."))
            elif resumable:
                # Starting the new game closes the unfinished one for good: ask first.
                self.push_screen(
                    ResumeScreen(resumable[-1], self.plan.edition),
                    functools.partial(self._unfinished_answered, resumable[-1]),
                )
                return
            self._start_local_game()
            return
        if self.plan is None:
            # Rooms the server did not hand back after a reconnect are gone (a restarted server
            # keeps only unfinished games): forget them rather than act on a dead room.
            for code in [c for c in self.rooms if c not in self._rejoined]:
                self.rooms.pop(code)
                if code == self.current:
                    self.current = None
                    self.notify(
                        _("Room {code} is no longer on the server.").format(code=code),
                        title=_("Connection"),
                    )
                    self._show_lobby()
            if self.goto is not None:
                role, code = self.goto
                self.goto = None
                if code in self.rooms:  # already there (we reconnected): show it
                    self.current = code
                    self._show_room(self.rooms[code])
                    return
                self.request({"type": "join_room", "room": code, "as": role})
            if self.current is None:
                self.request({"type": "list_rooms"})

    def _resume_local(self, room: RoomState) -> None:
        self.current = room.code
        if self.plan is not None and self.plan.tutorial:
            # `selfish play --tutorial` again after quitting it: the lessons go on.
            self.tutor = Tutor(room.edition)
        self._show_room(room)
        self._teach(room)

    def _unfinished_answered(self, room: RoomState, what: str | None) -> None:
        """The player's answer to the unfinished local game (:class:`ResumeScreen`)."""
        if what == "resume":
            self._resume_local(room)
        elif what == "new":
            self._start_local_game()
        else:  # cancel: nothing is closed, nothing is started
            self.exit()

    def _start_local_game(self) -> None:
        """Create the room `selfish play` asked for, closing the local rooms left from before."""
        assert self.plan is not None
        if self.plan.offer_tutorial:
            self.plan.offer_tutorial = False
            self.push_screen(TutorialOfferScreen(), self._tutorial_answered)
            return
        for room in list(self.rooms.values()):
            # A new local game replaces the old one: leaving lets the server close it (and
            # keeps us under the server's limit of rooms per player).
            self.request({"type": "leave_room", "room": room.code})
            self.rooms.pop(room.code, None)
        request: dict[str, Any] = {
            "type": "create_room",
            "edition": self.plan.edition,
            "seats": self.plan.bots + 1,
            "bots": self.plan.bots,
            "bot_level": self.plan.bot_level,
            "public": False,
            "timer": 0,
            # Nobody waits for a local player: the longest idle grace before the bot plays on.
            "idle_grace": IDLE_GRACES[1],
            "autostart": True,
        }
        if self.plan.seed is not None:
            request["seed"] = self.plan.seed
        if self.plan.variants:
            request["variants"] = list(self.plan.variants)
        if self.plan.tutorial:
            # The scripted game: its seed and bots (selfish_tui/tutorial.py), no variants.
            request.update(tutorial.room_settings(self.plan.edition))
            request.pop("variants", None)
            self.tutor = Tutor(self.plan.edition)
        self.request(request)

    def _tutorial_answered(self, yes: bool | None) -> None:
        """The first run's answer: remembered, then the tutorial or the game asked for."""
        assert self.plan is not None
        self.plan.tutorial = bool(yes)
        if self.on_tutorial_answer is not None:
            self.on_tutorial_answer(bool(yes))
        self._start_local_game()

    def _teach(self, room: RoomState) -> None:
        """Open the lessons the tutorial game has just reached, one after another."""
        if self.tutor is None or room.view is None:
            return
        self._lessons.extend(self.tutor.due(room.view))
        self._next_lesson()

    def _next_lesson(self) -> None:
        if self._lesson is not None or not self._lessons or self.tutor is None:
            return
        lesson = self._lesson = self._lessons.pop(0)
        number = self.tutor.shown.index(lesson.key) + 1  # in the order they come

        def closed(_: None) -> None:
            self._lesson = None
            self._next_lesson()

        screen = LessonScreen(lesson, self.tutor.edition, number, len(self.tutor.lessons))
        self.push_screen(screen, closed)
        self._check_size(self.size.width, self.size.height)

    def _on_rooms(self, data: dict[str, Any]) -> None:
        self.lobby.show_rooms(list(data.get("rooms") or []))

    def _on_joined(self, data: dict[str, Any]) -> None:
        code = str(data.get("room"))
        room = self.rooms.get(code)
        if room is None:
            room = RoomState(code)
            self.rooms[code] = room
        self._rejoined.add(code)
        room.role = str(data.get("role", "player"))
        room.seat = data.get("seat")
        room.edition = str(data.get("edition", room.edition))
        if data.get("catalogue"):
            fresh = Catalogue()
            fresh.update(dict(data["catalogue"]))
            room.catalogue.cards.clear()
            room.catalogue.cards.update(fresh.cards)
        if self.plan is not None and not self._plan_done:
            return  # resumed local rooms wait for the plan (see _after_sync)
        self.current = code
        if self.on_room is not None:
            self.on_room(code)

    def _on_room(self, data: dict[str, Any]) -> None:
        code = str(data.get("room"))
        room = self.rooms.get(code)
        if room is None:
            return
        room.info = dict(data)
        room.info["_we_host"] = self.player_id is not None and data.get("host") == self.player_id
        names = room.names()
        room.relocalise()
        if code != self.current:
            return
        waiting = self._screen_of(WaitingRoomScreen)
        if waiting is not None:
            waiting.refresh_room()
        table = self._table()
        if table is not None:
            table.refresh_presence()
            if room.names() != names:
                table.show_view()  # a bot's name to say in our language
        if room.status == "waiting" and not self.local:
            self._show_room(room)

    def _on_events(self, data: dict[str, Any]) -> None:
        room = self.rooms.get(str(data.get("room")))
        if room is None:
            return
        entries = [
            LogEntry(str(e.get("kind", "info")), str(e.get("text")), event=dict(e))
            for e in data.get("events") or []
            if e.get("text")
        ]
        table = self._table() if room.code == self.current else None
        room.since.seat = room.seat if room.role == "player" else None
        if data.get("history"):
            room.since.restart()
        else:
            room.since.add([e for e in data.get("events") or [] if isinstance(e, dict)])
        if data.get("history"):
            # A full replay of the game's log (join, resume, rematch): it replaces ours, but the
            # server does not replay chat, so our chat lines go back where they were said.
            room.log = with_chat(room.log, entries)
            if table is not None:
                table.reset_log()
            return
        room.log.extend(entries)
        if table is not None:
            for entry in entries:
                table.add_log(entry)

    def _on_state(self, data: dict[str, Any]) -> None:
        room = self.rooms.get(str(data.get("room")))
        if room is None:
            return
        room.version = int(data.get("version", room.version))
        room.set_view(dict(data.get("view") or {}))
        assert room.view is not None
        room.since.saw(room.view)
        room.keys.saw(room.view)
        if not room.view.get("over"):
            room.game_over = None
            room.result_shown = False
        if room.code != self.current:
            return
        table = self._table()
        if table is None:
            self._show_room(room)
        else:
            over = self._screen_of(GameOverScreen)
            if over is not None and not room.view.get("over"):
                over.dismiss("board")  # a rematch started while the result was showing
            table.show_view()
        self._teach(room)
        if room.view.get("over") and not room.result_shown:
            # The final state is enough to show the result; game_over (if it comes) adds the
            # winner's name and the turn count the server recorded.
            self.show_game_over(room)

    def _on_timer(self, data: dict[str, Any]) -> None:
        room = self.rooms.get(str(data.get("room")))
        if room is None:
            return
        room.timers = {int(t["seat"]): float(t["seconds"]) for t in data.get("timers") or []}
        room.grace = countdowns(data.get("grace"))
        room.timers_at = clock.now()
        room.timers_version = int(data.get("version", room.version))
        table = self._table()
        # Until our act's reply, the view on screen is the decision we answered: redrawn now, it
        # would offer the answered choices again (the act's state follows its reply).
        acting = self.client is not None and self.client.awaiting_act(room.code)
        if table is not None and room.code == self.current and not acting:
            table.show_view()

    def _on_game_over(self, data: dict[str, Any]) -> None:
        room = self.rooms.get(str(data.get("room")))
        if room is None:
            return
        room.game_over = dict(data)
        self.replays.after_game(room, room.game_over)
        if room.code == self.current:
            self.show_game_over(room)

    def _on_replay(self, data: dict[str, Any]) -> None:
        self.replays.arrived(data)

    def _on_replays(self, data: dict[str, Any]) -> None:
        self.replays.replays_page(data)

    def _on_profile(self, data: dict[str, Any]) -> None:
        self.replays.profile(data)

    def _on_leaderboard(self, data: dict[str, Any]) -> None:
        self.replays.leaderboard(data)

    def _on_review(self, data: dict[str, Any]) -> None:
        self.replays.review(data)

    def _on_chat(self, data: dict[str, Any]) -> None:
        room = self.rooms.get(str(data.get("room")))
        if room is None:
            return
        who = str(data.get("name", "?"))
        if data.get("seat") is None:
            who += _(" (watching)")
        entry = LogEntry("chat", str(data.get("text", "")), speaker=who)
        room.log.append(entry)
        if room.code != self.current:
            return
        table = self._table()
        if table is not None:
            table.add_log(entry)
        waiting = self._screen_of(WaitingRoomScreen)
        if waiting is not None:
            waiting.add_log(entry)

    def _on_error(self, data: dict[str, Any], request: Request | None = None) -> None:
        """An error: the reply to ``request`` (as the client library matched it), or the
        server's own (None)."""
        code = str(data.get("code", "error"))
        if self.replays.refused(request):
            return  # a record fetched for the game-over screen's numbers only: they do without
        if code == "room_closed":
            self._room_closed(str(data.get("room", "")))
        if isinstance(request, Act):
            room = self.rooms.get(request.room)
            table = self._table()
            if table is not None and room is not None and room.code == self.current:
                table.restore_prompt()
        if code in QUIET_ERRORS:
            return
        english = PLAIN_ERRORS.get(code, str(data.get("message") or code))
        text = error_message(code, english)
        # Which option, or what is wrong with the name (too long, like a seat's in that room):
        # the server's own words follow.
        if code in ("bad_option", "bad_name") and data.get("message"):
            text = f"{text}: {data['message']}"
        self.notify(
            text, title=_("Server"), severity="error" if code == "internal_error" else "warning"
        )

    def _room_closed(self, code: str) -> None:
        """The server closed a room we were in (nobody started its game in time, or a full
        server needed its place): forget it, and leave its screen for the lobby."""
        if self.rooms.pop(code, None) is None or self.current != code:
            return
        self.current = None
        self._show_lobby()
        self.request({"type": "list_rooms"})

    def _on_bye(self, data: dict[str, Any]) -> None:
        if data.get("reason") == "replaced":
            self.notify(
                _("You connected from somewhere else; this window is disconnected."),
                severity="error",
                timeout=30,
            )
        else:
            self.notify(
                str(data.get("message") or _("The server is closing the connection.")),
                severity="warning",
            )

    # --- screens -------------------------------------------------------------------------------

    def _screen_of(self, kind: type[Screen[Any]]) -> Any:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, kind):
                return screen
        return None

    def _table(self) -> TableScreen | None:
        table = self._screen_of(TableScreen)
        return table if isinstance(table, TableScreen) else None

    def _pop_to_lobby(self) -> None:
        while len(self.screen_stack) > 1 and self.screen_stack[-1] is not self.lobby:
            self.pop_screen()

    def _show_lobby(self) -> None:
        self._pop_to_lobby()
        self._check_size(self.size.width, self.size.height)

    def _show_room(self, room: RoomState) -> None:
        """Show the table (a game exists) or the waiting room (not started yet)."""
        table = self._table()
        if room.view is not None:
            if table is not None and table.room is room:
                table.show_view()
                return
            self._pop_to_lobby()
            self.push_screen(TableScreen(room))
        else:
            waiting = self._screen_of(WaitingRoomScreen)
            if waiting is not None and waiting.room is room:
                return
            self._pop_to_lobby()
            self.push_screen(WaitingRoomScreen(room))
        self._check_size(self.size.width, self.size.height)

    def show_game_over(self, room: RoomState) -> None:
        """Open the result dialog over the table."""
        room.result_shown = True
        if self._screen_of(GameOverScreen) is not None:
            return

        def chosen(what: str | None) -> None:
            if what == "rematch":
                self.request({"type": "rematch", "room": room.code})
            elif what == "leave":
                self.leave_room(room)
            elif what == "watch":
                self.replays.watch_room(room)
            elif what == "review":
                self.replays.join_review(room)

        self.push_screen(GameOverScreen(room), chosen)
        self._check_size(self.size.width, self.size.height)
