"""Faults: a killed server process, clients that vanish, stall or stop reading, one address
filling the server with abandoned games, a database that stops taking writes.

Everything runs over real TCP on 127.0.0.1 with small limits, so each fault is detected in well
under a second. "Memory released" is checked the strict way: once the server dropped a
connection, after a full collection no Session object of that connection is left anywhere (the
collector sees every object that could hold one).
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import signal
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol.codec import encode
from server.config import ServerConfig
from server.engine import check_invariants, replay
from server.net.session import Session
from server.net.tcp import RunningServer, start_server
from server.store.store import Store
from tests.server.conftest import FAST, Client, ClientFactory, Message, ServerFactory, drive

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
BOT = "import sys; from server.bots.command import bot_main; sys.exit(bot_main(sys.argv[1:]))"


# ---------------------------------------------------------------------- kill -9 and restart


async def _spawn_server(
    db: Path, settings: Path, port: int = 0
) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server.cli",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--config",
        str(settings),
        "--db",
        str(db),
        "--log-level",
        "WARNING",
        stderr=asyncio.subprocess.PIPE,
        env=ENV,
    )
    assert proc.stderr is not None
    while True:
        line = (await asyncio.wait_for(proc.stderr.readline(), 10)).decode()
        assert line, "server exited early"
        if m := re.search(r"listening on 127\.0\.0\.1:(\d+)", line):
            return proc, int(m.group(1))


async def _spawn_bot(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        BOT,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=ENV,
    )


def _decisions(db: Path) -> dict[int, int]:
    """Decisions stored so far per unfinished game (read-only, beside the live server)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT g.id, (SELECT count(*) FROM decisions d WHERE d.game = g.id) FROM games g "
            "WHERE g.status = 'playing'"
        ).fetchall()
    except sqlite3.OperationalError:  # busy for a moment: ask again at the next poll
        return {}
    finally:
        conn.close()
    return dict(rows)


def replayed_snapshots(db: Path) -> dict[int, dict[str, Any]]:
    """Every unfinished stored game rebuilt from its decisions: game id -> engine snapshot."""
    store = Store(str(db))
    try:
        out = {}
        for stored in store.unfinished_games():
            game = replay(stored.edition, stored.names, stored.seed, stored.decisions)
            assert check_invariants(game) == []
            out[stored.id] = game.snapshot()
        return out
    finally:
        store.close()


async def test_kill_9_mid_game_then_restart_resumes_every_game(tmp_path: Path) -> None:
    """A real ``selfish-server`` process and four real ``selfish bot`` processes at two tables;
    SIGKILL mid-game. The snapshot of each unfinished game replayed from the database must equal
    the engine state of the restarted server (started in this process on the same database and
    port, so its rooms can be inspected), and the bots reconnect by themselves and finish."""
    db = tmp_path / "selfish.sqlite3"
    settings = tmp_path / "fast.toml"
    settings.write_text("bot_delay = 0.0\nrate_per_second = 1000.0\nrate_burst = 1000\n")
    proc, port = await _spawn_server(db, settings)
    bots: list[asyncio.subprocess.Process] = []
    try:
        # Two tables of two `selfish bot` processes each, acting every 50 ms. Both creators,
        # then both joiners, so that the two games start within a process start of each other:
        # one after the other, on a loaded machine the first game was over before the second
        # had begun, and the test waited for two games in play that never were.
        pace = ("--delay", "0.05", "--max-rate", "1000")
        for edition in ("space", "shipwrecked"):
            creator = await _spawn_bot(
                f"127.0.0.1:{port}", "--create", edition, "--seats", "2", *pace
            )
            bots.append(creator)
        codes = []
        for creator in bots:
            assert creator.stderr is not None
            line = await asyncio.wait_for(creator.stderr.readline(), 10)
            codes.append(line.decode().split()[1])
        for code in codes:
            bots.append(await _spawn_bot(f"127.0.0.1:{port}", "--room", code, *pace))
        # Mid-game in both: then SIGKILL, no chance to flush or say goodbye.
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        while not (len(counts := _decisions(db)) == 2 and min(counts.values()) >= 3):
            assert loop.time() < end, counts
            await asyncio.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
        assert proc.returncode == -signal.SIGKILL
        before = replayed_snapshots(db)
        assert len(before) == 2  # both games were unfinished when the server died

        # Restart on the same database and port; the bots find it again by themselves.
        running = await start_server(ServerConfig(**{**FAST, "db": str(db), "port": port}))
        try:
            resumed = {room.game_id: room for room in running.lobby.rooms.values()}
            assert set(resumed) == set(before)
            for game_id, room in resumed.items():
                assert room.game is not None and game_id is not None
                assert room.game.snapshot() == before[game_id]  # identical engine state
            outs = await asyncio.wait_for(asyncio.gather(*(b.communicate() for b in bots)), 30)
            for bot, (out, err) in zip(bots, outs, strict=True):
                assert bot.returncode == 0, err.decode()
                assert re.fullmatch(
                    r"game \w{4} finished: winner .+ after \d+ turns\n", out.decode()
                ), out
            finished = {g.id: g for g in running.store.finished_games()}
            for game_id in before:
                stored = running.store.game(game_id)
                assert stored is not None and stored.status == "over"
                assert game_id in finished
        finally:
            await running.stop()
    finally:
        for p in [proc, *bots]:
            if p.returncode is None:
                p.kill()
                await p.wait()


# ---------------------------------------------------------------------- bad clients


async def _session_of(server: RunningServer, player: str | None) -> str:
    """The peer address of the player's session: it names the session without keeping it."""
    for _ in range(100):
        found = [s for s in server.sessions if s.player is not None and s.player.id == player]
        if found:
            return found[0].peer
        await asyncio.sleep(0.01)
    raise AssertionError(f"no session for {player}")


def _sessions_at(peer: str) -> list[Session]:
    """Every live Session object of the connection from ``peer``, wherever it is kept."""
    return [o for o in gc.get_objects() if isinstance(o, Session) and o.peer == peer]


async def _dropped(server: RunningServer, peer: str, player: str | None, timeout: float) -> float:
    """Wait until the server has dropped the session; check nothing keeps it; return the loop
    time at which it was gone."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while any(session.peer == peer for session in server.sessions):
        assert loop.time() - start < timeout, "the server did not drop the connection"
        await asyncio.sleep(0.01)
    gone = loop.time()
    assert player is not None and not server.lobby.connected(player)
    await asyncio.sleep(0.05)  # let the handler task finish closing the transport
    gc.collect()
    kept = _sessions_at(peer)
    assert not kept, gc.get_referrers(*kept)
    assert sum(server.per_address.values()) == len(server.sessions)
    return gone


async def _game_meanwhile(server: RunningServer, connect: ClientFactory) -> asyncio.Task[Any]:
    """Ann and Bob start a game that must be played to the end whatever the others do."""
    ann = await connect(server.port, "Ann")
    code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2, "seed": 5}))[
        "room"
    ]
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    await ann.request({"type": "start", "room": code})

    async def play() -> None:
        a, b = await asyncio.gather(
            drive(ann, code, keep_alive=True), drive(bob, code, keep_alive=True)
        )
        assert a["game"] == b["game"]

    return asyncio.create_task(play())


async def test_client_that_vanishes_is_dropped_after_idle_timeout(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    # Long enough that a loaded machine's pauses (the whole process unscheduled) do not drop
    # the players of the game meanwhile, who keep alive as real clients do.
    server = await make_server(idle_timeout=2.0)
    ghost = await connect(server.port, "Ghost")
    silent_since = asyncio.get_running_loop().time()
    peer = await _session_of(server, ghost.player)
    game = await _game_meanwhile(server, connect)
    # Ghost neither reads nor writes from here on, and never closes its socket: the server
    # ends the connection itself, a grace period (session.CLOSE_GRACE) after it said why.
    gone = await _dropped(server, peer, ghost.player, timeout=10)
    assert gone - silent_since >= 1.95  # idle_timeout counts from its hello, just before
    error = await ghost.expect("error")  # what the server said is waiting in the socket
    assert error["code"] == "idle_timeout" and "no message for 2 seconds" in error["message"]
    await asyncio.wait_for(game, 30)


async def test_half_frame_then_stall_is_dropped_after_frame_timeout(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(idle_timeout=30.0, frame_timeout=0.3)
    staller = await connect(server.port, "Staller")
    trickler = await connect(server.port, "Trickler")
    peers = [await _session_of(server, c.player) for c in (staller, trickler)]
    game = await _game_meanwhile(server, connect)
    half = encode({"type": "ping", "pad": "x" * 100})
    staller.send_raw(half[:40])  # a header announcing 100+ bytes, then a few, then nothing
    started = asyncio.get_running_loop().time()

    async def trickle() -> None:  # one byte every 50 ms: far inside the idle timeout
        for byte in half[:-1]:
            live = [s for s in server.sessions if s.peer == peers[1] and not s.closing]
            if not live:
                # Dropped or being dropped: a byte sent to the closed socket would make the
                # kernel reset the connection and discard the error frame still unread here.
                return
            del live
            trickler.send_raw(bytes([byte]))
            await asyncio.sleep(0.05)

    async def cut_off(client: Client, peer: str) -> float:
        """When the server said it drops ``client`` (both are waited for at once, so neither
        time waits for the other's checks); then check it is gone and nothing keeps it."""
        error = await client.expect("error", timeout=10)
        said = asyncio.get_running_loop().time()
        assert error["code"] == "idle_timeout" and "frame took over 0.3" in error["message"]
        assert await client.closed(timeout=10)  # the server ends the stream after saying why
        await client.close()  # and our close ends the connection without the grace period
        await _dropped(server, peer, client.player, timeout=10)
        return said

    dripping = asyncio.create_task(trickle())
    said = await asyncio.gather(*map(cut_off, (staller, trickler), peers))
    # The frame timeout, not before; the idle timeout (30 s) never came into it (the message).
    assert all(at - started >= 0.3 for at in said)
    dripping.cancel()
    await asyncio.wait_for(game, 30)


async def test_slow_reader_is_cut_off_at_the_write_buffer_limit(
    make_server: ServerFactory, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server = await make_server(idle_timeout=30.0, max_write_buffer=64 * 1024)
    # A tiny receive window, so that the kernel does not soak up what the server writes.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    slow = Client(reader, writer)
    await slow.hello("Slow")
    peer = await _session_of(server, slow.player)
    # And a tiny send buffer on the server's side: the kernel grows a loopback one to megabytes,
    # which on a loaded machine the test's syncs did not fill in time.
    session = next(s for s in server.sessions if s.peer == peer)
    session.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    del session  # nothing here may keep it alive (_dropped checks that)
    game = await _game_meanwhile(server, connect)
    ann_room = next(iter(server.lobby.rooms))
    await slow.request({"type": "join_room", "room": ann_room, "as": "spectator"})
    # From now on Slow reads nothing, but keeps asking for the whole table (history included).
    loop = asyncio.get_running_loop()
    end = loop.time() + 30  # bounds a hang only
    while any(session.peer == peer for session in server.sessions):
        assert loop.time() < end, "the slow reader was never cut off"
        slow.send({"type": "sync", "room": ann_room})
        await asyncio.sleep(0.002)
    await _dropped(server, peer, slow.player, timeout=1)
    assert "not reading its messages" in caplog.text
    await asyncio.wait_for(game, 30)
    writer.transport.abort()


async def test_one_address_cannot_fill_the_server_with_abandoned_games(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Found by hand while fuzzing: identities are free, so one client could create rooms with a
    bot, start them and vanish, again and again: each game waits for its human forever, and
    max_rooms (1000) was reached in 0.7 s, after which nobody could create a room."""
    server = await make_server(max_rooms_per_address=3, max_rooms=10)
    host = await connect(server.port, "Host")
    code = (await host.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]

    async def zombie(n: int) -> Message:
        client = await connect(server.port, f"Z{n}")  # a fresh identity each time
        reply = await client.request(
            {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True}
        )
        await client.close()
        return reply

    assert [(await zombie(n))["type"] for n in range(2)] == ["joined", "joined"]
    assert (await zombie(2)).get("code") == "too_many_rooms"
    # The abandoned games stay (their players may come back) but count for that address only.
    assert len(server.lobby.rooms) == 3 and server.lobby.rooms_by_address["127.0.0.1"] == 3
    # A room that closes gives its place back.
    await host.request({"type": "leave_room", "room": code})
    assert code not in server.lobby.rooms and server.lobby.rooms_by_address["127.0.0.1"] == 2
    assert (await zombie(3))["type"] == "joined"


# The database outage tests are in tests/server/test_outage.py.
