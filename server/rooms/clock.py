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

import math
from collections.abc import Callable

from server.config import ServerConfig
from server.engine import Game
from server.rooms.scheduler import Handle, Scheduler
from server.rooms.seats import AUTOMATED, Seat, Seats, SeatState

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
        # When the oldest open decision enters its idle countdown's last ``idle_notice``
        # seconds (inf: none can): asked at every change, worked out when they open.
        self._notice_from = math.inf
        self._handle: Handle | None = None
        self._at = 0.0  # when the timer of ``_handle`` fires
        self.thinking: int | None = None  # the seat a worker process is deciding for

    def now(self) -> float:
        """The scheduler's time."""
        return self._scheduler.time()

    def delay(self, seat: Seat) -> float | None:
        """How long ``seat`` has for a decision (None: as long as it likes)."""
        return self._delay(seat)[0]

    def idle_due(self, seat: Seat) -> bool:
        """Whether a present human's deadline is the idle grace's, not the turn timer's."""
        return self._delay(seat)[1]

    def _delay(self, seat: Seat) -> tuple[float | None, bool]:
        """:meth:`delay` and :meth:`idle_due` of ``seat``, worked out together."""
        state = seat.state
        if state in AUTOMATED:
            return self._config.bot_delay, False
        if state is SeatState.AWAY:
            return self._config.away_delay, False
        timer, idle = self._human_delays(seat)
        if idle is None:
            return timer, False
        if timer is None or idle < timer:
            return idle, True
        return timer, False

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
        needing = [] if game is None or game.over else game.pending_seats()
        now = self.now()
        opened = self._opened
        self._opened = {
            seat: now if seat == actor or seat not in opened else opened[seat]
            for seat in needing
            if game is not None and game.legal(seat)
        }
        # A decision opened afresh has not had its idle countdown told yet.
        if self._noticed:
            self._noticed = {
                seat
                for seat in self._noticed
                if seat in self._opened and self._opened[seat] == opened.get(seat)
            }
        self._notice_from = self._idle_notice_from()

    def _idle_notice_from(self) -> float:
        """When the oldest open decision has been open for the idle grace less the notice
        (inf: no idle grace, or nothing open)."""
        if not self._idle or not self._opened:
            return math.inf
        wait = self._idle * self._config.timer_scale - self._notice()
        return min(self._opened.values()) + wait - _SLACK

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
        return {index: due for index, (_seat, due, _idle) in self._open().items()}

    def _open(self, thinking: bool = False) -> dict[int, tuple[Seat, float, bool]]:
        """Seat index -> (its seat, its deadline, whether it is the idle grace's), for every
        open decision that has a deadline, in seat order (the thinking seat's only if
        ``thinking``)."""
        seats = self._seats()
        out = {}
        for index in sorted(self._opened):
            seat = seats[index]
            if seat is None or (index == self.thinking and not thinking):
                continue
            delay, idle = self._delay(seat)
            if delay is not None:
                out[index] = (seat, self._opened[index] + delay, idle)
        return out

    def shown(self) -> list[tuple[Seat, float]]:
        """The seats whose humans have a deadline of the turn timer or the away delay, with
        the seconds they have left (an idle grace's is :meth:`idle_shown`'s)."""
        return [(seat, left) for seat, left, idle in self._left() if not idle]

    def idle_shown(self) -> list[tuple[int, float]]:
        """(seat, seconds left) of the present humans whose idle grace runs out first, in its
        last ``idle_notice`` seconds."""
        if not self._idle_notice_possible():
            return []
        notice = self._notice() + _SLACK
        return [(seat.index, left) for seat, left, idle in self._left() if idle and left <= notice]

    def _idle_notice_possible(self) -> bool:
        """Whether an open decision has been open long enough to be in its idle countdown's
        last ``idle_notice`` seconds: the idle grace less the notice. Asked at every change, and
        nearly always no; the answer spares working out every deadline."""
        return self.now() >= self._notice_from

    def _notice(self) -> float:
        return self._config.idle_notice * self._config.timer_scale

    def _notices(self, open_: dict[int, tuple[Seat, float, bool]]) -> dict[int, float]:
        """Seat -> when its idle countdown is to be shown, for those not told yet (of the open
        decisions ``open_``, :meth:`_open`'s)."""
        notice = self._notice()
        return {
            index: due - notice
            for index, (_seat, due, idle) in open_.items()
            if idle and index not in self._noticed
        }

    def _left(self) -> list[tuple[Seat, float, bool]]:
        """(seat, seconds left, whether it is the idle grace's) of the humans' deadlines."""
        now = self.now()
        return [
            (seat, max(0.0, due - now), idle)
            for seat, due, idle in self._open(thinking=True).values()
            if not seat.automated
        ]

    def cancel(self) -> None:
        """No timer until the next :meth:`schedule`."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def stop(self) -> None:
        """Forget every open decision (the game ended or the room closed)."""
        self.cancel()
        self._opened = {}
        self._notice_from = math.inf
        self._noticed = set()
        self.thinking = None

    def schedule(self) -> None:
        """Set the timer for the earliest deadline, or the earliest idle countdown to show
        (none if there is none). One whose time has come is in what was just sent.

        A timer already set to fire no later is kept: most decisions move the earliest time
        later, and a timer that fires early finds nothing due and sets itself again, which
        costs less than calling one off and setting another at every decision."""
        # :meth:`_open` and :meth:`_notices` in one pass: this runs at every decision
        seats = self._seats()
        late = self.now() + _SLACK
        notice = self._notice()
        when = math.inf
        for index, opened in self._opened.items():
            seat = seats[index]
            if seat is None or index == self.thinking:
                continue
            delay, idle = self._delay(seat)
            if delay is None:
                continue
            due = opened + delay
            when = min(when, due)
            if idle and index not in self._noticed:
                if due - notice <= late:  # its countdown shows in what was just sent
                    self._noticed.add(index)
                else:
                    when = min(when, due - notice)
        if when == math.inf:
            self.cancel()
            return
        if self._handle is not None and self._at <= when:
            return
        self.cancel()
        self._at = when
        self._handle = self._scheduler.call_at(when, self._fire)

    def retry_in(self, seconds: float) -> None:
        """Fire again in ``seconds`` (the due seat could not be decided for yet)."""
        self.cancel()
        self._at = self.now() + seconds
        self._handle = self._scheduler.call_at(self._at, self._fire)

    def _fire(self) -> None:
        self._handle = None
        late = self.now() + _SLACK
        shown = [index for index, when in self._notices(self._open()).items() if when <= late]
        if shown:
            self._noticed.update(shown)
            self._on_notice()
        deadlines = self.deadlines()
        index = min(deadlines, key=lambda seat: (deadlines[seat], seat), default=None)
        if index is None or deadlines[index] > late:  # none due yet (or moved later)
            self.schedule()
            return
        self._on_due(index)
