"""Whole games over TCP between headless clients, a spectator, and the hidden-information audit."""

from __future__ import annotations

import asyncio

import pytest

from server.bots.client import CreateSpec, HeadlessBot
from server.net.tcp import RunningServer
from tests.server.conftest import Client, ClientFactory, duel
from tests.server.hidden import audit


async def play_table(
    server: RunningServer,
    connect: ClientFactory,
    edition: str,
    people: int,
    server_bots: int,
    seed: int,
    games: int = 1,
) -> tuple[list[HeadlessBot], Client]:
    """A room with ``people`` headless clients (recording) and ``server_bots`` bots, plus a
    spectator; play ``games`` games; return the clients."""
    codes: asyncio.Queue[str] = asyncio.Queue()
    spec = CreateSpec(edition, people + server_bots, server_bots, seed=seed)
    host = HeadlessBot(
        "127.0.0.1",
        server.port,
        max_rate=1e4,
        name="Host",
        record=True,
        games=games,
        seed=seed,
        create=spec,
        on_room=codes.put_nowait,
    )
    first = asyncio.create_task(host.run())
    code = await asyncio.wait_for(codes.get(), 5)
    spectator = await connect(server.port, "Watcher")
    assert (await spectator.request({"type": "join_room", "room": code, "as": "spectator"}))[
        "role"
    ] == "spectator"
    others = [
        HeadlessBot(
            "127.0.0.1",
            server.port,
            max_rate=1e4,
            name=f"P{i}",
            room=code,
            record=True,
            games=games,
            seed=seed + i,
        )
        for i in range(1, people)
    ]
    await asyncio.wait_for(asyncio.gather(first, *(b.run() for b in others)), 60)
    for _ in range(games):
        await spectator.expect("game_over", timeout=10)
    return [host, *others], spectator


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
async def test_whole_game_between_headless_clients(
    server: RunningServer, connect: ClientFactory, edition: str
) -> None:
    bots, spectator = await play_table(
        server, connect, edition, people=3, server_bots=1, seed=7, games=2
    )
    lines = {tuple(r.line() for r in bot.results) for bot in bots}
    assert len(lines) == 1 and len(next(iter(lines))) == 2  # everyone saw the same two games
    assert all(line.startswith("game ") for line in next(iter(lines)))
    # Every seat received a state after every change: versions rise by exactly one.
    for bot in bots:
        versions = [m["version"] for m in bot.frames if m["type"] == "state"]
        assert versions == sorted(versions)
    spectator_states = [m for m in spectator.seen if m["type"] == "state"]
    assert spectator_states and all(m["view"]["hand"] is None for m in spectator_states)
    stored = server.store.finished_games()
    assert len(stored) == 2


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
@pytest.mark.parametrize("seed", [1, 2])
async def test_no_seat_sees_another_hand(
    server: RunningServer, connect: ClientFactory, edition: str, seed: int
) -> None:
    bots, spectator = await play_table(server, connect, edition, people=4, server_bots=0, seed=seed)
    frames: dict[int | None, list[dict[str, object]]] = {}
    for bot in bots:
        assert bot.seat is not None
        frames[bot.seat] = bot.frames
    frames[None] = spectator.seen
    checked, reveals = audit(frames)
    assert checked > 50
    print(f"{checked} states audited, {reveals} with a reveal")


def test_audit_catches_a_leak() -> None:
    card = {"id": 5, "key": "laser_blast", "kind": "action", "value": 0, "dir": None}
    mine = {
        "type": "state",
        "version": 3,
        "view": {"hand": [card], "legal": [], "decision": None, "players": []},
    }
    theirs = {
        "type": "state",
        "version": 3,
        "view": {"hand": [], "legal": [], "decision": None, "players": [{"hand": [card]}]},
    }
    with pytest.raises(AssertionError):
        audit({0: [mine], 1: [{**theirs, "view": {**theirs["view"], "players": [card]}}]})
    # ... but what a reveal shows the looker is allowed.
    looker = {
        "type": "state",
        "version": 3,
        "view": {"hand": [], "decision": {"reveal": [card]}, "legal": [{"do": "take", "card": 5}]},
    }
    assert audit({0: [mine], 1: [looker]}) == (2, 1)


async def test_reveal_is_shown_to_the_looker_only(
    server: RunningServer, connect: ClientFactory
) -> None:
    """Two-seat Space games are deterministic (no simultaneous decisions): play seeds until a
    Hack Suit reveal happens, auditing every game, so the looker's exception is exercised."""
    for seed in range(1, 30):
        bots, spectator = await play_table(
            server, connect, "space", people=2, server_bots=0, seed=seed
        )
        frames: dict[int | None, list[dict[str, object]]] = {b.seat: b.frames for b in bots}
        frames[None] = spectator.seen
        _, reveals = audit(frames)
        if reveals:
            return
    pytest.fail("no Hack Suit reveal in 29 games")


async def test_an_act_without_an_id_gets_ok_then_events_then_state(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect)
    for client in (ann, bob):
        await client.expect("state")  # the game's first state
    room = server.lobby.rooms[code]
    assert room.game is not None
    seat = room.game.pending_seats()[0]
    actor = (ann, bob)[seat]
    actor.send({"type": "act", "room": code, "version": room.version, "choice": 0})
    ok, events, state = [await actor.recv() for _ in range(3)]
    assert ok == {"type": "ok"}  # no id to echo (the server sends this reply pre-encoded)
    assert (events["type"], state["type"]) == ("events", "state")
    assert state["version"] == room.version
