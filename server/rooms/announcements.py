"""What a room says of its own, besides the replies and the frames of a decision: its events
about seats between decisions (kept in its history, so that a member who resumes reads them
too), the ``room`` broadcast (which makes its ``list_rooms`` entry stale), and a (re)joining
member's game. The messages are built and sent by ``server.rooms.outgoing``'s
:class:`~server.rooms.outgoing.Broadcaster`; this is the room's side of it."""

from __future__ import annotations

from typing import Any

from server.engine import Event, Game
from server.rooms.outgoing import Broadcaster
from server.store.history import History, seat_event
from server.store.store import Store


class Announcements:
    """A room's own messages out (a mixin of :class:`server.rooms.room.Room`)."""

    game: Game | None
    game_id: int | None
    history: History
    store: Store
    out: Broadcaster
    _packed_summary: bytes | None  # the room's list_rooms entry, packed once per change

    def seat_event(
        self, kind: str, key: str, index: int, to: tuple[int, ...] | None = None, **args: Any
    ) -> Event:
        """An event of the room about seat ``index`` (:func:`server.store.history.seat_event`)."""
        return seat_event(kind, key, index, to, **args)

    def _announce(self, events: list[Event]) -> None:
        """Say the room's own ``events`` (between decisions) and keep them in the history."""
        if self.game is not None and self.game_id is not None:
            self.history.record(self.store, self.game_id, len(self.game.log), events)
        self.out.events(events)

    def broadcast_room(self) -> None:
        """Send the ``room`` message to every member."""
        self._packed_summary = None  # what changed may show in list_rooms too
        self.out.room()

    def send_game(self, player: str) -> None:
        """Send a (re)joining member the log so far, the state and the timer."""
        self.out.game(player)
