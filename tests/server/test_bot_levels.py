"""Server bots of every level over TCP, and expert bots thinking off the event loop."""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import BOT_LEVELS
from server.bots.client import CreateSpec, HeadlessBot
from tests.server.conftest import ClientFactory, ServerFactory, drive


@pytest.mark.parametrize("level", BOT_LEVELS)
async def test_server_bots_of_every_level_play_a_whole_game(
    make_server: ServerFactory, level: str
) -> None:
    server = await make_server(expert_seconds=0.02)
    # The host plays at the level it asks of the two server bots it seats.
    host = HeadlessBot(
        "127.0.0.1",
        server.port,
        name="Host",
        level=level,
        seconds=0.02,
        max_rate=1e4,
        seed=5,
        create=CreateSpec("space", 3, 2, seed=21),
        record=True,
    )
    await asyncio.wait_for(host.run(), 120)
    assert host.results[0].turns > 0
    rooms = [m for m in host.frames if m["type"] == "room"]
    bots = [s for s in rooms[-1]["seats"] if s and s["kind"] == "bot"]
    assert [s["level"] for s in bots] == [level, level]


async def test_an_expert_bot_thinking_holds_up_no_other_table(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    # The expert of the first table thinks for 4 s per decision; meanwhile a whole game at the
    # second table is played from start to end.
    server = await make_server(expert_seconds=4.0)
    ann = await connect(server.port, "Ann")
    slow = (
        await ann.request(
            {
                "type": "create_room",
                "edition": "space",
                "seats": 2,
                "bots": 1,
                "bot_level": "expert",
                "autostart": True,
                "seed": 3,
            }
        )
    )["room"]
    # Ann passes until the expert has a real choice to think about (its own turn).
    while True:
        msg = await ann.recv(timeout=10)
        if msg["type"] != "state":
            continue
        view = msg["view"]
        if view["legal"]:
            choice = next(
                i for i, c in enumerate(view["legal"]) if c["do"] in ("done", "stay", "accept")
            )
            ann.send({"type": "act", "room": slow, "version": msg["version"], "choice": choice})
        elif view["active"] == 1 and view["pending"][0]["seat"] == 1 and view["phase"] == "actions":
            break
    thinking_version = msg["version"]
    bob = await connect(server.port, "Bob")
    fast = (
        await bob.request(
            {
                "type": "create_room",
                "edition": "shipwrecked",
                "seats": 2,
                "bots": 1,
                "bot_level": "basic",
                "autostart": True,
                "seed": 4,
            }
        )
    )["room"]
    over = await drive(bob, fast, timeout=20)
    assert over["type"] == "game_over"
    # The expert at the first table has not decided yet: its table's state is where it was.
    assert not [m for m in ann.inbox if m["type"] == "state" and m["version"] > thinking_version]
    later = await ann.expect("state", timeout=15)
    assert later["version"] > thinking_version
