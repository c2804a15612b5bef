"""The turn clock: when each open decision of a table is due, on an injected scheduler.

A decision opens for a seat when the game starts waiting for it; it is due after the seat's
delay: ``bot_delay`` for a seat a bot plays, ``away_delay`` for an away human, the room's timer
(times ``timer_scale``) for a present human, never without a timer. One timer per table fires at
the earliest deadline and tells the table which seat is due; the seat a thinking bot decides for
has no deadline until its answer comes.
"""

from __future__ import annotations

from collections.abc import Callable

from server.config import ServerConfig
from server.engine import Game
from server.scheduler import Handle, Scheduler
from server.seats import Seat, Seats

# How early a timer may fire and still count as on time (the loop's clock is a float).
_SLACK = 0.001


class TurnClock:
    """Deadlines of a table's open decisions; ``on_due(seat)`` runs when one has come."""

    def __init__(
        self,
        scheduler: Scheduler,
        config: ServerConfig,
        timer: int,
        seats: Callable[[], Seats],
        on_due: Callable[[int], None],
    ) -> None:
        self._scheduler = scheduler
        self._config = config
        self._timer = timer  # the room's seconds per decision; 0: no timer
        self._seats = seats
        self._on_due = on_due
        self._opened: dict[int, float] = {}  # seat -> when its open decision opened
        self._handle: Handle | None = None
        self.thinking: int | None = None  # the seat a worker process is deciding for

    def now(self) -> float:
        """The scheduler's time."""
        return self._scheduler.time()

    def delay(self, seat: Seat) -> float | None:
        """How long ``seat`` has for a decision (None: as long as it likes)."""
        if seat.automated:
            return self._config.bot_delay
        if seat.away:
            return self._config.away_delay
        if self._timer:
            return self._timer * self._config.timer_scale
        return None

    def track(self, game: Game | None, actor: int | None) -> None:
        """Open a clock for every seat of ``game`` that must decide now: a seat that newly
        must (or that just decided, ``actor``, and must again) starts afresh; one still
        deciding keeps its time."""
        pending = [] if game is None or game.over else game.pending_seats()
        needing = [seat for seat in pending if game is not None and game.legal(seat)]
        now = self.now()
        opened = self._opened
        self._opened = {
            seat: now if seat == actor or seat not in opened else opened[seat] for seat in needing
        }

    def deadline(self, index: int) -> float | None:
        """When the decision of seat ``index`` is due, if it has one."""
        opened = self._opened.get(index)
        seat = self._seats()[index]
        if opened is None or seat is None:
            return None
        delay = self.delay(seat)
        return None if delay is None else opened + delay

    def deadlines(self) -> dict[int, float]:
        """Seat -> deadline, for every open decision that has one (not the thinking seat's)."""
        out = {}
        for index in sorted(self._opened):
            due = self.deadline(index)
            if due is not None and index != self.thinking:
                out[index] = due
        return out

    def shown(self) -> list[tuple[Seat, float]]:
        """The seats whose humans have a deadline, with the seconds they have left."""
        now = self.now()
        seats = self._seats()
        out = []
        for index in sorted(self._opened):
            seat = seats[index]
            due = self.deadline(index)
            if seat is not None and not seat.automated and due is not None:
                out.append((seat, max(0.0, due - now)))
        return out

    def cancel(self) -> None:
        """No timer until the next :meth:`schedule`."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def stop(self) -> None:
        """Forget every open decision (the game ended or the room closed)."""
        self.cancel()
        self._opened = {}
        self.thinking = None

    def schedule(self) -> None:
        """Set the timer for the earliest deadline (none if there is none)."""
        self.cancel()
        deadlines = self.deadlines()
        if deadlines:
            self._handle = self._scheduler.call_at(min(deadlines.values()), self._fire)

    def retry_in(self, seconds: float) -> None:
        """Fire again in ``seconds`` (the due seat could not be decided for yet)."""
        self.cancel()
        self._handle = self._scheduler.call_at(self.now() + seconds, self._fire)

    def _fire(self) -> None:
        self._handle = None
        deadlines = self.deadlines()
        if not deadlines:
            return
        index = min(deadlines, key=lambda seat: (deadlines[seat], seat))
        if deadlines[index] > self.now() + _SLACK:  # moved later since the timer was set
            self.schedule()
            return
        self._on_due(index)
