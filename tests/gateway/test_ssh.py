"""The SSH gateway end to end: a real SSH client (asyncssh), a real PTY, the real client process
forked by the fork server, the real game server; the screen read through a terminal emulator."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import asyncssh
import pytest

from server.gateway.link import LinkSession
from tests.gateway.conftest import NEW_ROOM_DIALOG, Stack, StackFactory, Terminal

LOBBY = "Selfish — lobby"


def player_of(stack: Stack, name: str) -> str:
    """The player id of the connected client called ``name``."""
    ids = [
        s.player.id
        for s in stack.running.sessions
        if isinstance(s, LinkSession) and s.player is not None and s.player.name == name
    ]
    assert len(ids) == 1, ids
    return ids[0]


async def create_game_with_bots(term: Terminal) -> None:
    """From the lobby, by keystrokes: a new room (4 seats, 2 bots), one more bot, start."""
    await term.wait_for(LOBBY, "Connected to")
    term.keys("n")
    # Once the dialog is drawn its first field has the focus, and shift+tab goes back from
    # there to Create, the last one.
    await term.wait_for(NEW_ROOM_DIALOG)
    term.keys("\x1b[Z\r")
    await term.wait_for("You are the host")
    term.keys("a")
    await term.wait_for("press s to start")
    term.keys("s")
    await term.wait_for("Strips", "Hand", "Log")


async def until_gone(pid: int, timeout: float = 5.0) -> bool:
    """Whether process ``pid`` no longer exists within ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_lobby_game_reconnect_by_key_and_watch(stack: Stack) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn, term = await stack.terminal("alice", key, size=(100, 30))
    await create_game_with_bots(term)
    screen = await term.wait_for("alice")
    assert "Bot 1" in screen
    (code,) = stack.running.lobby.rooms
    room = stack.running.lobby.rooms[code]
    alice = player_of(stack, "alice")
    assert room.seat_of(alice) is not None

    conn.close()
    await term.close()
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while stack.running.lobby.connected(alice) and loop.time() < end:
        await asyncio.sleep(0.05)
    assert not stack.running.lobby.connected(alice)

    # The same key is the same player: straight back to the table, in the same seat.
    _, again = await stack.terminal("alice", key, size=(100, 30))
    await again.wait_for("Strips", "Hand", "Log", "alice")
    assert player_of(stack, "alice") == alice
    assert stack.running.lobby.connected(alice)

    # `ssh host watch CODE` goes straight to the table as a spectator (no key: a guest).
    _, watcher = await stack.terminal("bob", None, command=f"watch {code.lower()}")
    await watcher.wait_for("Strips", "Log", "alice")
    bob = player_of(stack, "bob")
    assert room.members.get(bob) == "spectator"


async def test_a_new_key_is_a_new_player(stack: Stack) -> None:
    _, first = await stack.terminal("carol", asyncssh.generate_private_key("ssh-ed25519"))
    await first.wait_for(LOBBY, "Connected to")
    one = player_of(stack, "carol")
    _, second = await stack.terminal("carol", asyncssh.generate_private_key("ssh-ed25519"))
    await second.wait_for(LOBBY, "Connected to")
    ids = {
        s.player.id
        for s in stack.running.sessions
        if isinstance(s, LinkSession) and s.player is not None
    }
    assert one in ids and len(ids) == 2


async def test_resize_redraws_at_the_new_size(stack: Stack) -> None:
    _, term = await stack.terminal(size=(100, 30))
    await term.wait_for(LOBBY, "Connected to")
    # The lobby box ends at column 100 (its last row may come in a later write than the first).
    await term.wait_until(lambda: term.screen.display[28].rstrip().endswith("╯"))
    term.resize(120, 40)

    def redrawn() -> bool:
        rows = term.screen.display
        return rows[38].startswith("╰") and rows[38].endswith("╯") and LOBBY in rows[0]

    await term.wait_until(redrawn)
    assert "Selfish — lobby" in term.screen.display[0]


async def test_session_without_pty_gets_an_explanation(stack: Stack) -> None:
    conn = await stack.connect()
    result = await conn.run(encoding="utf-8", term_type=None)
    assert result.exit_status == 1
    assert "needs a terminal" in str(result.stdout)
    assert "ssh -t" in str(result.stdout)


async def test_unknown_command_is_refused_with_usage(stack: Stack) -> None:
    conn = await stack.connect()
    process = await conn.create_process(
        "rm -rf /", term_type="xterm", term_size=(80, 24), encoding="utf-8"
    )
    out = await asyncio.wait_for(process.stdout.read(), 10)
    await process.wait_closed()
    assert "Unknown command" in out and "join CODE" in out
    assert process.exit_status == 2


async def test_killed_connection_leaves_no_client_process(stack: Stack) -> None:
    conn, term = await stack.terminal()
    await term.wait_for(LOBBY, "Connected to")
    (session,) = stack.gateway.sessions
    assert session.pid is not None
    pid = session.pid
    os.kill(pid, 0)  # it is running
    conn.abort()  # the TCP connection dies without an SSH goodbye
    assert await until_gone(pid), f"client {pid} still running"
    assert not stack.gateway.sessions


async def test_quitting_the_client_ends_the_ssh_session(stack: Stack) -> None:
    _, term = await stack.terminal()
    await term.wait_for(LOBBY, "Connected to")
    term.keys("\x11")  # ctrl+q in the lobby quits at once
    await asyncio.wait_for(term.process.wait_closed(), 10)
    assert term.process.exit_status == 0


async def test_keys_mode_admits_only_listed_keys(make_stack: StackFactory, tmp_path: Path) -> None:
    allowed = asyncssh.generate_private_key("ssh-ed25519")
    listed = tmp_path / "authorized_keys"
    listed.write_bytes(allowed.export_public_key())
    stack = await make_stack(ssh_auth="keys", ssh_authorized_keys=str(listed))
    with pytest.raises(asyncssh.PermissionDenied):
        await stack.connect("mallory", asyncssh.generate_private_key("ssh-ed25519"))
    with pytest.raises(asyncssh.PermissionDenied):
        await stack.connect("mallory", None)  # no key: no keyboard-interactive either
    conn = await stack.connect("dave", allowed)
    result = await conn.run(encoding="utf-8", term_type=None)
    assert "needs a terminal" in str(result.stdout)


async def test_sessions_per_address_are_limited(make_stack: StackFactory) -> None:
    stack = await make_stack(ssh_max_sessions_per_address=1)
    _, first = await stack.terminal("erin")
    await first.wait_for(LOBBY)
    conn = await stack.connect("erin")
    process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding="utf-8")
    out = await asyncio.wait_for(process.stdout.read(), 10)
    assert "too many SSH sessions from your address" in out
    # A client looping on connect gets a couple of answers, then is dropped before key exchange.
    await stack.connect("erin")
    with pytest.raises((asyncssh.Error, OSError)):
        await stack.connect("erin")
    await first.wait_for(LOBBY)  # the admitted session is unaffected


async def test_idle_session_is_closed(make_stack: StackFactory) -> None:
    # long enough for the client to start on a busy machine: the timer runs from its start
    stack = await make_stack(ssh_idle_timeout=4.0)
    _, term = await stack.terminal()
    await term.wait_for(LOBBY)
    await asyncio.wait_for(term.process.wait_closed(), 30)
    assert "Closed after a long time without input" in term.text
    assert not stack.gateway.sessions


def test_host_key_is_made_once_and_kept(tmp_path: Path) -> None:
    from server.gateway.server import load_host_key

    path = tmp_path / "ssh_host_ed25519_key"
    first = load_host_key(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_host_key(path).get_fingerprint() == first.get_fingerprint()


async def test_a_dead_fork_server_is_replaced_and_games_go_on(stack: Stack) -> None:
    _, first = await stack.terminal("fay")
    await first.wait_for(LOBBY, "Connected to")
    old = stack.gateway.spawner.pid
    assert old is not None
    os.kill(old, signal.SIGKILL)
    # The running session is not the fork server's to end: it keeps its lobby.
    first.keys("n")
    await first.wait_for(NEW_ROOM_DIALOG)
    _, second = await stack.terminal("gus")
    await second.wait_for(LOBBY, "Connected to")
    assert stack.gateway.spawner.pid not in (None, old)


async def test_a_second_gateway_on_the_same_data_directory_is_refused(
    stack: Stack, tmp_path: Path
) -> None:
    from server.config import ServerConfig
    from server.gateway.server import start_gateway

    config = ServerConfig(port=0, ssh_port=0, db=str(tmp_path / "server.sqlite3"))
    with pytest.raises(OSError, match="another selfish-server"):
        await start_gateway(stack.running, config)
    _, term = await stack.terminal()  # the first one still works
    await term.wait_for(LOBBY, "Connected to")
