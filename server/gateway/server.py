"""The SSH front door: accept SSH connections, authenticate them, and give each session a
terminal with the Textual client on it (:mod:`server.gateway.terminal`).

Identity: the SSH user name is the player's display name. A client that authenticates with a
public key is known by the key's fingerprint: its client process keeps the server's token in a
file named after the fingerprint, so the same key gets the same player (and seats) back. A
client without a key (``--ssh-auth open`` lets anyone in) is a new player, given a resume code
(:mod:`server.gateway.resume`): ``ssh -t host resume CODE`` gets that player back.

Limits before any client process exists (docs/operations.md §6 and §8): new connections per
address and logins in progress (dropped before the key exchange), authentication requests per
connection, a few seconds to open a session once logged in, and sessions in total.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from server.config import ServerConfig, default_db_path
from server.gateway.admission import Admission
from server.gateway.link import LinkSession, socket_path, start_link
from server.gateway.resume import ResumeBook, Seat
from server.gateway.spawner import Spawner
from server.gateway.terminal import TERM_PATTERN, Goto, Resume, TerminalSession
from server.limits.addresses import address_group
from server.net.tcp import RunningServer

log = logging.getLogger("selfish.gateway")

AUTH_MODES = ("open", "keys")
MAX_NAME = 24
LOGIN_TIMEOUT = 30.0
# Authentication requests one connection may make (OpenSSH's MaxAuthTries is 6 attempts; a
# key is offered, then signed: two requests an attempt). Past it the connection is closed.
MAX_AUTH_REQUESTS = 12
# Seconds a logged-in connection has to open its session (and ask for a shell or a command),
# and to open another once one has ended; then it is closed.
SESSION_WAIT = 5.0


def data_dir(config: ServerConfig) -> Path:
    """The server's data directory: the database's directory (the default one for an
    in-memory database)."""
    db = config.db if config.db != ":memory:" else default_db_path()
    return Path(db).resolve().parent


def display_name(username: str) -> str:
    """The SSH user name as a display name: printable characters, at most 24, else 'Player'."""
    name = "".join(ch for ch in username if ch.isprintable()).strip()[:MAX_NAME].strip()
    return name or "Player"


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The gateway's host key; generated (Ed25519) and saved, private, on first start."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a .tmp left by an earlier try keeps its own mode through O_CREAT
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key())
    tmp.replace(path)
    path.with_suffix(".pub").write_bytes(key.export_public_key())
    log.info("generated SSH host key %s (%s)", path, key.get_fingerprint())
    return key


@dataclass
class Gateway:
    """What every SSH session shares: settings, limits, the fork server, the link socket."""

    config: ServerConfig
    running: RunningServer
    data: Path
    link_path: Path
    spawner: Spawner
    admission: Admission
    authorized: asyncssh.SSHAuthorizedKeys | None
    resumes: ResumeBook
    port: int = 0
    sessions: set[TerminalSession] = field(default_factory=set)
    by_pid: dict[int, tuple[str, str]] = field(default_factory=dict)
    _ssh: Any = None
    _link: Any = None

    @property
    def idle_timeout(self) -> float:
        """Seconds without a keystroke before a session is closed."""
        return self.config.ssh_idle_timeout

    def identity_file(self, fingerprint: str) -> Path:
        """Where the client of the key with ``fingerprint`` keeps its token."""
        digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:32]
        return self.data / "ssh-identities" / f"{digest}.json"

    def client_argv(
        self, connection: Connection, goto: Goto | None, resume: Resume | None = None
    ) -> list[str]:
        """The ``selfish`` arguments of a session's client process; ResumeRefused when
        ``resume`` names no player (or its address has tried too many codes)."""
        name = connection.name
        if resume is not None:
            connection.seat = self.resumes.find(connection.address, resume.code)
            name, path = connection.seat.name, connection.seat.identity
        elif connection.fingerprint is not None:
            path = self.identity_file(connection.fingerprint)
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            connection.seat = self.resumes.issue(name)
            path = connection.seat.identity
        # "--name=" + name: a user name such as "-h" or "--join" must never read as an option.
        who = [f"--name={name}", f"--identity={path}"]
        if goto is not None and goto.role == "replay":
            argv = ["replay", goto.room, f"--server={self.link_path}", *who]
            return argv + ([f"--turn={goto.turn}"] if goto.turn else [])
        argv = ["connect", str(self.link_path), *who]
        if goto is not None:
            argv += [f"--{goto.role}", goto.room]
        return argv

    def login_command(self, connection: Connection) -> str:
        """``ssh [-p PORT] HOST``, with the address as players type it (``ssh_public_address``,
        else the address their connection reached)."""
        host, port = connection.local_host, self.port
        public = self.config.ssh_public_address.strip()
        if public.startswith("["):  # [2001:db8::1] or [2001:db8::1]:2222
            inside, _, rest = public[1:].partition("]")
            host = inside or host
            if rest.startswith(":") and rest[1:].isdigit():
                port = int(rest[1:])
        elif public.count(":") == 1:  # host:port (more colons: a bare IPv6 address)
            head, tail = public.split(":")
            host = head or host
            if tail.isdigit():
                port = int(tail)
        elif public:
            host = public
        return f"ssh {host}" if port == 22 else f"ssh -p {port} {host}"

    def resume_command(self, connection: Connection, code: str) -> str:
        """The command that brings a keyless player back: ``ssh -t [-p PORT] HOST resume
        CODE``."""
        return self.login_command(connection).replace("ssh ", "ssh -t ", 1) + f" resume {code}"

    def client_env(
        self, term: str, sent: Any, connection: Connection | None = None
    ) -> dict[str, str]:
        """A client's environment, from scratch: never COLUMNS/LINES (they would override the
        terminal's size and break resizing), nothing from the SSH client but COLORTERM. It
        tells the client its front door, and a keyless player's resume command (in the
        environment, which only the server's user can read, not on the command line)."""
        colorterm = str(sent.get("COLORTERM", "")) if sent else ""
        env = {
            "TERM": term,
            "COLORTERM": colorterm if TERM_PATTERN.fullmatch(colorterm) else "truecolor",
            "LANG": "C.UTF-8",
            "PYTHONIOENCODING": "utf-8",
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/"),
        }
        if os.environ.get("XDG_DATA_HOME"):
            env["XDG_DATA_HOME"] = os.environ["XDG_DATA_HOME"]
        env["SELFISH_FRONT_DOOR"] = "ssh"
        if connection is not None and connection.seat is not None:
            env["SELFISH_RESUME_COMMAND"] = self.resume_command(connection, connection.seat.code)
        elif connection is not None:
            env["SELFISH_LOGIN_COMMAND"] = self.login_command(connection)
        return env

    def started(self, session: TerminalSession) -> None:
        """A session's client is running: its connection to the game counts for its address."""
        assert session.pid is not None
        self.sessions.add(session)
        self.by_pid[session.pid] = (session.connection.address, session.connection.peer)
        pid = session.pid

        def ended(_: TerminalSession) -> None:
            self.sessions.discard(session)
            self.by_pid.pop(pid, None)

        session.on_end = ended

    def new_link_session(self) -> LinkSession:
        """The protocol session of a client process's connection to the game."""
        running = self.running
        link = LinkSession(running.lobby, running.config, running.outbox, running)
        link.resolve = self.by_pid.get
        return link

    async def stop(self) -> None:
        """Stop accepting, end every session (their clients exit), stop the fork server."""
        if self._ssh is not None:
            self._ssh.close()
            self._ssh = None
        sessions = list(self.sessions)
        for session in sessions:
            session.close()
        ends = [s.ending for s in sessions if s.ending is not None]
        if ends:
            await asyncio.gather(*ends, return_exceptions=True)
        await self.spawner.stop()
        if self._link is not None:  # only the gateway that made the socket removes it
            self._link.close()
            self._link = None
            with contextlib.suppress(OSError):
                self.link_path.unlink()


class Connection(asyncssh.SSHServer):
    """One SSH connection: authentication, identity, at most one session at a time."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.address = "?"
        self.peer = "?"
        self.name = "Player"
        self.fingerprint: str | None = None
        self.seat: Seat | None = None  # a keyless player's resume code and identity
        self.local_host = "localhost"  # the address the connection reached
        self.refused: str | None = None
        self._candidate: str | None = None
        self._counted = False
        self._logging_in = False
        self._refusal_counted = False
        self._auth_requests = 0
        self._conn: asyncssh.SSHServerConnection | None = None
        self._session: TerminalSession | None = None
        self._session_wait: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        if isinstance(peer, tuple):
            # the gateway's per-address limits count an IPv6 client as its network, as the
            # game server's do (one hosting customer has a whole /64)
            self.address = address_group(str(peer[0]), self.gateway.config.ipv6_prefix)
            self.peer = f"{peer[0]}:{peer[1]}"
        local = conn.get_extra_info("sockname")
        if isinstance(local, tuple):
            self.local_host = str(local[0]).removeprefix("::ffff:")
        admission = self.gateway.admission
        dropped = admission.handshake(self.address)
        if dropped is not None:
            log.warning("%s: SSH dropped: %s", self.peer, dropped)
            conn.abort()
            return
        self._logging_in = True
        self.refused = admission.admit(self.address)
        self._counted = self.refused is None
        if self.refused is None:
            return
        if not admission.refuse(self.address):
            log.warning("%s: SSH dropped: %s", self.peer, self.refused)
            conn.abort()
            return
        self._refusal_counted = True
        log.warning("%s: SSH refused: %s", self.peer, self.refused)

    def connection_lost(self, exc: Exception | None) -> None:
        self._conn = None  # nothing left to close: the session's end arms no timer
        self._end_login()
        if self._session_wait is not None:
            self._session_wait.cancel()
            self._session_wait = None
        if self._counted:
            self._counted = False
            self.gateway.admission.release(self.address)
        if self._refusal_counted:
            self._refusal_counted = False
            self.gateway.admission.forget_refused(self.address)
        if self._session is not None:
            self._session.close()

    def _end_login(self) -> None:
        if self._logging_in:
            self._logging_in = False
            self.gateway.admission.logged_in()

    def _auth_request(self) -> bool:
        """Count an authentication request; False (and the connection closing) past
        MAX_AUTH_REQUESTS."""
        self._auth_requests += 1
        if self._auth_requests <= MAX_AUTH_REQUESTS:
            return True
        if self._auth_requests == MAX_AUTH_REQUESTS + 1 and self._conn is not None:
            log.warning("%s: SSH dropped: too many authentication attempts", self.peer)
            conn = self._conn
            asyncio.get_running_loop().call_soon(
                conn.disconnect,
                asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                "too many authentication attempts",
            )
        return False

    def _arm_session_wait(self) -> None:
        """Close the connection unless it opens a session within SESSION_WAIT."""
        if self._session_wait is not None:
            self._session_wait.cancel()
        loop = asyncio.get_running_loop()
        self._session_wait = loop.call_later(SESSION_WAIT, self._no_session)

    def _no_session(self) -> None:
        self._session_wait = None
        session = self._session
        if session is not None and not session.closed and session.started_session:
            return
        log.info("%s: SSH closed: no session after %.0f s", self.peer, SESSION_WAIT)
        if self._conn is not None:
            self._conn.close()

    def client_argv(self, goto: Goto | None, resume: Resume | None) -> list[str]:
        """The arguments of this connection's session's client (:meth:`Gateway.client_argv`)."""
        return self.gateway.client_argv(self, goto, resume)

    def client_env(self, term: str, sent: Any) -> dict[str, str]:
        """The environment of this connection's session's client (:meth:`Gateway.client_env`)."""
        return self.gateway.client_env(term, sent, self)

    def session_closed(self) -> None:
        """The connection's session has ended: it may open another, soon, or go."""
        if self._conn is not None and not self._logging_in:
            with contextlib.suppress(RuntimeError):
                self._arm_session_wait()

    def begin_auth(self, username: str) -> bool:
        self.name = display_name(username)
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # asyncssh checks the signature after this returns True; the last key accepted here
        # before authentication completes is the one the client proved it holds.
        if not self._auth_request():
            return False
        authorized = self.gateway.authorized
        if self.gateway.config.ssh_auth == "keys" and (
            authorized is None or authorized.validate(key, self.address, self.address) is None
        ):
            return False
        self._candidate = key.get_fingerprint("sha256")
        return True

    def kbdint_auth_supported(self) -> bool:
        return self.gateway.config.ssh_auth == "open"

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        # open: no questions. A key offered earlier and not proven must not become the identity.
        if not self._auth_request():
            return False
        self._candidate = None
        return True

    def auth_completed(self) -> None:
        self._end_login()
        self._arm_session_wait()
        self.fingerprint = self._candidate
        log.info(
            "%s: SSH user %r %s",
            self.peer,
            self.name,
            f"with key {self.fingerprint}" if self.fingerprint else "without a key",
        )

    def session_requested(self) -> TerminalSession | bool:
        if self._session is not None and not self._session.closed:
            return False  # one game client per connection
        session = TerminalSession(self.gateway, self)
        session.refused = self.refused
        self._session = session
        return session


async def start_gateway(running: RunningServer, config: ServerConfig) -> Gateway:
    """Start the SSH gateway of ``running`` on ``config.ssh_host:config.ssh_port``."""
    if config.ssh_auth not in AUTH_MODES:
        raise ValueError(f"ssh_auth must be one of {', '.join(AUTH_MODES)}")
    authorized = None
    if config.ssh_authorized_keys:
        authorized = asyncssh.read_authorized_keys(config.ssh_authorized_keys)
    elif config.ssh_auth == "keys":
        raise ValueError("--ssh-auth keys needs --ssh-authorized-keys FILE")
    if log.getEffectiveLevel() > logging.DEBUG:
        # asyncssh logs every channel's opening and closing at INFO: too chatty for operators
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    data = data_dir(config)
    host_key = load_host_key(
        Path(config.ssh_host_key) if config.ssh_host_key else data / "ssh_host_ed25519_key"
    )
    admission = Admission(
        config.ssh_max_sessions,
        config.ssh_max_sessions_per_address,
        config.ssh_sessions_per_second,
        config.ssh_sessions_burst,
        config.ssh_start_queue,
        max_logins=config.ssh_max_logins,
        handshakes_per_second=config.ssh_handshakes_per_second,
        handshake_burst=config.ssh_handshakes_burst,
    )
    resumes = ResumeBook(data / "ssh-resume")
    forgotten = await asyncio.to_thread(resumes.prune)
    if forgotten:
        log.info("forgot %d SSH resume codes unused for 30 days", forgotten)
    spawner = Spawner()
    gateway = Gateway(
        config, running, data, socket_path(data), spawner, admission, authorized, resumes
    )
    try:
        gateway._link = await start_link(gateway.link_path, gateway.new_link_session)
        await spawner.start()
        gateway._ssh = await asyncssh.create_server(
            lambda: Connection(gateway),
            config.ssh_host or config.host,
            config.ssh_port,
            server_host_keys=[host_key],
            encoding=None,
            line_editor=False,
            login_timeout=LOGIN_TIMEOUT,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
        )
    except BaseException:
        await gateway.stop()
        raise
    gateway.port = int(gateway._ssh.sockets[0].getsockname()[1])
    log.info(
        "SSH gateway on %s:%d (auth %s)",
        config.ssh_host or config.host,
        gateway.port,
        config.ssh_auth,
    )
    return gateway
