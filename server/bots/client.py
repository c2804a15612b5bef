"""``selfish bot``: a headless client that plays through the protocol, for load tests and demos.

    selfish bot HOST[:PORT] (--create EDITION --seats N [--server-bots M] | --room CODE)
                [--level random|basic|expert] [--budget SECONDS] [--games K] [--name NAME]

It speaks only the wire protocol (its decisions come from the engine's bot functions applied to
the view it receives, exactly as a remote program would). With ``--create`` it opens a room with
``autostart``, so the game begins when the table is full, and it asks for a rematch after each
game while it is the host. After every game it prints
``game ROOM finished: winner NAME after T turns`` and exits 0 after K games. If the connection
drops (server restart) it reconnects with its token and carries on.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.client import (
    Bye,
    ClientConnection,
    ConnectionClosed,
    Error,
    Event,
    GameOver,
    Joined,
    RemoteProtocolError,
    RoomUpdate,
    State,
    Welcome,
)
from protocol.messages import (
    BOT_LEVELS,
    EDITIONS,
    MAX_SEATS,
    MIN_SEATS,
    TIMERS,
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


class BotError(Exception):
    """The bot cannot go on (refused by the server, or the server is gone for good)."""


@dataclass
class GameResult:
    """One finished game, as announced by ``game_over``."""

    room: str
    game: int
    winner: int | None
    winner_name: str | None
    turns: int

    def line(self) -> str:
        """The line ``selfish bot`` prints."""
        return (
            f"game {self.room} finished: winner {self.winner_name or 'none'} "
            f"after {self.turns} turns"
        )


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
    ``on_line`` receives the per-game lines; ``on_room`` the room code once known.
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
    on_line: Callable[[str], None] | None = None
    on_room: Callable[[str], None] | None = None
    seed: int | None = None

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
                if not self.connections:
                    raise  # never reached the server: nothing to resume
            if self._done:
                break
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

    async def _session(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
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
                        if self.record and not isinstance(event, ConnectionClosed):
                            self.frames.append(event.message)
                        await self._on_event(event)
                        if self._done:
                            break
                except RemoteProtocolError as exc:
                    raise ConnectionError(f"the server broke the protocol: {exc}") from exc
                if self._conn.closed:
                    return
        finally:
            writer.close()
            self._writer = None

    # ------------------------------------------------------------------ behaviour

    async def _on_event(self, event: Event) -> None:
        request = event.request
        if isinstance(request, LeaveRoom) and not isinstance(event, Error):
            self._done = True
            return
        if isinstance(event, Welcome):
            self._welcomed = True
            self.token, self.player = event.token, event.player
            if not event.resumed or (self.seat is None and self.room is None):
                self._enter_room()
        elif isinstance(event, Joined):
            self.room, self.seat = event.room, event.seat
            if self.on_room is not None:
                self.on_room(event.room)
        elif isinstance(event, RoomUpdate):
            self.host_id = event.message.get("host")
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

        view = state.view
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
            from server.bots.expert import DEFAULT_BUDGET, Budget

            budget = Budget(DEFAULT_BUDGET.rollouts, self.seconds or DEFAULT_BUDGET.seconds)
            choice = await asyncio.to_thread(choose, self.level, view, self._rng, budget)
        else:
            choice = choose(self.level, view, self._rng)
        self.send(Act(room=state.room, version=version, choice=choice))

    def _on_game_over(self, over: GameOver) -> None:
        result = GameResult(over.room, over.game, over.winner, over.winner_name, over.turns)
        self.results.append(result)
        if self.on_line is not None:
            self.on_line(result.line())
        if len(self.results) >= self.games:
            # Leave politely; the run ends when the server confirms (see _on_message).
            self.send(LeaveRoom(room=over.room))
        elif self.host_id == self.player:
            self.send(Rematch(room=over.room))


# ---------------------------------------------------------------------- command line


def parse_address(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (IPv6 literals in brackets) -> (host, port)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else DEFAULT_PORT
    if text.count(":") == 1:
        host, port = text.split(":")
        return host, int(port)
    return text, DEFAULT_PORT


def _seconds(text: str) -> float:
    """A positive number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("seconds must be above 0 and at most 60")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``selfish bot`` argument parser."""
    p = argparse.ArgumentParser(
        prog="selfish bot", description="A headless client that plays through the protocol."
    )
    p.add_argument("address", metavar="HOST[:PORT]", help=f"server (default port {DEFAULT_PORT})")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--create",
        metavar="EDITION",
        choices=EDITIONS,
        help="create a room of this edition (space or shipwrecked)",
    )
    what.add_argument("--room", metavar="CODE", help="join this room as a player")
    p.add_argument(
        "--seats",
        type=int,
        default=2,
        choices=range(MIN_SEATS, MAX_SEATS + 1),
        help="table size with --create (default 2)",
    )
    p.add_argument(
        "--server-bots",
        type=int,
        default=0,
        metavar="M",
        help="with --create: seats the server fills with its own bots",
    )
    p.add_argument("--timer", type=int, default=0, choices=TIMERS, help="turn timer, seconds")
    p.add_argument("--level", choices=BOT_LEVELS, default="basic", help="how this bot plays")
    p.add_argument(
        "--budget",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="with --level expert: search time per decision (default 0.3)",
    )
    p.add_argument("--games", type=int, default=1, metavar="K", help="games to play (default 1)")
    p.add_argument("--name", default=None, help="player name (default bot-NNNN)")
    p.add_argument("--delay", type=float, default=0.0, help="think time per decision, seconds")
    p.add_argument(
        "--max-rate",
        type=float,
        default=15.0,
        help="decisions per second at most (default 15, under the server's limit)",
    )
    return p


def bot_main(argv: list[str]) -> int:
    """Entry point of ``selfish bot``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        host, port = parse_address(args.address)
    except ValueError:
        print(f"selfish bot: bad address {args.address!r}", file=sys.stderr)
        return 2
    if args.create and not 0 <= args.server_bots < args.seats:
        print("selfish bot: --server-bots must be 0 .. seats-1", file=sys.stderr)
        return 2
    create = (
        CreateSpec(args.create, args.seats, args.server_bots, args.timer) if args.create else None
    )
    bot = HeadlessBot(
        host,
        port,
        name=args.name or f"bot-{random.randrange(10_000):04d}",
        level=args.level,
        seconds=args.budget,
        create=create,
        room=args.room.upper() if args.room else None,
        games=max(1, args.games),
        act_delay=args.delay,
        max_rate=max(0.1, args.max_rate),
        on_line=lambda line: print(line, flush=True),
        on_room=(lambda code: print(f"room {code}", file=sys.stderr, flush=True)),
    )
    try:
        asyncio.run(bot.run())
    except BotError as exc:
        print(f"selfish bot: {exc}", file=sys.stderr)
        return 1
    except (ConnectionError, OSError) as exc:
        print(f"selfish bot: cannot reach {host}:{port}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
