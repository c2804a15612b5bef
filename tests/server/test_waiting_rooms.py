"""Waiting rooms (a game not started yet) are stored, and come back after a restart as their
members left them: the store on SQLite and PostgreSQL alike (``store_url``), then a server
restarted on its SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from server.store.store import Store, StoredWaiting
from tests.server.conftest import Client, ServerFactory
from tests.server.test_store import _count

SEATS: list[dict[str, Any] | None] = [
    {"kind": "human", "name": "Ann", "player": "p-ann", "level": "basic", "left": False},
    None,  # a seat freed in the middle stays free where it is
    {"kind": "bot", "name": "Bot 1", "player": None, "level": "basic", "bot_number": 1},
]
MEMBERS = {"p-ann": "player", "p-cy": "spectator"}
SETTINGS = {"public": True, "timer": 30, "autostart": False, "variants": [], "seed": None}


def test_a_waiting_room_commits_with_the_tick_and_reads_back_as_saved(store_url: str) -> None:
    store = Store(store_url)
    store.on_write = lambda: None  # the server's per-tick commit
    store.save_waiting_room("ROOM", "space", SEATS, MEMBERS, SETTINGS)
    assert (
        _count(store_url, "waiting_rooms") == 0
    )  # nobody was sent the change yet: not committed either
    store.commit()
    assert _count(store_url, "waiting_rooms") == 1
    store.close()
    again = Store(store_url)
    (stored,) = again.waiting_rooms()
    assert stored == StoredWaiting("ROOM", "space", SEATS, MEMBERS, SETTINGS)
    assert list(stored.members) == ["p-ann", "p-cy"]  # join order: the host is the first
    assert again.waiting_room("ROOM") == stored and again.waiting_room("OTHER") is None
    again.close()


def test_a_waiting_room_saved_again_replaces_itself_and_goes_when_forgotten(
    store_url: str,
) -> None:
    store = Store(store_url)
    store.save_waiting_room("ROOM", "space", SEATS, MEMBERS, SETTINGS)
    joined = [*SEATS[:1], SEATS[0] | {"name": "Bob", "player": "p-bob"}, *SEATS[2:]]
    store.save_waiting_room("ROOM", "space", joined, {**MEMBERS, "p-bob": "player"}, SETTINGS)
    stored = store.waiting_room("ROOM")
    assert stored is not None and stored.seats == joined and "p-bob" in stored.members
    store.forget_waiting_room("ROOM")
    assert store.waiting_rooms() == [] and _count(store_url, "waiting_rooms") == 0
    store.close()


def test_a_waiting_room_that_does_not_read_back_is_deleted_and_left_out(store_url: str) -> None:
    store = Store(store_url)
    store.save_waiting_room("GOOD", "space", SEATS, MEMBERS, SETTINGS)
    bad = "INSERT INTO waiting_rooms VALUES ('BAD', 'space', '{not json', '{}', '{}')"
    if store_url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store_url) as conn:
            conn.execute(bad.encode())
    else:
        lite = sqlite3.connect(store_url)
        lite.execute(bad)
        lite.commit()
        lite.close()
    assert [room.room for room in store.waiting_rooms()] == ["GOOD"]
    store.commit()
    assert _count(store_url, "waiting_rooms") == 1  # the bad one is gone
    store.close()


async def _room(client: Client, code: str) -> dict[str, Any]:
    return await client.expect("room", room=code)


async def test_a_restarted_server_reopens_its_waiting_rooms_as_their_members_left_them(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    db = str(tmp_path / "selfish.sqlite3")
    server = await make_server(db=db, empty_room_grace=30.0)
    port = server.port
    clients = [await Client.connect(port) for _ in range(3)]
    ann, bob, cy = clients
    try:
        await ann.hello("Ann")
        await bob.hello("Bob")
        await cy.hello("Cy")
        create = {"type": "create_room", "edition": "space", "seats": 4, "bots": 1, "timer": 30}
        code = (await ann.request(create))["room"]
        await bob.request({"type": "join_room", "room": code})
        await cy.request({"type": "join_room", "room": code, "as": "spectator"})
        await ann.request({"type": "remove_bot", "room": code, "seat": 1})  # seat 1 left free
        before = server.lobby.rooms[code].room_message().to_wire()
        await server.stop()
        again = await make_server(db=db, port=port, empty_room_grace=30.0)
        assert again.lobby.rooms[code].status.value == "waiting"
        returned = []
        for old, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy")):
            client = await Client.connect(port)
            clients.append(client)
            await client.hello(name, old.token)
            joined = await client.expect("joined", room=code)
            returned.append((client, joined))
        (ann2, ann_joined), (bob2, _), (cy2, cy_joined) = returned
        assert ann_joined["seat"] == 0 and cy_joined["role"] == "spectator"
        after = await _room(cy2, code)
        for key in ("edition", "size", "public", "timer", "host", "status"):
            assert after[key] == before[key], key

        def table(room: dict[str, Any]) -> list[tuple[str, str] | None]:
            return [seat and (seat["name"], seat["kind"]) for seat in room["seats"]]

        assert table(after) == table(before) == [("Ann", "human"), None, ("Bob", "human"), None]
        assert after["host"] == ann.player
        for _ in range(2):  # the host hosts: bots fill the free seats
            await ann2.request({"type": "add_bot", "room": code, "level": "basic"})
        started = await ann2.request({"type": "start", "room": code})
        assert started["type"] == "ok"
        assert (await bob2.expect("state", room=code))["room"] == code
        assert _count(db, "waiting_rooms") == 0  # the game started: the room waits no more
    finally:
        for client in clients:
            await client.close()


async def test_a_waiting_room_that_closed_is_not_reopened(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    db = str(tmp_path / "selfish.sqlite3")
    server = await make_server(db=db, empty_room_grace=30.0)
    ann = await Client.connect(server.port)
    try:
        await ann.hello("Ann")
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        assert _count(db, "waiting_rooms") == 1
        await ann.request({"type": "leave_room", "room": code})  # the last member: it closes
        await server.stop()
        assert _count(db, "waiting_rooms") == 0
        again = await make_server(db=db, empty_room_grace=30.0)
        assert code not in again.lobby.rooms
    finally:
        await ann.close()
