"""The connected app's side of finished games: records fetched, the viewer opened, the shared
review followed, profiles and the leaderboard shown (protocol/PROTOCOL.md §4 list_replays ..
review_*, §12).

The session (selfish_tui/session.py) hands this desk the server's ``replay``, ``replays``,
``profile``, ``leaderboard`` and ``review`` messages; it asks for what a screen needs and opens
the screen when the answer comes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from protocol import replay_file
from protocol.messages import GetReplay
from protocol.server_messages import (
    LeaderboardMessage,
    ProfileMessage,
    ReplayMessage,
    ReplaysMessage,
    ReviewMessage,
)
from selfish_tui.client import NetworkClient
from selfish_tui.controllers.controller import Shell
from selfish_tui.i18n import _
from selfish_tui.replay import BadRecord, Replay, from_reply, open_replay
from selfish_tui.review import SharedReview
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.leaderboard import LeaderboardScreen
from selfish_tui.screens.profile import PlayersScreen, ProfileScreen
from selfish_tui.screens.replay import ReplayScreen
from selfish_tui.screens.replays import ReplaysScreen
from selfish_tui.state import RoomState

#: Why a record was asked for: the game-over screen's numbers, to watch it, or to review it
#: together with the room.
SUMMARY, WATCH, REVIEW = "summary", "watch", "review"


def export_name(replay: Replay) -> str:
    """The file name a game is exported under."""
    record = replay.record
    if record.game is not None:
        return f"selfish-game-{record.game}.json"
    return f"selfish-{record.edition}-{record.seed}.json"


def export_here(replay: Replay, folder: Path | None = None) -> str:
    """Write ``replay``'s record as an export file in ``folder`` (the current directory);
    returns its path (OSError when it cannot be written)."""
    path = (folder or Path.cwd()) / export_name(replay)
    path.write_text(replay_file.write(replay.record), encoding="utf-8")
    return str(path)


class DeskShell(Shell, Protocol):
    """What the desk asks of the app (selfish_tui.session.Session) beside a controller's."""

    client: NetworkClient | None
    screen_stack: list[Any]

    def _screen_of(self, kind: type[Any]) -> Any:
        """The topmost screen of ``kind``, or None."""
        ...

    def show_game_over(self, room: RoomState) -> None:
        """Open the room's game-over dialog over its table."""
        ...


class ReplayDesk:
    """Finished games for one app (:class:`~selfish_tui.session.Session`); ``has_lobby`` and
    ``door`` say how it is played (a local game has no room for others to join)."""

    def __init__(
        self, app: DeskShell, has_lobby: Callable[[], bool], door: Callable[[], str]
    ) -> None:
        self.app = app
        self._has_lobby = has_lobby
        self._door = door
        # game id -> (why it was asked for, the room it was played in, the turn to open at)
        self._wanted: dict[int, tuple[str, str | None, int | None]] = {}
        self.reviews: dict[str, SharedReview] = {}  # room -> its shared review

    @property
    def server(self) -> str | None:
        """The server's address as an export file records it."""
        client = self.app.client
        return None if client is None or not self._has_lobby() else client.address

    def exporter(self) -> Any:
        """What the viewer's export key does here: write to the current directory on the
        player's own machine; nothing through the SSH or browser front doors, where the
        client runs on the server's machine (the viewer then says how to export)."""
        return export_here if self._door() in ("local", "tcp") else None

    # --- records ------------------------------------------------------------------------------

    def fetch(self, game: int, why: str, room: str | None = None, turn: int | None = None) -> None:
        """Ask the server for game ``game``'s record."""
        self._wanted[game] = (why, room, turn)
        self.app.request({"type": "get_replay", "game": game})

    def after_game(self, room: RoomState, game: int) -> None:
        """Game ``game`` ended: fetch its record for the game-over screen's hands and numbers."""
        if room.replay is None or room.replay.record.game != game:  # a rematch's new game
            room.replay = None
            self.fetch(game, SUMMARY, room.code)

    def watch_room(self, room: RoomState) -> None:
        """ "Watch again" on the game-over screen: the viewer over the room's last game."""
        if room.replay is not None:
            self.watch(room.replay, room.seat, room=room)
            return
        if room.game_over is not None:
            self.fetch(room.game_over.game, WATCH, room.code)
        else:
            self.app.notify(_("The server has not said which game this was."), severity="warning")

    def refused(self, request: Any) -> bool:
        """The server refused a ``get_replay`` of ours: True when nobody needs to hear it (the
        record was for the game-over screen's numbers, which do without it)."""
        if not isinstance(request, GetReplay):
            return False
        why, _room, _turn = self._wanted.pop(request.game, (WATCH, None, None))
        return why == SUMMARY

    def arrived(self, message: ReplayMessage) -> None:
        """A ``replay`` reply: keep it for its room, and open the viewer if that was asked."""
        why, code, turn = self._wanted.pop(message.game, (WATCH, None, None))
        try:
            replay = open_replay(from_reply(message, self.server))
        except BadRecord as exc:
            self.app.notify(
                _("Cannot show that game: {reason}").format(reason=exc), severity="error"
            )
            return
        room = self.app.rooms.get(code or "")
        if room is not None:
            room.replay = replay
            over = self.app._screen_of(GameOverScreen)
            if over is not None and over.room is room:
                over.refresh_summary()
        if why == WATCH:
            seat = room.seat if room is not None else self._own_seat(replay)
            self.watch(replay, seat, turn, room=room)
        elif why == REVIEW and room is not None:
            self._open_review(room)

    def _own_seat(self, replay: Replay) -> int | None:
        """Our seat in a listed game (by our player id), if we held one."""
        for index, seat in enumerate(replay.record.seats):
            if seat.player is not None and seat.player == self.app.player_id:
                return index
        return None

    # --- lists, profiles, the leaderboard ---------------------------------------------------

    def players(self, seats: list[tuple[str, str | None, str | None]]) -> None:
        """Seats (name, player id, bot level), to open a player's profile (a bot level's too;
        a guest has none)."""
        if seats:
            self.app.push_screen(PlayersScreen(seats))

    def replays_page(self, message: ReplaysMessage) -> None:
        """A ``replays`` page: for the Replays screen showing (the newest asked, on top)."""
        screen = self.app._screen_of(ReplaysScreen)
        if screen is not None:
            screen.show_page(message)

    def profile(self, message: ProfileMessage) -> None:
        """A ``profile``: for the profile screen that asked for it."""
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, ProfileScreen) and screen.wants(message):
                screen.show_profile(message)
                return

    def leaderboard(self, message: LeaderboardMessage) -> None:
        """A ``leaderboard`` page: for the leaderboard screen showing."""
        screen = self.app._screen_of(LeaderboardScreen)
        if screen is not None:
            screen.show_board(message)

    def watch(
        self,
        replay: Replay,
        seat: int | None,
        turn: int | None = None,
        review: SharedReview | None = None,
        room: RoomState | None = None,
    ) -> ReplayScreen:
        """Open the viewer over ``replay``, from ``seat``'s view (in ``review``, with the
        room). Opened from ``room``'s game-over dialog ("watch again", "review together"),
        closing it goes back to that dialog."""
        record = replay.record
        title = _("Game {game}").format(game=record.game) if record.game is not None else ""
        screen = ReplayScreen(
            replay,
            seat,
            turn=turn,
            on_export=self.exporter(),
            # A deal played again is a room for others to join: not in local play.
            on_play_deal=self.play_deal if self._has_lobby() else None,
            review=review,
            title=title,
        )
        self.app.push_screen(screen, None if room is None else lambda _: self._back_to(room))
        return screen

    def _back_to(self, room: RoomState) -> None:
        """The viewer opened from ``room``'s game-over dialog closed: the dialog again, while
        the room's table still shows that finished game (not once a rematch has begun)."""
        if self.app.current == room.code and room.over:
            self.app.show_game_over(room)

    def play_deal(self, replay: Replay) -> None:
        """A new room with ``replay``'s deal: its edition, seats, variants and shuffle."""
        if replay.record.game is not None:
            self.app.request({"type": "play_deal", "game": replay.record.game})

    # --- review together ----------------------------------------------------------------------

    def join_review(self, room: RoomState) -> None:
        """Enter the room's shared review (the first to enter leads it)."""
        review = self.reviews.get(room.code)
        if review is None or not review.open:
            review = SharedReview(room.code, self.app.player_id, self.app.request)
            self.reviews[room.code] = review
        self.app.request({"type": "review_join", "room": room.code})
        if room.replay is None and room.game_over is not None:
            self.fetch(room.game_over.game, REVIEW, room.code)

    def review(self, message: ReviewMessage) -> None:
        """A ``review``: follow the leader, or learn that the review has ended."""
        code = message.room
        review = self.reviews.get(code)
        if review is None:
            return  # a review we never joined (or left): not ours to show
        review.update(message)
        screen = self._review_screen(review)
        if not review.open:
            self.reviews.pop(code, None)
            self.app.notify(_("The shared review has ended; the viewer is yours alone now."))
            if screen is not None:
                screen.review = None
                screen.follow_review()
            return
        room = self.app.rooms.get(code)
        if screen is None and room is not None and room.replay is not None:
            self._open_review(room)
        elif screen is not None:
            screen.follow_review()

    def _review_screen(self, review: SharedReview) -> ReplayScreen | None:
        for screen in self.app.screen_stack:
            if isinstance(screen, ReplayScreen) and screen.review is review:
                return screen
        return None

    def _open_review(self, room: RoomState) -> None:
        review = self.reviews.get(room.code)
        if review is None or room.replay is None or self._review_screen(review) is not None:
            return
        screen = self.watch(room.replay, room.seat, review=review, room=room)
        screen.index = min(review.step, room.replay.last)
