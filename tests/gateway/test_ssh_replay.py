"""`ssh host replay GAME TURN`: a finished game straight in the viewer through the SSH gateway
(the real client process on a PTY, the screen read through a terminal emulator)."""

from __future__ import annotations

import asyncssh

from tests.gateway.conftest import Stack
from tests.server.conftest import Client, drive


async def finished_game(port: int) -> int:
    """A public two-seat game (a player and a bot) played to its end; its number."""
    client = await Client.connect(port)
    try:
        await client.hello("Ann")
        created = await client.request(
            {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True}
        )
        over = await drive(client, str(created["room"]), timeout=60)
        return int(over["game"])  # type: ignore[call-overload]
    finally:
        await client.close()


async def test_replay_command_opens_the_viewer_at_the_turn(stack: Stack) -> None:
    game = await finished_game(stack.running.port)
    key = asyncssh.generate_private_key("ssh-ed25519")
    _, term = await stack.terminal("alice", key, command=f"replay {game} 2", size=(80, 24))
    screen = await term.wait_for("Turns", "turn 2", f"Game {game}")
    assert "Ann" in screen
    term.keys("a")
    await term.wait_for("everything revealed", "Next to draw")
    # The client runs on the server's machine: exporting is from the player's own terminal.
    term.keys("e")
    await term.wait_for("selfish export")


async def test_replay_of_an_unknown_game_says_so(stack: Stack) -> None:
    _, term = await stack.terminal("alice", None, command="replay 999")
    await term.wait_for("no finished game")
