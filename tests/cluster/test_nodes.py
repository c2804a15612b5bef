"""Two nodes on one PostgreSQL database, in one process: one lobby, rooms sent on (``moved``),
players known on every node, and leases that fence a node out of a room it lost."""

from __future__ import annotations

import asyncio
import time

from server.bots.client import CreateSpec, HeadlessBot
from server.config import ServerConfig
from server.leases import Leases
from server.store import Store
from server.tcp import RunningServer, start_server
from tests.server.conftest import FAST, Client


async def _node(url: str, **settings: object) -> RunningServer:
    return await start_server(ServerConfig(**{**FAST, "db": url, "lease_seconds": 2.0, **settings}))


def _maintain(*nodes: RunningServer) -> None:
    for node in nodes:
        assert node.cluster is not None
        node.cluster.maintain(time.monotonic() + 3600.0)


async def _client(port: int, name: str, token: str | None = None) -> Client:
    client = await Client.connect(port)
    await client.hello(name, token)
    return client


async def test_a_room_of_one_node_is_listed_and_joined_through_the_other(
    postgres_url: str,
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    try:
        ann = await _client(a.port, "Ann")
        clients.append(ann)
        created = await ann.request({"type": "create_room", "edition": "space", "seats": 2})
        code = created["room"]
        _maintain(a, b)  # a publishes its room, b reads it (the timer's work, now)
        bob = await _client(b.port, "Bob")
        clients.append(bob)
        listed = await bob.request({"type": "list_rooms"})
        assert [room["room"] for room in listed["rooms"]] == [code]
        moved = await bob.request({"type": "join_room", "room": code})
        assert moved["type"] == "moved" and moved["room"] == code
        assert moved["address"].endswith(f":{a.port}")
        # Bob's identity, made on b, is known on a: he resumes it there.
        again = await _client(a.port, "Bob", bob.token)
        clients.append(again)
        assert again.player == bob.player
        joined = await again.request({"type": "join_room", "room": code})
        assert joined["type"] == "joined" and joined["seat"] == 1
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_bots_told_moved_follow_it_and_play_the_game_on_the_rooms_node(
    postgres_url: str,
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    try:
        codes: asyncio.Queue[str] = asyncio.Queue()
        host = HeadlessBot(
            "127.0.0.1",
            a.port,
            name="Host",
            max_rate=1e4,
            seed=3,
            create=CreateSpec("space", 2, 0, seed=3),
            on_room=codes.put_nowait,
        )
        hosting = asyncio.create_task(host.run())
        code = await asyncio.wait_for(codes.get(), 10)
        guest = HeadlessBot("127.0.0.1", b.port, name="Guest", max_rate=1e4, seed=4, room=code)
        results = await asyncio.wait_for(asyncio.gather(hosting, guest.run()), 60)
        assert all(len(result) == 1 for result in results)
        assert guest.port == a.port and guest.connections == 2  # sent on once, then stayed
    finally:
        await a.stop()
        await b.stop()


def test_a_node_that_lost_its_lease_writes_nothing_more_of_that_room(postgres_url: str) -> None:
    old, new = Store(postgres_url), Store(postgres_url)
    lost: list[set[int]] = []
    first = Leases(postgres_url, "first:1", 0.2, old.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, new.game_rooms)
    old.fence(first.fence, lost.append)
    new.fence(second.fence, lambda games: None)
    old.on_write = lambda: None  # group commit, as in the server
    assert first.take("ROOM")
    game = old.create_game("ROOM", "space", ["a", "b"], [], {}, 1, 0)
    old.commit()
    assert not second.take("ROOM")  # held: nobody else may take it
    time.sleep(0.3)  # the first node is paused past its lease
    assert second.take("ROOM")  # taken over: the epoch goes up
    taken = new.game(game)
    assert taken is not None and new.game_rooms[game] == "ROOM"
    new.append_decision(game, 0, 0, {"do": "new owner"}, "human")
    old.append_decision(game, 0, 0, {"do": "old owner"}, "human")  # the paused node wakes
    old.save_player("p1", "token", "Ann")  # a write of no room's commits all the same
    old.commit()
    assert lost == [{game}]
    assert first.renew() == {"ROOM"}
    stored = new.game(game)
    assert stored is not None and stored.decisions == [(0, {"do": "new owner"})]
    assert new.player_by_id("p1") is not None
    for leases in (first, second):
        leases.close()
    old.close()
    new.close()
