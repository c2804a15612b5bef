"""Bad input: every violation gets its error code and never disturbs another connection."""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
from typing import Any

import pytest

from protocol.codec import encode
from protocol.framing import frame
from protocol.messages import REQUESTS, Hello, ListRooms
from server.lobby.handlers import HANDLERS
from server.net.tcp import RunningServer
from tests.server.conftest import Client, ClientFactory, ServerFactory, drive, duel


async def finish(ann: Client, bob: Client, code: str) -> None:
    """The honest players still play a whole game."""
    for client in (ann, bob):  # states queued before drive() starts are in the inbox already
        client.send({"type": "sync", "room": code})
    a, b = await asyncio.wait_for(asyncio.gather(drive(ann, code), drive(bob, code)), 30)
    assert a["game"] == b["game"]


GARBAGE: list[tuple[str, bytes]] = [
    ("oversize", struct.pack(">I", 65_537) + b"\x80" * 100),
    ("huge", struct.pack(">I", 0xFFFF_FFFF)),
    ("not-msgpack", frame(b"\xc1\xc1\xc1")),
    ("truncated-body", frame(b"\x82\xa4type\xa4pi")),
    ("not-a-map", frame(b"\x93\x01\x02\x03")),
    ("int-keys", frame(b"\x81\x01\x02")),
    ("random", bytes(range(7, 200))),
]


@pytest.mark.parametrize(("label", "data"), GARBAGE, ids=[g[0] for g in GARBAGE])
async def test_bad_frames_close_only_that_connection(
    server: RunningServer, connect: ClientFactory, label: str, data: bytes
) -> None:
    ann, bob, code = await duel(server, connect)
    evil = await connect(server.port)
    evil.send_raw(data)
    error = await evil.expect("error")
    assert error["code"] == "bad_frame"
    assert await evil.closed()
    await finish(ann, bob, code)


async def test_a_client_still_sending_when_cut_off_reads_why(server: RunningServer) -> None:
    """The server half-closes and drains a connection it ends: had it closed the socket with
    input unread, the kernel would reset the connection and the error would be lost."""
    for _ in range(5):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(frame(b"\xc1"))  # a bad frame: the server answers bad_frame and closes
        for _ in range(20):  # and the client goes on sending while that happens
            writer.write(b"\x00" * 4096)
            await asyncio.sleep(0.001)
        data = await asyncio.wait_for(reader.read(), 5)  # up to the server's EOF, no reset
        assert b"bad_frame" in data
        writer.close()


async def test_bad_frame_after_welcome_and_good_frames_first(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect)
    evil = await connect(server.port, "Eve")
    evil.send_raw(encode({"type": "ping", "id": 1}) + frame(b"\xc1"))
    assert (await evil.recv())["type"] == "pong"  # the good frame before it was still handled
    assert (await evil.recv())["code"] == "bad_frame"
    assert await evil.closed()
    await finish(ann, bob, code)


async def test_truncated_frame_then_hang_up(server: RunningServer, connect: ClientFactory) -> None:
    ann, bob, code = await duel(server, connect)
    evil = await connect(server.port)
    evil.send_raw(struct.pack(">I", 100) + b"\x81" * 10)
    await evil.close()
    await finish(ann, bob, code)


async def test_split_frames_byte_by_byte(server: RunningServer, connect: ClientFactory) -> None:
    slow = await connect(server.port)
    data = encode({"type": "hello", "protocol": 2, "name": "Slow", "id": 1})
    for i in range(len(data)):
        slow.send_raw(data[i : i + 1])
        await slow.writer.drain()
    assert (await slow.recv())["type"] == "welcome"


WRONG: list[tuple[dict[str, Any], str]] = [
    ({"type": "act", "room": "{code}", "version": "x", "choice": 0}, "bad_request"),
    ({"type": "act", "room": "{code}", "version": 0, "choice": "move"}, "bad_request"),
    ({"type": "act", "room": "{code}", "version": 0, "choice": {"do": "move"}}, "bad_request"),
    ({"type": "chat", "room": "{code}", "text": 5}, "bad_request"),
    ({"type": "join_room", "room": ["{code}"]}, "bad_request"),
    ({"type": "ping", "id": "x"}, "bad_request"),
    ({"type": None}, "bad_request"),
    ({"type": "teleport"}, "unknown_type"),
    ({"type": "create_room", "edition": "space", "seats": 3, "timer": 5}, "bad_option"),
]


async def test_wrong_types_and_unknown_messages(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect)
    evil = await connect(server.port, "Eve")
    for message, expected in WRONG:
        fixed = {
            k: (v.replace("{code}", code) if isinstance(v, str) else v) for k, v in message.items()
        }
        if isinstance(fixed.get("room"), list):
            fixed["room"] = [code]
        evil.send({**fixed, "id": 5} if "id" not in fixed else fixed)
        error = await evil.expect("error")
        assert error["code"] == expected, (message, error)
    assert (await evil.request({"type": "ping"}))["type"] == "pong"  # still connected
    await finish(ann, bob, code)


async def test_out_of_turn_stale_illegal_and_over(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect)
    room = server.lobby.rooms[code]
    assert room.game is not None
    active = room.game.pending_seats()[0]
    mover, idle = (ann, bob) if active == 0 else (bob, ann)
    legal = room.game.view(active)["legal"]
    version = room.version
    act = {"type": "act", "room": code, "version": version, "choice": 0}
    assert await idle.error(act) == "not_your_turn"
    assert await mover.error({**act, "version": version - 1}) == "stale_version"
    assert await mover.error({**act, "choice": len(legal)}) == "illegal_choice"
    for wrong in (-1, 0.0, True, "0", legal[0]):  # not an index: a map was protocol 1's choice
        assert await mover.error({**act, "choice": wrong}) == "bad_request", wrong
    assert room.version == version  # nothing changed
    await finish(ann, bob, code)
    assert await ann.error({**act, "version": room.version}) == "game_over"


async def test_flood_is_rate_limited(make_server: ServerFactory, connect: ClientFactory) -> None:
    server = await make_server(rate_per_second=5.0, rate_burst=10)
    flood = await connect(server.port, "Flood")
    for i in range(60):
        flood.send({"type": "ping", "id": i})
    codes = []
    with contextlib.suppress(TimeoutError):
        while True:
            msg = await flood.recv(timeout=0.3)
            codes.append(msg["type"] if msg["type"] == "pong" else msg["code"])
    # the burst is answered; the dropped pings get one rate_limited between them, no more
    assert 9 <= codes.count("pong") < 20 and codes.count("rate_limited") == 1
    calm = await connect(server.port, "Calm")  # another connection is unaffected
    assert (await calm.request({"type": "ping"}))["type"] == "pong"
    await asyncio.sleep(0.5)
    assert (await flood.request({"type": "ping"}))["type"] == "pong"  # and the flood recovers


async def test_too_many_connections(make_server: ServerFactory, connect: ClientFactory) -> None:
    server = await make_server(max_connections_per_address=2)
    first = await connect(server.port, "One")
    await connect(server.port, "Two")
    third = await connect(server.port)
    assert (await third.expect("error"))["code"] == "too_many_connections"
    assert await third.closed()
    assert (await first.request({"type": "ping"}))["type"] == "pong"


async def test_idle_timeout(make_server: ServerFactory, connect: ClientFactory) -> None:
    server = await make_server(idle_timeout=0.2)
    sleepy = await connect(server.port, "Sleepy")
    awake = await connect(server.port, "Awake")
    for _ in range(4):
        await asyncio.sleep(0.1)
        assert (await awake.request({"type": "ping"}))["type"] == "pong"
    error = await sleepy.expect("error", timeout=2)
    assert error["code"] == "idle_timeout"
    assert await sleepy.closed()
    assert (await awake.request({"type": "ping"}))["type"] == "pong"


def test_every_request_but_hello_has_one_handler() -> None:
    assert set(HANDLERS) == set(REQUESTS.values()) - {Hello}


async def test_internal_error_keeps_the_connection(
    server: RunningServer, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(HANDLERS, ListRooms, broken)
    client = await connect(server.port, "Ann")
    assert await client.error({"type": "list_rooms"}) == "internal_error"
    assert (await client.request({"type": "ping"}))["type"] == "pong"


async def test_random_requests_never_break_anything(
    server: RunningServer, connect: ClientFactory
) -> None:
    """A fuzzing client: every message gets exactly one reply and nobody else is disturbed."""
    import random

    ann, bob, code = await duel(server, connect)
    rng = random.Random(4)
    kinds = [
        "act",
        "join_room",
        "leave_room",
        "add_bot",
        "remove_bot",
        "start",
        "chat",
        "rematch",
        "back",
        "sync",
        "create_room",
        "get_replay",
        "list_rooms",
        "hello",
    ]
    values: list[object] = [
        None,
        True,
        0,
        -1,
        2**40,
        "",
        "x",
        code,
        code.lower(),
        [],
        {},
        {"do": "done"},
        [1, "a"],
        "space",
        3,
        120,
        "spectator",
    ]
    keys = [
        "room",
        "version",
        "choice",
        "text",
        "seat",
        "level",
        "as",
        "game",
        "edition",
        "seats",
        "timer",
        "bots",
        "name",
        "protocol",
    ]
    fuzz = await connect(server.port, "Fuzz")
    for _ in range(300):
        message = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 5))}
        reply = await fuzz.request({**message, "type": rng.choice(kinds)})
        assert reply["type"] in ("ok", "error", "joined", "rooms", "replay"), reply
        if reply["type"] == "error":
            assert reply["code"] != "internal_error", (message, reply)
    assert (await fuzz.request({"type": "ping"}))["type"] == "pong"
    await finish(ann, bob, code)


async def test_a_pick_raced_by_another_seats_pick_is_accepted(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect, "shipwrecked", 3)
    room = server.lobby.rooms[code]
    clients = {0: ann, 1: bob}
    rng = random.Random(0)
    game = room.game
    assert game is not None
    while not game.over:
        decision = game.decision
        assert decision is not None
        if decision.simultaneous and len(game.pending_seats()) == 2:
            opened = room.version
            first, second = game.pending_seats()
            for seat in (first, second):  # both answer the state they saw when it opened
                reply = await clients[seat].request(
                    {"type": "act", "room": code, "version": opened, "choice": 0}
                )
                assert reply["type"] == "ok", reply
            # A version from before the decision opened is still refused.
            if room.game is game and not game.over and game.pending_seats():
                seat = game.pending_seats()[0]
                assert (
                    await clients[seat].error(
                        {
                            "type": "act",
                            "room": code,
                            "version": opened - 1,
                            "choice": 0,
                        }
                    )
                    == "stale_version"
                )
            return
        seat = game.pending_seats()[0]
        choice = rng.randrange(len(game.legal(seat)))
        reply = await clients[seat].request(
            {"type": "act", "room": code, "version": room.version, "choice": choice}
        )
        assert reply["type"] == "ok", reply
    raise AssertionError("the seeded game never reached a simultaneous decision")


async def test_the_choice_index_is_checked_against_the_legal_list_of_the_state(
    server: RunningServer, connect: ClientFactory
) -> None:
    # Each index of view.legal takes that choice; the stored decision is that choice.
    ann, bob, code = await duel(server, connect)
    room = server.lobby.rooms[code]
    game = room.game
    assert game is not None
    players = {0: ann, 1: bob}
    for step in range(12):
        seat = game.pending_seats()[0]
        legal = game.legal(seat)
        index = step % len(legal)
        version = room.version
        act = {"type": "act", "room": code, "version": version, "choice": len(legal)}
        assert await players[seat].error(act) == "illegal_choice"
        assert room.version == version  # nothing changed
        chosen = legal[index]
        assert (await players[seat].request({**act, "choice": index}))["type"] == "ok"
        assert game.decisions[-1] == (seat, chosen)
        if game.over:
            break
