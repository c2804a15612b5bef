"""What a room writes of its own to the store, so that a restart, or another node of a
cluster, opens it again as its members saw it: a new game's setup with the room's settings
(refused while the database refuses writes), the room itself while its game has not started,
and its seats' occupants when they change during a game. The writes join the tick's commit,
before any member is sent the change (``server.store``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode, ProtocolError
from server.rooms.seats import Seats
from server.rooms.status import Status
from server.store.store import Store, StoreUnavailable


class Persistence:
    """A room's own writes (a mixin of :class:`server.rooms.room.Room`)."""

    store: Store
    code: str
    edition: str
    public: bool
    timer: int
    left_grace: int
    idle_grace: int
    autostart: bool
    variants: tuple[str, ...]
    creator: str
    first_seed: int | None
    status: Status
    closed: bool
    table: Seats
    members: dict[str, str]
    game_id: int | None

    if TYPE_CHECKING:  # the room's own

        def playing(self) -> bool: ...

    def _record_game(self, seed: int, version_base: int, seeded: bool) -> int:
        """Record the room's new game (its seats as they are); returns its id. Raises
        ``store_unavailable`` while the database refuses writes."""
        settings = self._settings()
        settings.update(seeded=seeded)
        names = [seat.name for seat in self.table]
        try:
            return self.store.create_game(
                self.code, self.edition, names, self.table.records(), settings, seed, version_base
            )
        except StoreUnavailable as exc:
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE, "the server cannot record new games right now"
            ) from exc

    def _settings(self) -> dict[str, Any]:
        """The room's settings as stored with its games and while it waits."""
        settings: dict[str, Any] = {"public": self.public, "timer": self.timer}
        settings.update(left_grace=self.left_grace, idle_grace=self.idle_grace)
        settings.update(autostart=self.autostart)
        settings.update(creator=self.creator, variants=list(self.variants))
        return settings

    def save_waiting(self) -> None:
        """Record the room while its game has not started (server.rooms.restore opens it
        again after a restart, or on another node of a cluster): in the tick's commit, so
        before any member is sent the change."""
        if self.status is Status.WAITING and not self.closed:
            settings = self._settings()
            settings.update(seed=self.first_seed)
            layout = self.table.layout()
            self.store.save_waiting_room(self.code, self.edition, layout, self.members, settings)

    def _persist_seats(self) -> None:
        """Record the seats' occupants of the game being played (a player left, or is back)."""
        if self.game_id is not None and self.playing():
            self.store.update_seats(self.game_id, self.table.records())
