"""Attacks on a real ``selfish-server`` process, loopback only, a few seconds each; figures out.

    python bench/attack.py [--seconds 6] [--only flood,reconnect,...] [--json] [--baseline DIR]

The server runs with its default limits (a temporary database) in a child process, so its CPU
time and memory are read from /proc. Attackers and the healthy players bind distinct loopback
source addresses (127.0.0.2, 127.0.0.3, ... all loopback on Linux), as distinct hosts would.

Scenarios against the connection limits:

* ``flood``: one connection, never saying hello, writes ping frames as fast as the socket
  takes them, reconnecting when cut off, while two people play a game. Prints the flood's
  bytes/s and frames/s offered, the server's CPU share, and the game's act->state p50/p99
  beside the same game without the flood.
* ``reconnect``: one address cycles connect -> hello with its token -> chat -> create_room
  -> 5 room-code probes -> close. Prints the reconnects, chat lines delivered to another
  member, rooms created and probes answered, per second.
* ``spectators``: 100 spectators (from 10 addresses) join and vanish in a loop while a host
  waits in the room: ``room`` broadcasts and bytes the host receives per second, and whether
  a player reconnecting meanwhile is cut off.
* ``slots``: 1,000 connections that never say hello (16 per address), then 1,000 that send
  a 4-byte header announcing a 60 KB frame and 30 KB of it: how many are still open after the
  hello and frame timeouts, the server's RSS while held and after, and whether a newcomer gets
  in.
* ``ssh_idle``, ``ssh_auth``, ``ssh_resize``, ``ssh_names``, ``web_pages``, ``web_origin``:
  the SSH gateway (``ssh_port = 0``) and ``selfish web`` under
  connections that log in and open no session, 200 keys on one connection and a handshake
  flood from one address, eight 1000x1000 sessions that stop reading and resize 20 times a
  second, option-like user names, 50 browser pages, and websockets from another site. Each
  prints whether a newcomer from a fresh address reaches a lobby within 5 s meanwhile, and
  the CPU share and memory of the whole process tree (server, fork server, clients, pages).
* ``growth``: create-and-leave from one address for the run: rooms/s and database bytes per
  hour; then ``get_replay`` with ``game`` = 2**63: replies and server log bytes per second.

Against the rooms and the database (each beside a 2-player game: its act->state p50/p99, goal
p99 <= 50 ms, the server's CPU share and RSS during the attack):

* ``replays``: 10,000 finished games stored; one address sends ``list_replays`` from three
  connections, each at 16 a second (within the message rates): answers and refusals per second.
* ``squat``: 100 addresses fill every room and stay connected; a newcomer tries to create a
  room every half second: whether and after how long it gets one (``idle_room_grace`` = 3 s).
* ``rooms``: the same 999 rooms, then one address sends ``list_rooms``
  from three connections at 16 a second each: answers per second.

``--baseline CHECKOUT`` runs each scenario against that checkout's server code first (the same
attack in the same run, e.g. a checkout of a server without one of the limits).

Against decoding and broadcasts, each while Ann and Bob play a game (their act->state p50/p99
during the attack, the server's CPU share, peak RSS and log bytes/s; ``quiet`` is the same game
without an attack):

* ``decode``: one address, never saying hello, writes 64 KiB pings of 65,000 empty lists
  (``lists``) or of 250 lists of 250 (``grid``) as fast as the socket takes them, reconnecting.
* ``deep``: one address writes frames of 900 nested lists, 50 at a time, reconnecting.
* ``sync``: 16 spectators of the game (4 addresses) send ``sync`` at their message rate: the
  KiB/s that the syncs brought them (beyond what a 17th, watching only, received).
* ``unidentified``: 126 addresses x 16 sockets that never say hello, re-opened as they are
  closed; a newcomer tries to connect and say hello every 0.2 s.
* ``leave``: 10 spectators join the game's room and leave it at their message rate: the
  ``room`` messages a player receives per second.

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
from collections.abc import AsyncIterator, Awaitable, Callable
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
CHECKOUT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- the server


# Another checkout whose server code the scenarios run against instead of this one's
# (--baseline): the same attack, side by side in one run.
CODE: str | None = None


class Server:
    """A ``selfish-server`` child process with its default limits."""

    def __init__(self, workdir: Path, settings: str = "") -> None:
        self.workdir = workdir
        self.db = workdir / "attack.sqlite3"
        self.log = workdir / "server.log"
        self.settings = settings
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.env = dict(os.environ)
        if CODE is not None:
            self.env["PYTHONPATH"] = CODE

    async def start(self) -> None:
        config = self.workdir / "server.toml"
        config.write_text(self.settings)
        script = shutil.which("selfish-server", path=os.path.dirname(sys.executable))
        command = [script] if script else [sys.executable, "-m", "server.cli"]
        self._log = open(self.log, "wb", buffering=0)  # noqa: SIM115 - closed in stop()
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
            env=self.env,
            cwd=self.workdir,  # the code comes from PYTHONPATH, never the working directory
        )
        assert self.proc.stderr is not None
        while True:
            line = (await asyncio.wait_for(self.proc.stderr.readline(), 15)).decode()
            if not line:
                self._log.flush()
                raise RuntimeError(f"the server exited: {self.log.read_text()[-800:]}")
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


def known_settings(settings: dict[str, Any]) -> str:
    """``settings`` as TOML, without those the server code under test does not have (a
    baseline from before they existed refuses unknown settings)."""
    env = {**os.environ, **({"PYTHONPATH": CODE} if CODE is not None else {})}
    fields = subprocess.run(
        [sys.executable, "-c", "from server.config import FIELDS; print(' '.join(FIELDS))"],
        env=env,
        cwd=CODE,  # not this checkout: python -c puts the working directory first on the path
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items() if k in fields)


@contextlib.asynccontextmanager
async def server(
    settings: str = "", prepare: Callable[[Path], None] | None = None
) -> AsyncIterator[Server]:
    """A server with ``settings`` (TOML); ``prepare`` fills its database file first."""
    with tempfile.TemporaryDirectory(prefix="selfish-attack-") as tmp:
        running = Server(Path(tmp), settings)
        if prepare is not None:
            prepare(running.db)
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
        msg: Message = {"type": "hello", "protocol": 2, "name": name}
        if token:
            msg["token"] = token
        reply = await self.request(msg)
        if reply["type"] == "welcome":
            self.token = reply["token"]
        return reply

    def close(self) -> None:
        self.writer.transport.abort()


# --------------------------------------------------------------------------- scenarios


async def play(
    a: Client,
    b: Client,
    code: str,
    until: float,
    rtts: list[float],
    sent_at: list[float] | None = None,
    kinds: Counter[str] | None = None,
) -> int:
    """Ann and Bob act as soon as they may; each act's time to its state goes to ``rtts``
    (and, given ``sent_at``, the time it was sent to that list), the type of each message Ann
    receives to ``kinds``."""
    sent: dict[Client, tuple[int, float]] = {}
    games = 0

    async def seat(me: Client) -> None:
        nonlocal games
        while time.monotonic() < until:
            try:
                msg = await me.recv(timeout=max(0.05, until - time.monotonic()))
            except (TimeoutError, ConnectionError):
                return
            if kinds is not None and me is a:
                kinds[msg["type"]] += 1
            if msg["type"] == "game_over" and me is a:
                games += 1
                me.send({"type": "rematch", "room": code})
            if msg["type"] != "state":
                continue
            pending = sent.get(me)
            if pending is not None and msg["version"] > pending[0]:
                rtts.append(time.monotonic() - pending[1])
                if sent_at is not None:
                    sent_at.append(pending[1])
                del sent[me]
            legal = msg["view"]["legal"]
            if legal:
                choice = next((i for i, c in enumerate(legal) if not c.get("fatal")), 0)
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


async def healthy_game(srv: Server, until: float, attack: Callable[[], Any]) -> dict[str, Any]:
    """Two people play (rematching) until ``until`` while ``attack()`` runs; the game's
    act->state p50/p99, the server's CPU share and RSS meanwhile, and the attack's result."""
    a, b, code = await table(srv.port)
    rtts: list[float] = []
    sent_at: list[float] = []
    cpu0, t0 = srv.cpu(), time.monotonic()
    _, result = await asyncio.gather(play(a, b, code, until, rtts, sent_at), attack())
    elapsed = time.monotonic() - t0
    a.close()
    b.close()
    later = result.pop("then", None)  # the acts from then on apart: after an attack's first step
    if later is not None:
        after = [rtt for rtt, at in zip(rtts, sent_at, strict=True) if at >= later]
        result["p50_ms_after_the_fill"] = round(pct(after, 0.5), 2)
        result["p99_ms_after_the_fill"] = round(pct(after, 0.99), 2)
    return {
        "acts": len(rtts),
        "p50_ms": round(pct(rtts, 0.5), 2),
        "p99_ms": round(pct(rtts, 0.99), 2),
        "server_cpu_pct": round(100 * (srv.cpu() - cpu0) / elapsed, 1),
        "server_rss_mib": round(srv.rss(), 1),
        **result,
    }


REPLAY_GAMES = 10_000


def stored_replays(db: Path, games: int = REPLAY_GAMES) -> None:
    """A database holding ``games`` finished private games of one player (by SQL, in a
    second): nobody else may list them, the worst case of a scan."""
    from server.store.store import Store

    Store(str(db)).close()  # the tables, as the server code of this checkout makes them
    seats = json.dumps([{"kind": "human", "name": "Old", "player": "pold00001"}])
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO games (id, room, edition, names, seats, settings, seed, version_base,"
            " status, winner, turns, started, ended) VALUES (?, 'ROOM', 'space', '[\"Old\"]', ?,"
            " '{\"public\": false}', 1, 0, 'over', 0, 9, 0, 0)",
            [(n, seats) for n in range(1, games + 1)],
        )
        # the index this checkout's store reads (a baseline's server does not look at it)
        conn.executemany(
            "INSERT INTO replays (viewer, game) VALUES ('pold00001', ?)",
            [(n,) for n in range(1, games + 1)],
        )
    conn.close()


async def replays(seconds: float) -> dict[str, Any]:
    """With 10,000 finished games stored, one address asks for replays as
    fast as its message rate lets it (three connections of 16 requests a second), beside a
    2-player game."""
    async with server(prepare=stored_replays) as srv:
        until = time.monotonic() + seconds

        async def ask(c: Client) -> tuple[int, int]:
            answered = refused = 0
            while time.monotonic() < until:
                await asyncio.sleep(PACE)
                try:
                    reply = await c.request({"type": "list_replays"}, timeout=10)
                except (TimeoutError, ConnectionError):
                    break
                answered += reply["type"] == "replays"
                refused += reply["type"] == "error"
            return answered, refused

        async def attack() -> dict[str, Any]:
            askers = []
            for n in range(3):
                c = await Client.connect(srv.port, "127.0.0.9")
                await c.hello(f"Ask{n}")
                askers.append(c)
            t0 = time.monotonic()
            counts = await asyncio.gather(*(ask(c) for c in askers))
            elapsed = time.monotonic() - t0
            for c in askers:
                c.close()
            return {
                "stored_games": REPLAY_GAMES,
                "list_replays_answered_per_s": round(sum(a for a, _ in counts) / elapsed, 1),
                "list_replays_refused_per_s": round(sum(r for _, r in counts) / elapsed, 1),
            }

        return await healthy_game(srv, until, attack)


SQUATTERS = 100  # addresses
SQUAT_SETTINGS = {"idle_room_grace": 3.0}  # seconds: this run's, not the default 60


async def squat(seconds: float) -> dict[str, Any]:
    """100 addresses (127.0.1.x) fill every room the server has, stay
    connected and ping; a newcomer then tries to create a room every half second. The server
    runs with ``idle_room_grace`` = 3 s (a short run; the default is 60 s). The game's p99 is
    also given for the acts after the rooms were filled: while squatters hold them."""
    async with server(known_settings(SQUAT_SETTINGS)) as srv:
        until = time.monotonic() + seconds

        async def attack() -> dict[str, Any]:
            # The squatters are a process of their own: in this one they would slow the
            # players' loop, and the game's figures would measure this script.
            parent, child = mp.Pipe()
            proc = mp.Process(target=_squatters, args=(srv.port, until, child))
            proc.start()
            loop = asyncio.get_running_loop()
            created, filled = await loop.run_in_executor(None, parent.recv)
            then = time.monotonic()
            newcomer = await Client.connect(srv.port, "127.0.0.8")
            await newcomer.hello("New")
            t1 = time.monotonic()
            got_in: float | None = None
            tries = 0
            while time.monotonic() < until:
                tries += 1
                reply = await newcomer.request(
                    {"type": "create_room", "edition": "space", "seats": 2}
                )
                if reply["type"] == "joined":
                    got_in = time.monotonic() - t1
                    break
                await asyncio.sleep(0.5)
            newcomer.close()
            await loop.run_in_executor(None, proc.join)
            return {
                "squatter_rooms": created,
                "filled_in_s": filled,
                "newcomer_tries": tries,
                "newcomer_created_after_s": None if got_in is None else round(got_in, 2),
                "then": then,
            }

        return await healthy_game(srv, until, attack)


async def rooms(seconds: float) -> dict[str, Any]:
    """The room listing: 100 addresses fill every room (as ``squat``), then one
    address sends ``list_rooms`` from three connections, each at 16 a second (within the
    message rates), beside a 2-player game."""
    async with server() as srv:
        until = time.monotonic() + seconds

        async def attack() -> dict[str, Any]:
            parent, child = mp.Pipe()
            proc = mp.Process(target=_squatters, args=(srv.port, until, child))
            proc.start()
            loop = asyncio.get_running_loop()
            created, _ = await loop.run_in_executor(None, parent.recv)
            then = time.monotonic()
            askers = []
            for n in range(3):
                c = await Client.connect(srv.port, "127.0.0.9")
                await c.hello(f"List{n}")
                askers.append(c)

            async def ask(c: Client) -> int:
                answered = 0
                while time.monotonic() < until:
                    await asyncio.sleep(PACE)
                    try:
                        reply = await c.request({"type": "list_rooms"}, timeout=10)
                    except (TimeoutError, ConnectionError):
                        break
                    answered += reply["type"] == "rooms"
                return answered

            answered = sum(await asyncio.gather(*(ask(c) for c in askers)))
            elapsed = time.monotonic() - then
            for c in askers:
                c.close()
            await loop.run_in_executor(None, proc.join)
            return {
                "rooms_listed": created + 1,
                "list_rooms_answered_per_s": round(answered / elapsed, 1),
                "then": then,
            }

        return await healthy_game(srv, until, attack)


def _squatters(port: int, until: float, pipe: Connection) -> None:
    """Fill the server's rooms from 100 addresses, 10 rooms each; send (rooms, seconds) down
    ``pipe``; then stay connected, pinging, until ``until``."""

    async def one(n: int, held: list[Client]) -> int:
        created = 0
        for i in range(3):  # 3 identities (4 rooms each at most): 10 rooms an address
            try:
                c = await Client.connect(port, f"127.0.1.{n + 1}")
                await c.hello(f"Sq{n}x{i}")
            except (OSError, ConnectionError, TimeoutError):
                return created
            held.append(c)
            for _ in range(4):
                if created >= 10:
                    break
                reply = await c.request({"type": "create_room", "edition": "space", "seats": 5})
                if reply["type"] != "joined":
                    break
                created += 1
        return created

    async def run() -> None:
        held: list[Client] = []
        t0 = time.monotonic()
        created = sum(await asyncio.gather(*(one(n, held) for n in range(SQUATTERS))))
        pipe.send((created, round(time.monotonic() - t0, 2)))
        while time.monotonic() < until:
            for c in held:  # a ping keeps each connection alive (the pongs stay unread)
                c.send({"type": "ping"})
            await asyncio.sleep(1.0)
        for c in held:
            c.close()

    asyncio.run(run())


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
    from server.store.store import Store

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


# ----------------------------------------------------------------- decoding and broadcasts
#
# Each runs an attack from a process of its own (in this one it would slow the players' loop)
# while Ann and Bob play, and prints the game's act->state p50/p99 during the attack, the
# server's CPU share and memory, and what the attack got.

Attacker = Callable[..., None]


async def under_attack(
    seconds: float,
    attacker: Attacker,
    *args: Any,
    kinds: Counter[str] | None = None,
    meanwhile: Callable[[int, float], Awaitable[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Start ``attacker(port, room, seconds, pipe, *args)`` in a process; once it reports
    ready on its pipe, Ann and Bob play for ``seconds`` (and ``meanwhile(port, seconds)``
    runs). Returns the game's figures, the server's, and what the attacker sent back on its
    pipe and ``meanwhile`` returned."""
    async with server() as srv:
        a, b, code = await table(srv.port)
        parent, child = mp.Pipe()
        proc = mp.Process(target=attacker, args=(srv.port, code, seconds, child, *args))
        proc.start()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, parent.poll, 60.0)  # the attack is under way
        ready = parent.recv() if parent.poll() else {}
        rtts: list[float] = []
        rss: list[float] = []

        async def sample_memory() -> None:
            while True:
                rss.append(srv.rss())
                await asyncio.sleep(0.25)

        sampler = asyncio.create_task(sample_memory())
        cpu0, log0, t0 = srv.cpu(), srv.log.stat().st_size, time.monotonic()
        extra: dict[str, Any] = {}
        if meanwhile is not None:
            extra, _ = await asyncio.gather(
                meanwhile(srv.port, seconds), play(a, b, code, t0 + seconds, rtts, kinds=kinds)
            )
        else:
            await play(a, b, code, t0 + seconds, rtts, kinds=kinds)
        elapsed = time.monotonic() - t0
        cpu, log = srv.cpu() - cpu0, srv.log.stat().st_size - log0
        sampler.cancel()
        found = await loop.run_in_executor(None, parent.poll, seconds + 30.0)
        report = parent.recv() if found else {}
        span = report.pop("elapsed", elapsed)  # the attacker's own rates are over its time
        proc.join(10)
        if proc.is_alive():
            proc.kill()
        a.close()
        b.close()
        return {
            "acts": len(rtts),
            "p50_ms": round(pct(rtts, 0.5), 1),
            "p99_ms": round(pct(rtts, 0.99), 1),
            "server_cpu_pct": round(100 * cpu / elapsed, 1),
            "server_rss_mib_peak": round(max(rss, default=srv.rss()), 1),
            "server_log_bytes_per_s": round(log / elapsed),
            **ready,
            **extra,
            **{
                k: round(v / span, 1) if isinstance(v, int | float) else v
                for k, v in report.items()
            },
        }


def _nobody(port: int, room: str, seconds: float, pipe: Connection) -> None:
    """No attack: the yardstick for the others' figures, in the same run."""
    pipe.send({})
    time.sleep(seconds)
    pipe.send({})


async def quiet(seconds: float) -> dict[str, Any]:
    """The healthy game alone."""
    return await under_attack(seconds, _nobody)


def _hammer(port: int, source: str, payload: bytes, until: float) -> tuple[int, int]:
    """Write ``payload`` over and over as fast as the socket takes it, reconnecting from
    ``source`` when cut off, until ``until``; (bytes offered, connections)."""
    offered = connections = 0
    while time.monotonic() < until:
        try:
            sock = socket.create_connection((HOST, port), source_address=(source, 0))
        except OSError:
            time.sleep(0.05)
            continue
        connections += 1
        sock.settimeout(0.2)
        try:
            while time.monotonic() < until:
                sock.sendall(payload)
                offered += len(payload)
        except OSError:  # cut off, or the server stopped reading
            pass
        sock.close()
    return offered, connections


def _decode_flooder(port: int, room: str, seconds: float, pipe: Connection, shape: str) -> None:
    """64 KiB pings that are cheap to send and dear to decode, never saying hello: 65,000
    empty lists in one (``lists``), or 250 lists of 250 (``grid``, within msgpack's per-array
    limit)."""
    if shape == "lists":
        pad: list[Any] = [[]] * 65_000
    else:
        pad = [[[] for _ in range(250)] for _ in range(250)]
    frame = encode({"type": "ping", "pad": pad})
    pipe.send({"frame_bytes": len(frame)})
    t0 = time.monotonic()
    offered, connections = _hammer(port, "127.0.0.9", frame, t0 + seconds)
    elapsed = time.monotonic() - t0
    pipe.send(
        {"offered_mb_per_s": offered / 1e6, "connections_per_s": connections, "elapsed": elapsed}
    )


async def decode(seconds: float) -> dict[str, Any]:
    """Frames cheap to send, dear to decode."""
    return {
        shape: await under_attack(seconds, _decode_flooder, shape) for shape in ("lists", "grid")
    }


def _deep_sender(port: int, room: str, seconds: float, pipe: Connection) -> None:
    """Frames of 900 nested lists (with a -1 in them: a 0xff byte), 50 per write, from one
    address, reconnecting when cut off."""
    body = b"\x83\xa4type\xa4ping\xa1x\xff\xa3pad" + b"\x91" * 900 + b"\x90"
    frame = struct.pack(">I", len(body)) + body
    pipe.send({"frame_bytes": len(frame)})
    t0 = time.monotonic()
    offered, connections = _hammer(port, "127.0.0.9", frame * 50, t0 + seconds)
    elapsed = time.monotonic() - t0
    pipe.send(
        {"offered_mb_per_s": offered / 1e6, "connections_per_s": connections, "elapsed": elapsed}
    )


async def deep(seconds: float) -> dict[str, Any]:
    """Deep nesting, and the log lines an outsider can cause."""
    return await under_attack(seconds, _deep_sender)


def _syncer(port: int, room: str, seconds: float, pipe: Connection) -> None:
    """16 spectators of the game (4 addresses) each send ``sync`` at their message rate and
    read what comes back; a 17th only watches, so that what the syncs brought is what the 16
    received beyond 16 times what it did."""

    async def run() -> dict[str, Any]:
        until = time.monotonic() + seconds + 2.0
        counts: Counter[str] = Counter()
        received = 0

        passive = 0

        async def spectator(k: int) -> None:
            nonlocal received, passive
            c = await Client.connect(port, f"127.0.2.{1 + k % 4}")
            await c.hello(f"Sync{k}")
            await c.request({"type": "join_room", "room": room, "as": "spectator"})
            start = c.received
            while time.monotonic() < until:
                if k == 16:  # the one that only watches
                    with contextlib.suppress(TimeoutError):
                        await c.recv(timeout=max(0.01, until - time.monotonic()))
                    continue
                await asyncio.sleep(PACE)
                reply = await c.request({"type": "sync", "room": room})
                counts[reply.get("code", reply["type"])] += 1
            if k == 16:
                passive = c.received - start
            else:
                received += c.received - start
            c.close()

        pipe.send({"spectators": 16})
        t0 = time.monotonic()
        await asyncio.gather(*(spectator(k) for k in range(17)), return_exceptions=True)
        return {
            "elapsed": time.monotonic() - t0,
            "sync_replies_kib_per_s": (received - 16 * passive) / 1024,
            **{f"sync_{k}_per_s": v for k, v in counts.items()},
        }

    pipe.send(asyncio.run(run()))


async def sync(seconds: float) -> dict[str, Any]:
    """A tiny ``sync`` resends a whole game's log."""
    return await under_attack(seconds, _syncer)


def _slot_holder(port: int, room: str, seconds: float, pipe: Connection) -> None:
    """126 addresses x 16 sockets that never say hello, each opened again once the server
    closes it."""

    async def run() -> dict[str, Any]:

        async def holder(source: str) -> None:
            while True:  # until cancelled
                try:
                    reader, writer = await asyncio.open_connection(
                        HOST, port, local_addr=(source, 0)
                    )
                except OSError:
                    await asyncio.sleep(0.5)
                    continue
                try:
                    while await reader.read(4096):  # until the server closes it
                        pass
                except OSError:
                    pass
                finally:
                    writer.transport.abort()
                await asyncio.sleep(0.05)

        holders = [
            asyncio.create_task(holder(f"127.0.4.{1 + a}")) for a in range(126) for _ in range(16)
        ]
        await asyncio.sleep(5.0)  # all of them open (the connect rate's burst is 30)
        pipe.send({"slot_holders": len(holders)})
        await asyncio.sleep(seconds + 1.0)
        for task in holders:
            task.cancel()
        await asyncio.gather(*holders, return_exceptions=True)
        return {}

    pipe.send(asyncio.run(run()))


async def newcomers(port: int, seconds: float) -> dict[str, Any]:
    """A newcomer tries to get in (connect, hello) every 0.2 s."""
    tried = welcomed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tried += 1
        with contextlib.suppress(OSError, ConnectionError, TimeoutError):
            c = await Client.connect(port, "127.0.0.5")
            welcomed += (await c.hello("New", None))["type"] == "welcome"
            c.close()
        await asyncio.sleep(0.2)
    return {"newcomers_welcomed": f"{welcomed}/{tried}"}


async def unidentified(seconds: float) -> dict[str, Any]:
    """Slots held by connections that never say hello."""
    return await under_attack(seconds, _slot_holder, meanwhile=newcomers)


def _leaver(port: int, room: str, seconds: float, pipe: Connection) -> None:
    """10 spectators (2 addresses) join the game's room and leave it, at their message rate."""

    async def run() -> dict[str, Any]:
        until = time.monotonic() + seconds + 2.0
        cycles = 0

        async def spectator(k: int) -> None:
            nonlocal cycles
            c = await Client.connect(port, f"127.0.5.{1 + k % 2}")
            await c.hello(f"Leave{k}")
            while time.monotonic() < until:
                await asyncio.sleep(PACE)
                joined = await c.request({"type": "join_room", "room": room, "as": "spectator"})
                await asyncio.sleep(PACE)
                if joined["type"] == "joined":
                    await c.request({"type": "leave_room", "room": room})
                    cycles += 1
            c.close()

        pipe.send({"spectators": 10})
        t0 = time.monotonic()
        await asyncio.gather(*(spectator(k) for k in range(10)), return_exceptions=True)
        return {"join_leave_cycles_per_s": cycles, "elapsed": time.monotonic() - t0}

    pipe.send(asyncio.run(run()))


async def leave(seconds: float) -> dict[str, Any]:
    """``leave_room`` and the room broadcasts it causes."""
    kinds: Counter[str] = Counter()
    out = await under_attack(seconds, _leaver, kinds=kinds)
    out["player_room_messages_per_s"] = round(kinds["room"] / seconds, 1)


# --------------------------------------------------------------------------- the front doors
# The SSH gateway and `selfish web`. Each prints whether a newcomer (a fresh address) reaches a
# lobby within 5 s while the attack runs, and the CPU share and memory of the server's whole
# process tree (the gateway's fork server and clients, or the web server's page processes, are
# children of it).

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
    """64 connections (8 addresses x 8) log in and never open a session."""
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
    """One connection offering 200 keys; then one address opening connections (and
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
    """Eight sessions at 1000x1000 that stop reading and change their window size
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
    """User names that look like the client's options."""
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
    """50 pages from one address, then 50 from 13 addresses."""
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
    """Websockets opened from another site's page (and with no Origin at all)."""
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
    "replays": replays,
    "squat": squat,
    "rooms": rooms,
    "quiet": quiet,
    "decode": decode,
    "deep": deep,
    "sync": sync,
    "unidentified": unidentified,
    "leave": leave,
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
    p.add_argument(
        "--baseline",
        metavar="CHECKOUT",
        help="also run each scenario against the server code of another checkout, first",
    )
    args = p.parse_args(argv)
    global CODE
    results: dict[str, Any] = {}
    for name in args.only.split(","):
        runs = [("baseline", args.baseline), ("this", None)] if args.baseline else [("", None)]
        for label, code in runs:
            CODE = code
            key = f"{name} ({label})" if label else name
            results[key] = asyncio.run(SCENARIOS[name](args.seconds))
            if not args.json:
                print(f"{key}: {json.dumps(results[key])}", flush=True)
        CODE = None
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
