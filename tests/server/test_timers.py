"""Turn timers: a late seat's bot decides, two timeouts in a row mark the seat away."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.server.conftest import Client, ClientFactory, ServerFactory


async def start_duel(
    make_server: ServerFactory, connect: ClientFactory, timer: int = 30
) -> tuple[Client, str]:
    # 30 s x 0.004 = 0.12 s per decision
    server = await make_server(timer_scale=0.004, away_delay=0.05)
    ann = await connect(server.port, "Ann")
    joined = await ann.request(
        {
            "type": "create_room",
            "edition": "space",
            "seats": 2,
            "bots": 1,
            "timer": timer,
            "autostart": True,
            "seed": 11,
        }
    )
    return ann, joined["room"]


async def test_timeout_then_away_then_back(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    ann, code = await start_duel(make_server, connect)
    timer = await ann.expect("timer")
    while not timer["timers"]:  # the bot's own decisions show no clock
        timer = await ann.expect("timer")
    assert timer["timers"][0]["seat"] == 0 and 0 < timer["timers"][0]["seconds"] <= 0.12
    # Ann never answers: her bot decides after each timeout, and after two she is away.
    first = await ann.expect("events", timeout=5, history=False)
    while not any(e["kind"] == "timeout" for e in first["events"]):
        first = await ann.expect("events", timeout=5, history=False)
    mine = next(e for e in first["events"] if e["kind"] == "timeout")
    assert "their bot chose:" in mine["text"] and mine["seat"] == 0
    room = await ann.expect("room", timeout=5)
    while not room["seats"][0]["away"]:
        room = await ann.expect("room", timeout=5)
    # While away, the bot keeps playing for her ("bot" events) ...
    events = await ann.expect("events", timeout=5, history=False)
    while not any(e["kind"] == "bot" for e in events["events"]):
        events = await ann.expect("events", timeout=5, history=False)
    assert "their bot chose" in events["events"][0]["text"]
    # ... until she says she is back.
    assert (await ann.request({"type": "back", "room": code}))["type"] == "ok"
    room = await ann.expect("room", timeout=5)
    while room["seats"][0]["away"]:
        room = await ann.expect("room", timeout=5)


async def test_acting_clears_the_timeout_count(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    ann, code = await start_duel(make_server, connect, timer=120)  # 0.48 s per decision
    acted = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + 5
    while acted < 6 and loop.time() < end:
        msg = await ann.recv(5)
        if msg["type"] == "game_over":
            break
        if msg["type"] == "state" and msg["view"]["legal"]:
            choice = msg["view"]["legal"][-1]
            ann.send({"type": "act", "room": code, "version": msg["version"], "choice": choice})
            acted += 1
    assert not any(
        e["kind"] == "timeout" for m in ann.seen if m["type"] == "events" for e in m["events"]
    )


async def test_spectator_cannot_be_away(make_server: ServerFactory, connect: ClientFactory) -> None:
    ann, code = await start_duel(make_server, connect, timer=0)
    server_port = ann.writer.get_extra_info("peername")[1]
    bob = await connect(server_port, "Bob")
    await bob.request({"type": "join_room", "room": code, "as": "spectator"})
    assert await bob.error({"type": "back", "room": code}) == "not_seated"
    assert (
        await bob.error({"type": "act", "room": code, "version": 0, "choice": {"do": "done"}})
        == "not_seated"
    )


def _lines(messages: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [
        (e["kind"], e["text"])
        for m in messages
        if m["type"] == "events"
        for e in m["events"]  # type: ignore[attr-defined]
    ]


async def test_history_holds_the_rooms_own_events_as_they_were_seen_live(
    make_server: ServerFactory, connect: ClientFactory, tmp_path: Path
) -> None:
    # Ann never answers: timeouts, away and bot lines come from the room, not the engine.
    db = str(tmp_path / "selfish.sqlite3")
    server = await make_server(timer_scale=0.004, away_delay=0.05, db=db)
    ann = await connect(server.port, "Ann")
    code = (
        await ann.request(
            {
                "type": "create_room",
                "edition": "space",
                "seats": 2,
                "bots": 1,
                "timer": 30,
                "autostart": True,
                "seed": 11,
            }
        )
    )["room"]
    kinds: set[object] = set()
    while not {"timeout", "away", "bot"} <= kinds:
        kinds |= {kind for kind, _ in _lines([await ann.expect("events", timeout=5)])}
    # Everything before the ok of sync was sent live; the history after it must repeat it.
    ok = await ann.request({"type": "sync", "room": code})
    live = _lines(ann.seen[: ann.seen.index(ok)])
    history = await ann.expect("events", history=True)
    assert _lines([history])[: len(live)] == live
    # After a restart on the same database the room's own lines are still in the history.
    room = server.lobby.rooms[code]
    said = len(room.game.log) if room.game else 0
    await server.stop()
    again = await make_server(timer_scale=0.004, away_delay=0.05, db=db)
    back = await connect(again.port)
    await back.hello("Ann", token=ann.token)
    history = await back.expect("events", history=True)
    assert {"timeout", "away", "bot"} <= {kind for kind, _ in _lines([history])}
    assert len(_lines([history])) >= said
