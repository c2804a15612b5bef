"""``selfish bot``: a headless client that plays through the protocol, for load tests and demos.

    selfish bot HOST[:PORT][,HOST[:PORT]...]
                (--create EDITION --seats N [--server-bots M] | --room CODE)
                [--level random|basic|expert] [--budget SECONDS] [--games K] [--name NAME]

It speaks only the wire protocol (its decisions come from the engine's bot functions applied to
the view it receives, exactly as a remote program would). With ``--create`` it opens a room with
``autostart``, so the game begins when the table is full, and it asks for a rematch after each
game while it is the host. After every game it hands the game's :class:`GameResult` to
``on_result`` (the selfish CLI prints it in the player's language, selfish_tui/reports.py) and
it exits 0 after K games. If the connection
drops (server restart) it reconnects with its token and carries on (a leave whose answer the
lost connection took is sent again).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.client import (
    Bye,
    ClientConnection,
    Error,
    Event,
    GameOver,
    Joined,
    Moved,
    RemoteProtocolError,
    RoomUpdate,
    Said,
    State,
    Welcome,
)
from protocol.messages import (
    Act,
    CreateRoom,
    JoinRoom,
    LeaveRoom,
    Ping,
    Rematch,
    Request,
    Sync,
)
from server.config import DEFAULT_PORT

Message = dict[str, Any]

#: Reconnect backoff: the first retry after about this many seconds, doubling up to RETRY_MAX.
RETRY_FIRST = 0.1
RETRY_MAX = 2.0

#: Errors that are part of normal play and need no reaction (a newer state is on its way).
BENIGN = frozenset({"stale_version", "not_your_turn", "game_over"})


def _left(event: Event) -> bool:
    """Whether ``event``, the answer to a ``leave_room``, says the bot is out of the room:
    ``ok``, or ``no_such_room`` (it is not a member: a leave sent again after a reconnect,
    whose first answer the lost connection took). A ``moved`` sends it to the room's node
    to leave there."""
    if isinstance(event, Error):
        return event.code == "no_such_room"
    return not isinstance(event, Moved)


class BotError(Exception):
    """The bot cannot go on (refused by the server, or the server is gone for good)."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (IPv6 literals in brackets) -> (host, port)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else DEFAULT_PORT
    if text.count(":") == 1:
        host, port = text.split(":")
        return host, int(port)
    return text, DEFAULT_PORT


@dataclass
class GameResult:
    """One finished game, as announced by ``game_over``."""

    room: str
    game: int
    winner: int | None
    winner_name: str | None
    turns: int


@dataclass
class CreateSpec:
    """What room to create."""

    edition: str
    seats: int
    server_bots: int = 0
    timer: int = 0
    public: bool = True
    seed: int | None = None


@dataclass
class HeadlessBot:
    """A protocol client that plays one seat with an engine bot until ``games`` games end.

    ``frames`` records every message received when ``record`` is set (tests inspect it).
    ``on_result`` receives each finished game; ``on_room`` the room code once known.
    """

    host: str
    port: int
    name: str = "bot"
    level: str = "basic"
    seconds: float | None = None  # an expert's search time per decision (None: its default)
    create: CreateSpec | None = None
    room: str | None = None
    games: int = 1
    reconnect: float = 15.0  # seconds to keep trying after the connection drops
    record: bool = False
    act_delay: float = 0.0  # think time before each act
    max_rate: float = 15.0  # acts per second at most: stays under the server's default limit
    on_result: Callable[[GameResult], None] | None = None
    on_room: Callable[[str], None] | None = None
    seed: int | None = None

    # the server's other addresses (a cluster's nodes): a lost connection tries the next
    others: tuple[tuple[str, int], ...] = ()
    token: str | None = None
    player: str | None = None
    seat: int | None = None
    host_id: str | None = None
    results: list[GameResult] = field(default_factory=list)
    frames: list[Message] = field(default_factory=list)
    connections: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._acted: int | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._conn = ClientConnection()
        self._done = False
        self._last_act = 0.0
        self._welcomed = False  # the current connection got a welcome (resets the backoff)
        self._moved = False  # the connection ended to follow a ``moved`` (no backoff)
        self._rejoin = False  # ... and the join it answered is to be made again there
        # The room of a leave_room sent and not answered yet: a connection lost meanwhile
        # took its answer, or the request itself, with it; it is sent again after the
        # reconnect, so that the bot finishes leaving.
        self._leaving: str | None = None

    # ------------------------------------------------------------------ plumbing

    def send(self, request: Request) -> None:
        """Send one request (the connection gives it a fresh id)."""
        if self._writer is None or self._writer.is_closing() or self._conn.closed:
            return
        self._conn.send(request)
        self._writer.write(self._conn.data_to_send())

    async def run(self) -> list[GameResult]:
        """Play until ``games`` games have ended; return their results."""
        deadline: float | None = None
        backoff = RETRY_FIRST
        loop = asyncio.get_running_loop()
        while not self._done:
            try:
                await self._session()
                deadline = None
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                if not self.connections and not self.others:
                    raise  # never reached the server: nothing to resume
                self._next_address()
            if self._done:
                break
            if self._moved:  # another node of the cluster runs the room: go there now
                self._moved = False
                continue
            if self._welcomed:  # the last connection got in: start the backoff afresh
                self._welcomed = False
                backoff = RETRY_FIRST
            # Lost the connection (server restart?): come back with the token, backing off
            # (with jitter, so that a restarted server is not hit by every client at once).
            if deadline is None:
                deadline = loop.time() + self.reconnect
            if loop.time() > deadline:
                raise BotError("lost the connection to the server")
            await asyncio.sleep(backoff * random.uniform(0.5, 1.0))
            backoff = min(RETRY_MAX, backoff * 2)
        return self.results

    def _next_address(self) -> None:
        """Connect to the next of the server's addresses next time (if it has others)."""
        if self.others:
            here = (self.host, self.port)
            (self.host, self.port), self.others = self.others[0], (*self.others[1:], here)

    async def _session(self) -> None:
        # a name that resolves to several addresses tries the next if one does not answer
        reader, writer = await asyncio.open_connection(
            self.host, self.port, happy_eyeballs_delay=0.5
        )
        self._writer = writer
        self.connections += 1
        self._acted = None  # an act lost with the old connection must be sent again
        self._conn = ClientConnection(token=self.token)
        self._conn.hello(self.name)
        writer.write(self._conn.data_to_send())
        try:
            while not self._done:
                try:
                    data = await asyncio.wait_for(reader.read(1 << 16), 20.0)
                except TimeoutError:
                    self.send(Ping())
                    continue
                try:
                    # one event at a time: each is handled before the next is made
                    for event in self._conn.receive_data(data):
                        if self.record and isinstance(event, Said):
                            self.frames.append(event.message.to_wire())
                        await self._on_event(event)
                        if self._done or self._moved:
                            break
                except RemoteProtocolError as exc:
                    raise ConnectionError(f"the server broke the protocol: {exc}") from exc
                if self._conn.closed or self._moved:
                    return
        finally:
            writer.close()
            self._writer = None

    # ------------------------------------------------------------------ behaviour

    async def _on_event(self, event: Event) -> None:
        request = event.request
        if isinstance(request, LeaveRoom) and _left(event):
            self._leaving = None
            self._done = True
            return
        if isinstance(event, Welcome):
            self._welcomed = True
            self.token, self.player = event.token, event.player
            if self._leaving is not None:  # the leave's answer was lost: leave again
                self._rejoin = False
                self.send(LeaveRoom(room=self._leaving))
            elif not event.resumed or (self.seat is None and self.room is None) or self._rejoin:
                self._rejoin = False
                self._enter_room()
        elif isinstance(event, Joined):
            self.room, self.seat = event.room, event.seat
            if self.on_room is not None:
                self.on_room(event.room)
        elif isinstance(event, RoomUpdate):
            self.host_id = event.message.host
        elif isinstance(event, State):
            await self._on_state(event)
        elif isinstance(event, GameOver):
            self._on_game_over(event)
        elif isinstance(event, Error):
            if event.code == "rate_limited":
                # The request was dropped: back off, then redo it (an act is redone from a
                # fresh state, since the game may have moved on).
                await asyncio.sleep(0.5)
                if request is None or isinstance(request, Act):
                    self._acted = None
                    if self.room is not None:
                        self.send(Sync(room=self.room))
                else:
                    self.send(request)
            elif event.code not in BENIGN:
                raise BotError(f"server refused: {event.code}: {event.text}")
        elif isinstance(event, Moved):
            # The room is run by another node of the cluster: go there with our token. Asked
            # (a join) the request is made again there; unasked (after hello), that node
            # hands our seat back.
            here, there = (self.host, self.port), parse_address(event.address)
            self.others = tuple(dict.fromkeys(a for a in (*self.others, here) if a != there))
            self.host, self.port = there
            self.room = event.room
            self._moved = True
            self._rejoin = request is not None
        elif isinstance(event, Bye) and event.reason == "replaced":
            raise BotError("replaced by another connection with the same token")

    def _enter_room(self) -> None:
        if self.create is not None and self.room is None:
            spec = self.create
            self.send(
                CreateRoom(
                    edition=spec.edition,
                    seats=spec.seats,
                    bots=spec.server_bots,
                    bot_level=self.level,
                    timer=spec.timer,
                    public=spec.public,
                    autostart=True,
                    seed=spec.seed,
                )
            )
        elif self.room is not None:
            self.send(JoinRoom(room=self.room, as_="player"))
        else:
            raise BotError("nothing to do: give a room to create or join")

    async def _on_state(self, state: State) -> None:
        from server.bots.levels import choose  # lazy so --help stays fast

        # The engine's bots read a view in its wire form, and choose one of its legal choices.
        view = state.view.to_wire()
        version = state.version
        if not view["legal"] or version == self._acted:
            return
        self._acted = version
        loop = asyncio.get_running_loop()
        wait = max(self.act_delay, self._last_act + 1.0 / self.max_rate - loop.time())
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_act = loop.time()
        if self.level == "expert":  # a search: in a thread, so the connection stays served
            from dataclasses import replace

            from server.bots.budget import DEFAULT_BUDGET

            budget = replace(DEFAULT_BUDGET, seconds=self.seconds or DEFAULT_BUDGET.seconds)
            choice = await asyncio.to_thread(choose, self.level, view, self._rng, budget)
        else:
            choice = choose(self.level, view, self._rng)
        self.send(Act(room=state.room, version=version, choice=view["legal"].index(choice)))

    def _on_game_over(self, over: GameOver) -> None:
        result = GameResult(over.room, over.game, over.winner, over.winner_name, over.turns)
        self.results.append(result)
        if self.on_result is not None:
            self.on_result(result)
        if len(self.results) >= self.games:
            # Leave politely; the run ends when the server confirms (see _on_event), sent
            # again after a reconnect until it does.
            self._leaving = over.room
            self.send(LeaveRoom(room=over.room))
        elif self.host_id == self.player:
            self.send(Rematch(room=over.room))
