"""A room's spectators: who watches (kept with an unfinished game, so that they come back to it
after a restart), and their chat during a game, which reaches the other spectators only until
the game is over (as on lichess: their talk must not help a player); the players then get it.
A spectator never hosts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from protocol.errors import MalformedMessage
from protocol.server_messages import ChatMessage
from server.rooms.outgoing import Broadcaster
from server.rooms.scheduler import Handle, Scheduler
from server.store.store import Store

SPECTATOR, PLAYER = "spectator", "player"


class Watched(Protocol):
    """What the spectators need of their room."""

    members: dict[str, str]
    game_id: int | None
    closed: bool
    out: Broadcaster

    @property
    def store(self) -> Store:
        """Where the room's games are recorded."""

    def playing(self) -> bool:
        """Whether a game runs in the open room."""

    def leave(self, player: str, announce: bool = True) -> None:
        """Remove a member."""


class Spectators:
    """The spectators of one room."""

    def __init__(self, room: Watched) -> None:
        self._room = room
        self._held: list[ChatMessage] = []  # their chat lines of the running game
        self._returning: Handle | None = None  # drops restored spectators who did not return

    def __iter__(self) -> Iterator[str]:
        """The watching members, in join order."""
        return iter([p for p, role in self._room.members.items() if role == SPECTATOR])

    def __len__(self) -> int:
        return sum(1 for role in self._room.members.values() if role == SPECTATOR)

    def persist(self) -> None:
        """Record who watches the running game."""
        room = self._room
        if room.game_id is not None and room.playing():
            room.store.save_spectators(room.game_id, list(self))

    def chat(self, line: ChatMessage) -> None:
        """A spectator's chat line: during a game to the spectators only, and kept (stored
        too, so that a restart does not lose it)."""
        room = self._room
        if room.playing():
            self._held.append(line)
            if room.game_id is not None:
                room.store.hold_chat(room.game_id, line.to_wire())
            room.out.to_all(line, only=lambda member: room.members[member] == SPECTATOR)
        else:
            room.out.to_all(line)

    def game_began(self) -> None:
        """A new game: nothing is held yet, and who watches it is recorded."""
        self._held = []
        self.persist()

    def game_ended(self, game: int) -> None:
        """The players get what the spectators said during the game; nothing stays stored."""
        room = self._room
        for line in self._held:
            room.out.to_all(line, only=lambda member: room.members.get(member) == PLAYER)
        self._held = []
        room.store.save_spectators(game, [])
        room.store.release_chat(game)

    def restore_held(self, lines: list[dict[str, Any]]) -> None:
        """After a restart: the lines held for the players of the stored game (as stored; a
        record that is not a chat line is left out)."""
        self._held = []
        for line in lines:
            try:
                self._held.append(ChatMessage.from_record(line))
            except MalformedMessage:
                continue

    def expect_back(
        self,
        players: list[str],
        scheduler: Scheduler,
        grace: float,
        connected: Callable[[str], bool],
    ) -> None:
        """After a restart: the spectators of the stored game are members again; those not
        connected within ``grace`` seconds leave."""
        room = self._room
        for player in players:
            room.members.setdefault(player, SPECTATOR)
        if len(self):
            when = scheduler.time() + grace
            self._returning = scheduler.call_at(when, self._drop_absent, connected)

    def _drop_absent(self, connected: Callable[[str], bool]) -> None:
        self._returning = None
        room = self._room
        gone = [p for p in self if not connected(p)]
        for player in gone:
            if not room.closed:
                room.leave(player, announce=player == gone[-1])

    def cancel(self) -> None:
        """The room closed."""
        if self._returning is not None:
            self._returning.cancel()
            self._returning = None
