"""The server's act path without sockets: CPU microseconds per decision, for comparing changes.

    python bench/act_path.py [--rooms N] [--per-tick K] [--profile]

Starts the server in this process (``start_server``, a temporary SQLite file, the limits of
``bench/load.py``), connects 4 real ``Session`` objects per room through fake transports that
only count the bytes written, fills N 4-seat rooms (half Space, half Shipwrecked; room n deals
seed n + 1, so its game is unrated) and plays every game to its end with choices drawn from one
seeded generator, the same games at every run: K acts, each to a different room, per event-loop
tick (each tick ends with the store's group commit and the sessions' writes, as on a live
server), until every game is over. Prints the CPU time (``time.process_time``) per decision and
the bytes written per decision.

What it leaves out is what ``bench/load.py`` adds: the kernel's socket writes and reads, the
event loop's polling, and the other processes' load on the caches. Its figure is steadier than a
load run's (a few percent from run to run on an idle machine), so a change to the act path can be
measured here first, side by side with the code before it, and then under ``bench/load.py``.
The client's side costs one ``Act`` frame encoded per decision, counted in the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))  # the checkout, when not installed

from protocol.codec import encode  # noqa: E402
from protocol.messages import Act, CreateRoom, Hello, JoinRoom, Request  # noqa: E402
from server.config import SHARED_ADDRESS, ServerConfig  # noqa: E402
from server.net.tcp import start_server  # noqa: E402

SEATS = 4


class CountingTransport:
    """A transport that keeps nothing it is given: it counts the bytes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sent = 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", self.port) if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.sent += len(data)

    def writelines(self, parts: list[bytes]) -> None:
        for part in parts:
            self.sent += len(part)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def can_write_eof(self) -> bool:
        return False

    def close(self) -> None:
        """Nothing to close."""

    def abort(self) -> None:
        """Nothing to abort."""

    def pause_reading(self) -> None:
        """Nothing is read."""


def frame(request: Request) -> bytes:
    """A request as a client sends it."""
    return encode(request.to_wire())


async def run(rooms: int, per_tick: int, profile: bool) -> None:
    """Fill ``rooms`` rooms, play every game to its end and print the figures."""
    workdir = tempfile.mkdtemp(prefix="selfish-act-path-")
    config = ServerConfig(
        **{
            **SHARED_ADDRESS,
            "db": os.path.join(workdir, "server.sqlite3"),
            "max_connections": rooms * SEATS + 64,
            "max_connections_per_address": rooms * SEATS + 64,
            "max_rooms": rooms + 64,
            "max_rooms_per_address": rooms + 64,
            "new_players_burst": rooms * SEATS + 64,
            "rate_per_second": 100000.0,
            "rate_burst": 100000,
            "idle_timeout": 3600.0,
            "allow_seed": True,
        }
    )
    running = await start_server(config)
    lobby = running.lobby
    transports = [CountingTransport(10000 + n) for n in range(rooms * SEATS)]
    sessions = []
    for n, transport in enumerate(transports):
        session = running.new_session()
        session.connection_made(transport)  # type: ignore[arg-type]
        session.data_received(frame(Hello(id=1, name=f"player{n}")))
        sessions.append(session)
    await asyncio.sleep(0)
    for n in range(rooms):
        before = set(lobby.rooms)
        edition = ("space", "shipwrecked")[n % 2]
        create = CreateRoom(
            id=2, edition=edition, seats=SEATS, public=False, autostart=True, seed=n + 1
        )
        sessions[SEATS * n].data_received(frame(create))
        (code,) = set(lobby.rooms) - before
        for seat in range(1, SEATS):
            sessions[SEATS * n + seat].data_received(frame(JoinRoom(id=2, room=code)))
        await asyncio.sleep(0)
    playing = [room for room in lobby.rooms.values() if room.game is not None]
    rng = random.Random(1)
    decisions = 0
    sent = sum(transport.sent for transport in transports)
    gc.collect()
    gc.freeze()  # as selfish-server does after start-up (server.cli)
    profiler = cProfile.Profile(time.process_time) if profile else None
    if profiler is not None:
        profiler.enable()
    start = time.process_time()
    while playing:
        for first in range(0, len(playing), per_tick):
            for room in playing[first : first + per_tick]:
                game = room.game
                assert game is not None
                index = game.pending_seats()[0]
                seat = room.table[index]
                assert seat is not None and seat.player is not None
                connection = lobby.connection(seat.player)
                assert connection is not None
                choice = rng.randrange(len(game.legal(index)))
                act = Act(room=room.code, version=room.version, choice=choice)
                connection.data_received(frame(act))  # type: ignore[attr-defined]
                decisions += 1
            await asyncio.sleep(0)  # the tick ends: commit, then the writes
        playing = [room for room in playing if room.game is not None and not room.game.over]
    elapsed = time.process_time() - start
    if profiler is not None:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    sent = sum(transport.sent for transport in transports) - sent
    print(
        f"{decisions} decisions in {rooms} rooms, {per_tick} per tick: "
        f"{1e6 * elapsed / decisions:.1f} us CPU per decision, "
        f"{sent / decisions:.0f} bytes written per decision"
    )
    await running.stop()


def main() -> None:
    """Parse the options and run on uvloop when it is installed (as selfish-server does)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200, help="4-seat rooms (200)")
    parser.add_argument("--per-tick", type=int, default=2, help="acts per loop tick (2)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top 40")
    args = parser.parse_args()
    gc.set_threshold(20_000)  # selfish-server's generation-0 threshold (server.cli)
    try:
        import uvloop  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        asyncio.run(run(args.rooms, args.per_tick, args.profile))
    else:
        uvloop.run(run(args.rooms, args.per_tick, args.profile))


if __name__ == "__main__":
    main()
