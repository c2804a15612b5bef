"""The server deciding for a seat: a server bot's own turn, a seat whose human left or is away,
a present human whose time ran out (a timeout; ``away_after`` in a row mark the seat away), and
a connected human who let the decision wait past the room's idle grace (the seat is away at
once, see ``server.rooms.grace``).

Plain levels decide on the spot; a thinking level (``expert``) decides in a worker process
(``server.bots.pool``) while the loop serves every other table, and its choice counts only if
the game still waits for it when it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, Protocol

from server.bots import pool
from server.bots.budget import DEFAULT_BUDGET
from server.bots.levels import choose
from server.config import ServerConfig
from server.engine import EngineError, Event, Game
from server.engine.actions import strip
from server.rooms.clock import TurnClock
from server.rooms.seats import Seat, Seats
from server.store.store import Store

log = logging.getLogger("selfish.server")

Message = dict[str, Any]


class Table(Protocol):
    """What the server's decisions need of the room."""

    code: str
    game: Game | None
    clock: TurnClock

    config: ServerConfig
    store: Store
    table: Seats

    def playing(self) -> bool:
        """Whether a game runs and the room is open."""

    def seat_event(
        self, kind: str, key: str, index: int, to: tuple[int, ...] | None = None, **args: Any
    ) -> Event:
        """An event of the room about seat ``index``."""

    def apply(self, index: int, choice: Message, by: str, extra: list[Event]) -> None:
        """Apply a decision (raises EngineError if refused)."""

    def broadcast_room(self) -> None:
        """Send the ``room`` message to every member."""


class Autoplay:
    """Decides for the due seats of one table."""

    def __init__(self, table: Table) -> None:
        self._table = table
        self.rng = random.Random()
        self._thoughts = 0  # thoughts asked for: only the newest one's answer counts

    def due(self, index: int) -> None:
        """Seat ``index``'s deadline has come (the turn clock's callback)."""
        try:
            self._decide(index)
        except Exception:  # never let one room's failure reach the event loop
            log.exception("room %s: automatic decision failed; the room is stalled", self._code)

    @property
    def _code(self) -> str:
        return self._table.code

    def _decide(self, index: int) -> None:
        table = self._table
        game = table.game
        if game is None or game.over or not table.playing():
            return
        if not table.store.writable:
            # The decision could not be recorded: wait for the database like the players do.
            table.clock.retry_in(table.config.store_retry)
            return
        seat = table.table[index]
        assert seat is not None
        view = game.view(index)
        level = seat.level if seat.kind == "bot" else "basic"
        if level in pool.THINKING_LEVELS:
            self._think(game, index, level, view)
            return
        try:
            choice = choose(level, view, self.rng)
        except Exception:  # a bot bug must not stall the table: fall back to a safe choice
            log.exception("room %s: bot failed for seat %d; a plain choice", self._code, index)
            choice = plain_choice(view)
        self._commit(index, seat, choice)

    def _think(self, game: Game, index: int, level: str, view: Message) -> None:
        """Let a worker process decide for the seat."""
        config = self._table.config
        self._table.clock.thinking = index
        self._thoughts += 1
        token = self._thoughts
        budget = replace(DEFAULT_BUDGET, seconds=config.expert_seconds)
        seed = self.rng.getrandbits(64)
        future = pool.think(level, view, seed, config.bot_workers, budget, self._levels())
        loop = asyncio.get_running_loop()
        decided = len(game.decisions)

        def arrived(done: Future[Message]) -> None:
            # In the pool's thread; a loop that has closed meanwhile (server stopped) has no
            # table left to tell.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._thought, token, game, decided, index, view, done)

        future.add_done_callback(arrived)

    def _levels(self) -> list[str | None]:
        """Every seat's level as the room knows it, for a bot's opponent models: a server
        bot's level, None for a person (whose own level only plays for them when away)."""
        return [
            seat.level if seat is not None and seat.kind == "bot" else None
            for seat in self._table.table.all
        ]

    def _thought(
        self,
        token: int,
        game: Game,
        decided: int,
        index: int,
        view: Message,
        done: Future[Message],
    ) -> None:
        """A worker's choice has come: apply it unless the game has moved on meanwhile."""
        if token != self._thoughts:
            return  # an older thought: the newest one decides
        table = self._table
        table.clock.thinking = None
        seat = table.table[index]
        if table.game is not game or not table.playing() or len(game.decisions) != decided:
            table.clock.schedule()
            return
        assert seat is not None
        try:
            choice = done.result()
        except Exception:  # a worker that failed or died must not stall the table
            log.exception("room %s: bot failed for seat %d; a plain choice", self._code, index)
            choice = plain_choice(view)
        try:
            self._commit(index, seat, choice)
        except Exception:  # never let one room's failure reach the event loop
            log.exception("room %s: automatic decision failed; the room is stalled", self._code)

    def forget(self) -> None:
        """A thought still out is for a game that is gone."""
        self._thoughts += 1
        self._table.clock.thinking = None

    def _commit(self, index: int, seat: Seat, choice: Message) -> None:
        """Apply the choice made for ``seat`` (a bot's own, or an away or late human's)."""
        table = self._table
        shown = {"choice": strip(choice)}
        extra: list[Event] = []
        went_away = False
        if seat.automated:
            by = "bot"
        elif seat.away:
            by = "away"
            extra.append(table.seat_event("bot", "bot", index, (index,), **shown))
        elif table.clock.idle_due(seat):
            by = "idle"
            seat.mark_away()
            went_away = True
            extra.append(table.seat_event("away", "away.idle", index))
            extra.append(table.seat_event("bot", "bot", index, (index,), **shown))
        else:
            by = "timeout"
            extra.append(table.seat_event("timeout", "timeout", index, (index,), **shown))
            went_away = seat.timed_out(table.config.away_after)
            if went_away:
                extra.append(table.seat_event("away", "away.idle", index))
        try:
            table.apply(index, choice, by, extra)
        except EngineError:
            log.exception("room %s: bot choice %r refused by the engine", self._code, choice)
            return
        if went_away:
            table.broadcast_room()


def plain_choice(view: Message) -> Message:
    """The first choice that is not fatal: what a seat gets when its bot fails."""
    legal: list[Message] = view["legal"]
    return next((c for c in legal if not c.get("fatal")), legal[0])
