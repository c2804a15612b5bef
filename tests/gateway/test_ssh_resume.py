"""A player without a key is shown a resume code from the moment
they sit down, and `ssh ... resume CODE` puts them back in their seat after a disconnect."""

from __future__ import annotations

import asyncio
import re

from tests.gateway.conftest import Stack
from tests.gateway.test_ssh import LOBBY, create_game_with_bots, player_of

CODE = re.compile(r"resume code ([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})")


async def test_a_keyless_player_resumes_their_seat_with_the_code(stack: Stack) -> None:
    conn, term = await stack.terminal("alice", None, size=(100, 30))
    await create_game_with_bots(term)
    screen = await term.wait_for("resume code")
    found = CODE.search(screen)
    assert found, screen
    code = found.group(1)
    alice = player_of(stack, "alice")
    (room_code,) = stack.running.lobby.rooms
    room = stack.running.lobby.rooms[room_code]
    seat = room.seat_of(alice)
    assert seat is not None

    # The quit dialog says the exact command, with this server's address and port.
    term.keys("\x11")  # ctrl+q
    dialog = await term.wait_for("Quit while the game is running", "Keep playing (n)")
    await term.wait_for("is your seat).")
    rows = term.screen.display
    top = next(i for i, row in enumerate(rows) if "Quit while" in row)
    left = rows[top].index("Quit while")
    flat = " ".join(" ".join(row[left : left + 56] for row in rows[top : top + 5]).split())
    assert f"ssh -t -p {stack.gateway.port} 127.0.0.1 resume {code}" in flat, dialog
    assert "selfish connect" not in flat
    term.keys("n")

    conn.close()
    await term.close()
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while stack.running.lobby.connected(alice) and loop.time() < end:
        await asyncio.sleep(0.05)
    assert not stack.running.lobby.connected(alice)

    # Another login name, any case, no dashes: the code alone names the player.
    typed = code.upper().replace("-", "")
    _, again = await stack.terminal("someone", None, command=f"resume {typed}")
    await again.wait_for("Strips", "Hand", "Log", "alice", f"resume code {code}")
    assert player_of(stack, "alice") == alice
    assert room.seat_of(alice) == seat and stack.running.lobby.connected(alice)


async def test_a_wrong_code_gets_a_clear_line(stack: Stack) -> None:
    conn = await stack.connect("mallory")
    process = await conn.create_process(
        "resume k7m2-x9qp-4hwd-r3tf", term_type="xterm", term_size=(80, 24), encoding="utf-8"
    )
    out = await asyncio.wait_for(process.stdout.read(), 10)
    await process.wait_closed()
    assert "this server knows no such resume code" in out
    assert process.exit_status == 1
    assert not stack.gateway.sessions  # no client was started


async def test_the_lobby_of_a_keyless_player_comes_with_a_code_per_login(stack: Stack) -> None:
    _, first = await stack.terminal("zoe", None)
    await first.wait_for(LOBBY, "Connected to")
    (session,) = stack.gateway.sessions
    assert session.connection.seat is not None
    assert len(list((stack.gateway.data / "ssh-resume").glob("*.name"))) == 1
