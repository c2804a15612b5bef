"""Attacks on a real ``selfish-server`` process, loopback only, a few seconds each; figures out.

    python bench/attack.py [--seconds 6] [--only flood,reconnect,...] [--json]

The server runs with its default limits (a temporary database) in a child process, so its CPU
time and memory are read from /proc. Attackers and the healthy players bind distinct loopback
source addresses (127.0.0.2, 127.0.0.3, ... all loopback on Linux), as distinct hosts would.

Scenarios (issue 11's items):

* ``flood`` (5): one connection, never saying hello, writes ping frames as fast as the socket
  takes them, reconnecting when cut off, while two people play a game. Prints the flood's
  bytes/s and frames/s offered, the server's CPU share, and the game's act->state p50/p99
  beside the same game without the flood.
* ``reconnect`` (4): one address cycles connect -> hello with its token -> chat -> create_room
  -> 5 room-code probes -> close. Prints the reconnects, chat lines delivered to another
  member, rooms created and probes answered, per second.
* ``spectators`` (6): 100 spectators (from 10 addresses) join and vanish in a loop while a host
  waits in the room: ``room`` broadcasts and bytes the host receives per second, and whether
  a player reconnecting meanwhile is cut off.
* ``slots`` (10): 1,000 connections that never say hello (16 per address), then 1,000 that send
  a 4-byte header announcing a 60 KB frame and 30 KB of it: how many are still open after the
  hello and frame timeouts, the server's RSS while held and after, and whether a newcomer gets
  in.
* ``ssh_idle``, ``ssh_auth``, ``ssh_resize``, ``ssh_names``, ``web_pages``, ``web_origin``
  (issue 27 items 11-16): the SSH gateway (``ssh_port = 0``) and ``selfish web`` under
  connections that log in and open no session, 200 keys on one connection and a handshake
  flood from one address, eight 1000x1000 sessions that stop reading and resize 20 times a
  second, option-like user names, 50 browser pages, and websockets from another site. Each
  prints whether a newcomer from a fresh address reaches a lobby within 5 s meanwhile, and
  the CPU share and memory of the whole process tree (server, fork server, clients, pages).
* ``growth`` (9): create-and-leave from one address for the run: rooms/s and database bytes per
  hour; then ``get_replay`` with ``game`` = 2**63: replies and server log bytes per second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import re
import shutil
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the checkout

from protocol.codec import MessageDecoder, encode

HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
Message = dict[str, Any]
THINK = 0.05  # seconds a healthy player takes to act
PACE = 0.06  # seconds between an attacker's requests: under the per-connection rate (20/s)


# --------------------------------------------------------------------------- the server


class Server:
    """A ``selfish-server`` child process with its default limits."""

    def __init__(self, workdir: Path, settings: str = "") -> None:
        self.workdir = workdir
        self.db = workdir / "attack.sqlite3"
        self.log = workdir / "server.log"
        self.settings = settings
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0

    async def start(self) -> None:
        config = self.workdir / "server.toml"
        config.write_text(self.settings)
        script = shutil.which("selfish-server", path=os.path.dirname(sys.executable))
        command = [script] if script else [sys.executable, "-m", "server.cli"]
        self._log = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = await asyncio.create_subprocess_exec(
            *command,
            "--host",
            HOST,
            "--port",
            "0",
            "--db",
            str(self.db),
            "--config",
            str(config),
            stderr=asyncio.subprocess.PIPE,
        )
        assert self.proc.stderr is not None
        while True:
            line = (await asyncio.wait_for(self.proc.stderr.readline(), 15)).decode()
            if not line:
                raise RuntimeError("the server exited")
            self._log.write(line.encode())
            if m := re.search(r"listening on 127\.0\.0\.1:(\d+)", line):
                self.port = int(m.group(1))
                break
        self._drain = asyncio.create_task(self._copy_log())

    async def _copy_log(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            self._log.write(line)

    def cpu(self) -> float:
        """CPU seconds used so far."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def rss(self) -> float:
        """Resident memory, MiB."""
        assert self.proc is not None
        pages = int(Path(f"/proc/{self.proc.pid}/statm").read_text().split()[1])
        return pages * PAGE / 2**20

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 10)
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(Exception):
            await self._drain
        self._log.close()


@contextlib.asynccontextmanager
async def server(settings: str = "") -> AsyncIterator[Server]:
    with tempfile.TemporaryDirectory(prefix="selfish-attack-") as tmp:
        running = Server(Path(tmp), settings)
        await running.start()
        try:
            yield running
        finally:
            await running.stop()


# --------------------------------------------------------------------------- a client


class Client:
    """A protocol client bound to one loopback source address."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = MessageDecoder(None)
        self.inbox: list[Message] = []
        self.next_id = 0
        self.token: str | None = None
        self.received = 0  # bytes

    @classmethod
    async def connect(cls, port: int, source: str) -> Client:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
        return cls(reader, writer)

    def send(self, message: Message) -> None:
        self.writer.write(encode(message))

    async def recv(self, timeout: float = 5.0) -> Message:
        while not self.inbox:
            data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
            if not data:
                raise ConnectionError("closed")
            self.received += len(data)
            self.inbox.extend(self.decoder.feed(data))
        return self.inbox.pop(0)

    async def request(self, message: Message, timeout: float = 5.0) -> Message:
        self.next_id += 1
        rid = self.next_id
        self.send({**message, "id": rid})
        end = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.01, end - time.monotonic()))
            if msg.get("id") == rid:
                return msg

    async def hello(self, name: str, token: str | None = None) -> Message:
        msg: Message = {"type": "hello", "protocol": 1, "name": name}
        if token:
            msg["token"] = token
        reply = await self.request(msg)
        if reply["type"] == "welcome":
            self.token = reply["token"]
        return reply

    def close(self) -> None:
        self.writer.transport.abort()


# --------------------------------------------------------------------------- scenarios


async def play(a: Client, b: Client, code: str, until: float, rtts: list[float]) -> int:
    """Ann and Bob act as soon as they may; each act's time to its state goes to ``rtts``."""
    sent: dict[Client, tuple[int, float]] = {}
    games = 0

    async def seat(me: Client) -> None:
        nonlocal games
        while time.monotonic() < until:
            try:
                msg = await me.recv(timeout=max(0.05, until - time.monotonic()))
            except (TimeoutError, ConnectionError):
                return
            if msg["type"] == "game_over" and me is a:
                games += 1
                me.send({"type": "rematch", "room": code})
            if msg["type"] != "state":
                continue
            pending = sent.get(me)
            if pending is not None and msg["version"] > pending[0]:
                rtts.append(time.monotonic() - pending[1])
                del sent[me]
            legal = msg["view"]["legal"]
            if legal:
                choice = next((c for c in legal if not c.get("fatal")), legal[0])
                act = {"type": "act", "room": code, "version": msg["version"], "choice": choice}
                asyncio.get_running_loop().call_later(THINK, _act, me, act, sent)

    await asyncio.gather(seat(a), seat(b))
    return games


def _act(me: Client, act: Message, sent: dict[Client, tuple[int, float]]) -> None:
    sent[me] = (int(act["version"]), time.monotonic())
    me.send(act)


async def table(port: int) -> tuple[Client, Client, str]:
    a = await Client.connect(port, "127.0.0.2")
    await a.hello("Ann")
    code = (await a.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
    b = await Client.connect(port, "127.0.0.3")
    await b.hello("Bob")
    await b.request({"type": "join_room", "room": code})
    await a.request({"type": "start", "room": code})
    return a, b, code


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def flood(seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with server() as srv:
        for label, flooding in (("quiet", False), ("flood", True)):
            a, b, code = await table(srv.port)
            rtts: list[float] = []
            until = time.monotonic() + seconds
            cpu0, t0 = srv.cpu(), time.monotonic()
            # The flooder is a process of its own: in this one it would slow the players' loop.
            parent, child = mp.Pipe()
            proc = mp.Process(target=_flooder, args=(srv.port, seconds, child))
            if flooding:
                proc.start()
            await play(a, b, code, until, rtts)
            elapsed = time.monotonic() - t0
            offered, frames, reconnects = parent.recv() if flooding else (0, 0, 0)
            if flooding:
                proc.join()
            out[label] = {
                "acts": len(rtts),
                "p50_ms": round(pct(rtts, 0.5), 2),
                "p99_ms": round(pct(rtts, 0.99), 2),
                "server_cpu_pct": round(100 * (srv.cpu() - cpu0) / elapsed, 1),
                "flood_mb_per_s": round(offered / elapsed / 1e6, 2),
                "flood_frames_per_s": round(frames / elapsed),
                "flood_connections": reconnects,
            }
            a.close()
            b.close()
    return out


def _flooder(port: int, seconds: float, pipe: Connection) -> None:
    """Write ping frames as fast as the socket takes them, reconnecting when cut off; send
    (bytes, frames, connections) down ``pipe``."""
    ping = encode({"type": "ping"}) * 4096  # 28 KB of frames per write
    offered = frames = connections = 0
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            sock = socket.create_connection((HOST, port), source_address=("127.0.0.9", 0))
        except OSError:
            time.sleep(0.05)
            continue
        connections += 1
        sock.settimeout(0.2)
        try:
            while time.monotonic() < until:
                sock.sendall(ping)
                offered += len(ping)
                frames += 4096
        except OSError:  # cut off (or a full buffer for 0.2 s: the server stopped reading)
            pass
        sock.close()
    pipe.send((offered, frames, connections))


async def reconnect(seconds: float) -> dict[str, Any]:
    async with server() as srv:
        listener = await Client.connect(srv.port, "127.0.0.2")
        await listener.hello("Lis")
        code = (await listener.request({"type": "create_room", "edition": "space", "seats": 3}))[
            "room"
        ]
        first = await Client.connect(srv.port, "127.0.0.9")
        await first.hello("Cyc")
        token = first.token
        await first.request({"type": "join_room", "room": code})
        first.close()
        rss0 = srv.rss()
        counts = {"welcome": 0, "chat_ok": 0, "rooms_created": 0, "probes_answered": 0}
        refused: dict[str, int] = {}
        until = time.monotonic() + seconds
        t0 = time.monotonic()
        n = 0
        while time.monotonic() < until:
            try:
                c = await Client.connect(srv.port, "127.0.0.9")
                hello = await c.hello("Cyc", token)
            except (OSError, ConnectionError, TimeoutError):
                await asyncio.sleep(0.01)
                continue
            if hello["type"] != "welcome":
                refused[hello.get("code", "?")] = refused.get(hello.get("code", "?"), 0) + 1
                c.close()
                continue
            counts["welcome"] += 1
            n += 1
            replies = [
                await c.request({"type": "chat", "room": code, "text": f"spam {n}"}, 2),
                await c.request({"type": "create_room", "edition": "space", "seats": 2}, 2),
            ]
            replies += [
                await c.request({"type": "sync", "room": f"{'ABCDEFGH'[i]}{65 + n % 26:c}XY"}, 2)
                for i in range(5)
            ]
            counts["chat_ok"] += replies[0]["type"] == "ok"
            counts["rooms_created"] += replies[1]["type"] == "joined"
            if replies[1]["type"] == "joined":
                await c.request({"type": "leave_room", "room": replies[1]["room"]})
            counts["probes_answered"] += sum(1 for r in replies[2:] if r["type"] == "error")
            for r in replies:
                if r["type"] == "error":
                    refused[r["code"]] = refused.get(r["code"], 0) + 1
            c.close()
        elapsed = time.monotonic() - t0
        delivered = 0
        with contextlib.suppress(TimeoutError, ConnectionError):
            while True:
                msg = await listener.recv(timeout=0.5)
                delivered += msg["type"] == "chat"
        listener.close()
        rss = (round(rss0, 1), round(srv.rss(), 1))
    rates: dict[str, Any] = {f"{k}_per_s": round(v / elapsed, 1) for k, v in counts.items()}
    rates["server_rss_mib_before_after"] = rss
    rates["chat_delivered_per_s"] = round(delivered / elapsed, 1)
    rates["refusals"] = refused
    return rates


async def spectators(seconds: float) -> dict[str, Any]:
    async with server() as srv:
        host = await Client.connect(srv.port, "127.0.0.2")
        await host.hello("Host")
        code = (await host.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        player = await Client.connect(srv.port, "127.0.0.3")
        await player.hello("Pat")
        await player.request({"type": "join_room", "room": code})
        token = player.token
        until = time.monotonic() + seconds
        joins = 0
        cut_off = 0

        async def watcher(k: int) -> None:
            nonlocal joins
            source = f"127.0.1.{10 + k % 10}"
            identity: str | None = None
            while time.monotonic() < until:
                try:
                    c = await Client.connect(srv.port, source)
                    hello = await c.hello(f"W{k}", identity)
                    identity = c.token or identity
                    if hello["type"] == "welcome":
                        reply = await c.request(
                            {"type": "join_room", "room": code, "as": "spectator"}, 2
                        )
                        joins += reply["type"] == "joined"
                    c.close()
                except (OSError, ConnectionError, TimeoutError):
                    await asyncio.sleep(0.05)

        async def reconnecting_player() -> None:
            nonlocal cut_off, player
            while time.monotonic() < until:
                player.close()
                player = await Client.connect(srv.port, "127.0.0.3")
                await player.hello("Pat", token)
                with contextlib.suppress(TimeoutError):
                    while True:
                        msg = await player.recv(timeout=0.3)
                        if msg["type"] == "bye" or msg.get("code") == "rate_limited":
                            cut_off += 1

        host_rooms = 0
        t0 = time.monotonic()
        received0 = host.received

        async def count_host() -> None:
            nonlocal host_rooms
            with contextlib.suppress(TimeoutError, ConnectionError):
                while time.monotonic() < until:
                    msg = await host.recv(timeout=max(0.05, until - time.monotonic()))
                    host_rooms += msg["type"] == "room"

        await asyncio.gather(count_host(), reconnecting_player(), *(watcher(k) for k in range(100)))
        elapsed = time.monotonic() - t0
        out = {
            "spectator_joins_per_s": round(joins / elapsed, 1),
            "host_room_messages_per_s": round(host_rooms / elapsed, 1),
            "host_kib_per_s": round((host.received - received0) / elapsed / 1024, 1),
            "reconnecting_player_cut_off": cut_off,
            "server_rss_mib": round(srv.rss(), 1),
        }
        host.close()
        player.close()
    return out


async def slots(seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with server() as srv:
        rss0 = srv.rss()

        async def open_many(n: int, prefix: str) -> list[Client]:
            clients = []
            for i in range(n):
                source = f"127.{prefix}.{i // 16 % 250}.{2 + i // 4000}"
                with contextlib.suppress(OSError):
                    clients.append(await Client.connect(srv.port, source))
            return clients

        async def closed_by_server(clients: list[Client]) -> int:
            """Clients whose connection the server ended (its error, then end of stream)."""
            count = 0
            for c in clients:
                try:
                    while True:
                        await c.recv(timeout=0.01)
                except ConnectionError:
                    count += 1
                except TimeoutError:
                    pass
            return count

        idle = await open_many(1000, "2")
        await asyncio.sleep(1.0)
        newcomer = await Client.connect(srv.port, "127.0.0.5")
        out["newcomer_during_idle_flood"] = (await newcomer.hello("New"))["type"]
        newcomer.close()
        out["idle_held"] = len(idle)
        await asyncio.sleep(10.5)  # the default hello_timeout is 10 s
        out["idle_closed_by_server_after_hello_timeout"] = await closed_by_server(idle)
        for c in idle:
            c.close()
        # Half frames: hello, then a header for 60 KB and 30 KB of it.
        half = []
        for i in range(1000):
            source = f"127.3.{i // 16 % 250}.2"
            with contextlib.suppress(OSError, ConnectionError, TimeoutError):
                c = await Client.connect(srv.port, source)
                await c.hello(f"H{i}")
                c.writer.write(struct.pack(">I", 60_000) + b"\x00" * 30_000)
                half.append(c)
        await asyncio.sleep(1.0)
        out["half_frames_held"] = len(half)
        out["rss_mib_before"] = round(rss0, 1)
        out["rss_mib_half_frames_held"] = round(srv.rss(), 1)
        await asyncio.sleep(11.5)  # frame_timeout 10 s, then the close grace
        out["half_frames_closed_by_server"] = await closed_by_server(half)
        for c in half:
            c.close()
        await asyncio.sleep(2.0)
        out["rss_mib_after_timeouts"] = round(srv.rss(), 1)
    del seconds
    return out


async def growth(seconds: float) -> dict[str, Any]:
    async with server() as srv:
        size0 = srv.db.stat().st_size + _wal(srv.db)
        created = refused = 0
        until = time.monotonic() + seconds
        t0 = time.monotonic()
        c = await Client.connect(srv.port, "127.0.0.9")
        await c.hello("Grow")
        create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1}
        while time.monotonic() < until:
            await asyncio.sleep(PACE)  # at the connection's own rate: none are dropped
            reply = await c.request({**create, "autostart": True})
            if reply["type"] == "joined":
                created += 1
                await asyncio.sleep(PACE)
                await c.request({"type": "leave_room", "room": reply["room"]})
            else:
                refused += 1
        elapsed = time.monotonic() - t0
        await asyncio.sleep(0.5)
        grown = srv.db.stat().st_size + _wal(srv.db) - size0
        log0 = srv.log.stat().st_size
        t1 = time.monotonic()
        answers = 0
        while time.monotonic() < t1 + seconds / 2:
            await asyncio.sleep(PACE)
            reply = await c.request({"type": "get_replay", "game": 2**63})
            answers += reply["type"] == "error"
        elapsed2 = time.monotonic() - t1
        await asyncio.sleep(0.3)
        c.close()
        return {
            "rooms_created_per_s": round(created / elapsed, 2),
            "create_refused_per_s": round(refused / elapsed, 1),
            "db_bytes_per_hour": round(grown / elapsed * 3600),
            "finished_game_bytes_and_decisions": finished_game_bytes(),
            "get_replay_2_63_answers_per_s": round(answers / elapsed2),
            "log_bytes_per_s_meanwhile": round((srv.log.stat().st_size - log0) / elapsed2),
        }


def _checkpointed_size(db: Path) -> int:
    """The database's size with its write-ahead log folded in."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        (free,) = conn.execute("PRAGMA freelist_count").fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    finally:
        conn.close()
    return int((pages - free) * size)


def finished_game_bytes(games: int = 40) -> tuple[int, int]:
    """(bytes, decisions) per finished 4-seat game, stored as the room stores one: basic bots
    play whole games into a fresh database file."""
    import random

    from server.bots.levels import choose
    from server.engine import Game
    from server.store import Store

    with tempfile.TemporaryDirectory(prefix="selfish-growth-") as tmp:
        db = Path(tmp) / "g.sqlite3"
        store = Store(str(db))
        store.on_write = lambda: None  # one commit per game, as ticks batch them
        empty = _checkpointed_size(db)
        decisions = 0
        for seed in range(games):
            names = ["Ann", "Bob", "Cy", "Dee"]
            seats = [{"kind": "human", "name": n, "player": f"p{seed:08x}"} for n in names]
            edition = "space" if seed % 2 else "shipwrecked"
            game = Game(edition, names, seed)
            gid = store.create_game("ABCD", edition, names, seats, {"public": True}, seed, 0)
            rng = random.Random(seed)
            while not game.over and game.turn < 1000:
                seat = game.pending_seats()[0]
                game.apply(seat, choose("basic", game.view(seat), rng))
                n = len(game.decisions) - 1
                store.append_decision(gid, n, seat, game.decisions[-1][1], "human")
            store.finish_game(gid, "over", game.winner, game.turn)
            store.commit()
            decisions += len(game.decisions)
        store.close()
        return (_checkpointed_size(db) - empty) // games, decisions // games


def _wal(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


# --------------------------------------------------------------------------- the front doors
# Issue 27 items 11-16: the SSH gateway and `selfish web`. Each prints whether a newcomer (a
# fresh address) reaches a lobby within 5 s while the attack runs, and the CPU share and memory
# of the server's whole process tree (the gateway's fork server and clients, or the web
# server's page processes, are children of it).

LOBBY = "Selfish — lobby"
NEWCOMER_WAIT = 5.0  # the goal: a newcomer's lobby within this
NEWCOMER_LIMIT = 30.0  # how long a newcomer is given before "no lobby" (a busy machine)


def arrival_figures(seconds: float | None) -> dict[str, Any]:
    """A newcomer's figures: seconds to the lobby (None: none within NEWCOMER_LIMIT)."""
    return {
        "newcomer_lobby_s": seconds,
        "newcomer_within_5_s": seconds is not None and seconds <= NEWCOMER_WAIT,
    }


def tree(pid: int) -> list[int]:
    """``pid`` and every process descending from it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def tree_usage(pid: int) -> tuple[float, float, int]:
    """CPU seconds, resident MiB and processes of ``pid``'s tree (children that ended and were
    reaped are in their parent's cutime)."""
    cpu = rss = 0.0
    count = 0
    for member in tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            pages = int(Path(f"/proc/{member}/statm").read_text().split()[1])
        except OSError:
            continue
        cpu += sum(int(f) for f in fields[11:15]) / CLK_TCK
        rss += pages * PAGE / 2**20
        count += 1
    return cpu, rss, count


class Usage:
    """The CPU share and memory of a process tree over an attack."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.cpu0, self.rss0, _ = tree_usage(pid)
        self.t0 = time.monotonic()

    def report(self) -> dict[str, Any]:
        cpu, rss, count = tree_usage(self.pid)
        return {
            "cpu_pct": round(100 * (cpu - self.cpu0) / (time.monotonic() - self.t0), 1),
            "rss_mib": round(rss, 1),
            "rss_growth_mib": round(rss - self.rss0, 1),
            "processes": count,
        }


class GatewayServer(Server):
    """A ``selfish-server`` with its SSH gateway on a free port (``ssh_port``)."""

    ssh_port = 0

    async def _copy_log(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            self._log.write(line)
            if m := re.search(rb"SSH gateway on 127\.0\.0\.1:(\d+)", line):
                self.ssh_port = int(m.group(1))

    async def gateway_port(self) -> int:
        end = time.monotonic() + 60
        while not self.ssh_port:
            if time.monotonic() > end:
                raise RuntimeError("the SSH gateway did not start")
            await asyncio.sleep(0.05)
        return self.ssh_port


@contextlib.asynccontextmanager
async def gateway_server(settings: str = "") -> AsyncIterator[GatewayServer]:
    with tempfile.TemporaryDirectory(prefix="selfish-attack-") as tmp:
        running = GatewayServer(Path(tmp), "[server]\nssh_port = 0\n" + settings)
        await running.start()
        try:
            await running.gateway_port()
            yield running
        finally:
            await running.stop()


async def ssh_connect(port: int, source: str, user: str = "newcomer", **options: Any) -> Any:
    import asyncssh

    options.setdefault("client_keys", [])
    if not options["client_keys"]:
        options.setdefault("password", "")
    return await asyncssh.connect(
        HOST,
        port,
        username=user,
        known_hosts=None,
        agent_path=None,
        local_addr=(source, 0),
        **options,
    )


async def ssh_lobby(
    port: int, source: str, user: str = "newcomer", timeout: float = NEWCOMER_LIMIT, **options: Any
) -> float | None:
    """Seconds until a fresh SSH session (with a PTY) shows the lobby, or None if it did not
    within ``timeout`` (or was refused)."""
    import pyte

    t0 = time.monotonic()
    conn = None
    try:
        async with asyncio.timeout(timeout):
            conn = await ssh_connect(port, source, user, **options)
            process = await conn.create_process(
                term_type="xterm-256color", term_size=(100, 30), encoding=None
            )
            screen = pyte.Screen(100, 30)
            stream = pyte.ByteStream(screen)
            while True:
                data = await process.stdout.read(65_536)
                if not data:
                    return None
                stream.feed(data)
                if any(LOBBY in line for line in screen.display):
                    return round(time.monotonic() - t0, 2)
    except (TimeoutError, OSError, Exception):
        return None
    finally:
        if conn is not None:
            conn.abort()


async def ssh_idle(seconds: float) -> dict[str, Any]:
    """Item 11: 64 connections (8 addresses x 8) log in and never open a session."""
    async with gateway_server() as srv:
        usage = Usage(srv.proc.pid)  # type: ignore[union-attr]
        idle = []
        for i in range(64):
            with contextlib.suppress(Exception):
                idle.append(await ssh_connect(srv.ssh_port, f"127.11.{i // 8}.2", f"idle{i}"))
        await asyncio.sleep(1.0)
        lobby = await ssh_lobby(srv.ssh_port, "127.11.200.2")
        await asyncio.sleep(max(0.0, seconds - 1.0))
        await asyncio.sleep(6.0)  # past the gateway's 5 s to open a session
        still_open = sum(1 for c in idle if not c.is_closed())
        out = {
            "idle_logged_in": len(idle),
            **arrival_figures(lobby),
            "idle_open_after_6_s": still_open,
            **usage.report(),
        }
        for c in idle:
            c.abort()
    return out


async def ssh_auth(seconds: float) -> dict[str, Any]:
    """Item 12: one connection offering 200 keys; then one address opening connections (and
    failing their authentication) as fast as it can."""
    import asyncssh

    with tempfile.TemporaryDirectory(prefix="selfish-keys-") as keys_dir:
        allowed = asyncssh.generate_private_key("ssh-ed25519")
        listed = Path(keys_dir) / "authorized_keys"
        listed.write_bytes(allowed.export_public_key())
        settings = f'ssh_auth = "keys"\nssh_authorized_keys = "{listed}"\n'
        strangers = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(200)]
        async with gateway_server(settings) as srv:
            out: dict[str, Any] = {}
            t0 = time.monotonic()
            try:
                conn = await ssh_connect(
                    srv.ssh_port, "127.12.0.2", "many", client_keys=[*strangers, allowed]
                )
                conn.abort()
                out["200_keys_then_the_right_one"] = "logged in"
            except Exception as exc:
                out["200_keys_then_the_right_one"] = f"cut off ({type(exc).__name__})"
            out["200_keys_s"] = round(time.monotonic() - t0, 2)

            usage = Usage(srv.proc.pid)  # type: ignore[union-attr]
            stop = time.monotonic() + seconds
            tried = failed_auth = dropped = 0

            async def hammer() -> None:
                nonlocal tried, failed_auth, dropped
                while time.monotonic() < stop:
                    tried += 1
                    try:
                        conn = await ssh_connect(
                            srv.ssh_port, "127.12.1.2", "hammer", client_keys=strangers[:1]
                        )
                        conn.abort()
                    except asyncssh.PermissionDenied:
                        failed_auth += 1  # a whole key exchange and a refused key
                    except (OSError, asyncssh.Error):
                        dropped += 1  # before the key exchange
                        await asyncio.sleep(0.01)

            hammers = [asyncio.create_task(hammer()) for _ in range(16)]
            await asyncio.sleep(1.0)
            lobby = await ssh_lobby(srv.ssh_port, "127.12.2.2", client_keys=[allowed])
            await asyncio.gather(*hammers)
            elapsed = seconds
            out.update(
                {
                    "connections_tried_per_s": round(tried / elapsed),
                    "failed_handshakes_per_s": round(failed_auth / elapsed, 1),
                    "dropped_before_kex_per_s": round(dropped / elapsed),
                    **arrival_figures(lobby),
                    **usage.report(),
                }
            )
    return out


async def ssh_resize(seconds: float) -> dict[str, Any]:
    """Item 13: eight sessions at 1000x1000 that stop reading and change their window size
    20 times a second."""
    async with gateway_server() as srv:
        started = Usage(srv.proc.pid)  # type: ignore[union-attr]
        conns, processes = [], []
        for i in range(8):
            conn = await ssh_connect(srv.ssh_port, f"127.13.{i}.2", f"big{i}")
            process = await conn.create_process(
                term_type="xterm-256color", term_size=(1000, 1000), encoding=None
            )
            conns.append(conn)
            processes.append(process)
        for process in processes:  # the first bytes: the client is up; then read no more
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.stdout.read(1), 30)
        up = started.report()
        await asyncio.sleep(8.0)  # their first frames drawn (a few CPU-seconds at this size)
        quiet = Usage(srv.proc.pid)  # type: ignore[union-attr]
        await asyncio.sleep(seconds / 2)  # the same sessions, not resizing
        before = quiet.report()
        out: dict[str, Any] = {"sessions": len(processes), "rss_mib_sessions_up": up["rss_mib"]}
        out["quiet"] = before
        # 1000 then 999 columns (both clamped to the same size), then 300 then 299 (two real
        # sizes): each session changes its window 20 times a second.
        for label, widths in (("flood_1000_999", (1000, 999)), ("flood_300_299", (300, 299))):
            usage = Usage(srv.proc.pid)  # type: ignore[union-attr]
            stop = time.monotonic() + seconds

            async def flood_resizes(
                process: Any, widths: tuple[int, int] = widths, stop: float = stop
            ) -> None:
                step = 0
                while time.monotonic() < stop and not process.is_closing():
                    step += 1
                    with contextlib.suppress(Exception):
                        process.change_terminal_size(widths[step % 2], 1000)
                    await asyncio.sleep(0.05)

            floods = [asyncio.create_task(flood_resizes(p)) for p in processes]
            await asyncio.sleep(1.0)
            lobby = await ssh_lobby(srv.ssh_port, "127.13.100.2")
            await asyncio.gather(*floods)
            out[label] = {**arrival_figures(lobby), **usage.report()}
        out["sessions_dropped_by_server"] = sum(1 for p in processes if p.is_closing())
        for conn in conns:
            conn.abort()
    return out


async def ssh_names(seconds: float) -> dict[str, Any]:
    """Item 14: user names that look like the client's options."""
    del seconds
    async with gateway_server() as srv:
        out: dict[str, Any] = {}
        for i, name in enumerate(["-x", "--join", "-h", "--name=x"]):
            out[name] = await ssh_lobby(srv.ssh_port, f"127.14.{i}.2", name, timeout=15.0)
    return out


class WebProcess:
    """`selfish web --server` on a free loopback port, in a child process."""

    def __init__(self, game_port: int, workdir: Path, extra: list[str]) -> None:
        self.game_port = game_port
        self.workdir = workdir
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    async def start(self) -> None:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            self.port = int(probe.getsockname()[1])
        env = {**os.environ, "XDG_DATA_HOME": str(self.workdir)}
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "selfish_tui.cli", "web", "--host", HOST),
                *("--port", str(self.port), "--server", f"{HOST}:{self.game_port}"),
                *self.extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        end = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection((HOST, self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > end:
                    raise
                await asyncio.sleep(0.2)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def web_page(
    port: int, source: str, origin: str | None = "own", lobby_within: float | None = None
) -> tuple[Any, Any, str]:
    """Open a page from ``source``: (session, websocket or None, what happened). With
    ``lobby_within`` seconds, also wait for the lobby on its terminal."""
    import aiohttp
    import pyte

    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(local_addr=(source, 0)),
        cookie_jar=aiohttp.CookieJar(unsafe=True),
    )
    base = f"http://{HOST}:{port}"
    headers = {} if origin is None else {"Origin": base if origin == "own" else origin}
    t0 = time.monotonic()
    try:
        async with session.get(base + "/") as page:
            if page.status != 200:
                return session, None, f"page {page.status}"
        ws = await session.ws_connect(base + "/ws?width=100&height=30", headers=headers)
    except aiohttp.WSServerHandshakeError as exc:
        return session, None, f"websocket {exc.status}"
    except (OSError, aiohttp.ClientError) as exc:
        return session, None, type(exc).__name__
    if lobby_within is None:
        return session, ws, "open"
    screen = pyte.Screen(100, 30)
    stream = pyte.ByteStream(screen)
    try:
        async with asyncio.timeout(lobby_within):
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    stream.feed(message.data)
                    if any(LOBBY in line for line in screen.display):
                        return session, ws, f"{time.monotonic() - t0:.2f}"
                elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
    except TimeoutError:
        pass
    return session, ws, "no lobby"


def web_arrival(arrival: str) -> dict[str, Any]:
    """A browser newcomer's figures: seconds to the lobby, or what stopped it."""
    try:
        return arrival_figures(float(arrival))
    except ValueError:
        return {**arrival_figures(None), "newcomer_refused": arrival}


@contextlib.asynccontextmanager
async def web_server(extra: list[str] | None = None) -> AsyncIterator[tuple[Server, WebProcess]]:
    async with server() as srv:
        with tempfile.TemporaryDirectory(prefix="selfish-web-") as tmp:
            web = WebProcess(srv.port, Path(tmp), extra or [])
            await web.start()
            try:
                yield srv, web
            finally:
                web.stop()


async def web_pages(seconds: float) -> dict[str, Any]:
    """Item 15: 50 pages from one address, then 50 from 13 addresses."""
    out: dict[str, Any] = {}
    async with web_server() as (_, web):
        assert web.proc is not None
        for label, sources in (
            ("one_address", ["127.15.0.2"] * 50),
            ("13_addresses", [f"127.15.{1 + i % 13}.2" for i in range(50)]),
        ):
            usage = Usage(web.proc.pid)
            opened = await asyncio.gather(*(web_page(web.port, s) for s in sources))
            # The accepted pages' clients start (a fresh interpreter each: about a CPU-second).
            await asyncio.sleep(max(seconds, 10.0))
            page_of_newcomer, ws, arrival = await web_page(
                web.port, "127.15.100.2", lobby_within=NEWCOMER_LIMIT
            )
            outcomes = dict(Counter(result for _, _, result in opened))
            out[label] = {"pages": outcomes, **web_arrival(arrival), **usage.report()}
            for session, page, _ in opened:
                if page is not None:
                    await page.close()
                await session.close()
            if ws is not None:
                await ws.close()
            await page_of_newcomer.close()
            await asyncio.sleep(5.0)  # the pages' processes end
    return out


async def web_origin(seconds: float) -> dict[str, Any]:
    """Item 16: websockets opened from another site's page (and with no Origin at all)."""
    del seconds
    async with web_server() as (_, web):
        assert web.proc is not None
        usage = Usage(web.proc.pid)
        tries = []
        for i, origin in enumerate(["http://evil.example", "null", None] * 7):
            tries.append(await web_page(web.port, f"127.16.{i}.2", origin=origin))
        page_of_newcomer, ws, arrival = await web_page(
            web.port, "127.16.100.2", lobby_within=NEWCOMER_LIMIT
        )
        out = {
            "foreign": dict(Counter(result for _, _, result in tries)),
            **web_arrival(arrival),
            **usage.report(),
        }
        for session, page, _ in tries:
            if page is not None:
                await page.close()
            await session.close()
        if ws is not None:
            await ws.close()
        await page_of_newcomer.close()
    return out


SCENARIOS = {
    "flood": flood,
    "reconnect": reconnect,
    "spectators": spectators,
    "slots": slots,
    "growth": growth,
    "ssh_idle": ssh_idle,
    "ssh_auth": ssh_auth,
    "ssh_resize": ssh_resize,
    "ssh_names": ssh_names,
    "web_pages": web_pages,
    "web_origin": web_origin,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=6.0, help="length of each attack")
    p.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results: dict[str, Any] = {}
    for name in args.only.split(","):
        results[name] = asyncio.run(SCENARIOS[name](args.seconds))
        if not args.json:
            print(f"{name}: {json.dumps(results[name])}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
