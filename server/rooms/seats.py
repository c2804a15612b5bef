"""The seats of a table: who holds each one, and in which state (:class:`SeatState`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from protocol.server_messages import SeatInfo

Message = dict[str, Any]


class SeatState(StrEnum):
    """Who decides for a seat."""

    PRESENT = "present"  # its human (connected or not: a dropped connection keeps the seat)
    # its human missed decisions in a row, let one wait past the idle grace, or has been gone
    # past the left grace (server.rooms.grace): a bot decides after away_delay until they are back
    AWAY = "away"
    LEFT = "left"  # its human left the running game: a bot plays it until the game ends
    BOT = "bot"  # a server bot's seat


# The states in which a seat's human holds it, and those in which a bot plays it without
# waiting: sets made once, as each change asks them of every seat (with Python 3.11 looking an
# enum member up costs three times the test itself).
HOLDING = frozenset((SeatState.PRESENT, SeatState.AWAY))
AUTOMATED = frozenset((SeatState.BOT, SeatState.LEFT))


@dataclass
class Seat:
    """One seat at the table."""

    index: int
    name: str
    player: str | None = None  # the human's player id (None for a server bot)
    state: SeatState = SeatState.PRESENT
    level: str = "basic"  # the bot level that plays it (a bot seat, or for its human)
    timeouts: int = 0  # decisions in a row a bot made for the human because time ran out
    # N of the name "Bot N" the server gave this bot: clients say it in their own language
    # ("电脑 1") by this number, never by reading the name, which a human may choose too.
    bot_number: int | None = None

    @property
    def kind(self) -> str:
        """``"bot"`` or ``"human"``, as the ``room`` message and the store say it."""
        return "bot" if self.state is SeatState.BOT else "human"

    @property
    def away(self) -> bool:
        """Its human is marked away."""
        return self.state is SeatState.AWAY

    @property
    def left(self) -> bool:
        """Its human left the running game."""
        return self.state is SeatState.LEFT

    @property
    def automated(self) -> bool:
        """A bot plays it without waiting for anyone."""
        return self.state in AUTOMATED

    def held_by(self, player: str) -> bool:
        """Whether ``player`` holds this seat now (one who left it does not)."""
        return self.player == player and self.state in HOLDING

    def leave(self) -> None:
        """The human left during (or after) a game: a bot plays on."""
        self.state = SeatState.LEFT

    def rejoin(self) -> None:
        """The human who left came back to the same game."""
        self.state, self.timeouts = SeatState.PRESENT, 0

    def acted(self) -> bool:
        """The human decided (or said ``back``): the timeouts in a row start again. True if
        the seat was away."""
        was_away = self.away
        self.timeouts = 0
        if was_away:
            self.state = SeatState.PRESENT
        return was_away

    def returned(self) -> bool:
        """The human's connection is new: an away seat is theirs again (the count of timeouts
        in a row stays: reconnecting is not deciding). True if the seat was away."""
        was_away = self.away
        if was_away:
            self.state = SeatState.PRESENT
        return was_away

    def timed_out(self, away_after: int) -> bool:
        """A bot decided for the human because time ran out; after ``away_after`` in a row the
        seat is away. True when it became away now."""
        self.timeouts += 1
        if self.state is SeatState.PRESENT and self.timeouts >= away_after:
            self.state = SeatState.AWAY
            return True
        return False

    def mark_away(self) -> None:
        """The human, connected, let a decision wait past the idle grace, or has been
        disconnected past the left grace (server.rooms.grace): away until they act or come back."""
        self.state = SeatState.AWAY

    def to_bot(self) -> None:
        """A seat whose human left becomes a ``basic`` bot's for the next game."""
        self.state, self.player, self.level = SeatState.BOT, None, "basic"

    def reset(self) -> None:
        """A new game: nobody is away."""
        self.timeouts = 0
        if self.away:
            self.state = SeatState.PRESENT

    def info(self, connected: bool) -> SeatInfo:
        """The seat as shown in a ``room`` message."""
        return SeatInfo(
            seat=self.index,
            name=self.name,
            kind=self.kind,
            player=self.player,
            level=self.level if self.state is SeatState.BOT else None,
            bot_number=self.bot_number,
            connected=connected,
            away=self.away,
            left=self.left,
        )

    def to_record(self) -> Message:
        """The seat as persisted with its game (away is not: a restart starts it afresh)."""
        return {
            "kind": self.kind,
            "name": self.name,
            "player": self.player,
            "level": self.level,
            "left": self.left,
            "bot_number": self.bot_number,
        }

    @classmethod
    def from_record(cls, index: int, record: Message) -> Seat:
        """Inverse of :meth:`to_record`."""
        if str(record["kind"]) == "bot":
            state = SeatState.BOT
        else:
            state = SeatState.LEFT if record.get("left") else SeatState.PRESENT
        player = record.get("player")
        return cls(
            index,
            str(record["name"]),
            None if player is None else str(player),
            state,
            str(record.get("level", "basic")),
            bot_number=_number(record.get("bot_number")),
        )


def _number(value: Any) -> int | None:
    """A stored bot number (records made before it was stored have none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Seats:
    """A table's seats in order; an empty one is None."""

    def __init__(self, size: int) -> None:
        self.all: list[Seat | None] = [None] * size
        # player id -> the seat last given to them: every message a room sends asks whose seat
        # each member holds, and a scan of the seats per recipient costs more than a lookup.
        # An entry outlives its seat's becoming a bot's or being left; ``of`` checks it holds.
        self._by_player: dict[str, Seat] = {}

    def __iter__(self) -> Iterator[Seat]:
        """The taken seats, in order."""
        return (seat for seat in self.all if seat is not None)

    def __getitem__(self, index: int) -> Seat | None:
        return self.all[index]

    def __len__(self) -> int:
        return len(self.all)

    def of(self, player: str) -> Seat | None:
        """The seat ``player`` holds (None for spectators, strangers and those who left)."""
        seat = self._by_player.get(player)
        return seat if seat is not None and seat.held_by(player) else None

    def holders(self) -> dict[str, int]:
        """Player -> the index of the seat they hold (:meth:`of` for every member at once: a
        change's messages ask it for each of them)."""
        return {
            player: seat.index
            for player, seat in self._by_player.items()
            if seat.player == player and seat.state in HOLDING  # Seat.held_by
        }

    def anyone_away(self) -> bool:
        """Whether some seat's human is marked away (asked at every change of the game)."""
        # a list, not any() over a generator: less than half the cost (280 ns against 670)
        return SeatState.AWAY in [seat.state for seat in self.all if seat is not None]

    def left_by(self, player: str) -> Seat | None:
        """The seat ``player`` left during the game, if any."""
        return next((seat for seat in self if seat.player == player and seat.left), None)

    def filled(self) -> int:
        """Seats taken."""
        return sum(1 for _ in self)

    def humans(self) -> int:
        """Seats held by people."""
        return sum(1 for seat in self if seat.kind == "human")

    def bots(self) -> int:
        """Seats of server bots."""
        return sum(1 for seat in self if seat.state is SeatState.BOT)

    def names(self) -> list[str]:
        """Every seat's name, "" for an empty one (events name seats by these)."""
        return [seat.name if seat else "" for seat in self.all]

    def free(self, room: str) -> int:
        """The lowest free seat; ``room_full`` when there is none."""
        for index, seat in enumerate(self.all):
            if seat is None:
                return index
        raise ProtocolError(ErrorCode.ROOM_FULL, f"room {room} has no free seat")

    def seat_human(self, index: int, name: str, player: str) -> Seat:
        """Put ``player`` in seat ``index`` under ``name`` (numbered if the name is taken)."""
        taken = {seat.name for seat in self}
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name} {n}", n + 1
        seat = self.all[index] = Seat(index, unique, player)
        self._by_player[player] = seat
        return seat

    def seat_bot(self, index: int, level: str) -> Seat:
        """Put a server bot of ``level`` in seat ``index``, named ``Bot N``."""
        taken = {seat.name for seat in self}
        n = 1
        while f"Bot {n}" in taken:
            n += 1
        seat = self.all[index] = Seat(
            index, f"Bot {n}", state=SeatState.BOT, level=level, bot_number=n
        )
        return seat

    def free_seat(self, index: int) -> None:
        """Empty seat ``index``."""
        seat = self.all[index]
        if (
            seat is not None
            and seat.player is not None
            and self._by_player.get(seat.player) is seat
        ):
            del self._by_player[seat.player]
        self.all[index] = None

    def remove_bot(self, index: int) -> None:
        """Empty seat ``index`` of its bot; ``bad_seat`` if it holds none."""
        seat = self.all[index] if 0 <= index < len(self.all) else None
        if seat is None or seat.state is not SeatState.BOT:
            raise ProtocolError(ErrorCode.BAD_SEAT, f"seat {index} holds no bot")
        self.all[index] = None

    def records(self) -> list[Message]:
        """The taken seats as persisted."""
        return [seat.to_record() for seat in self]

    def layout(self) -> list[Message | None]:
        """Every seat as persisted, None for a free one (a waiting room's table)."""
        return [None if seat is None else seat.to_record() for seat in self.all]

    def wire(self, connected: Callable[[str], bool]) -> tuple[SeatInfo | None, ...]:
        """The seats as the ``room`` message shows them."""
        return tuple(
            None
            if seat is None
            else seat.info(
                seat.state is SeatState.BOT
                or (seat.player is not None and not seat.left and connected(seat.player))
            )
            for seat in self.all
        )

    @classmethod
    def from_records(cls, records: list[Message]) -> Seats:
        """The seats of a stored game."""
        return cls.from_layout(list(records))

    @classmethod
    def from_layout(cls, layout: list[Message | None]) -> Seats:
        """Inverse of :meth:`layout`."""
        seats = cls(len(layout))
        seats.all = [
            None if record is None else Seat.from_record(index, record)
            for index, record in enumerate(layout)
        ]
        seats._by_player = {seat.player: seat for seat in seats if seat.player is not None}
        return seats
