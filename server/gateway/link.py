"""How the gateway's client processes reach the game server: a Unix socket whose connections are
ordinary protocol sessions, counted against the SSH client's address instead of the loopback's.

Without this every SSH player would connect from 127.0.0.1 and all of them together would share
one address's limits (16 connections, 16 open rooms, one new identity a second). The kernel
tells us which process connected (SO_PEERCRED); the gateway knows which SSH client that process
serves.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path

from server.net.session import Session

# sun_path holds 108 bytes on Linux; leave room for the terminating NUL.
MAX_SOCKET_PATH = 100

Resolver = Callable[[int], "tuple[str, str] | None"]


class LinkSession(Session):
    """A session from one of the gateway's client processes."""

    resolve: Resolver

    def identify(self, transport: asyncio.BaseTransport) -> tuple[str, str]:
        sock = transport.get_extra_info("socket")
        pid = 0
        if sock is not None:
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid = struct.unpack("3i", creds)[0]
        found = self.resolve(pid)
        if found is not None:
            return found
        # Only processes of the server's own user can reach the socket (its directory is
        # private): an unknown one is a local client.
        return "local", f"local process {pid}"


def socket_path(data_dir: Path) -> Path:
    """Where the link socket lives: in the data directory, or (a path too long for a Unix
    socket) in a private directory under the system's temporary directory named after it."""
    path = data_dir / "gateway.sock"
    if len(str(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"selfish-{os.getuid()}-{digest}" / "gateway.sock"


async def start_link(path: Path, new_session: Callable[[], LinkSession]) -> asyncio.AbstractServer:
    """Listen on ``path``, replacing a stale socket left by a crash; OSError if another
    running gateway listens there (two servers sharing a data directory)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.is_socket():
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # nobody answers: left behind
        else:
            raise OSError(f"another selfish-server's SSH gateway is using {path}")
        finally:
            probe.close()
    loop = asyncio.get_running_loop()
    server = await loop.create_unix_server(new_session, str(path))
    os.chmod(path, 0o600)
    return server
