"""The connected app's side of finished games: records fetched, the viewer opened, the shared
review followed, profiles and the leaderboard shown (protocol/PROTOCOL.md §4 list_replays ..
review_*, §12).

The app hands this desk the server's ``replay``, ``replays``, ``profile``, ``leaderboard`` and
``review`` messages; it asks for what a screen needs and opens the screen when the answer comes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol import replay_file
from protocol.records import GetReplay
from selfish_tui.i18n import _
from selfish_tui.replay import BadRecord, Replay, from_reply, open_replay
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.replay import ReplayScreen
from selfish_tui.state import RoomState

if TYPE_CHECKING:
    from selfish_tui.app import SelfishApp

#: Why a record was asked for: the game-over screen's numbers, or to watch it.
SUMMARY, WATCH = "summary", "watch"


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


class ReplayDesk:
    """Finished games for one :class:`~selfish_tui.app.SelfishApp`."""

    def __init__(self, app: SelfishApp) -> None:
        self.app = app
        # game id -> (why it was asked for, the room it was played in, the turn to open at)
        self._wanted: dict[int, tuple[str, str | None, int | None]] = {}
        self.reviews: dict[str, dict[str, Any]] = {}  # room -> its latest ``review``

    @property
    def server(self) -> str | None:
        """The server's address as an export file records it."""
        client = self.app.client
        return None if client is None or self.app.local else client.address

    def exporter(self) -> Any:
        """What the viewer's export key does here: write to the current directory on the
        player's own machine; nothing through the SSH or browser front doors, where the
        client runs on the server's machine (the viewer then says how to export)."""
        return export_here if self.app.front_door.kind in ("local", "tcp") else None

    # --- records ------------------------------------------------------------------------------

    def fetch(self, game: int, why: str, room: str | None = None, turn: int | None = None) -> None:
        """Ask the server for game ``game``'s record."""
        self._wanted[game] = (why, room, turn)
        self.app.request({"type": "get_replay", "game": game})

    def after_game(self, room: RoomState, game_over: dict[str, Any]) -> None:
        """A game ended: fetch its record for the game-over screen's hands and numbers."""
        game = game_over.get("game")
        if isinstance(game, int) and not isinstance(game, bool) and room.replay is None:
            self.fetch(game, SUMMARY, room.code)

    def watch_room(self, room: RoomState) -> None:
        """ "Watch again" on the game-over screen: the viewer over the room's last game."""
        if room.replay is not None:
            self.watch(room.replay, room.seat)
            return
        game = (room.game_over or {}).get("game")
        if isinstance(game, int) and not isinstance(game, bool):
            self.fetch(game, WATCH, room.code)
        else:
            self.app.notify(_("The server has not said which game this was."), severity="warning")

    def refused(self, request: Any) -> bool:
        """The server refused a ``get_replay`` of ours: True when nobody needs to hear it (the
        record was for the game-over screen's numbers, which do without it)."""
        if not isinstance(request, GetReplay):
            return False
        why, _room, _turn = self._wanted.pop(request.game, (WATCH, None, None))
        return why == SUMMARY

    def arrived(self, message: dict[str, Any]) -> None:
        """A ``replay`` reply: keep it for its room, and open the viewer if that was asked."""
        game = message.get("game")
        why, code, turn = self._wanted.pop(
            game if isinstance(game, int) else -1, (WATCH, None, None)
        )
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
            self.watch(replay, seat, turn)

    def _own_seat(self, replay: Replay) -> int | None:
        """Our seat in a listed game (by our player id), if we held one."""
        for index, seat in enumerate(replay.record.seats):
            if seat.player is not None and seat.player == self.app.player_id:
                return index
        return None

    def watch(self, replay: Replay, seat: int | None, turn: int | None = None) -> ReplayScreen:
        """Open the viewer over ``replay``, from ``seat``'s view."""
        record = replay.record
        title = _("Game {game}").format(game=record.game) if record.game is not None else ""
        screen = ReplayScreen(replay, seat, turn=turn, on_export=self.exporter(), title=title)
        self.app.push_screen(screen)
        return screen
