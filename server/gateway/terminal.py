"""One SSH session: a pseudo-terminal sized like the SSH window, a client process on its slave
end, and the bytes pumped between the SSH channel and the master end without blocking.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import re
import signal
import struct
import termios
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import asyncssh

from server.gateway.admission import Admission
from server.gateway.resume import ResumeRefused
from server.gateway.spawner import Spawner

log = logging.getLogger("selfish.gateway")

NO_PTY = (
    "Selfish needs a terminal: connect with `ssh -t` (a plain `ssh host` gets one), "
    "e.g. `ssh -t -p PORT host join ABCD`.\r\n"
)
USAGE = (
    "Commands: `join CODE` (take a seat in room CODE), `watch CODE` (spectate it), "
    "`replay GAME [TURN]` (watch finished game GAME, from turn TURN) or "
    "`resume CODE` (your seats back, with the resume code the game showed you).\r\n"
)
READ_CHUNK = 65_536
# Past this many bytes waiting for the SSH client, stop reading the terminal (the client
# process then blocks on its own writes) until the channel drains.
CHANNEL_HIGH_WATER = 256 * 1024
# A channel that stays over CHANNEL_HIGH_WATER this long (its client stopped reading) is
# dropped: what it holds is bounded, and so is how long its client waits blocked.
STALL_TIMEOUT = 20.0
# The largest terminal a session gets, whatever the SSH client asks: the client draws every
# cell of its screen, and a 1000x1000 one costs a core and hundreds of MiB.
MAX_COLUMNS = 300
MAX_ROWS = 100
# Window changes are applied at most once in this many seconds (the first at once, the last
# size at the end of the interval): each one makes the client draw its whole screen again.
RESIZE_INTERVAL = 1.0
# Past this many keystroke bytes the terminal has not taken, stop reading the channel.
INPUT_HIGH_WATER = 64 * 1024
TERM_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
CODE_PATTERN = re.compile(r"[A-Za-z]{4}|[A-Za-z]{12}")  # a public room's code, or a private one's
NUMBER_PATTERN = re.compile(r"[0-9]{1,12}")  # a finished game's number, a turn


@dataclass(frozen=True)
class Goto:
    """Where a session's command asks to start: ``join ABCD``, ``watch ABCD``, or ``replay 12
    [5]`` (finished game 12 in the viewer, at turn 5: ``room`` holds the game's number)."""

    role: str  # "join", "watch" or "replay"
    room: str
    turn: int | None = None


@dataclass(frozen=True)
class Resume:
    """``resume CODE``: the player a resume code names (server.gateway.resume)."""

    code: str


def parse_command(command: str | None) -> Goto | Resume | None:
    """The session's command (empty: the lobby); ValueError for anything else."""
    words = (command or "").split()
    if not words:
        return None
    if len(words) == 2 and words[0].lower() == "resume":
        return Resume(words[1])
    if (
        len(words) == 2
        and words[0].lower() in ("join", "watch")
        and CODE_PATTERN.fullmatch(words[1])
    ):
        return Goto(words[0].lower(), words[1].upper())
    if (
        len(words) in (2, 3)
        and words[0].lower() == "replay"
        and all(NUMBER_PATTERN.fullmatch(word) for word in words[1:])
    ):
        return Goto("replay", str(int(words[1])), int(words[2]) if len(words) == 3 else None)
    raise ValueError(f"unknown command {command!r}")


def set_size(fd: int, width: int, height: int) -> None:
    """Set a terminal's size (struct winsize: rows first)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


class Door(Protocol):
    """The SSH connection a session runs in (``server.gateway.server.Connection``), as the
    session sees it: declared here so that the gateway imports its sessions, not the reverse."""

    @property
    def peer(self) -> str:
        """The connection's address and port, as log lines name it."""

    @property
    def address(self) -> str:
        """The client's IP address."""

    @property
    def name(self) -> str:
        """The player's name."""

    def client_argv(self, goto: Goto | None, resume: Resume | None) -> list[str]:
        """The ``selfish`` arguments of the session's client; ResumeRefused when ``resume``
        names no player."""

    def client_env(self, term: str, sent: Any) -> dict[str, str]:
        """The client's environment."""

    def session_closed(self) -> None:
        """The session has ended."""


class Host(Protocol):
    """What every session shares (``server.gateway.server.Gateway``), as a session uses it."""

    @property
    def admission(self) -> Admission:
        """The limits on sessions running and starting."""

    @property
    def spawner(self) -> Spawner:
        """The fork server the clients are started by."""

    @property
    def idle_timeout(self) -> float:
        """Seconds without a keystroke before a session is closed."""

    def started(self, session: TerminalSession) -> None:
        """A session's client is running."""


class TerminalSession(asyncssh.SSHServerSession[bytes]):
    """The SSH side of one session; the client process runs on the PTY's slave end."""

    def __init__(self, gateway: Host, connection: Door) -> None:
        self.gateway = gateway
        self.connection = connection
        self.chan: Any = None
        self.term: str | None = None
        self.size = (80, 24)
        self.goto: Goto | None = None
        self.resume: Resume | None = None
        self.slot = False  # holds one of the gateway's session slots
        self._resize: asyncio.TimerHandle | None = None
        self._stall: asyncio.TimerHandle | None = None
        self._size_waiting = False  # a window change held back while the channel is full
        self._applied = self.size  # the size the terminal has
        self._last_resize = float("-inf")  # when a window change was last applied
        self.bad_command: str | None = None
        self.refused: str | None = None  # the connection is over a limit: say so and end
        self.master: int | None = None
        self.pid: int | None = None
        self.closed = False
        self.started_session = False  # the client asked for a shell or a command
        self._to_terminal = bytearray()
        self._reading = False
        self._last_input = 0.0
        self._idle: asyncio.TimerHandle | None = None
        self._task: asyncio.Future[None] | None = None
        self.ending: asyncio.Future[None] | None = None  # the client being made to exit
        self.on_end: Callable[[TerminalSession], None] | None = None

    # --- asyncssh callbacks ------------------------------------------------------------------

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], _modes: Any
    ) -> bool:
        self.term = term_type if TERM_PATTERN.fullmatch(term_type or "") else "xterm-256color"
        width, height = term_size[0], term_size[1]
        self.size = (_clamp(width, 80, MAX_COLUMNS), _clamp(height, 24, MAX_ROWS))
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        try:
            parsed = parse_command(command)
        except ValueError:
            self.bad_command = command
        else:
            if isinstance(parsed, Resume):
                self.resume = parsed
            else:
                self.goto = parsed
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        self.started_session = True
        if self.refused is not None:
            self._finish_early(f"Sorry: {self.refused}. Try again later.\r\n", 1)
            return
        if self.bad_command is not None:
            self._finish_early(f"Unknown command: {_printable(self.bad_command)}.\r\n{USAGE}", 2)
            return
        if self.term is None:
            self._finish_early(NO_PTY, 1)
            return
        full = self.gateway.admission.claim_session()
        if full is not None:
            self._finish_early(f"Sorry: {full}. Try again later.\r\n", 1)
            return
        self.slot = True
        self._task = asyncio.ensure_future(self._start())

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._last_input = asyncio.get_running_loop().time()
        if self.master is None:
            return  # keys pressed before the client is up are dropped, like a busy terminal
        self._to_terminal += data
        self._write_terminal()

    def terminal_size_changed(self, width: int, height: int, _pw: int, _ph: int) -> None:
        self.size = (
            _clamp(width, self.size[0], MAX_COLUMNS),
            _clamp(height, self.size[1], MAX_ROWS),
        )
        if self.master is None or self._resize is not None:
            return  # the pending change will take the latest size
        loop = asyncio.get_running_loop()
        wait = self._last_resize + RESIZE_INTERVAL - loop.time()
        if wait <= 0:
            self._apply_size()
        else:
            self._resize = loop.call_later(wait, self._apply_size)

    def _apply_size(self) -> None:
        """The latest window size to the terminal and the client (one redraw per interval).
        While the SSH client is not taking what it is sent, the size waits: a redraw it would
        not read costs the client's CPU for nothing; it is applied once the channel drains."""
        self._resize = None
        if self.master is None:
            return
        self._last_resize = asyncio.get_running_loop().time()
        if self._stall is not None:
            self._size_waiting = True
            return
        self._size_waiting = False
        if self.size == self._applied:
            return  # e.g. 1000 then 999 columns: both are MAX_COLUMNS, nothing to redraw
        self._applied = self.size
        with contextlib.suppress(OSError):
            set_size(self.master, *self.size)
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGWINCH)

    def eof_received(self) -> bool:
        return True  # keep the session: a terminal's input ending does not end the game

    def pause_writing(self) -> None:
        self._held_back()

    def resume_writing(self) -> None:
        self._start_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.close()

    # --- start and stop ------------------------------------------------------------------------

    def _finish_early(self, text: str, status: int) -> None:
        self.chan.write(text.encode())
        self.chan.exit(status)

    async def _start(self) -> None:
        """Wait for a start slot, open the terminal, start the client on it."""
        gateway = self.gateway
        try:
            argv = self.connection.client_argv(self.goto, self.resume)
        except ResumeRefused as refused:
            log.info("%s: resume refused: %s", self.connection.peer, refused)
            self._finish_early(f"Sorry: {refused}.\r\n", 1)
            return
        except OSError as exc:  # the data directory cannot take the player's identity file
            log.error("%s: cannot keep an identity: %s", self.connection.peer, exc)
            self._finish_early("Sorry: the server could not start your session.\r\n", 1)
            return
        delay = gateway.admission.start_delay()
        if delay is None:
            self._finish_early(
                "The server is starting too many sessions; try again shortly.\r\n", 1
            )
            return
        if delay > 0:
            self.chan.write(f"Busy: starting in {delay:.0f} s…\r\n".encode())
            await asyncio.sleep(delay)
        if self.closed:
            return
        master, slave = os.openpty()
        try:
            set_size(master, *self.size)
            self._applied = self.size
            os.set_blocking(master, False)
            env = self.connection.client_env(
                self.term or "xterm-256color", self.chan.get_environment()
            )
            pid = await gateway.spawner.spawn(slave, argv, env)
        except Exception as exc:
            log.error("%s: cannot start a client: %s", self.connection.peer, exc)
            os.close(master)
            if not self.closed:
                self._finish_early("Sorry: the server could not start your session.\r\n", 1)
            return
        finally:
            os.close(slave)
        if self.closed:  # the SSH client left while we were starting: hang up at once
            os.close(master)
            self.ending = asyncio.ensure_future(gateway.spawner.end(pid))
            return
        self.master, self.pid = master, pid
        gateway.started(self)
        log.info(
            "%s: session for %s (pid %d)", self.connection.peer, self.connection.name, self.pid
        )
        self._start_reading()
        self._last_input = asyncio.get_running_loop().time()
        self._arm_idle()
        self.gateway.spawner.exited(self.pid).add_done_callback(self._client_exited)

    def _client_exited(self, done: asyncio.Future[int]) -> None:
        """The client ended by itself (the player quit): end the SSH session with its status."""
        if self.closed:
            return
        self._drain_terminal()
        status = done.result() if not done.cancelled() and done.exception() is None else 1
        self.chan.exit(max(0, status))
        self.close()

    def close(self) -> None:
        """End the session: hang the terminal up and make sure the client is gone."""
        if self.closed:
            return
        self.closed = True
        for timer in (self._idle, self._resize, self._stall):
            if timer is not None:
                timer.cancel()
        if self.slot:
            self.slot = False
            self.gateway.admission.release_session()
        self._stop_reading()
        master, self.master = self.master, None
        if master is not None:
            loop = asyncio.get_running_loop()
            loop.remove_writer(master)
            os.close(master)  # the hang-up: the kernel sends the client SIGHUP
        if self.pid is not None:
            self.ending = asyncio.ensure_future(self.gateway.spawner.end(self.pid))
        with contextlib.suppress(Exception):
            self.chan.close()
        if self.on_end is not None:
            self.on_end(self)
        self.connection.session_closed()

    # --- idle timeout -------------------------------------------------------------------------

    def _arm_idle(self) -> None:
        loop = asyncio.get_running_loop()
        self._idle = loop.call_at(self._last_input + self.gateway.idle_timeout, self._check_idle)

    def _check_idle(self) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() >= self._last_input + self.gateway.idle_timeout:
            log.info("%s: idle for %.0f s; closed", self.connection.peer, self.gateway.idle_timeout)
            with contextlib.suppress(Exception):
                self.chan.write(b"\r\nClosed after a long time without input.\r\n")
            self.close()
            return
        self._arm_idle()

    # --- the pump -----------------------------------------------------------------------------

    def _start_reading(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
            if self._size_waiting:
                self._apply_size()
        if self.master is not None and not self._reading:
            asyncio.get_running_loop().add_reader(self.master, self._read_terminal)
            self._reading = True

    def _stop_reading(self) -> None:
        if self.master is not None and self._reading:
            asyncio.get_running_loop().remove_reader(self.master)
        self._reading = False

    def _held_back(self) -> None:
        """The SSH client is not taking what it is sent: stop reading the terminal, and drop
        the session if that lasts STALL_TIMEOUT."""
        self._stop_reading()
        if self._stall is None and not self.closed:
            self._stall = asyncio.get_running_loop().call_later(STALL_TIMEOUT, self._stalled)

    def _stalled(self) -> None:
        self._stall = None
        log.info("%s: not reading for %.0f s; closed", self.connection.peer, STALL_TIMEOUT)
        self.close()

    def _read_terminal(self) -> None:
        """The client drew something: pass it on to the SSH client."""
        if self.master is None:
            return
        try:
            data = os.read(self.master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:  # EIO: every slave end is closed (the client ended)
                log.warning("%s: terminal read failed: %s", self.connection.peer, exc)
            self._stop_reading()
            return
        if not data:
            self._stop_reading()
            return
        self.chan.write(data)
        if self.chan.get_write_buffer_size() > CHANNEL_HIGH_WATER:
            self._held_back()

    def _drain_terminal(self) -> None:
        """Pass on whatever the client wrote last (its goodbye: the terminal restored)."""
        while self.master is not None:
            try:
                data = os.read(self.master, READ_CHUNK)
            except OSError:
                return
            if not data:
                return
            self.chan.write(data)

    def _write_terminal(self) -> None:
        """Keystrokes to the client; what the terminal cannot take yet waits for it."""
        master = self.master
        if master is None:
            return
        loop = asyncio.get_running_loop()
        try:
            while self._to_terminal:
                written = os.write(master, self._to_terminal)
                del self._to_terminal[:written]
        except BlockingIOError:
            pass
        except OSError:
            self._to_terminal.clear()
        if self._to_terminal:
            loop.add_writer(master, self._write_terminal)
            if len(self._to_terminal) > INPUT_HIGH_WATER:
                self.chan.pause_reading()
        else:
            loop.remove_writer(master)
            self.chan.resume_reading()


def _clamp(value: int, fallback: int, largest: int) -> int:
    """A terminal dimension from the SSH client: 0 (unknown) falls back, a larger one than
    ``largest`` is cut to it."""
    return min(value, largest) if value > 0 else fallback


def _printable(text: str) -> str:
    """A string from the network, safe to echo to a terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:60]
