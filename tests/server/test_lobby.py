"""Rooms: create, list, join, spectate, seats, bots, host changes, chat, start, rematch."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from server.net.tcp import RunningServer
from tests.server.conftest import Client, ClientFactory, ServerFactory, drive, over_version
from tests.server.harness import Harness


async def create(client: Client, **options: object) -> str:
    joined = await client.request(
        {"type": "create_room", "edition": "space", "seats": 3, **options}
    )
    assert joined["type"] == "joined", joined
    return str(joined["room"])


async def test_create_list_join_spectate(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    joined = await ann.request(
        {"type": "create_room", "edition": "shipwrecked", "seats": 3, "timer": 60}
    )
    assert joined["role"] == "player" and joined["seat"] == 0
    assert joined["edition"] == "shipwrecked" and "catalogue" not in joined
    code = joined["room"]
    room = await ann.expect("room")
    assert room["host"] == ann.player and room["seats"][1] is None and room["timer"] == 60
    await create(ann, public=False)  # private rooms are not listed
    bob = await connect(server.port, "Bob")
    listing = await bob.request({"type": "list_rooms"})
    assert [r["room"] for r in listing["rooms"]] == [code]
    assert listing["rooms"][0]["host"] == "Ann" and listing["rooms"][0]["status"] == "waiting"
    joined = await bob.request({"type": "join_room", "room": code.lower()})
    assert joined["seat"] == 1
    seen = await ann.expect("room", room=code)
    while seen["seats"][1] is None:
        seen = await ann.expect("room", room=code)
    assert seen["seats"][1]["name"] == "Bob" and seen["seats"][1]["connected"]
    cid = await connect(server.port, "Cid")
    watching = await cid.request({"type": "join_room", "room": code, "as": "spectator"})
    assert watching["seat"] is None
    seen = await ann.expect("room", room=code)
    while not seen["spectators"]:
        seen = await ann.expect("room", room=code)
    assert seen["spectators"] == [{"player": cid.player, "name": "Cid"}]


async def test_duplicate_names_get_a_suffix(server: RunningServer, connect: ClientFactory) -> None:
    a = await connect(server.port, "Sam")
    code = await create(a, seats=2)
    b = await connect(server.port, "Sam")
    await b.request({"type": "join_room", "room": code})
    room = await b.expect("room")
    assert [s["name"] for s in room["seats"]] == ["Sam", "Sam 2"]


async def test_bots_start_and_host_rules(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    code = await create(ann)
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    assert await bob.error({"type": "add_bot", "room": code}) == "not_host"
    assert await bob.error({"type": "start", "room": code}) == "not_host"
    assert await ann.error({"type": "start", "room": code}) == "seats_empty"
    assert await ann.error({"type": "remove_bot", "room": code, "seat": 1}) == "bad_seat"
    assert await ann.error({"type": "remove_bot", "room": code, "seat": 9}) == "bad_seat"
    assert (await ann.request({"type": "add_bot", "room": code, "level": "random"}))["type"] == "ok"
    assert await ann.error({"type": "add_bot", "room": code}) == "room_full"
    assert (await ann.request({"type": "remove_bot", "room": code, "seat": 2}))["type"] == "ok"
    assert (await ann.request({"type": "add_bot", "room": code}))["type"] == "ok"
    cid = await connect(server.port, "Cid")
    assert await cid.error({"type": "join_room", "room": code}) == "room_full"
    assert (
        await cid.error({"type": "act", "room": code, "version": 0, "choice": 0}) == "no_such_room"
    )
    assert (
        await bob.error({"type": "act", "room": code, "version": 0, "choice": 0}) == "not_started"
    )
    assert await ann.error({"type": "rematch", "room": code}) == "not_over"
    ok = await ann.request({"type": "start", "room": code})
    assert ok["type"] == "ok"
    # After the direct reply: room (playing), the log so far, then each seat's own state.
    assert (await ann.expect("room"))["status"] == "playing"
    history = await ann.expect("events")
    assert history["history"] and history["events"]
    state = await ann.expect("state")
    assert state["view"]["seat"] == 0 and state["view"]["hand"] is not None
    assert await ann.error({"type": "start", "room": code}) == "game_started"
    assert await ann.error({"type": "add_bot", "room": code}) == "game_started"
    assert await ann.error({"type": "remove_bot", "room": code, "seat": 2}) == "game_started"
    assert await cid.error({"type": "join_room", "room": code}) == "game_started"
    listing = await cid.request({"type": "list_rooms"})
    assert listing["rooms"][0]["status"] == "playing"


async def test_host_leaves_and_room_closes(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    code = await create(ann)
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    assert (await ann.request({"type": "leave_room", "room": code}))["type"] == "ok"
    room = await bob.expect("room", host=bob.player)
    assert room["seats"][0] is None  # before the game a leaver's seat is freed
    assert await ann.error({"type": "leave_room", "room": code}) == "no_such_room"
    await bob.request({"type": "leave_room", "room": code})
    assert await ann.error({"type": "join_room", "room": code}) == "no_such_room"
    assert code not in server.lobby.rooms


async def test_room_errors(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    code = await create(ann)
    assert await ann.error({"type": "join_room", "room": code}) == "already_in_room"
    assert await ann.error({"type": "join_room", "room": "ZZZZ"}) == "no_such_room"
    assert await ann.error({"type": "create_room", "edition": "space", "seats": 9}) == "bad_option"
    assert await ann.error({"type": "sync", "room": "QQQQ"}) == "no_such_room"


async def test_seed_refused_unless_allowed(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(allow_seed=False)
    ann = await connect(server.port, "Ann")
    assert (
        await ann.error({"type": "create_room", "edition": "space", "seats": 2, "seed": 3})
        == "bad_option"
    )


async def test_room_quotas(make_server: ServerFactory, connect: ClientFactory) -> None:
    server = await make_server(max_rooms_per_player=2, max_rooms=3)
    ann = await connect(server.port, "Ann")
    await create(ann)
    code = await create(ann)
    assert await ann.error({"type": "create_room", "edition": "space", "seats": 2}) == (
        "too_many_rooms"
    )
    bob = await connect(server.port, "Bob")
    await create(bob)
    assert await bob.error({"type": "create_room", "edition": "space", "seats": 2}) == (
        "server_full"
    )
    cid = await connect(server.port, "Cid")
    await cid.request({"type": "join_room", "room": code})
    assert len(server.lobby.rooms) == 3


async def test_chat(make_server: ServerFactory, connect: ClientFactory) -> None:
    server = await make_server(chat_burst=3, chat_per_second=0.01)
    ann = await connect(server.port, "Ann")
    code = await create(ann)
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code, "as": "spectator"})
    assert (await ann.request({"type": "chat", "room": code, "text": "hi\nall"}))["type"] == "ok"
    line = await bob.expect("chat")
    assert line == {
        "type": "chat",
        "room": code,
        "player": ann.player,
        "name": "Ann",
        "seat": 0,
        "text": "hi all",
    }
    assert (await ann.expect("chat"))["text"] == "hi all"
    assert await ann.error({"type": "chat", "room": code, "text": "x" * 301}) == "bad_chat"
    assert await ann.error({"type": "chat", "room": code, "text": "   "}) == "bad_chat"
    await ann.request({"type": "chat", "room": code, "text": "two"})
    await ann.request({"type": "chat", "room": code, "text": "three"})
    assert await ann.error({"type": "chat", "room": code, "text": "four"}) == "rate_limited"
    assert (await bob.request({"type": "chat", "room": code, "text": "me"}))["type"] == "ok"
    outsider = await connect(server.port, "Eve")
    assert await outsider.error({"type": "chat", "room": code, "text": "x"}) == "no_such_room"


async def test_autostart_rematch_and_replays(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    joined = await ann.request(
        {
            "type": "create_room",
            "edition": "space",
            "seats": 2,
            "bots": 1,
            "bot_level": "random",
            "autostart": True,
            "seed": 5,
        }
    )
    code = joined["room"]
    # Ann is the only person: act until the game is over.
    over = await drive(ann, code)
    assert over["game"] >= 1
    assert (await ann.request({"type": "rematch", "room": code}))["type"] == "ok"
    state = await ann.expect("state")
    assert state["version"] > over_version(ann)
    assert await ann.error({"type": "rematch", "room": code}) == "not_over"
    replays = await ann.request({"type": "list_replays"})
    assert [g["game"] for g in replays["games"]] == [over["game"]]
    replay = await ann.request({"type": "get_replay", "game": over["game"]})
    assert replay["seed"] == 5 and replay["edition"] == "space" and replay["decisions"]
    from server.engine import replay as engine_replay

    game = engine_replay(
        "space",
        [seat["name"] for seat in replay["seats"]],
        replay["seed"],
        [tuple(d) for d in replay["decisions"]],
    )
    assert game.over and game.winner == replay["winner"]
    assert await ann.error({"type": "get_replay", "game": 999}) == "no_such_game"
    assert await ann.error({"type": "get_replay", "game": over["game"] + 1}) == "no_such_game"


async def test_finished_room_closes_when_last_connected_member_leaves(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    code = await create(ann, seats=2)
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    await bob.close()
    while server.lobby.connected(str(bob.player)):
        await asyncio.sleep(0.001)
    assert code in server.lobby.rooms  # Ann is still there
    await ann.request({"type": "leave_room", "room": code})
    assert code not in server.lobby.rooms


async def test_waiting_room_survives_a_short_drop(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(empty_room_grace=0.2)
    ann = await connect(server.port, "Ann")
    code = await create(ann, seats=2)
    await ann.close()
    await asyncio.sleep(0.05)
    back = await connect(server.port)
    await back.hello("Ann", token=ann.token)
    assert (await back.expect("joined"))["room"] == code  # still there, seat kept
    await back.close()
    await asyncio.sleep(0.4)
    assert code not in server.lobby.rooms  # nobody came back this time


def test_a_game_over_waits_for_its_records_and_the_rematch_waits_for_the_game_over() -> None:
    h = Harness()
    pending: list[Callable[[], None]] = []
    finish = h.store.finish_game

    def later(*args: Any) -> None:  # as on PostgreSQL: the room is told after the commit
        *result, then = args
        finish(*result, lambda changes: pending.append(functools.partial(then, changes)))

    h.store.finish_game = later  # type: ignore[method-assign]
    conn, ann = h.client("Ann")
    create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "seed": 3}
    code = h.request(conn, ann, create)["room"]
    h.request(conn, ann, {"type": "start", "room": code})
    room = h.lobby.rooms[code]
    while not pending:  # Ann takes her first choice whenever she decides, until the end
        state = conn.of_type("state")[-1]
        if state["view"]["legal"] and state["version"] == room.version:
            act = {"type": "act", "room": code, "version": room.version, "choice": 0}
            h.request(conn, ann, act)
        h.clock.advance(1)
    assert conn.of_type("state")[-1]["view"]["over"] and not conn.of_type("game_over")
    refused = h.request(conn, ann, {"type": "rematch", "room": code})
    assert refused["code"] == "not_over"
    (committed,) = pending
    committed()
    over = room.game_id
    assert conn.of_type("game_over")[-1]["game"] == over
    assert h.request(conn, ann, {"type": "rematch", "room": code})["type"] != "error"
    assert room.status == "playing" and room.game_id != over
    h.lobby.shutdown()
