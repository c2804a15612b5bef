"""Connections that open no session, authentication floods,
handshake floods, oversized and flooding terminals, readers that stop reading, and user names
that look like options."""

from __future__ import annotations

import asyncio
import socket

import asyncssh
import pytest

from server.gateway import server as gateway_server
from server.gateway import terminal as gateway_terminal
from tests.gateway.conftest import Stack, StackFactory
from tests.gateway.test_ssh import LOBBY, player_of


async def closed_within(conn: asyncssh.SSHClientConnection, seconds: float) -> bool:
    try:
        await asyncio.wait_for(conn.wait_closed(), seconds)
    except TimeoutError:
        return False
    return True


async def test_connections_without_a_session_are_closed_and_hold_no_slot(
    make_stack: StackFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_server, "SESSION_WAIT", 1.0)
    stack = await make_stack(ssh_max_sessions=1)
    idle = [await stack.connect(f"idle{i}") for i in range(3)]  # log in, open nothing
    # They take no session slot: a player still gets the only one.
    _, term = await stack.terminal("player")
    await term.wait_for(LOBBY, "Connected to")
    for conn in idle:
        assert await closed_within(conn, 10), "a connection without a session stayed open"
    assert stack.gateway.admission.sessions == 1
    # The only slot is taken: a second session is told so, and ends.
    conn = await stack.connect("late")
    process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding="utf-8")
    out = await asyncio.wait_for(process.stdout.read(), 10)
    assert "as many SSH players as it can take" in out
    await term.wait_for(LOBBY)


async def test_authentication_requests_per_connection_are_capped(
    make_stack: StackFactory, tmp_path: pytest.TempPathFactory
) -> None:
    allowed = asyncssh.generate_private_key("ssh-ed25519")
    listed = tmp_path / "authorized_keys"  # type: ignore[operator]
    listed.write_bytes(allowed.export_public_key())
    stack = await make_stack(ssh_auth="keys", ssh_authorized_keys=str(listed))
    strangers = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(20)]
    # Twenty wrong keys before the right one: cut off after twelve requests.
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncssh.connect(
            "127.0.0.1",
            stack.gateway.port,
            username="mallory",
            client_keys=[*strangers, allowed],
            known_hosts=None,
            agent_path=None,
        )
    # A few wrong keys first, as an agent holding several offers them, still get in.
    conn = await asyncssh.connect(
        "127.0.0.1",
        stack.gateway.port,
        username="dave",
        client_keys=[*strangers[:4], allowed],
        known_hosts=None,
        agent_path=None,
    )
    result = await conn.run(encoding="utf-8", term_type=None)
    assert "needs a terminal" in str(result.stdout)
    conn.close()


async def test_handshakes_per_address_are_paced(make_stack: StackFactory) -> None:
    stack = await make_stack(ssh_handshakes_burst=3, ssh_handshakes_per_second=0.01)
    for _ in range(3):
        (await stack.connect("hasty")).close()
    with pytest.raises((asyncssh.Error, OSError)):
        await stack.connect("hasty")  # dropped before the key exchange
    # Another address is not held up by it.
    other = await stack.connect("calm", local_addr=("127.0.0.2", 0))
    other.close()


async def test_logins_in_progress_are_capped_before_the_key_exchange(
    make_stack: StackFactory,
) -> None:
    stack = await make_stack(ssh_max_logins=2)
    silent = []
    for source in ("127.0.0.3", "127.0.0.4"):
        sock = socket.create_connection(
            ("127.0.0.1", stack.gateway.port), source_address=(source, 0)
        )
        silent.append(sock)
    await asyncio.sleep(0.3)  # the gateway has seen them
    with pytest.raises((asyncssh.Error, OSError)):
        await stack.connect("blocked", local_addr=("127.0.0.5", 0))
    for sock in silent:
        sock.close()
    await asyncio.sleep(0.3)
    (await stack.connect("welcome", local_addr=("127.0.0.5", 0))).close()


async def test_terminal_size_is_clamped_and_window_changes_coalesced(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied: list[tuple[int, int]] = []
    real = gateway_terminal.set_size

    def counting(fd: int, width: int, height: int) -> None:
        applied.append((width, height))
        real(fd, width, height)

    monkeypatch.setattr(gateway_terminal, "set_size", counting)
    _, term = await stack.terminal(size=(1000, 1000))
    await term.wait_until(lambda: bool(stack.gateway.sessions))
    (session,) = stack.gateway.sessions
    assert session.size == (300, 100) and applied[0] == (300, 100)
    start = len(applied)
    for step in range(40):  # 40 window changes in well under a second
        term.process.change_terminal_size(200 + step, 60)
        await asyncio.sleep(0.01)
    await asyncio.sleep(gateway_terminal.RESIZE_INTERVAL * 2 + 0.2)
    changes = applied[start:]
    assert changes[-1] == (239, 60)  # the last size wins
    assert len(changes) <= 6, changes


async def test_a_session_that_stops_reading_is_dropped(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_terminal, "STALL_TIMEOUT", 1.0)
    conn = await stack.connect("sleepy")
    process = await conn.create_process(
        term_type="xterm-256color", term_size=(300, 100), encoding=None
    )
    await asyncio.wait_for(process.stdout.read(1), 30)  # the client is up; then read no more
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    step = 0
    while not process.is_closing() and loop.time() < end:
        # redraws the client cannot deliver: the SSH window fills, the gateway holds back
        step += 1
        process.change_terminal_size(300 - step % 2, 100)
        await asyncio.sleep(0.3)
        if not stack.gateway.sessions and step > 3:
            break
    assert not stack.gateway.sessions, "the session of a client that stopped reading stayed"


@pytest.mark.parametrize("user", ["-x", "--join"])
async def test_user_names_that_look_like_options_are_names(stack: Stack, user: str) -> None:
    _, term = await stack.terminal(user)
    await term.wait_for(LOBBY, "Connected to")
    assert player_of(stack, user)
