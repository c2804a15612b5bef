"""Figures for the SSH gateway and the browser front door (docs/operations.md shows them).

    python bench/ssh.py [--sessions 20] [--levels 5,10,20,30,40] [--skip-web]

Starts a real ``selfish-server --ssh-port`` (and ``selfish web``) in subprocesses on loopback,
with a private data directory, and prints:

* SSH connect -> first full lobby frame: median and p99 over ``--sessions`` sessions, one after
  another (the moment the lobby, its status line and its footer are all on the screen);
* memory per SSH session (the client process: unique and proportional set size) and per
  browser session (textual-serve's client process, started per websocket);
* how many concurrent SSH sessions one core holds with every keystroke redrawn within 100 ms:
  the server and its clients pinned to one CPU, every session pressing a key once a second;
* new sessions per second: a burst of sessions opened at once, the gateway's own start pace
  lifted, how many reach the lobby per second, and the CPU-seconds each start costs.

The bench's SSH clients read their screens through pyte (a terminal emulator) on another CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
import pyte

LOBBY = ("Selfish — lobby", "Connected to", "New room")
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def memory(pid: int) -> dict[str, float]:
    """RSS, PSS and USS (private pages) of a process, in MiB."""
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, rest = line.partition(":")
        values[key] = int(rest.split()[0]) / 1024
    return {
        "rss": values["Rss"],
        "pss": values["Pss"],
        "uss": values["Private_Clean"] + values["Private_Dirty"],
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its reaped children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


class Session:
    """One SSH client with a PTY and an emulated screen."""

    def __init__(self, port: int, width: int = 100, height: int = 30) -> None:
        self.port = port
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.conn: asyncssh.SSHClientConnection | None = None
        self.process: asyncssh.SSHClientProcess[bytes] | None = None
        self.size = (width, height)
        self._reader: asyncio.Future[None] | None = None

    async def open(self, user: str = "bench") -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1",
            self.port,
            username=user,
            password="",
            client_keys=[],
            known_hosts=None,
            agent_path=None,
        )
        self.process = await self.conn.create_process(
            term_type="xterm-256color", term_size=self.size, encoding=None
        )
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process is not None
        with contextlib.suppress(asyncssh.Error, OSError):
            while data := await self.process.stdout.read(65_536):
                self.stream.feed(data)
                self.changed.set()
        self.changed.set()

    def shows(self, *needles: str) -> bool:
        text = "\n".join(self.screen.display)
        return all(n in text for n in needles)

    async def wait_for(self, *needles: str, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not self.shows(*needles):
            self.changed.clear()
            if loop.time() > end:
                raise TimeoutError(f"{needles} not on screen")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.01, end - loop.time()))

    def keys(self, text: str) -> None:
        assert self.process is not None
        self.process.stdin.write(text.encode())

    def close(self) -> None:
        if self.conn is not None:
            self.conn.abort()


class Stack:
    """selfish-server with its gateway, in a subprocess."""

    def __init__(self, data: Path, cpu: int | None, settings: dict[str, object]) -> None:
        self.data = data
        self.ssh_port = free_port()
        config = data / "bench.toml"
        config.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items()))
        command = [
            sys.executable,
            "-m",
            "server.cli",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(data / "bench.sqlite3"),
            "--ssh-port",
            str(self.ssh_port),
            "--config",
            str(config),
            "--log-level",
            "WARNING",
        ]
        if cpu is not None:
            command = ["taskset", "-c", str(cpu), *command]
        env = {**os.environ, "XDG_DATA_HOME": str(data), "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
        )
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if "SSH gateway on" in line:
                break
        else:
            raise RuntimeError("selfish-server did not start")
        server_pid = self.process.pid
        if cpu is not None:  # taskset execs: the pid is the server's
            server_pid = self.process.pid
        self.server_pid = server_pid
        forkservers = children(server_pid)
        self.forkserver = forkservers[0] if forkservers else None

    def clients(self) -> list[int]:
        return children(self.forkserver) if self.forkserver else []

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()


UNLIMITED = {
    "ssh_max_sessions": 1000,
    "ssh_max_sessions_per_address": 1000,
    "ssh_sessions_per_second": 1000.0,
    "ssh_sessions_burst": 1000,
    "max_connections_per_address": 1000,
    "new_players_burst": 10_000,
}


async def first_frame(stack: Stack, sessions: int) -> list[float]:
    """Seconds from SSH connect to the first full lobby frame, one session after another."""
    times = []
    for _ in range(sessions):
        session = Session(stack.ssh_port)
        start = time.perf_counter()
        await session.open()
        await session.wait_for(*LOBBY)
        times.append(time.perf_counter() - start)
        session.close()
        await asyncio.sleep(0.2)
    return times


async def ssh_memory(stack: Stack, count: int) -> dict[str, float]:
    """Mean memory of ``count`` connected clients in the lobby."""
    sessions = [Session(stack.ssh_port) for _ in range(count)]
    for s in sessions:
        await s.open()
    await asyncio.gather(*(s.wait_for(*LOBBY) for s in sessions))
    await asyncio.sleep(1.0)
    figures = [memory(pid) for pid in stack.clients()]
    fork = memory(stack.forkserver) if stack.forkserver else {}
    for s in sessions:
        s.close()
    await asyncio.sleep(1.0)
    return {
        "clients": len(figures),
        "uss": statistics.mean(f["uss"] for f in figures),
        "pss": statistics.mean(f["pss"] for f in figures),
        "rss": statistics.mean(f["rss"] for f in figures),
        "forkserver_rss": fork.get("rss", 0.0),
    }


async def redraw_level(stack: Stack, count: int, seconds: float) -> tuple[list[float], float]:
    """With ``count`` sessions each typing a key once a second (a letter, then backspace, in the
    lobby's join-by-code field), the keystroke-to-redraw latencies."""
    sessions = [Session(stack.ssh_port) for _ in range(count)]
    await asyncio.gather(*(s.open() for s in sessions))
    await asyncio.gather(*(s.wait_for(*LOBBY) for s in sessions))
    for s in sessions:
        s.keys("j")
    await asyncio.gather(*(s.wait_for("Room code", "QZKX") for s in sessions))
    await asyncio.sleep(1.0)
    latencies: list[float] = []
    pids = [stack.server_pid, *stack.clients()]
    cpu_before = sum(cpu_seconds(pid) for pid in pids)

    async def player(session: Session) -> None:
        await asyncio.sleep(random.random())
        typed = False
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end:
            start = loop.time()
            session.keys("\x7f" if typed else "a")  # the placeholder QZKX shows when empty
            typed = not typed
            limit = start + 5
            while session.shows("QZKX") == typed and loop.time() < limit:
                session.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(session.changed.wait(), 0.5)
            latencies.append(loop.time() - start)
            await asyncio.sleep(max(0.0, 1.0 - (loop.time() - start)))

    await asyncio.gather(*(player(s) for s in sessions))
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    for s in sessions:
        s.close()
    await asyncio.sleep(2.0)
    return latencies, cpu / len(latencies)


async def start_burst(stack: Stack, count: int) -> tuple[float, float]:
    """Open ``count`` sessions at once: lobbies reached per second, CPU-seconds per start."""
    before = cpu_seconds(stack.server_pid) + (
        cpu_seconds(stack.forkserver) if stack.forkserver else 0.0
    )
    sessions = [Session(stack.ssh_port) for _ in range(count)]
    start = time.perf_counter()
    await asyncio.gather(*(s.open() for s in sessions))
    await asyncio.gather(*(s.wait_for(*LOBBY, timeout=120) for s in sessions))
    elapsed = time.perf_counter() - start
    clients_cpu = sum(cpu_seconds(pid) for pid in stack.clients())
    after = cpu_seconds(stack.server_pid) + (
        cpu_seconds(stack.forkserver) if stack.forkserver else 0.0
    )
    for s in sessions:
        s.close()
    await asyncio.sleep(2.0)
    print(
        f"  (per start: gateway + fork server {(after - before) / count:.3f} CPU-s, "
        f"client {clients_cpu / count:.3f} CPU-s)"
    )
    return count / elapsed, (after - before + clients_cpu) / count


def import_cost(runs: int = 3) -> float:
    """CPU-seconds a fresh interpreter spends importing the client: what each start would cost
    on top without the fork server (the median of ``runs``)."""
    costs = []
    for _ in range(runs):
        process = subprocess.Popen(
            [sys.executable, "-c", "import selfish_tui.app, selfish_tui.cli, textual.drivers"],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        _, _, usage = os.wait4(process.pid, 0)
        costs.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(costs)


async def web_memory(data: Path, count: int) -> dict[str, float]:
    """Memory of the client processes of ``count`` browser sessions (websockets speaking
    textual-serve's protocol, as the page's script does)."""
    import aiohttp

    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(data), "PYTHONPATH": str(ROOT)}
    web = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "selfish_tui.cli",
            "web",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(300):
                try:
                    async with http.get(f"http://127.0.0.1:{port}/") as reply:
                        if reply.status == 200:
                            break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.2)
            sockets = []
            screens = []
            for _ in range(count):
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=100&height=30")
                await ws.send_json(["resize", {"width": 100, "height": 30}])
                sockets.append(ws)
                screen = pyte.Screen(100, 30)
                screens.append((screen, pyte.ByteStream(screen)))

            async def until_lobby(ws: aiohttp.ClientWebSocketResponse, index: int) -> None:
                screen, stream = screens[index]
                async for message in ws:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        stream.feed(message.data)
                        if all(n in "\n".join(screen.display) for n in LOBBY):
                            return

            await asyncio.wait_for(
                asyncio.gather(*(until_lobby(ws, i) for i, ws in enumerate(sockets))), 120
            )
            await asyncio.sleep(1.0)
            pids = [
                p
                for p in descendants(web.pid)
                if cmdline(p).startswith(sys.executable) and " connect " in cmdline(p)
            ]
            figures = [memory(p) for p in pids]
            for ws in sockets:
                await ws.close()
    finally:
        web.terminate()
        web.wait(15)
    return {
        "clients": len(figures),
        "uss": statistics.mean(f["uss"] for f in figures),
        "pss": statistics.mean(f["pss"] for f in figures),
        "rss": statistics.mean(f["rss"] for f in figures),
    }


def descendants(pid: int) -> list[int]:
    found = []
    for child in children(pid):
        found += [child, *descendants(child)]
    return found


def cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    return ""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main_async(args: argparse.Namespace) -> None:
    levels = [int(x) for x in args.levels.split(",") if x]
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = cpus[0] if len(cpus) > 1 else None
    if len(cpus) > 1:
        os.sched_setaffinity(0, set(cpus[1:]))  # the bench's clients on the other CPUs
    print(f"bench/ssh.py on {os.cpu_count()} CPUs; loadavg {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="selfish-bench-") as tmp:
        data = Path(tmp)
        stack = Stack(data, None, UNLIMITED)
        try:
            times = await first_frame(stack, args.sessions)
            median, p99 = statistics.median(times) * 1000, pct(times, 0.99) * 1000
            print(
                f"SSH connect -> first full lobby frame ({len(times)} sessions, one at a time): "
                f"median {median:.0f} ms, p99 {p99:.0f} ms"
            )
            mem = await ssh_memory(stack, 10)
            print(
                f"memory per SSH session ({mem['clients']:.0f} in the lobby): "
                f"unique {mem['uss']:.1f} MiB, proportional {mem['pss']:.1f} MiB, "
                f"RSS {mem['rss']:.1f} MiB (fork server RSS {mem['forkserver_rss']:.1f} MiB)"
            )
            rate, cpu = await start_burst(stack, args.burst)
            print(
                f"new sessions: a burst of {args.burst} reaches the lobby at {rate:.1f} "
                f"sessions/s; {cpu:.3f} CPU-s per start (gateway + fork server + client)"
            )
        finally:
            stack.stop()
        print(
            f"  (without the fork server each start would also import Textual and the client: "
            f"{import_cost():.3f} CPU-s in a fresh interpreter)"
        )
        if not args.skip_web:
            web = await web_memory(data, 5)
            print(
                f"memory per browser session ({web['clients']:.0f} pages, one process each): "
                f"unique {web['uss']:.1f} MiB, proportional {web['pss']:.1f} MiB, "
                f"RSS {web['rss']:.1f} MiB"
            )
        if server_cpu is not None:
            stack = Stack(data, server_cpu, UNLIMITED)
            try:
                held = 0
                for count in levels:
                    lat, per_key = await redraw_level(stack, count, args.seconds)
                    p95, worst = pct(lat, 0.95), max(lat)
                    print(
                        f"  {count:3d} sessions on one core: keystroke -> redraw median "
                        f"{statistics.median(lat) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
                        f"max {worst * 1000:.0f} ms ({len(lat)} keystrokes; "
                        f"{per_key * 1000:.1f} CPU-ms each, server + clients)"
                    )
                    if p95 <= 0.100:
                        held = count
                    else:
                        break
                print(f"concurrent SSH sessions one core holds, p95 redraw <= 100 ms: {held}")
            finally:
                stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--burst", type=int, default=20)
    parser.add_argument("--levels", default="5,10,20,30,40")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--skip-web", action="store_true")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
