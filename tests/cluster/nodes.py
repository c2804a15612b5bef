"""Cluster nodes as real ``selfish-server`` processes on one PostgreSQL database, for the tests
that kill or pause one (kill -9, SIGSTOP) and the bench."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from server.cluster.leases import PREFIX, Leases
from server.config import SHARED_ADDRESS

# Quick games and quick failover: bots answer at once, every limit out of the way (all clients
# share 127.0.0.1), leases of a second.
SETTINGS: dict[str, Any] = {
    "host": "127.0.0.1",
    "bot_delay": 0.0,
    "rate_per_second": 10_000.0,
    "rate_burst": 10_000,
    "allow_seed": True,
    "empty_room_grace": 30.0,
    "lease_seconds": 1.0,
    **SHARED_ADDRESS,
}


def gone(url: str, leases: Leases) -> None:
    """Wait until PostgreSQL has ended the sessions of the node of ``leases``, whose
    connections were closed (a backend ends a moment after its client closed)."""
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(200):
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                (PREFIX + leases.node,),
            ).fetchone()
            if row is not None and row[0] == 0:
                return
            time.sleep(0.01)
    raise AssertionError("the node's sessions did not end")


_LISTENING = re.compile(rb"listening on (\S+):(\d+)")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


class Node:
    """One ``selfish-server`` process; ``port`` once it listens; its log in ``lines``."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.port = 0
        self.lines: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, url: str, folder: Path, nice: int = 0, **settings: Any) -> Node:
        """Start a node on ``url``; returns once it listens."""
        config = folder / f"node-{os.urandom(4).hex()}.toml"
        merged = {**SETTINGS, **settings}
        config.write_text("".join(f"{key} = {_toml(v)}\n" for key, v in merged.items()))
        command = [sys.executable, "-m", "server.cli", "--port", "0", "--db", url]
        if nice:
            command = ["nice", "-n", str(nice), *command]
        process = await asyncio.create_subprocess_exec(
            *command, "--config", str(config), stderr=asyncio.subprocess.PIPE
        )
        node = cls(process)
        assert process.stderr is not None
        while True:
            line = await asyncio.wait_for(process.stderr.readline(), 30)
            if not line:
                raise RuntimeError("the node stopped before listening: " + "".join(node.lines))
            node.lines.append(line.decode(errors="replace"))
            found = _LISTENING.search(line)
            if found and b"selfish-server listening" in line:
                node.port = int(found.group(2))
                break
        node._reader = asyncio.create_task(node._read())
        return node

    async def _read(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.lines.append(line.decode(errors="replace"))

    def log(self, text: str) -> bool:
        """Whether the node's log has a line holding ``text``."""
        return any(text in line for line in self.lines)

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` (SIGKILL, SIGSTOP, SIGCONT) to the process."""
        self.process.send_signal(sig)

    async def stop(self) -> None:
        """Stop the node (SIGTERM, a clean stop), or reap it if it was killed."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGCONT)
                self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 15)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self._reader is not None:
            await self._reader
