"""A finished game to watch: its record, re-played by the engine, read from any seat's view.

:func:`from_reply` and :func:`read_file` give a game's record (protocol/replay_file.py
``ReplayFile``: setup, decisions, result, final-state check) from the server's ``replay`` reply
or an exported file. :func:`open_replay` re-plays it with the engine (through
selfish_tui/local.py, the one module of the client that imports the server package) and gives a
:class:`Replay`: the board after each decision as a seat saw it then, or with everything
revealed (every hand, the draw pile in the order it came), and the log as each reader read it.

Every string of a record (names above all) comes from the network or a file: the record is
cleaned (selfish_tui.plain) before anything reads it.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from typing import Any

from protocol import replay_file
from protocol.errors import MalformedMessage
from protocol.game_types import Card, Choice, Event
from protocol.replay_file import ReplayFile
from protocol.server_messages import ReplayMessage
from protocol.view_types import View
from selfish_tui.i18n import _
from selfish_tui.model import renamed
from selfish_tui.plain import clean

#: The perspective that sees everything (every hand, the draw pile); a seat number sees what
#: that seat knew.
REVEALED = None

Perspective = int | None


class BadRecord(ValueError):
    """A record that cannot be watched: one sentence for a person, in the active language."""


def from_reply(reply: ReplayMessage, server: str | None = None) -> ReplayFile:
    """The record in a ``replay`` reply (protocol/PROTOCOL.md §5) from ``server`` (the client
    library has read it and cleaned its strings)."""
    return replay_file.from_replay(reply, server)


def read_file(text: str | bytes) -> ReplayFile:
    """The record an export file holds (protocol/replay_file.py), its names cleaned as any
    string from outside is; :class:`BadRecord` for a file that is not one."""
    try:
        record = replay_file.read(text)
    except replay_file.ReplayFileError as exc:
        raise BadRecord(_("not a replay file: {error}").format(error=exc)) from None
    seats = [dataclasses.replace(seat, name=clean(seat.name)) for seat in record.seats]
    return dataclasses.replace(record, seats=seats, room=clean(record.room or "") or None)


def open_replay(record: ReplayFile) -> Replay:
    """Re-play ``record`` with the engine and check it against its final-state digest;
    :class:`BadRecord` (saying why) when it does not lead to the game it describes."""
    from selfish_tui import local

    try:
        replayer = local.Replayer(
            record.edition,
            record.names,
            record.seed,
            [list(pair) for pair in record.decisions],
            record.variants,
            check=record.digest,
            rules=record.rules,
        )
    except local.ReplayRefused as exc:
        raise BadRecord(str(exc)) from None
    if replayer.winner != record.winner:
        raise BadRecord(
            _("the replay's winner is not the one its decisions lead to: it was changed")
        )
    return Replay(record, replayer)


class Replay:
    """A re-played game, one frame per moment (frame 0: the start; frame k: after k decisions).

    ``replayer`` is :class:`selfish_tui.local.Replayer` (or anything with its methods).
    """

    def __init__(self, record: ReplayFile, replayer: Any) -> None:
        self.record = record
        self._replayer = replayer
        self.frames = len(replayer)
        self.turn_of: list[int] = list(replayer.turns)
        self.cards: dict[int, Card] = {
            number: Card.from_wire(card) for number, card in replayer.cards.items()
        }
        # Where each turn begins: the first frame that stands in it.
        self.turn_starts: dict[int, int] = {}
        for index, turn in enumerate(self.turn_of):
            self.turn_starts.setdefault(turn, index)
        self._events: list[tuple[list[int] | None, Event, Event | None]] | None = None
        self._frame_of_event: list[int] = []
        self._views: dict[tuple[int, Perspective], View] = {}

    @property
    def names(self) -> list[str]:
        """The seats' names, in seat order, as shown: a server bot's in the client's language
        (as the live game says it)."""
        return [self._bots.get(index, name) for index, name in enumerate(self.record.names)]

    @property
    def _bots(self) -> dict[int, str]:
        """The seats the server's bots held under the names it gives them ("Bot N", which no
        person may take), named in the active language."""
        out = {}
        for index, seat in enumerate(self.record.seats):
            number = seat.name.removeprefix("Bot ")
            if seat.kind == "bot" and number != seat.name and number.isdigit():
                out[index] = _("Bot {number}").format(number=int(number))
        return out

    @property
    def bot_levels(self) -> dict[int, str]:
        """The level of each seat a server bot held, by seat."""
        return {
            index: seat.level
            for index, seat in enumerate(self.record.seats)
            if seat.kind == "bot" and seat.level is not None
        }

    @property
    def seats(self) -> int:
        """How many seats the game had."""
        return len(self.record.names)

    @property
    def last(self) -> int:
        """The last frame (the end of the game)."""
        return self.frames - 1

    @property
    def winner(self) -> int | None:
        """The seat that won, or None."""
        return self._replayer.winner  # type: ignore[no-any-return]

    @property
    def final(self) -> dict[str, Any]:
        """The engine's snapshot of the game's last state (every secret included)."""
        return self._replayer.final  # type: ignore[no-any-return]

    def decision(self, index: int) -> tuple[int, dict[str, Any]] | None:
        """The decision taken from frame ``index`` (seat, choice wire map), None at the end."""
        if 0 <= index < len(self.record.decisions):
            return self.record.decisions[index]
        return None

    def choice(self, index: int) -> tuple[int, Choice] | None:
        """The decision taken from frame ``index`` as the seat's typed choice, None at the end
        (or for a choice this client cannot read)."""
        decision = self.decision(index)
        if decision is None:
            return None
        try:
            return decision[0], Choice.from_wire(decision[1])
        except MalformedMessage:
            return None

    def view(self, index: int, perspective: Perspective) -> View:
        """The view at frame ``index``: a seat's own (what it knew then, its choices then), or
        with :data:`REVEALED` the spectator's (the hands and the draw pile: :meth:`hands`,
        :meth:`draw_order`)."""
        bots = self._bots
        known = self._views.get((index, perspective))
        if known is None:
            frame = self._replayer.frame(index)
            wire = dict(frame["public"])
            if perspective is not None:
                wire.update(frame["seats"][perspective])
            known = self._views[(index, perspective)] = View.from_wire(wire)
        # The bots' names in the language shown now (it can change while the viewer is open).
        return renamed(known, bots)

    def hands(self, index: int) -> list[tuple[Card, ...]]:
        """Every seat's hand at frame ``index``."""
        frame = self._replayer.frame(index)
        return [tuple(self.cards[card] for card in hand) for hand in frame["hands"]]

    def draw_order(self, index: int) -> tuple[Card, ...]:
        """The draw pile at frame ``index``, the next card first."""
        frame = self._replayer.frame(index)
        return tuple(self.cards[card] for card in frame["draw"])

    def _all_events(self) -> list[tuple[list[int] | None, Event, Event | None]]:
        if self._events is None:
            self._events = []
            for index in range(self.frames):
                batch = self._replayer.events(index, index + 1)
                for entry in batch:
                    public = entry["public"]
                    self._events.append(
                        (
                            entry["to"],
                            Event.from_wire(entry["full"]),
                            None if public is None else Event.from_wire(public),
                        )
                    )
                self._frame_of_event.extend([index] * len(batch))
        return self._events

    def events(self, start: int, end: int, perspective: Perspective) -> list[Event]:
        """The events frames ``start`` .. ``end - 1`` set off, as ``perspective`` read them
        (a seat reads what it was told; :data:`REVEALED` reads every event whole)."""
        out = []
        events = self._all_events()
        frames = self._frame_of_event
        # The events are in frame order: find the span by bisection.
        first, stop = bisect_left(frames, start), bisect_left(frames, end)
        for to, full, public in events[first:stop]:
            shown = full if perspective is None or to is None or perspective in to else public
            if shown is not None:
                out.append(shown)
        return out

    def event_counts(self) -> list[int]:
        """How many events (revealed) each frame set off, for the turns' timeline."""
        counts = [0] * self.frames
        self._all_events()
        for index in self._frame_of_event:
            counts[index] += 1
        return counts

    def turn_events(self, perspective: Perspective) -> dict[int, list[Event]]:
        """Every turn's events as ``perspective`` read them, by turn number: an event belongs
        to the turn whose ``turn`` line came last before it (the deal to the first turn)."""
        turn = self.turn_of[0]
        out: dict[int, list[Event]] = {turn: []}
        for event in self.events(0, self.frames, perspective):
            number = event.args.get("turn")
            if event.key == "turn" and isinstance(number, int):
                turn = number
            out.setdefault(turn, []).append(event)
        return out

    def frame_of_turn(self, turn: int) -> int:
        """The first frame of ``turn`` (the nearest turn there is, for one out of range)."""
        turns = sorted(self.turn_starts)
        if turn <= turns[0]:
            return self.turn_starts[turns[0]]
        if turn >= turns[-1]:
            return self.turn_starts[turns[-1]]
        return self.turn_starts.get(turn, 0)
