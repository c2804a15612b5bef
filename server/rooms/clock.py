"""The turn clock: when each open decision of a table is due, on an injected scheduler.

A decision opens for a seat when the game starts waiting for it; it is due after the seat's delay:
``bot_delay`` for a seat a bot plays, ``away_delay`` for an away human; for a present human, the
room's timer or, if the player is connected, the room's idle grace (``server.rooms.grace``),
whichever is shorter (both times ``timer_scale``), never for a disconnected player in a room without
a timer (``server.rooms.grace`` hands that seat to its bot). One timer per table fires at the
earliest deadline and tells the table which seat is due; the seat a thinking bot decides for has no
deadline until its answer comes. An idle grace's countdown is shown only in its last ``idle_notice``
seconds (a countdown at every decision would be noise): the same timer wakes the table when one
enters them (``on_notice``), so that it tells every member.
"""

from __future__ import annotations

from collections.abc import Callable

from server.config import ServerConfig
from server.engine import Game
from server.rooms.scheduler import Handle, Scheduler
from server.rooms.seats import Seat, Seats

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
        idle: float = 0.0,
        connected: Callable[[str], bool] = lambda player: True,
        on_notice: Callable[[], None] = lambda: None,
    ) -> None:
        self._scheduler = scheduler
        self._config = config
        self._timer = timer  # the room's seconds per decision; 0: no timer
        self._seats = seats
        self._on_due = on_due
        self._idle = idle  # the room's idle grace in seconds; 0: none
        self._connected = connected
        self._on_notice = on_notice
        self._noticed: set[int] = set()  # seats whose idle countdown has been told
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
        timer, idle = self._human_delays(seat)
        if timer is None or idle is None:
            return timer if idle is None else idle
        return min(timer, idle)

    def idle_due(self, seat: Seat) -> bool:
        """Whether a present human's deadline is the idle grace's, not the turn timer's."""
        if seat.automated or seat.away:
            return False
        timer, idle = self._human_delays(seat)
        return idle is not None and (timer is None or idle < timer)

    def _human_delays(self, seat: Seat) -> tuple[float | None, float | None]:
        """A present human's turn timer and idle grace, in seconds (None: none applies)."""
        scale = self._config.timer_scale
        timer = self._timer * scale if self._timer else None
        connected = seat.player is not None and self._connected(seat.player)
        idle = self._idle * scale if self._idle and connected else None
        return timer, idle

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
        # A decision opened afresh has not had its idle countdown told yet.
        self._noticed = {
            seat
            for seat in self._noticed
            if seat in self._opened and self._opened[seat] == opened.get(seat)
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
        """The seats whose humans have a deadline of the turn timer or the away delay, with
        the seconds they have left (an idle grace's is :meth:`idle_shown`'s)."""
        return [(seat, left) for seat, left in self._left() if not self.idle_due(seat)]

    def idle_shown(self) -> list[tuple[int, float]]:
        """(seat, seconds left) of the present humans whose idle grace runs out first, in its
        last ``idle_notice`` seconds."""
        notice = self._notice() + _SLACK
        return [
            (seat.index, left)
            for seat, left in self._left()
            if self.idle_due(seat) and left <= notice
        ]

    def _notice(self) -> float:
        return self._config.idle_notice * self._config.timer_scale

    def _notices(self) -> dict[int, float]:
        """Seat -> when its idle countdown is to be shown, for those not told yet."""
        seats = self._seats()
        out = {}
        for index, due in self.deadlines().items():
            seat = seats[index]
            if seat is not None and index not in self._noticed and self.idle_due(seat):
                out[index] = due - self._notice()
        return out

    def _left(self) -> list[tuple[Seat, float]]:
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
        self._noticed = set()
        self.thinking = None

    def schedule(self) -> None:
        """Set the timer for the earliest deadline, or the earliest idle countdown to show
        (none if there is none). One whose time has come is in what was just sent."""
        self.cancel()
        times = list(self.deadlines().values())
        late = self.now() + _SLACK
        for index, when in self._notices().items():
            if when <= late:
                self._noticed.add(index)
            else:
                times.append(when)
        if times:
            self._handle = self._scheduler.call_at(min(times), self._fire)

    def retry_in(self, seconds: float) -> None:
        """Fire again in ``seconds`` (the due seat could not be decided for yet)."""
        self.cancel()
        self._handle = self._scheduler.call_at(self.now() + seconds, self._fire)

    def _fire(self) -> None:
        self._handle = None
        late = self.now() + _SLACK
        shown = [index for index, when in self._notices().items() if when <= late]
        if shown:
            self._noticed.update(shown)
            self._on_notice()
        deadlines = self.deadlines()
        index = min(deadlines, key=lambda seat: (deadlines[seat], seat), default=None)
        if index is None or deadlines[index] > late:  # none due yet (or moved later)
            self.schedule()
            return
        self._on_due(index)
