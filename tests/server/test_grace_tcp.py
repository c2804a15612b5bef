"""A table never stalls, over real TCP: three players and one who leaves mid-game
(closes the connection); the three play on, the leaver's seat is played by its bot after the
left grace, and the game ends. Graces are scaled down with the server's ``timer_scale``."""

from __future__ import annotations

import asyncio

from server.net.tcp import RunningServer
from tests.server.conftest import ClientFactory, ServerFactory, drive


async def test_three_players_and_a_leaver_finish_their_game(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    # left_grace 10 s is 0.1 s here; the idle grace (1800 s, 18 s here) never comes for the
    # three, who answer at once.
    server: RunningServer = await make_server(timer_scale=0.01)
    ann = await connect(server.port, "Ann")
    create = {
        "type": "create_room",
        "edition": "space",
        "seats": 4,
        "seed": 21,
        "left_grace": 10,
        "idle_grace": 1800,
    }
    code = (await ann.request(create))["room"]
    players = [ann]
    for name in ("Bob", "Cid", "Dee"):
        client = await connect(server.port, name)
        await client.request({"type": "join_room", "room": code})
        players.append(client)
    await ann.request({"type": "start", "room": code})
    dee = players.pop()
    await dee.close()  # gone without a word, as a closed terminal or a lost network is
    ends = await asyncio.wait_for(
        asyncio.gather(*(drive(client, code, timeout=60.0) for client in players)), 90.0
    )
    assert len({end["game"] for end in ends}) == 1  # the same game ended for all three
    # Everyone was told of the countdown, then that the bot took Dee's seat.
    for client in players:
        grace = [g for m in client.seen if m["type"] == "timer" for g in m.get("grace", [])]
        assert {"seat": 3, "reason": "left"}.items() <= grace[0].items()
        keys = [e["key"] for m in client.seen if m["type"] == "events" for e in m["events"]]
        assert "away.gone" in keys
    # Dee's decisions were her bot's; the three made all of theirs.
    game = server.lobby.store.game(int(ends[0]["game"]))
    assert game is not None
    rows = server.lobby.store.execute(
        "SELECT seat, by, count(*) FROM decisions WHERE game = ? GROUP BY seat, by", (game.id,)
    )
    by_seat = {(int(seat), str(by)): int(n) for seat, by, n in rows}
    assert by_seat.get((3, "away"), 0) > 0 and (3, "human") not in by_seat
    assert {by for seat, by in by_seat if seat != 3} == {"human"}
