"""Load benchmark: a real ``selfish-server`` under N protocol clients, against a bare baseline.

    python bench/load.py [--clients N] [--seconds S] [--think MS] [--json]
                         [--procs P] [--drain D] [--baseline-seconds B] [--no-baseline]
                         [--baseline-uvloop] [--server-no-uvloop] [--lockstep]
                         [--rounds R]

Starts ``selfish-server`` on 127.0.0.1 (a subprocess with its own temporary SQLite database and a
temporary ``--config`` TOML that lets one address open N connections and lifts the rate limits),
connects N headless protocol clients (asyncio, spread over P client processes) in 4-seat rooms,
and plays games back to back: each client acts ``--think`` ms after a state that gives it a
choice arrives (a newer state restarts the wait), picking one of ``view.legal`` at random.
The tables open spread evenly over the first think time (not all in the same millisecond;
``--lockstep`` opens them together, a worst case that a fixed think time keeps in step).
Rematches start new games for ``--seconds``; then the games in progress play to their end
(at most ``--drain`` more seconds) and everything stops.

Reported: decisions/second (acts answered by their state, sent within the window), act->state
round trip p50/p99/max in ms, errors (error frames other than the stale_version races of
simultaneous decisions, which are counted apart, plus lost connections), games started and
finished, server CPU seconds (utime+stime from /proc/PID/stat) over the play phase, CPU
microseconds per decision of the server and of the clients, the event loop of the server and of
the clients, and server RSS per
connected client: (RSS with every client connected, welcomed and idle - RSS before they
connect) / N (from the first round). The same load generator then drives
``bench/baseline_server.py`` (a bare asyncio server answering each act with a ~500-byte map to
the 4 members of the room) for ``--baseline-seconds`` and the server's decisions/second is
printed as a ratio of it, and the server's CPU per decision as a multiple of the baseline's,
beside both act->state p99s. The two are measured in turn, ``--rounds`` times each (default 2:
server, baseline, server, baseline), each round taking its share of the windows; the figures
add up over the rounds and the ratio of each round is printed too. On a shared machine the speed
drifts by 10-20% within minutes, and one 20-second window each, one after the other, would let
such a drift land on one side of the ratio only. The baseline runs on the standard asyncio loop
(a bare asyncio broadcast is the floor the server is compared with); ``--baseline-uvloop``
measures it a second time on uvloop (when installed), the loop ``selfish-server`` runs on when
uvloop is installed, so both ratios are printed.
``--server-no-uvloop`` runs ``selfish-server`` on the standard loop (``SELFISH_NO_UVLOOP=1``).
A process's loop is read from /proc/PID/maps (uvloop's extension mapped or not); the clients
use uvloop when it is installed.

Client and server processes share this machine's cores, so the clients are kept cheap: they
speak through the protocol library (``protocol.client.ClientConnection``, which matches replies
to requests and keeps the ok-then-broadcast order) with a decoder that skips what a random player
never reads (``partial_decode``: of a state only room, version and view.legal are built; the
lists of events and timers are skipped unread), whatever order the keys come in, and reads a
state as a :class:`Glance` (how many choices it offers: a random player picks an index).
P defaults to one process per 400 clients, at least 2 and at most 4 and the number of cores.
Measured at ``--think 0 --clients 400`` on 2 cores: with 1 process or 2 both targets keep a
full core and the baseline's figure is the same; with 2 the server's is 3-6% higher (likely
because its acts arrive more bunched, and it commits and flushes once per event-loop tick);
with 4 the client processes take CPU from the target (the baseline's figure drops). The report
gives the CPU the client processes used, so a saturated load generator shows. ``--json``
prints one JSON object as the last line. This script prints figures; it never asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, cast

import msgpack  # type: ignore[import-untyped]
import stalls  # bench/stalls.py (beside this script): where an event loop's stalls come from

from protocol.client import (
    Bye,
    ClientConnection,
    Error,
    Event,
    GameOver,
    Joined,
    Ok,
    RoomUpdate,
    State,
    Welcome,
)
from protocol.messages import Act, CreateRoom, JoinRoom, Rematch
from protocol.server_messages import ServerMessage, StateMessage, read_server
from protocol.view_types import View
from server.engine import Game

HERE = Path(__file__).resolve().parent
HOST = "127.0.0.1"
SEATS = 4
BENIGN = {"stale_version", "not_your_turn"}  # races of simultaneous decisions, not faults
# Values a random player never reads: skipped by partial_decode without building them (a ~3 KB
# state takes several times longer to unpack whole than its room, version and view.legal).
UNREAD = {"events": list, "timers": list}
# The view a Glance stands for: it is never read.
UNREAD_VIEW = View.from_wire(Game("space", ["a", "b"], 0).view(None))
CONNECT_PARALLEL = 64  # connection attempts in flight per client process (listen backlog)
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------------- the server processes


def proc_cpu(pid: int) -> float:
    """utime + stime of ``pid`` in seconds."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of stat(5)


def proc_rss(pid: int) -> int:
    """Resident set size of ``pid`` in bytes."""
    with open(f"/proc/{pid}/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def proc_loop(pid: int) -> str:
    """ "uvloop" if uvloop's extension is mapped into ``pid`` (selfish-server imports it only to
    run on it; the baseline only with --uvloop), else "asyncio" (the standard event loop)."""
    with open(f"/proc/{pid}/maps") as fh:
        return "uvloop" if "/uvloop/loop." in fh.read() else "asyncio"


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """ "uvloop" or "asyncio": the event loop ``loop`` is."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


@dataclass
class Target:
    """A started server process."""

    name: str
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    def stop(self) -> int:
        """SIGTERM, then wait (kill after 15 s); returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start_target(
    name: str, argv: list[str], workdir: Path, marker: str, env: dict[str, str] | None = None
) -> Target:
    """Run ``argv`` with stderr to a log file and wait for ``marker HOST:PORT`` in it."""
    log = workdir / f"{name}.log"
    fh = open(log, "wb")  # noqa: SIM115 - the child keeps writing to it
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=fh, stderr=fh, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if marker in line:
                port = int(line.rsplit(":", 1)[1])
                return Target(name, proc, port, log)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"{name} did not start:\n{log.read_text(errors='replace')}")


def server_argv(workdir: Path, clients: int, settings: tuple[str, ...] = ()) -> list[str]:
    """``selfish-server`` on loopback with limits raised for one address and ``clients``
    identities (every round's clients are new ones), plus ``settings`` (TOML lines such as
    ``db_synchronous = "FULL"``)."""
    if str(HERE.parent) not in sys.path:
        sys.path.append(str(HERE.parent))  # the checkout, for server.config
    from server.config import SHARED_ADDRESS

    config = workdir / "server.toml"
    config.write_text(
        "# bench/load.py: every client comes from 127.0.0.1 and acts as fast as it likes\n"
        f"max_connections = {clients + 64}\n"
        f"max_connections_per_address = {clients + 64}\n"
        f"max_rooms = {clients // SEATS + 64}\n"
        f"max_rooms_per_address = {clients // SEATS + 64}\n"
        f"new_players_burst = {clients + 64}\n"
        "rate_per_second = 100000.0\n"
        "rate_burst = 100000\n"
        + "".join(f"{key} = {value!r}\n" for key, value in SHARED_ADDRESS.items())
        + "idle_timeout = 3600.0\n"
        'log_level = "WARNING"\n' + "".join(f"{line}\n" for line in settings)
    )
    script = shutil.which("selfish-server", path=os.path.dirname(sys.executable))
    command = [script] if script else [sys.executable, "-m", "server.cli"]
    return [
        *command,
        "--host",
        HOST,
        "--port",
        "0",
        "--db",
        str(workdir / "server.sqlite3"),
        "--config",
        str(config),
    ]


def baseline_argv(uvloop: bool = False) -> list[str]:
    """The bare asyncio baseline server (on the standard loop unless ``uvloop``)."""
    argv = [sys.executable, str(HERE / "baseline_server.py"), "--host", HOST, "--port", "0"]
    return [*argv, "--uvloop"] if uvloop else argv


# ---------------------------------------------------------------------- the load generator


@dataclass
class Stats:
    """What one client process measured."""

    latencies: list[float] = field(default_factory=list)  # ms, act -> its state
    decisions_window: int = 0  # acts sent inside the window and answered by their state
    decisions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    benign: Counter[str] = field(default_factory=Counter)
    games_started: int = 0
    games_finished: int = 0
    unfinished: int = 0
    connected: int = 0
    cpu: float = 0.0


def partial_decode(body: bytes) -> dict[str, Any]:
    """A frame body as a message, but with the values a random player never reads left out
    (``UNREAD``: an empty list or map stands in) and of ``view`` only ``legal`` built. Keys are
    read in whatever order they come."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(body)
    out: dict[str, Any] = {}
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key == "view":
            view: dict[str, Any] = {}
            for _ in range(unpacker.read_map_header()):
                if unpacker.unpack() == "legal":
                    view["legal"] = unpacker.unpack()
                else:
                    unpacker.skip()
            out[key] = view
        elif key in UNREAD:
            unpacker.skip()
            out[key] = UNREAD[key]()
        else:
            out[key] = unpacker.unpack()
    return out


@dataclass(frozen=True, kw_only=True)
class Glance(StateMessage):
    """A ``state`` as a random player reads it: how many legal choices it has (its view is
    left unread: ``view`` is a stand-in)."""

    choices: int


def read_glance(message: object) -> ServerMessage:
    """``read_server``, but a state (as ``partial_decode`` leaves it) is read as a Glance."""
    if isinstance(message, dict) and message.get("type") == "state":
        legal = message["view"]["legal"]
        return Glance(
            id=message.get("id"),
            room=message["room"],
            version=message["version"],
            view=UNREAD_VIEW,
            choices=len(legal),
        )
    return read_server(message)


class Client(asyncio.Protocol):
    """One headless player: the protocol library and a random choice from view.legal."""

    def __init__(self, gen: Generator, host: bool) -> None:
        self.gen = gen
        self.host = host
        self.transport: asyncio.Transport | None = None
        self.conn = ClientConnection(decode=partial_decode, read=read_glance)
        self.welcomed: asyncio.Future[None] = gen.loop.create_future()
        self.room: str | None = None
        self.partners: list[Client] = []
        self.state: tuple[str, int, int] | None = None  # room, version, legal choices
        self.timer: asyncio.TimerHandle | None = None
        self.acted: int | None = None  # version of the act awaiting its state
        self.deferred: tuple[str, int, int] | None = None  # a state that came meanwhile
        self.acted_at = 0.0
        self.game_seen: int | None = None
        self.done = False
        self.rng = random.Random(id(self))

    # plumbing
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.gen.closing:
            self.gen.stats.errors["connection_lost"] += 1
            if not self.welcomed.done():
                self.welcomed.set_exception(ConnectionError("lost before welcome"))
            self.finish()

    def send(self, request: Any) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.conn.send(request)
            self.transport.write(self.conn.data_to_send())

    def hello(self, name: str) -> None:
        assert self.transport is not None
        self.conn.hello(name)
        self.transport.write(self.conn.data_to_send())

    def data_received(self, data: bytes) -> None:
        if self.conn.closed:  # a bye came: nothing after it counts
            return
        for event in self.conn.receive_data(data):
            self.handle(event)

    # behaviour
    def handle(self, event: Event) -> None:
        if isinstance(event, State):
            # Until our act's direct reply arrives, states come from other seats' picks (in a
            # simultaneous decision): they neither answer our act nor are acted on again.
            message = event.message
            assert isinstance(message, Glance)
            state = (message.room, message.version, message.choices)
            if self.conn.awaiting(Act):
                self.deferred = state  # acted on if our act is refused (a stale race)
            else:
                self.on_state(*state)
        elif isinstance(event, Ok):
            self.deferred = None  # the act's own state follows
        elif isinstance(event, RoomUpdate):
            room = event.message
            if self.host and room.status == "playing" and room.game != self.game_seen:
                self.game_seen = room.game
                self.gen.stats.games_started += 1
        elif isinstance(event, Welcome):
            self.welcomed.set_result(None)
        elif isinstance(event, Joined):
            self.room = event.room
            if self.host:
                for partner in self.partners:
                    partner.send(JoinRoom(room=self.room, as_="player"))
        elif isinstance(event, GameOver):
            self.on_game_over(event)
        elif isinstance(event, Error):
            if not self.welcomed.done():  # the hello itself was refused: a limit of the run
                self.welcomed.set_exception(ConnectionError(f"hello refused: {event.code}"))
            if event.code in BENIGN:
                self.gen.stats.benign[event.code] += 1
            else:
                self.gen.stats.errors[event.code] += 1
            self.acted = None
            deferred, self.deferred = self.deferred, None
            if isinstance(event.request, Act) and deferred is not None:
                self.on_state(*deferred)
        elif isinstance(event, Bye):
            self.gen.stats.errors["bye"] += 1

    def on_state(self, room: str, version: int, legal: int) -> None:
        gen = self.gen
        if self.acted is not None and version > self.acted:
            now = time.perf_counter()
            gen.stats.latencies.append((now - self.acted_at) * 1000.0)
            gen.stats.decisions += 1
            if self.acted_at <= gen.window_end:
                gen.stats.decisions_window += 1
            self.acted = None
        if self.timer is not None:  # a newer state replaces the one being thought about
            self.timer.cancel()
            self.timer = None
        if legal and not self.done:
            self.state = (room, version, legal)
            if gen.think > 0:
                self.timer = gen.loop.call_later(gen.think, self.act)
            else:
                self.act()

    def act(self) -> None:
        self.timer = None
        state = self.state
        if state is None or self.transport is None:
            return
        self.state = None
        room, version, legal = state
        self.acted = version
        # perf_counter, not loop.time(): uvloop's clock has 1 ms steps and is read once per loop
        # iteration, which would quantise and inflate every round trip
        self.acted_at = time.perf_counter()
        self.send(Act(room=room, version=version, choice=self.rng.randrange(legal)))

    def on_game_over(self, over: GameOver) -> None:
        if not self.host:
            return
        self.gen.stats.games_finished += 1
        if time.perf_counter() < self.gen.window_end:
            self.send(Rematch(room=over.room))
        else:
            self.finish()
            for partner in self.partners:
                partner.finish()

    def finish(self) -> None:
        if not self.done:
            self.done = True
            if self.timer is not None:
                self.timer.cancel()
            if self.host:
                self.gen.rooms_left -= 1
                if self.gen.rooms_left <= 0 and not self.gen.all_done.done():
                    self.gen.all_done.set_result(None)


class Generator:
    """The clients of one process, driven by commands from the parent over a pipe."""

    def __init__(
        self,
        index: int,
        clients: int,
        port: int,
        think: float,
        pipe: Connection,
        edition_offset: int,
    ) -> None:
        self.index = index
        self.count = clients
        self.port = port
        self.think = think
        self.pipe = pipe
        self.edition_offset = edition_offset
        self.stats = Stats()
        self.closing = False
        self.lockstep = False  # open every table at once (a worst case) instead of spread out
        self.window_end = math.inf
        self.loop = asyncio.get_running_loop()
        self.rooms_left = clients // SEATS
        self.all_done: asyncio.Future[None] = self.loop.create_future()
        self.clients: list[Client] = []
        self.probe: stalls.Probe | None = None  # bench/stalls.py's, over the play phase

    async def _connect(self, client: Client, gate: asyncio.Semaphore) -> None:
        async with gate:
            for attempt in range(5):
                try:
                    await self.loop.create_connection(lambda: client, HOST, self.port)
                    break
                except OSError:
                    if attempt == 4:
                        raise
                    await asyncio.sleep(0.2 * (attempt + 1))
            client.hello(f"load{self.index}")
            await client.welcomed
            self.stats.connected += 1

    async def _recv(self) -> Any:
        return await self.loop.run_in_executor(None, self.pipe.recv)

    async def run(self) -> None:
        # 1. connect and say hello; then stay idle while the parent measures memory
        for n in range(self.count):
            self.clients.append(Client(self, host=n % SEATS == 0))
        for n in range(0, self.count, SEATS):
            self.clients[n].partners = self.clients[n + 1 : n + SEATS]
        gate = asyncio.Semaphore(CONNECT_PARALLEL)
        results = await asyncio.gather(
            *(self._connect(c, gate) for c in self.clients), return_exceptions=True
        )
        failures = [r for r in results if isinstance(r, BaseException)]
        for failure in failures:
            self.stats.errors[f"connect: {type(failure).__name__}"] += 1
        self.pipe.send(("connected", self.stats.connected))
        command, window, drain, self.lockstep = await self._recv()
        if command != "go":
            return
        # 2. rooms, then games back to back until the window ends, then the games in play end
        start = time.perf_counter()
        self.window_end = start + window
        if self.probe is not None:
            self.probe.start(self.loop)
        cpu0 = _own_cpu()
        editions = ("space", "shipwrecked")
        hosts = self.clients[::SEATS]
        for n, client in enumerate(hosts):
            create = CreateRoom(
                edition=editions[(n + self.edition_offset) % 2],
                seats=SEATS,
                public=False,
                autostart=True,
            )
            # Tables open spread over one think time: people do not all sit down in the same
            # millisecond, and with a fixed think time tables opened together stay in lockstep.
            delay = 0.0 if self.lockstep else self.think * n / len(hosts)
            self.loop.call_later(delay, client.send, create)
        if failures:
            self.rooms_left = 0
            self.all_done.set_result(None)
        with contextlib.suppress(TimeoutError):  # the drain ran out: unfinished games count
            await asyncio.wait_for(asyncio.shield(self.all_done), window + drain)
        self.stats.unfinished = max(0, self.rooms_left)
        self.stats.cpu = _own_cpu() - cpu0
        self.closing = True
        for client in self.clients:
            if client.transport is not None:
                client.transport.close()
        await asyncio.sleep(0.1)
        stats = self.stats
        self.pipe.send(
            (
                "done",
                {
                    "latencies": stats.latencies,
                    "decisions_window": stats.decisions_window,
                    "decisions": stats.decisions,
                    "errors": dict(stats.errors),
                    "benign": dict(stats.benign),
                    "games_started": stats.games_started,
                    "games_finished": stats.games_finished,
                    "unfinished": stats.unfinished,
                    "cpu": stats.cpu,
                    "loop": loop_name(self.loop),
                    "stalls": self.probe.summary() if self.probe is not None else None,
                },
            )
        )


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def client_process(
    index: int,
    clients: int,
    port: int,
    think: float,
    pipe: Connection,
    edition_offset: int,
    probe: bool = False,
) -> None:
    """Entry point of one load-generator process (``probe``: with bench/stalls.py's probe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop

    async def main() -> None:
        generator = Generator(index, clients, port, think, pipe, edition_offset)
        generator.probe = stalls.Probe() if probe else None
        await generator.run()

    try:  # uvloop when installed: a lighter load generator (the loop is in the report)
        import uvloop  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())


# ---------------------------------------------------------------------- one measurement


LATENCIES = "_latencies"  # a measurement's sorted round trips (ms), kept to pool rounds


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank; NaN when empty."""
    if not sorted_values:
        return math.nan
    rank = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[rank]


def measure(
    target: Target,
    clients: int,
    seconds: float,
    think_ms: float,
    procs: int,
    drain: float,
    lockstep: bool = False,
    on_go: Callable[[], None] | None = None,
    probe: bool = False,
) -> dict[str, Any]:
    """Drive ``target`` with ``clients`` clients for ``seconds`` (+ drain); return figures.
    ``on_go`` is called as the window starts (a caller measuring other processes over it);
    ``probe``: the client processes run bench/stalls.py's probe (``client_stalls``)."""
    pid = target.proc.pid
    time.sleep(0.5)  # let the server settle after start-up before the "before" reading
    server_loop = proc_loop(pid)
    rss_before = proc_rss(pid)
    cpu_start = proc_cpu(pid)
    ctx = mp.get_context("fork")
    share = [clients // SEATS // procs * SEATS] * procs
    for n in range(clients // SEATS - sum(share) // SEATS):
        share[n] += SEATS
    share = [s for s in share if s]
    pipes: list[Connection] = []
    workers = []
    for index, count in enumerate(share):
        parent, child = ctx.Pipe()
        args = (index, count, target.port, think_ms / 1000.0, child, index, probe)
        worker = ctx.Process(target=client_process, args=args, daemon=True)
        worker.start()
        pipes.append(parent)
        workers.append(worker)
    connect_start = time.monotonic()
    connected = sum(pipe.recv()[1] for pipe in pipes)
    connect_seconds = time.monotonic() - connect_start
    time.sleep(1.0)  # idle: every client welcomed, nothing in flight
    rss_idle = proc_rss(pid)
    cpu_go = proc_cpu(pid)
    for pipe in pipes:
        pipe.send(("go", seconds, drain, lockstep))
    go = time.monotonic()
    if on_go is not None:
        on_go()
    rss_peak = rss_idle
    cpu_window: float | None = None
    results: list[dict[str, Any]] = []
    waiting = list(pipes)
    while waiting:
        for ready in wait(waiting, timeout=0.5):
            assert isinstance(ready, Connection)
            results.append(ready.recv()[1])
            waiting.remove(ready)
        if target.proc.poll() is None:
            rss_peak = max(rss_peak, proc_rss(pid))
            if cpu_window is None and time.monotonic() >= go + seconds:
                cpu_window = proc_cpu(pid) - cpu_go
    wall = time.monotonic() - go
    cpu_end = proc_cpu(pid) if target.proc.poll() is None else math.nan
    for worker in workers:
        worker.join(5)
    latencies = sorted(x for r in results for x in r["latencies"])
    errors: Counter[str] = Counter()
    benign: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
        benign.update(r["benign"])
    if target.proc.poll() is not None:
        errors["server_died"] += 1
    decisions_window = sum(r["decisions_window"] for r in results)
    decisions = sum(r["decisions"] for r in results)
    client_cpu = sum(r["cpu"] for r in results)
    return {
        "clients": clients,
        "connected": connected,
        "think_ms": think_ms,
        "seconds": seconds,
        "lockstep": lockstep,
        "client_processes": len(share),
        "connect_seconds": round(connect_seconds, 2),
        "decisions_per_second": round(decisions_window / seconds, 1),
        "decisions_window": decisions_window,
        "decisions": decisions,
        "rtt_ms_p50": round(percentile(latencies, 0.50), 2),
        "rtt_ms_p99": round(percentile(latencies, 0.99), 2),
        "rtt_ms_max": round(latencies[-1], 2) if latencies else math.nan,
        "errors": sum(errors.values()),
        "error_codes": dict(errors),
        "stale_races": sum(benign.values()),
        "games_started": sum(r["games_started"] for r in results),
        "games_finished": sum(r["games_finished"] for r in results),
        "games_unfinished": sum(r["unfinished"] for r in results),
        "play_wall_seconds": round(wall, 1),
        "server_cpu_seconds_window": round(
            cpu_window if cpu_window is not None else cpu_end - cpu_go, 2
        ),
        "server_cpu_seconds_play": round(cpu_end - cpu_go, 2),
        "server_cpu_seconds_total": round(cpu_end - cpu_start, 2),
        "client_cpu_seconds": round(client_cpu, 2),
        "server_cpu_us_per_decision": round((cpu_end - cpu_go) / max(1, decisions) * 1e6, 1),
        "client_cpu_us_per_decision": round(client_cpu / max(1, decisions) * 1e6, 1),
        "server_loop": server_loop,
        "client_loop": "+".join(sorted({r["loop"] for r in results})) or "-",
        "server_rss_before_mib": round(rss_before / 2**20, 1),
        "server_rss_idle_mib": round(rss_idle / 2**20, 1),
        "server_rss_peak_mib": round(rss_peak / 2**20, 1),
        "server_rss_per_client_kib": round((rss_idle - rss_before) / max(1, connected) / 1024, 1),
        "client_stalls": stalls.merge([r["stalls"] for r in results if r["stalls"]]),
        LATENCIES: latencies,
    }


def combine(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One target's measurement from its rounds (see ``--rounds``): counts and CPU seconds add
    up, rates and CPU per decision are taken over all the rounds, the round trips are pooled, and
    the memory figures are the first round's (the only one that starts from an empty server)
    but for the peak."""
    if len(rounds) == 1:
        return rounds[0]
    first = rounds[0]
    out = dict(first)
    for key in (
        "seconds",
        "decisions",
        "decisions_window",
        "errors",
        "stale_races",
        "games_started",
        "games_finished",
        "games_unfinished",
        "play_wall_seconds",
        "server_cpu_seconds_window",
        "server_cpu_seconds_play",
        "server_cpu_seconds_total",
        "client_cpu_seconds",
    ):
        out[key] = round(sum(r[key] for r in rounds), 2)
    codes: Counter[str] = Counter()
    for r in rounds:
        codes.update(r["error_codes"])
    out["error_codes"] = dict(codes)
    out["connect_seconds"] = max(r["connect_seconds"] for r in rounds)
    out["server_rss_peak_mib"] = max(r["server_rss_peak_mib"] for r in rounds)
    out["decisions_per_second"] = round(out["decisions_window"] / out["seconds"], 1)
    decisions = max(1, out["decisions"])
    out["server_cpu_us_per_decision"] = round(out["server_cpu_seconds_play"] / decisions * 1e6, 1)
    out["client_cpu_us_per_decision"] = round(out["client_cpu_seconds"] / decisions * 1e6, 1)
    latencies = sorted(x for r in rounds for x in r[LATENCIES])
    out["rtt_ms_p50"] = round(percentile(latencies, 0.50), 2)
    out["rtt_ms_p99"] = round(percentile(latencies, 0.99), 2)
    out["rtt_ms_max"] = round(latencies[-1], 2) if latencies else math.nan
    out[LATENCIES] = latencies
    out["rounds"] = len(rounds)
    return out


def public(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without the raw round trips (for the JSON line)."""
    return {key: value for key, value in result.items() if key != LATENCIES}


# ---------------------------------------------------------------------- command line


def report(name: str, r: dict[str, Any]) -> None:
    """Human-readable lines for one measurement."""
    print(
        f"{name}: {r['connected']}/{r['clients']} clients in {r['client_processes']} "
        f"process(es), think {r['think_ms']:g} ms, window {r['seconds']:g} s "
        f"(connected in {r['connect_seconds']} s)"
    )
    print(f"  decisions/s {r['decisions_per_second']}  (total {r['decisions']})")
    print(f"  act->state ms  p50 {r['rtt_ms_p50']}  p99 {r['rtt_ms_p99']}  max {r['rtt_ms_max']}")
    print(f"  errors {r['errors']} {r['error_codes'] or ''}  stale races {r['stale_races']}")
    print(
        f"  games started {r['games_started']}  finished {r['games_finished']}  "
        f"unfinished rooms {r['games_unfinished']}  (play phase {r['play_wall_seconds']} s)"
    )
    print(
        f"  server CPU s: window {r['server_cpu_seconds_window']}  play "
        f"{r['server_cpu_seconds_play']}  total {r['server_cpu_seconds_total']};  "
        f"clients' CPU s {r['client_cpu_seconds']}"
    )
    print(
        f"  CPU us per decision: server {r['server_cpu_us_per_decision']}  clients "
        f"{r['client_cpu_us_per_decision']};  event loop: server {r['server_loop']}  clients "
        f"{r['client_loop']}"
    )
    print(
        f"  server RSS MiB: before {r['server_rss_before_mib']}  idle "
        f"{r['server_rss_idle_mib']}  peak {r['server_rss_peak_mib']};  per connected idle "
        f"client {r['server_rss_per_client_kib']} KiB"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the server measurement, then the baseline, and print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=400, help="clients, a multiple of 4 (400)")
    p.add_argument(
        "--seconds", type=float, default=20.0, help="window in which games are (re)started (20)"
    )
    p.add_argument("--think", type=float, default=0.0, help="ms between a state and the act (0)")
    p.add_argument("--json", action="store_true", help="print one JSON object last")
    p.add_argument(
        "--procs",
        type=int,
        default=0,
        help="client processes (default: 1 per 400 clients, at least 2, at most "
        "4 and the number of cores)",
    )
    p.add_argument(
        "--drain",
        type=float,
        default=300.0,
        help="seconds after the window for games in play to end (300)",
    )
    p.add_argument(
        "--baseline-seconds",
        type=float,
        default=0.0,
        help="window of the baseline run (default: min(--seconds, 20))",
    )
    p.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    p.add_argument(
        "--baseline-uvloop",
        action="store_true",
        help="measure the baseline a second time, on uvloop (if installed)",
    )
    p.add_argument(
        "--server-no-uvloop",
        action="store_true",
        help="run selfish-server on the standard asyncio loop (SELFISH_NO_UVLOOP=1)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a server setting for the run, as a TOML line (repeatable), e.g. "
        '--set db_synchronous="FULL"',
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="measure the server and the baseline in turn, this many times each, "
        "splitting their windows (2)",
    )
    p.add_argument(
        "--lockstep",
        action="store_true",
        help="open every table at the same moment (default: spread over one think "
        "time); with a fixed think time the tables then stay in step",
    )
    args = p.parse_args(argv)
    clients = max(SEATS, args.clients // SEATS * SEATS)
    # see the module docstring: 2 processes at 400 clients, never more than the cores
    procs = args.procs or min(4, os.cpu_count() or 1, max(2, round(clients / 400)))
    procs = max(1, min(procs, clients // SEATS))
    with tempfile.TemporaryDirectory(prefix="selfish-load-") as tmp:
        workdir = Path(tmp)
        # selfish-server runs on uvloop when it is installed, unless SELFISH_NO_UVLOOP is set
        env = {**os.environ, "SELFISH_NO_UVLOOP": "1"} if args.server_no_uvloop else None
        runs: list[tuple[str, str, bool]] = []  # the baselines: (key, name, on uvloop)
        if not args.no_baseline:
            runs.append(("baseline", "baseline", False))
            if args.baseline_uvloop:
                if importlib.util.find_spec("uvloop") is not None:
                    runs.append(("baseline_uvloop", "baseline on uvloop", True))
                else:
                    print("--baseline-uvloop: uvloop is not installed, no second baseline")
        rounds = max(1, args.rounds) if runs else 1
        # each round connects new identities and opens new rooms (the old ones stay, their
        # players gone, as after any disconnection)
        argv = server_argv(workdir, clients * rounds, tuple(args.set))
        base_seconds = args.baseline_seconds or min(args.seconds, 20.0)
        server = start_target("selfish-server", argv, workdir, "listening on", env)
        targets = [server]
        measured: dict[str, list[dict[str, Any]]] = {"server": []}
        try:
            for key, _, uvloop in runs:
                targets.append(
                    start_target(key, baseline_argv(uvloop), workdir, "baseline listening on")
                )
                measured[key] = []
            for index in range(rounds):
                # the server, then each baseline, in turn: a drift of the machine's speed
                # (other tenants, clocks) then weighs on all of them alike
                measured["server"].append(
                    measure(
                        server,
                        clients,
                        args.seconds / rounds,
                        args.think,
                        procs,
                        args.drain,
                        args.lockstep,
                    )
                )
                for (key, _, _), target in zip(runs, targets[1:], strict=True):
                    measured[key].append(
                        measure(
                            target,
                            clients,
                            base_seconds / rounds,
                            args.think,
                            procs,
                            10.0,
                            args.lockstep,
                        )
                    )
                if rounds > 1:
                    print(
                        f"round {index + 1} of {rounds}: "
                        + ", ".join(
                            f"{key} {m[-1]['decisions_per_second']} decisions/s"
                            for key, m in measured.items()
                        ),
                        flush=True,
                    )
        finally:
            statuses = [target.stop() for target in targets]
        result = combine(measured["server"])
        result["server_exit_status"] = statuses[0]
        report("selfish-server", result)
        out: dict[str, Any] = {"server": public(result)}
        for key, name, _ in runs:
            base = combine(measured[key])
            report(name, base)
            ratio = result["decisions_per_second"] / max(1e-9, base["decisions_per_second"])
            print(
                f"server throughput = {ratio:.1%} of the {name} "
                f"({result['decisions_per_second']} / {base['decisions_per_second']} "
                f"decisions/s; event loops: server {result['server_loop']}, baseline "
                f"{base['server_loop']}" + (f"; {rounds} rounds" if rounds > 1 else "") + ")"
            )
            if rounds > 1:
                print(
                    "  per round: "
                    + ", ".join(
                        f"{s['decisions_per_second'] / max(1e-9, b['decisions_per_second']):.1%}"
                        for s, b in zip(measured["server"], measured[key], strict=True)
                    )
                )
            cost = result["server_cpu_us_per_decision"] / max(
                1e-9, base["server_cpu_us_per_decision"]
            )
            print(
                f"server CPU per decision = {cost:.2f}x the {name}'s "
                f"({result['server_cpu_us_per_decision']} / {base['server_cpu_us_per_decision']} "
                f"us); act->state p99 {result['rtt_ms_p99']} ms (the {name}'s "
                f"{base['rtt_ms_p99']} ms)"
            )
            out[key] = public(base)
            out["ratio_to_" + key] = round(ratio, 3)
            out["cpu_per_decision_to_" + key] = round(cost, 3)
            out["rounds_ratio_to_" + key] = [
                round(s["decisions_per_second"] / max(1e-9, b["decisions_per_second"]), 3)
                for s, b in zip(measured["server"], measured[key], strict=True)
            ]
    if args.json:
        print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
