"""Room variants (RULES V): chosen at create_room, shown, played, stored, replayed, restored."""

from __future__ import annotations

from pathlib import Path

from server.engine import replay as engine_replay
from server.net.tcp import RunningServer
from tests.server.conftest import ClientFactory, ServerFactory, drive

V1_ROOM = {
    "type": "create_room",
    "edition": "space",
    "seats": 2,
    "bots": 1,
    "bot_level": "random",
    "variants": ["V1"],
}


async def test_V1_room_shows_its_variant_and_plays_it(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    joined = await ann.request(V1_ROOM)
    code = joined["room"]
    room = await ann.expect("room", room=code)
    assert room["variants"] == ["V1"]
    bob = await connect(server.port, "Bob")
    listing = await bob.request({"type": "list_rooms"})
    assert listing["rooms"][0]["variants"] == ["V1"]
    assert (await ann.request({"type": "start", "room": code}))["type"] == "ok"
    state = await ann.expect("state", room=code)
    assert state["view"]["variants"] == ["V1"]
    game = server.lobby.rooms[code].game
    assert game is not None and game.variants == ("V1",)


async def test_rooms_without_variants_say_so(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    await ann.request({"type": "create_room", "edition": "shipwrecked", "seats": 2})
    room = await ann.expect("room")
    assert room["variants"] == []


async def test_V1_unknown_or_misplaced_variants_are_refused(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    base = {"type": "create_room", "edition": "space", "seats": 2}
    assert await ann.error({**base, "variants": ["V9"]}) == "bad_option"
    assert await ann.error({**base, "edition": "shipwrecked", "variants": ["V1"]}) == "bad_option"
    assert await ann.error({**base, "variants": "V1"}) == "bad_request"
    assert await ann.error({**base, "variants": [1]}) == "bad_request"
    assert server.lobby.rooms == {}  # nothing was created


async def test_V1_replay_keeps_the_variant(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    joined = await ann.request({**V1_ROOM, "autostart": True, "seed": 8})
    over = await drive(ann, joined["room"])
    listed = await ann.request({"type": "list_replays"})
    assert listed["games"][0]["variants"] == ["V1"]
    replay = await ann.request({"type": "get_replay", "game": over["game"]})
    assert replay["variants"] == ["V1"]
    decisions = [tuple(d) for d in replay["decisions"]]
    names = [seat["name"] for seat in replay["seats"]]
    game = engine_replay("space", names, replay["seed"], decisions, replay["variants"])
    assert game.over and game.winner == replay["winner"]


async def test_V1_restart_keeps_the_variant(
    make_server: ServerFactory, connect: ClientFactory, tmp_path: Path
) -> None:
    db = str(tmp_path / "selfish.sqlite3")
    server = await make_server(db=db)
    port = server.port
    ann = await connect(port, "Ann")
    joined = await ann.request({**V1_ROOM, "autostart": True, "seed": 4})
    code = joined["room"]
    await ann.expect("state", room=code)
    await server.stop()
    again = await make_server(db=db, port=port)
    resumed = again.lobby.rooms[code]
    assert resumed.variants == ("V1",) and resumed.room_message().variants == ("V1",)
    assert resumed.game is not None and resumed.game.variants == ("V1",)
