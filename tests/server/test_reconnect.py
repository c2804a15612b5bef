"""Reconnect with the token mid-game, a server restart on the same database, and a bot that
finishes leaving after its connection dropped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import LeaveRoom
from server.bots.client import CreateSpec, HeadlessBot
from server.lobby.handlers import HANDLERS
from tests.server.conftest import ClientFactory, ServerFactory, drive, duel


async def test_reconnect_mid_game_with_token(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann, bob, code = await duel(server, connect, "shipwrecked", 3)
    room = server.lobby.rooms[code]
    # Play a few decisions, then Bob's connection drops.
    ann_task = asyncio.create_task(drive(ann, code))
    bob_task = asyncio.create_task(drive(bob, code))
    while room.game is not None and len(room.game.decisions) < 8:
        await asyncio.sleep(0.001)
    bob_task.cancel()
    await bob.close()
    while server.lobby.connected(bob.player):
        await asyncio.sleep(0.001)
    shown = room.room_message().seats[1]
    assert shown is not None and shown.name == "Bob" and not shown.connected  # the seat is kept
    # Ann is told, within room_broadcast_interval (comings and goings are coalesced).
    loop = asyncio.get_running_loop()
    end = loop.time() + 5
    while not any(
        m["type"] == "room" and m["seats"][1] is not None and not m["seats"][1]["connected"]
        for m in ann.seen
    ):
        assert loop.time() < end, "Ann was never told that Bob dropped"
        await asyncio.sleep(0.01)
    version = room.version
    back = await connect(server.port)
    welcome = await back.hello("Bob", token=bob.token)
    assert welcome["player"] == bob.player
    joined = await back.expect("joined")
    assert joined["room"] == code and joined["seat"] == 1
    history = await back.expect("events")
    assert history["history"] and len(history["events"]) > 3
    state = await back.expect("state")
    assert state["version"] >= version  # Ann may have moved on meanwhile
    assert state["view"]["seat"] == 1
    # Put the state back in the inbox so drive() sees it, then finish the game together.
    back.inbox.insert(0, state)
    results = await asyncio.wait_for(asyncio.gather(ann_task, drive(back, code)), 30)
    assert results[0]["game"] == results[1]["game"]
    # Ann was told when Bob dropped and when he came back.
    flags = [
        m["seats"][1]["connected"]
        for m in ann.seen
        if m["type"] == "room" and m["seats"][1] is not None
    ]
    assert False in flags and flags[-1] is True


async def test_restart_on_same_database_resumes_the_game(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    db = str(tmp_path / "selfish.sqlite3")
    server = await make_server(db=db)
    port = server.port
    codes: asyncio.Queue[str] = asyncio.Queue()
    spec = CreateSpec("space", 3, 1, seed=21)
    host = HeadlessBot(
        "127.0.0.1",
        port,
        max_rate=1e4,
        name="Ann",
        act_delay=0.01,
        seed=1,
        record=True,
        create=spec,
        on_room=codes.put_nowait,
    )
    tasks = [asyncio.create_task(host.run())]
    code = await codes.get()
    guest = HeadlessBot(
        "127.0.0.1", port, max_rate=1e4, name="Bob", room=code, act_delay=0.01, seed=2, record=True
    )
    tasks.append(asyncio.create_task(guest.run()))
    room = server.lobby.rooms[code]
    while room.game is None or len(room.game.decisions) < 10:
        await asyncio.sleep(0.005)
    assert not room.game.over
    game_id = room.game_id
    await server.stop()
    done = len(room.game.decisions)
    # Same database, same port: the game is replayed and the clients come back by token.
    again = await make_server(db=db, port=port)
    resumed = again.lobby.rooms[code]
    assert resumed.game_id == game_id and len(resumed.game.decisions) == done
    results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert results[0][0].game == results[1][0].game == game_id
    assert host.connections >= 2 and guest.connections >= 2
    versions = [m["version"] for m in host.frames if m["type"] == "state"]
    assert versions == sorted(versions)  # nothing went back in time
    assert [g.id for g in again.store.finished_games()] == [game_id]
    stored = again.store.game(game_id)
    assert stored is not None and stored.status == "over" and len(stored.decisions) > done


# ----------------------------------------------------------------- on the in-memory harness


def test_a_reconnect_gets_back_the_seat_and_the_game_without_sleeping() -> None:
    from tests.server.harness import Harness

    h = Harness(room_broadcast_interval=0.25)
    ann_conn, ann = h.client("Ann")
    code = h.request(
        ann_conn, ann, {"type": "create_room", "edition": "space", "seats": 2, "seed": 5}
    )["room"]
    bob_conn, bob = h.client("Bob")
    h.request(bob_conn, bob, {"type": "join_room", "room": code})
    h.request(ann_conn, ann, {"type": "start", "room": code})
    room = h.lobby.rooms[code]
    token = str(bob_conn.of_type("welcome")[0]["token"])
    h.disconnect(bob_conn, bob)
    h.clock.advance(1)  # the coalesced presence broadcast
    assert ann_conn.of_type("room")[-1]["seats"][1]["connected"] is False
    back = h.connect()
    h.hello(back, "Bob", token=token)
    kinds = [m["type"] for m in back.inbox if m["type"] != "room"]
    assert kinds[:4] == ["welcome", "joined", "events", "state"]
    assert back.of_type("joined")[0]["seat"] == 1
    state = back.of_type("state")[-1]
    assert state["version"] == room.version and state["view"]["seat"] == 1
    h.clock.advance(1)
    assert ann_conn.of_type("room")[-1]["seats"][1]["connected"] is True


def test_a_reconnect_keeps_only_the_rooms_the_server_hands_back() -> None:
    from tests.server.harness import Harness

    h = Harness(empty_room_grace=60.0)
    ann_conn, ann = h.client("Ann")
    alone = h.request(ann_conn, ann, {"type": "create_room", "edition": "space", "seats": 2})
    shared = h.request(ann_conn, ann, {"type": "create_room", "edition": "space", "seats": 2})
    bob_conn, bob = h.client("Bob")
    h.request(bob_conn, bob, {"type": "join_room", "room": shared["room"]})
    watched = h.request(bob_conn, bob, {"type": "create_room", "edition": "space", "seats": 2})
    h.request(ann_conn, ann, {"type": "join_room", "room": watched["room"], "as": "spectator"})
    token = str(ann_conn.of_type("welcome")[0]["token"])
    h.disconnect(ann_conn, ann)  # an offline spectator leaves at once
    h.clock.advance(61)  # the room only Ann was in closes meanwhile
    assert alone["room"] not in h.lobby.rooms
    back = h.connect()
    h.hello(back, "Ann", token=token)
    assert [m["room"] for m in back.of_type("joined")] == [shared["room"]]
    assert ann.rooms == [shared["room"]]
    for code in (alone["room"], watched["room"]):
        assert h.request(back, ann, {"type": "sync", "room": code})["code"] == "no_such_room"


@pytest.mark.parametrize("answered", [False, True], ids=["leave_lost", "answer_lost"])
async def test_a_bot_whose_leave_was_cut_off_leaves_after_it_reconnects(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, answered: bool
) -> None:
    server = await make_server()
    leave = HANDLERS[LeaveRoom]
    cut: list[str] = []

    def cut_off(lobby: Any, conn: Any, player: Any, req: LeaveRoom) -> None:
        """The first leave_room: the connection drops before it is handled, or (``answered``)
        after, its ``ok`` lost with it (as a node killed in a failover)."""
        if not cut:
            cut.append(req.room)
            if answered:
                leave(lobby, conn, player, req)
            conn.cut()
            return
        leave(lobby, conn, player, req)

    monkeypatch.setitem(HANDLERS, LeaveRoom, cut_off)
    bot = HeadlessBot(
        "127.0.0.1", server.port, max_rate=1e4, name="Ann", create=CreateSpec("space", 2, 1)
    )
    [result] = await asyncio.wait_for(bot.run(), 20)
    assert cut == [result.room] and bot.connections == 2
    room = server.lobby.rooms.get(result.room)
    assert room is None or bot.player not in room.members  # it left
