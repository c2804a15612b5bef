"""The gateway's handle on the fork server (:mod:`selfish_tui.forkserver`): start it, ask it
for a client process on a terminal, learn when that process ends, and make sure it does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
from typing import Any

log = logging.getLogger("selfish.gateway")

# After the terminal is hung up, how long a client gets to exit before SIGTERM, then SIGKILL.
HANGUP_GRACE = 1.0
TERM_GRACE = 1.0
READY_TIMEOUT = 60.0  # importing Textual on a loaded machine can take a few seconds


class SpawnError(Exception):
    """The fork server could not start a client."""


class Spawner:
    """Owns the fork server process; one per gateway."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._next_id = 1
        self._pending: dict[int, asyncio.Future[int]] = {}
        self._exits: dict[int, asyncio.Future[int]] = {}
        self._ready: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped = False
        self._restarting: asyncio.Future[None] | None = None

    async def start(self) -> None:
        """Start the fork server and wait until it has imported the client."""
        self._loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "selfish_tui.forkserver", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        ours.setblocking(False)
        self._control = ours
        self._ready = self._loop.create_future()
        self._loop.add_reader(ours.fileno(), self._on_readable)
        try:
            await asyncio.wait_for(self._ready, READY_TIMEOUT)
        except BaseException:
            self._close_control()
            self._process.kill()
            await asyncio.to_thread(self._process.wait)
            self._process = None
            raise
        log.info("fork server %d ready", self._process.pid)

    async def _restart(self) -> None:
        """Start a new fork server once, however many sessions are waiting for one."""
        if self._restarting is None or self._restarting.done():
            self._restarting = asyncio.ensure_future(self._reap_and_start())
        with contextlib.suppress(Exception):
            await asyncio.shield(self._restarting)

    async def _reap_and_start(self) -> None:
        old, self._process = self._process, None
        if old is not None:
            await asyncio.to_thread(old.wait)
        await self.start()

    @property
    def pid(self) -> int | None:
        """The fork server's process id, while there is one."""
        return self._process.pid if self._process is not None else None

    async def spawn(self, slave: int, argv: list[str], env: dict[str, str]) -> int:
        """Fork a client on the terminal ``slave`` (the caller still closes its copy). A fork
        server that has died is started again first."""
        if self._control is None and not self._stopped:
            log.warning("starting the fork server again")
            await self._restart()
        if self._control is None or self._loop is None:
            raise SpawnError("the session starter is not running")
        request_id = self._next_id
        self._next_id += 1
        reply = self._loop.create_future()
        self._pending[request_id] = reply
        message = json.dumps({"id": request_id, "argv": argv, "env": env}).encode()
        try:
            socket.send_fds(self._control, [message], [slave])
        except OSError as exc:
            self._pending.pop(request_id, None)
            raise SpawnError(f"cannot reach the session starter: {exc}") from exc
        pid: int = await asyncio.wait_for(reply, 10.0)
        self._exits.setdefault(pid, self._loop.create_future())
        return pid

    def exited(self, pid: int) -> asyncio.Future[int]:
        """A future for the exit status of a client this spawner started."""
        assert self._loop is not None
        return self._exits.setdefault(pid, self._loop.create_future())

    async def end(self, pid: int) -> None:
        """Make sure client ``pid`` (whose terminal the caller has already hung up) is gone:
        SIGTERM, then SIGKILL, to its process group; the fork server reaps it."""
        done = self.exited(pid)
        for sig, grace in ((None, HANGUP_GRACE), (signal.SIGTERM, TERM_GRACE)):
            if sig is not None:
                _signal_group(pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done), grace)
                break
        else:
            log.warning("client %d ignored SIGTERM; killing it", pid)
            _signal_group(pid, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done), 2.0)
        self._exits.pop(pid, None)

    def _on_readable(self) -> None:
        control = self._control
        if control is None:
            return
        while True:
            try:
                data = control.recv(65_536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._lost()
                return
            try:
                message = dict(json.loads(data))
            except (ValueError, TypeError):
                log.error("garbled reply from the fork server: %r", data[:80])
                continue
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("ready") and self._ready is not None and not self._ready.done():
            self._ready.set_result(None)
        elif "exit" in message:
            done = self.exited(int(message["exit"]))
            if not done.done():
                done.set_result(int(message.get("status", 0)))
        elif "id" in message:
            reply = self._pending.pop(int(message["id"]), None)
            if reply is None or reply.done():
                return
            if "pid" in message:
                reply.set_result(int(message["pid"]))
            else:
                reply.set_exception(SpawnError(str(message.get("error"))))

    def _lost(self) -> None:
        """The fork server died: fail what waits on it (its orphans still hang up and exit)."""
        if self._control is not None:
            log.error("the fork server has stopped")
        self._close_control()
        error = SpawnError("the session starter stopped")
        for waiter in [self._ready, *self._pending.values()]:
            if waiter is not None and not waiter.done():
                waiter.set_exception(error)
        self._pending.clear()
        # Nobody will report these exits: end() falls back to signals and its timeouts.

    def _close_control(self) -> None:
        control, self._control = self._control, None
        if control is not None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(control.fileno())
            control.close()

    async def stop(self) -> None:
        """Stop the fork server (closing our end makes it exit) and reap it."""
        self._stopped = True
        self._close_control()
        process, self._process = self._process, None
        if process is None:
            return
        try:
            await asyncio.wait_for(asyncio.to_thread(process.wait), 3.0)
        except TimeoutError:
            process.kill()
            await asyncio.to_thread(process.wait)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    """Signal a client's process group (it is a session leader: the group has its pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
