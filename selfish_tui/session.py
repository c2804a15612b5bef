"""The client's session with its server: the connection, the requests going out, and what each
server message changes in the rooms' state and on the screens showing them.

Screens render from :class:`~selfish_tui.state.RoomState`; this layer keeps those up to date
from the network worker's messages. Where the ways of playing differ (setting up a local game,
joining a room straight away, a LAN server that cannot be reached) it asks the controller.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from protocol.errors import ProtocolError
from protocol.game_types import Choice
from protocol.messages import Act, Request, parse_client
from protocol.server_messages import (
    ByeMessage,
    ChatMessage,
    ErrorMessage,
    EventsMessage,
    GameOverMessage,
    GraceCountdown,
    JoinedMessage,
    LeaderboardMessage,
    PongMessage,
    ProfileMessage,
    ReplayMessage,
    ReplaysMessage,
    ReviewMessage,
    RoomMessage,
    RoomsMessage,
    StateMessage,
    TimerMessage,
    read_server,
)
from selfish_tui import clock
from selfish_tui.client import NetworkClient
from selfish_tui.controllers.controller import Controller, Login
from selfish_tui.i18n import _
from selfish_tui.keyed_text import error_message
from selfish_tui.messages import Connecting, ConnectionLost, ServerMessage, Welcomed
from selfish_tui.navigation import Navigation
from selfish_tui.plain import clean_message
from selfish_tui.replay_desk import ReplayDesk
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.waiting_room import WaitingRoomScreen
from selfish_tui.state import LogEntry, RoomState, with_chat
from selfish_tui.widgets.status import StatusLine

# Refusals that only mean "the game moved on": the fresh state is already on screen.
QUIET_ERRORS = {"stale_version"}

NetworkMessage = TypeVar("NetworkMessage", Connecting, Welcomed, ConnectionLost, ServerMessage)


def while_running(
    handler: Callable[[Session, NetworkMessage], None],
) -> Callable[[Session, NetworkMessage], None]:
    """Drop what the network worker posted once the app has begun to shut down.

    Textual removes the screens' widgets before the app's queue is empty, so a message handled
    then (say the ``rooms`` reply that crossed the exit) would query widgets that are gone.
    """

    @functools.wraps(handler)
    def guarded(app: Session, message: NetworkMessage) -> None:
        if app.is_running:
            handler(app, message)

    return guarded


def countdowns(grace: Iterable[GraceCountdown]) -> list[tuple[int, str, float]]:
    """A ``timer`` message's ``grace`` list as (seat, reason, seconds); a countdown beyond a day
    (a hostile server's) is left out."""
    return [(g.seat, g.reason, g.seconds) for g in grace if 0 <= g.seconds < 86_400]


class Session(Navigation):
    """The rooms we are in and the connection they come through (none until the controller
    opens one; tests feed messages with :meth:`feed`)."""

    def __init__(
        self, controller: Controller, name: str, backoff: tuple[float, ...] | None
    ) -> None:
        super().__init__(controller)
        self.player_name = name
        self._backoff = backoff
        self.rooms: dict[str, RoomState] = {}
        self.current: str | None = None
        self.client: NetworkClient | None = None
        self.player_id: str | None = None
        self._sync_id: int | None = None
        self._lost_notified = False
        self._rejoined: set[str] = set()  # rooms the server confirmed since the last welcome
        # Finished games: records, the viewer, the shared review, profiles, the leaderboard.
        self.replays = ReplayDesk(
            self, lambda: self.controller.has_lobby, lambda: self.controller.front_door.kind
        )

    # --- the connection ------------------------------------------------------------------------

    def open_connection(self, login: Login) -> None:
        """Connect (and keep reconnecting) to the server ``login`` names."""
        kwargs: dict[str, Any] = {"backoff": self._backoff} if self._backoff else {}
        self.client = NetworkClient(
            self.post_message,
            login.host,
            login.port,
            self.player_name,
            login.token,
            others=login.others,
            guest=login.guest,
            **kwargs,
        )
        self.run_worker(self.client.run(), name="network", exclusive=True)

    def close_connection(self) -> None:
        """Stop the connection and its retries."""
        for worker in self.workers:
            if worker.name == "network":
                worker.cancel()
        self.client = None

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.stop()

    def set_lobby_status(self, text: str) -> None:
        """The lobby's status line."""
        self.lobby.set_status(text)

    def request(self, message: dict[str, Any]) -> int | None:
        """Send a request; tell the player if we are not connected. Returns the request id."""
        if self.client is None:
            return None
        try:
            # Checked as the server checks it: a request it would refuse is refused here, with
            # the same error, and never sent.
            request = parse_client(message)
        except ProtocolError as exc:
            self._on_error(ErrorMessage.of(exc))
            return None
        request_id = self.client.send(request)
        if request_id is None:
            self.notify(
                _("Not connected to the server right now; try again in a moment."),
                severity="warning",
            )
        return request_id

    def act(self, room: RoomState, version: int, choice: Choice) -> bool:
        """Send one legal choice of the decision of ``version``, by its place in the view's
        legal list; True if it went out (not when the room has moved on since)."""
        if room.view is None or version != room.version or choice not in room.view.legal:
            return False
        index = room.view.legal.index(choice)
        request_id = self.request(
            {"type": "act", "room": room.code, "version": version, "choice": index}
        )
        return request_id is not None

    def send_chat(self, room: RoomState, text: str) -> None:
        """Send a chat line to a room."""
        self.request({"type": "chat", "room": room.code, "text": text[:300]})

    def leave_room(self, room: RoomState) -> None:
        """Leave a room: back to the lobby (or, without one, quit)."""
        self.request({"type": "leave_room", "room": room.code})
        self.rooms.pop(room.code, None)
        if self.current == room.code:
            self.current = None
        self.controller.left_room()

    def retry_now(self) -> bool:
        """Reconnect at once instead of waiting out the backoff; False when connected."""
        if self.client is None or self.client.connected:
            return False
        self.client.retry_now()
        return True

    # --- connection events ---------------------------------------------------------------------

    @while_running
    def on_connecting(self, message: Connecting) -> None:
        what = self.controller.connecting_to(message.address)
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
        self.controller.keep_token(message.token)
        if self._lost_notified:
            self.notify(_("Reconnected."), title=_("Connection"))
            self._lost_notified = False
        self._rejoined = set()
        table = self._table()
        if table is not None:
            table.query_one(StatusLine).set_connection_note("")
        self.lobby.set_status(self.controller.welcome_status(message.server))
        # The server sends back every room we are in right after welcome; a ping is answered in
        # order, so its pong marks the end of that replay.
        self._sync_id = self.request({"type": "ping"})

    @while_running
    def on_connection_lost(self, message: ConnectionLost) -> None:
        if self.player_id is None and self.controller.connection_failed(message.reason):
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
        payload = message.payload
        if isinstance(payload, ErrorMessage):
            self._on_error(payload, message.request)
            return
        handler = getattr(self, f"_on_{message.type}", None)
        if handler is not None:
            handler(payload)

    def feed(self, data: dict[str, Any]) -> None:
        """Handle one server message directly (tests and fixtures use this), cleaned and read
        as the network worker cleans and reads what it receives."""
        self.on_server_message(ServerMessage(read_server(clean_message(data))))

    def _on_pong(self, data: PongMessage) -> None:
        if data.id is not None and data.id == self._sync_id:
            # Every resumed room has arrived.
            self._sync_id = None
            self.controller.rooms_handed_back(self._rejoined)

    def _on_rooms(self, data: RoomsMessage) -> None:
        self.lobby.show_rooms(list(data.rooms))

    def _on_joined(self, data: JoinedMessage) -> None:
        code = data.room
        room = self.rooms.get(code)
        if room is None:
            room = RoomState(code)
            self.rooms[code] = room
        self._rejoined.add(code)
        room.role = data.role
        room.seat = data.seat
        room.edition = data.edition
        if self.controller.shows_joined_rooms():
            self.current = code

    def _on_room(self, data: RoomMessage) -> None:
        code = data.room
        room = self.rooms.get(code)
        if room is None:
            return
        room.info = data
        room.we_host = self.player_id is not None and data.host == self.player_id
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
        if room.status == "waiting" and self.controller.has_lobby:
            self.show_room(room)

    def _on_events(self, data: EventsMessage) -> None:
        room = self.rooms.get(data.room)
        if room is None:
            return
        entries = [LogEntry(e.kind, event=e) for e in data.events]
        table = self._table() if room.code == self.current else None
        room.since.seat = room.seat if room.role == "player" else None
        if data.history:
            room.since.restart()
        else:
            room.since.add(data.events)
        if data.history:
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

    def _on_state(self, data: StateMessage) -> None:
        room = self.rooms.get(data.room)
        if room is None:
            return
        room.version = data.version
        room.set_view(data.view)
        assert room.view is not None
        room.since.saw(room.view)
        room.keys.saw(room.view)
        if not room.over:
            room.game_over = None
            room.result_shown = False
        if room.code != self.current:
            return
        table = self._table()
        if table is None:
            self.show_room(room)
        else:
            over = self._screen_of(GameOverScreen)
            if over is not None and not room.over:
                over.dismiss("board")  # a rematch started while the result was showing
            table.show_view()
        self.controller.saw_state(room)
        if room.over and not room.result_shown:
            # The final state is enough to show the result; game_over (if it comes) adds the
            # winner's name and the turn count the server recorded.
            self.show_game_over(room)

    def _on_timer(self, data: TimerMessage) -> None:
        room = self.rooms.get(data.room)
        if room is None:
            return
        room.timers = {t.seat: t.seconds for t in data.timers}
        room.grace = countdowns(data.grace)
        room.timers_at = clock.now()
        room.timers_version = data.version
        table = self._table()
        # Until our act's reply, the view on screen is the decision we answered: redrawn now, it
        # would offer the answered choices again (the act's state follows its reply).
        acting = self.client is not None and self.client.awaiting_act(room.code)
        if table is not None and room.code == self.current and not acting:
            table.show_view()

    def _on_game_over(self, data: GameOverMessage) -> None:
        room = self.rooms.get(data.room)
        if room is None:
            return
        room.game_over = data
        self.replays.after_game(room, data.game)
        if room.code == self.current:
            self.show_game_over(room)

    def _on_replay(self, data: ReplayMessage) -> None:
        self.replays.arrived(data)

    def _on_replays(self, data: ReplaysMessage) -> None:
        self.replays.replays_page(data)

    def _on_profile(self, data: ProfileMessage) -> None:
        self.replays.profile(data)

    def _on_leaderboard(self, data: LeaderboardMessage) -> None:
        self.replays.leaderboard(data)

    def _on_review(self, data: ReviewMessage) -> None:
        self.replays.review(data)

    def _on_chat(self, data: ChatMessage) -> None:
        room = self.rooms.get(data.room)
        if room is None:
            return
        who = data.name
        if data.seat is None:
            who += _(" (watching)")
        entry = LogEntry("chat", data.text, speaker=who)
        room.log.append(entry)
        if room.code != self.current:
            return
        table = self._table()
        if table is not None:
            table.add_log(entry)
        waiting = self._screen_of(WaitingRoomScreen)
        if waiting is not None:
            waiting.add_log(entry)

    def _on_error(self, data: ErrorMessage, request: Request | None = None) -> None:
        """An error: the reply to ``request`` (as the client library matched it), or the
        server's own (None)."""
        code = data.code
        if self.replays.refused(request):
            return  # a record fetched for the game-over screen's numbers only: they do without
        if code == "room_closed":
            self._room_closed(data.room or "")
        if isinstance(request, Act):
            room = self.rooms.get(request.room)
            table = self._table()
            if table is not None and room is not None and room.code == self.current:
                table.restore_prompt()
        if code in QUIET_ERRORS:
            return
        text = error_message(code, data.args)
        self.notify(
            text, title=_("Server"), severity="error" if code == "internal_error" else "warning"
        )

    def _room_closed(self, code: str) -> None:
        """The server closed a room we were in (nobody started its game in time, or a full
        server needed its place): forget it, and leave its screen for the lobby."""
        if self.rooms.pop(code, None) is None or self.current != code:
            return
        self.current = None
        self.show_lobby()
        self.request({"type": "list_rooms"})

    def _on_bye(self, data: ByeMessage) -> None:
        if data.reason == "replaced":
            self.notify(
                _("You connected from somewhere else; this window is disconnected."),
                severity="error",
                timeout=30,
            )
        else:
            self.notify(_("The server is closing the connection."), severity="warning")

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

        self.push_screen(GameOverScreen(room, self.controller), chosen)
        self._check_size(self.size.width, self.size.height)
