"""The pre-imported fork server: one process that has already imported Textual and the client,
and forks a copy of itself for every SSH session.

Starting a fresh Python for each session costs about 0.35 CPU-seconds, most of it importing
Textual (bench/ssh.py prints it); a fork of a process that has done that starts in a few
milliseconds and shares the imported code's memory pages with every other session.

Run as ``python -m selfish_tui.forkserver FD`` where FD is one end of a ``SOCK_SEQPACKET``
socket pair whose other end the gateway keeps (:mod:`server.gateway.spawner`). Each datagram is
JSON. The gateway sends ``{"id": n, "argv": [...], "env": {...}}`` with the PTY's slave end
attached (SCM_RIGHTS); the fork server answers ``{"id": n, "pid": p}`` (or ``"error"``) and,
when a child ends, ``{"exit": p, "status": code}``. It exits when the gateway's end closes.

The fork server must stay single-threaded (forking a threaded process copies locked locks), so it
reaps children on SIGCHLD through a wake-up pipe rather than a thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import select
import signal
import socket
import sys
import termios
import threading
from typing import Any

MAX_DATAGRAM = 65_536


def preload() -> None:
    """Import everything a session's client needs, then run the client once, headless and
    unconnected, through the lobby and the new-room dialog: a process's first app spends
    more than twice as long starting as later ones (styles parsed and cached, widgets'
    lazy imports), and forked children inherit all of that warm."""
    import asyncio

    import textual.drivers.linux_driver  # noqa: F401  (the driver a terminal app loads on start)

    import selfish_tui.cli  # noqa: F401
    from selfish_tui.app import SelfishApp

    async def rehearse() -> None:
        app = SelfishApp()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("n")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()

    asyncio.run(rehearse())
    if threading.active_count() > 1:  # forking would copy a thread's locks, not the thread
        raise RuntimeError("the rehearsal left threads running")


def run_child(slave: int, argv: list[str], env: dict[str, str]) -> int:
    """In the forked child: make the PTY slave our controlling terminal and stdio, then run the
    client with ``argv`` (``selfish`` command-line arguments). Returns its exit status."""
    os.setsid()
    # With the slave as controlling terminal, the gateway closing the master on disconnect
    # hangs the terminal up and the kernel sends us SIGHUP: no orphan keeps running.
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    if slave > 2:
        os.close(slave)
    os.environ.clear()
    os.environ.update(env)
    # The inherited stdio objects were made for the fork server's descriptors and environment.
    for name, fd, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        stream = open(fd, mode, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    from selfish_tui.cli import main

    try:
        return int(main(argv) or 0)
    except SystemExit as exc:  # argparse errors and explicit exits
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()


class ForkServer:
    """The fork server's loop: requests in, children out, exits reported."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.children: set[int] = set()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)

    def serve(self) -> None:
        """Handle requests until the gateway goes away."""
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in selfish-server's terminal
        signal.set_wakeup_fd(self.wake_w)
        # Objects imported so far are never freed: keep the collector from touching (and so
        # un-sharing) their memory pages in every child. Children keep them frozen too.
        gc.freeze()
        while True:
            ready, _, _ = select.select([self.control.fileno(), self.wake_r], [], [])
            if self.wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_r, 512)
            self.reap()
            if self.control.fileno() in ready and not self.handle_request():
                return

    def handle_request(self) -> bool:
        """Fork for one request; False when the gateway has closed its end."""
        try:
            data, fds, _, _ = socket.recv_fds(self.control, MAX_DATAGRAM, 1)
        except ConnectionResetError:
            return False
        if not data:
            return False
        request: dict[str, Any] = {}
        try:
            request = dict(json.loads(data))
            argv = [str(a) for a in request["argv"]]
            env = {str(k): str(v) for k, v in dict(request["env"]).items()}
            if len(fds) != 1:
                raise ValueError("a spawn request carries exactly one terminal")
        except (ValueError, KeyError, TypeError) as exc:
            for fd in fds:
                os.close(fd)
            self.send({"id": request.get("id"), "error": str(exc)})
            return True
        slave = fds[0]
        pid = os.fork()
        if pid == 0:  # the child: never returns into this loop
            status = 1
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                # A server started under nohup passes SIGHUP on ignored: a client that ignored
                # its terminal's hang-up would outlive its session, spinning on a dead terminal.
                signal.signal(signal.SIGHUP, signal.SIG_DFL)
                self.control.close()
                os.close(self.wake_r)
                os.close(self.wake_w)
                status = run_child(slave, argv, env)
            finally:
                os._exit(status)
        os.close(slave)
        self.children.add(pid)
        self.send({"id": request.get("id"), "pid": pid})
        return True

    def reap(self) -> None:
        """Collect every child that has ended and tell the gateway."""
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.discard(pid)
            self.send({"exit": pid, "status": os.waitstatus_to_exitcode(status)})

    def send(self, message: dict[str, Any]) -> None:
        """One reply datagram (the gateway being gone is noticed by the next read)."""
        with contextlib.suppress(OSError):
            self.control.send(json.dumps(message).encode())


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m selfish_tui.forkserver FD``."""
    args = sys.argv[1:] if argv is None else argv
    control = socket.socket(fileno=int(args[0]))
    preload()
    control.send(b'{"ready": true}')
    ForkServer(control).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
