"""What the client knows about the room it is in: the server's typed messages the screens
render from.

The app updates one :class:`RoomState` per joined room as messages arrive, so a screen that is
mounted late (the table after the first ``state``, the game-over dialog) can draw everything at
once instead of depending on having seen each message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.game_types import Card, Event
from protocol.server_messages import GameOverMessage, RoomMessage, SeatInfo
from protocol.view_types import View
from selfish_tui import clock
from selfish_tui.choice_keys import KeyRing
from selfish_tui.event_text import render_event
from selfish_tui.i18n import _
from selfish_tui.model import renamed
from selfish_tui.replay import Replay
from selfish_tui.since import SinceLastTurn


@dataclass
class LogEntry:
    """One line of the log: an event kind ('chat' for chat), for a line of the client's own its
    text (chat as typed, a notice in the active language) and for chat who said it, and for a
    game event the event itself (key and args), from which the line is said in the client's
    language when it is drawn."""

    kind: str
    text: str = ""
    speaker: str | None = None
    event: Event | None = None


# The client's own lines, which a replay of the game's log does not hold: chat, and the notice
# a spectator reads once about their chat.
KEPT = ("chat", "notice")


def bot_name(entry: SeatInfo | None) -> str | None:
    """A seat's name in the client's language when the server named its bot "Bot N"
    (``bot_number``, protocol/PROTOCOL.md "room"), else None: never read from the name, which
    a human may choose too."""
    if entry is not None and entry.bot_number is not None:
        return _("Bot {number}").format(number=entry.bot_number)
    return None


def seat_name(entry: SeatInfo | None) -> str:
    """A seat's name as shown: a server bot's in the client's language, else its own."""
    return bot_name(entry) or (entry.name if entry is not None else "?")


def localise_view(view: View, info: RoomMessage | None) -> View:
    """``view`` with the server bots' names in the client's language (a copy; the choices, which
    go back to the server by their place in the list, are untouched)."""
    named = {
        entry.seat: name
        for entry in (info.seats if info is not None else ())
        if entry is not None and (name := bot_name(entry)) is not None
    }
    return renamed(view, named)


def with_chat(log: list[LogEntry], history: list[LogEntry]) -> list[LogEntry]:
    """``history`` (a replay of the game's lines, after a reconnect, a resume or a rematch)
    with the chat lines of ``log`` put back after the line they followed when they were said.

    The server replays the game's lines (perhaps only the latest ones) but not chat, which the
    client alone kept. A replay that does not continue ``log`` (a new game) gets the chat first.
    """
    game = [entry for entry in log if entry.kind not in KEPT]
    start = _replay_start(game, history)
    out: list[LogEntry] = []
    before = 0  # game lines of ``log`` before the next chat line
    taken = 0  # lines of ``history`` already in ``out``
    for entry in log:
        if entry.kind not in KEPT:
            before += 1
            continue
        upto = max(taken, min(before - start, len(history)))
        out.extend(history[taken:upto])
        taken = upto
        out.append(entry)
    out.extend(history[taken:])
    return out


def _replay_start(game: list[LogEntry], history: list[LogEntry]) -> int:
    """Where ``history`` starts in ``game``: the first index from which the two agree for as
    long as both go on (``len(game)`` when they never do)."""
    if not history:
        return len(game)
    for start, entry in enumerate(game):
        if entry == history[0] and all(a == b for a, b in zip(game[start:], history, strict=False)):
            return start
    return len(game)


@dataclass
class RoomState:
    """A joined room: our role and seat, the latest room info, view, log, timers and result."""

    code: str
    role: str = "player"
    seat: int | None = None
    edition: str = "space"
    info: RoomMessage | None = None  # the latest ``room`` message
    we_host: bool = False  # the room's host is our player id
    view: View | None = None  # the latest view, bots' names in the client's language
    raw_view: View | None = None  # the same as the server sent it
    version: int = 0
    log: list[LogEntry] = field(default_factory=list)
    timers: dict[int, float] = field(default_factory=dict)
    timers_at: float = 0.0
    timers_version: int = -1
    # The countdowns before a bot takes a seat (``timer.grace``): (seat, reason, seconds).
    grace: list[tuple[int, str, float]] = field(default_factory=list)
    game_over: GameOverMessage | None = None
    result_shown: bool = False
    since: SinceLastTurn = field(default_factory=SinceLastTurn)  # for "since your last turn"
    keys: KeyRing = field(default_factory=KeyRing)  # which key stands for which card
    spectator_told: bool = False  # the spectator has read where their chat goes
    # Every game card seen by id (hand, revealed hand, discard pile): a bot's choice in the log
    # names its cards by id, and they may have left the hand since.
    cards_seen: dict[int, Card] = field(default_factory=dict)
    # The finished game re-played from its record (selfish_tui.replay.Replay), once fetched:
    # the game-over screen's hands and summaries, and the viewer's "watch again".
    replay: Replay | None = None

    @property
    def status(self) -> str:
        """'waiting', 'playing' or 'over' (from the last room message)."""
        return self.info.status if self.info is not None else "waiting"

    @property
    def is_host(self) -> bool:
        """Whether the server says we host this room (set by the app from the player id)."""
        return self.we_host

    @property
    def variants(self) -> list[str]:
        """The room's rule variants (RULES V)."""
        return list(self.info.variants) if self.info is not None else []

    @property
    def over(self) -> bool:
        """Whether the latest view is of a finished game."""
        return self.view is not None and self.view.public.over

    def seconds_left(self, seat: int | None) -> float | None:
        """Seconds left on a seat's timer, counted from when the timer message arrived."""
        if seat is None or seat not in self.timers or self.timers_version != self.version:
            return None
        return max(0.0, self.timers[seat] - (clock.now() - self.timers_at))

    def takeovers(self) -> list[tuple[int, str, float]]:
        """(seat, reason, seconds left) of each countdown before a bot takes a seat (reason
        ``left`` or ``idle``), soonest first; none once the version they came with is gone."""
        if self.timers_version != self.version or self.over:
            return []
        elapsed = clock.now() - self.timers_at
        left = [(seat, reason, max(0.0, seconds - elapsed)) for seat, reason, seconds in self.grace]
        return sorted(left, key=lambda entry: (entry[2], entry[0]))

    def presence(self) -> dict[int, str]:
        """Seat -> 'away' / 'offline' / 'bot' / 'left' / 'here', from the room's seat list."""
        marks: dict[int, str] = {}
        for entry in self.info.seats if self.info is not None else ():
            if entry is None:
                continue
            if entry.left:
                marks[entry.seat] = "left"
            elif entry.away:
                marks[entry.seat] = "away"
            elif entry.kind == "bot":
                marks[entry.seat] = "bot"
            elif not entry.connected:
                marks[entry.seat] = "offline"
            else:
                marks[entry.seat] = "here"
        return marks

    def set_view(self, view: View) -> None:
        """Keep a view from the server, and the same with the bots' names localised."""
        self.raw_view = view
        self.view = localise_view(view, self.info)
        own = view.own
        decision = own.decision if own is not None else None
        top = view.public.discard_top
        for card in (
            *(() if top is None else (top,)),
            *(decision.reveal if decision is not None else ()),
            *(own.hand if own is not None else ()),
        ):
            self.cards_seen[card.id] = card

    def relocalise(self) -> None:
        """Say the bots' names again (the language or the seat list changed)."""
        if self.raw_view is not None:
            self.view = localise_view(self.raw_view, self.info)

    def names(self) -> list[str]:
        """The seats' names: the view's, else the room's seat list's."""
        if self.view is not None and self.view.public.names:
            return list(self.view.public.names)
        return [seat_name(entry) for entry in (self.info.seats if self.info is not None else ())]

    def line(self, entry: LogEntry) -> str:
        """A log entry's text in the active language (a game event's rendered from its key and
        args)."""
        if entry.event is None:
            return entry.text
        return render_event(entry.event, self.names(), self.edition, self.cards_seen)

    def in_progress(self) -> bool:
        """True while a game we sit in is running (quitting then needs a confirmation)."""
        return self.view is not None and not self.view.public.over and self.role == "player"


def room_players(room: RoomState) -> list[tuple[str, str | None, str | None]]:
    """The room's filled seats as (name shown, player id or None, bot level or None): whose
    profile can be opened from the room (a guest has none)."""
    seats = room.info.seats if room.info is not None else ()
    return [
        (seat_name(entry), entry.player, entry.level if entry.kind == "bot" else None)
        for entry in seats
        if entry is not None
    ]
