"""The fork server's children end with their terminal, whatever the gateway's parent ignored."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator

from server.gateway.spawner import Spawner
from tests.gateway.conftest import WAIT


@contextlib.contextmanager
def sighup_ignored() -> Iterator[None]:
    """What ``nohup selfish-server`` does: SIGHUP ignored, inherited by every process started."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)


def read_until_drawn(master: int) -> bytes:
    """Block until the client has written to its terminal: its app is running."""
    return os.read(master, 65_536)


async def test_a_client_ends_on_hang_up_under_a_server_started_with_nohup() -> None:
    spawner = Spawner()
    with sighup_ignored():
        await spawner.start()
    pid: int | None = None
    master, slave = os.openpty()
    try:
        env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
        # Port 9 on loopback refuses: the client keeps retrying until its terminal goes.
        pid = await spawner.spawn(slave, ["connect", "127.0.0.1:9"], env)
        os.close(slave)
        assert await asyncio.wait_for(asyncio.to_thread(read_until_drawn, master), WAIT)
        os.close(master)  # the hang-up
        master = -1
        status = await asyncio.wait_for(asyncio.shield(spawner.exited(pid)), WAIT)
        assert status == -signal.SIGHUP
    finally:
        if master >= 0:
            os.close(master)
        if pid is not None:
            await spawner.end(pid)
        await spawner.stop()
