"""The round trips a node makes to PostgreSQL without its event loop waiting for them: a room's
claim (the connection's next requests wait, in order), the survey of the leases, the next game
ids; and the count of each creator's open rooms that the claim reads (kept by a trigger)."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from typing import Any

import psycopg
import pytest

from protocol.messages import PROTOCOL_VERSION
from server.cluster.leases import Leases
from server.config import ServerConfig
from server.lobby import codes
from server.net.tcp import RunningServer, start_server
from server.store.game_ids import GAME_IDS
from server.store.retention import Retention
from server.store.store import Store
from tests.cluster.nodes import gone
from tests.server.conftest import FAST, Client


async def _node(url: str, **settings: object) -> RunningServer:
    return await start_server(ServerConfig(**{**FAST, "db": url, "lease_seconds": 2.0, **settings}))


def _count(url: str, sql: str, *params: Any) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql, params).fetchone()
    return 0 if row is None else int(row[0])


def _kill(url: str, leases: Leases) -> None:
    """As a node killed with SIGKILL: its sessions end, its lease rows stay as they were."""
    leases.sideline.close()
    leases._db.close()
    gone(url, leases)


def test_the_per_address_limit_counts_every_node_and_a_dead_nodes_rooms_go(
    postgres_url: str,
) -> None:
    store = Store(postgres_url)
    first = Leases(postgres_url, "first:1", 30.0, store.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, store.game_rooms)
    assert first.claim("ROOMA", "10.0.0.1", 100.0, 10)[1:] == (0, True)
    assert first.claim("ROOMB", "10.0.0.1", 100.0, 10)[1:] == (1, True)
    assert second.claim("ROOMC", "10.0.0.1", 100.0, 10)[1:] == (2, True)  # first's count
    assert second.claim("ROOMD", "10.0.0.2", 100.0, 10)[1:] == (0, True)  # its own address
    first.release("ROOMB")  # closed: it counts no more
    first.sideline.run(lambda _: None)  # the release is done
    assert second.rooms_from("10.0.0.1") == 2
    assert first.take("ROOMX", "10.0.0.1")  # a lease taken outside a claim counts alike
    assert second.rooms_from("10.0.0.1") == 3
    _kill(postgres_url, first)  # its rooms stop counting at once
    assert second.rooms_from("10.0.0.1") == 1
    assert second.claim("ROOME", "10.0.0.1", 100.0, 10)[1:] == (1, True)
    assert second.take("ROOMA")  # taken over (a game there goes on): it counts for second
    assert second.rooms_from("10.0.0.1") == 3
    second.survey()  # the dead node's other leases, of no game, are deleted with their count
    rows = _rows(postgres_url, "SELECT creator, rooms FROM creator_rooms ORDER BY creator")
    assert rows == [("10.0.0.1", 3), ("10.0.0.2", 1)]
    assert _count(postgres_url, "SELECT count(*) FROM leases") == 4
    second.close()
    store.close()


def _rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(row) for row in conn.execute(sql).fetchall()]


def test_a_survey_does_not_call_lost_a_lease_let_go_meanwhile(postgres_url: str) -> None:
    store = Store(postgres_url)
    leases = Leases(postgres_url, "first:1", 30.0, store.game_rooms)
    other = Leases(postgres_url, "second:1", 0.2, store.game_rooms)
    assert leases.take("GONE") and leases.take("KEPT") and other.take("LOST")
    work = leases.survey_later()  # the leases held now
    leases.release("GONE")  # the room closed before the survey ran
    lost, _ = leases.surveyed(leases.sideline.run(work))
    assert lost == set() and set(leases.held) == {"KEPT"}
    time.sleep(0.3)  # other's lease expired: taken over, other's survey finds it lost
    assert leases.take("LOST")
    assert other.surveyed(other.sideline.run(other.survey_later()))[0] == {"LOST"}
    leases.close()
    other.close()
    store.close()


def test_the_next_game_ids_are_taken_in_the_background(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(postgres_url)

    def new_game() -> int:
        return store.create_game("ROOM", "space", ["a", "b"], [], {}, 1, 0)

    ids = [new_game() for _ in range(GAME_IDS // 2 + 1)]  # half used: the next are asked for
    store._db._sideline.run(lambda _: None)  # type: ignore[union-attr]  # they came
    monkeypatch.setattr(store._db, "read", lambda *_: pytest.fail("the loop read the sequence"))
    ids += [new_game() for _ in range(GAME_IDS)]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)
    monkeypatch.undo()
    store.close()


def test_a_finished_game_takes_its_number_in_the_commit(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(postgres_url)
    games = [store.create_game("ROOM", "space", ["a", "b"], [], {}, 1, 0) for _ in range(2)]
    store.commit()
    read = store._db.read

    def no_sequence(sql: str, params: Any = ()) -> Any:
        assert "nextval" not in sql, "the loop read the sequence"
        return read(sql, params)

    monkeypatch.setattr(store._db, "read", no_sequence)
    for game in reversed(games):  # the second game ends first
        store.finish_game(game, "over", 0, 3)
    monkeypatch.undo()
    store.commit()
    numbers = [
        _count(postgres_url, "SELECT finished FROM games WHERE id = %s", game) for game in games
    ]
    assert numbers[1] < numbers[0]  # in the order they ended
    store.close()


async def test_requests_sent_behind_a_room_being_claimed_wait_for_it(postgres_url: str) -> None:
    node = await _node(postgres_url)
    ann = await Client.connect(node.port)
    try:
        await ann.hello("Ann")
        ann.send({"type": "create_room", "edition": "space", "seats": 2, "id": 101})
        ann.send({"type": "list_rooms", "id": 102})  # sent before the room's claim is back
        joined = await ann.expect("joined")
        assert joined["id"] == 101
        rooms = await ann.expect("rooms")
        assert rooms["id"] == 102 and [r["room"] for r in rooms["rooms"]] == [joined["room"]]
    finally:
        await node.stop()
        await ann.close()


async def test_a_room_claimed_for_a_connection_replaced_meanwhile_lets_its_lease_go(
    postgres_url: str,
) -> None:
    node = await _node(postgres_url, empty_room_grace=60.0)  # an empty room would stay open
    assert node.lobby.cluster is not None
    sideline = node.lobby.cluster.leases.sideline
    busy = threading.Event()
    ann, again = await Client.connect(node.port), await Client.connect(node.port)
    try:
        hello = await ann.hello("Ann")  # a new player: its token from the sideline's bucket
        player = node.lobby.players[hello["player"]]
        sideline.submit(lambda _: busy.wait(10))  # the claim waits behind this
        ann.send({"type": "create_room", "edition": "space", "seats": 2, "id": 7})
        await again.hello("Ann", ann.token)  # Ann on a new connection: the old one goes
        busy.set()
        await asyncio.wrap_future(sideline.submit(lambda _: None))  # the claim is back
        for _ in range(100):
            if not _count(postgres_url, "SELECT count(*) FROM leases"):
                break
            await asyncio.sleep(0.02)
        assert not node.lobby.rooms and player.rooms == []
        assert _count(postgres_url, "SELECT count(*) FROM leases") == 0
    finally:
        busy.set()
        await node.stop()
        await again.close()
        await ann.close()
        await again.close()


async def test_a_round_trip_off_the_loop_leaves_no_cycle_for_the_collector(
    postgres_url: str,
) -> None:
    node = await _node(postgres_url, lease_seconds=0.4)  # a maintenance every 0.1 s
    ann = await Client.connect(node.port)
    gc.collect()
    gc.disable()  # what the round trips leave behind must go by reference counting alone
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept, to look at
    try:
        await ann.hello("Ann")
        created = await ann.request({"type": "create_room", "edition": "space", "seats": 2})
        assert created["type"] == "joined"  # after its claim's round trip
        await asyncio.sleep(0.5)  # a few maintenances' round trips
        gc.collect()
        cycles = {type(thing).__qualname__ for thing in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        await node.stop()
        await ann.close()
    assert "CreateRoom" not in cycles and "Future" not in cycles, cycles


async def test_a_hello_makes_no_round_trip_on_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    try:
        ann = await Client.connect(a.port)
        clients.append(ann)
        await ann.hello("Ann")
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        assert b.lobby.cluster is not None
        store = b.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, b.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        for _ in range(2):  # Ann unknown to b (made on a), then known to it
            again = await Client.connect(b.port)
            clients.append(again)
            welcome = await again.hello("Ann", ann.token)
            assert welcome["player"] == ann.player
            moved = await again.expect("moved")  # her waiting room, read off the loop too
            assert moved["room"] == code and moved["address"].endswith(f":{a.port}")
        newcomer = await Client.connect(b.port)  # a new player: the cluster's bucket too
        clients.append(newcomer)
        assert (await newcomer.hello("Neo"))["type"] == "welcome"
        monkeypatch.undo()
    finally:
        monkeypatch.undo()
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_a_claimed_code_held_by_another_room_is_replaced_off_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = await _node(postgres_url)
    other = Leases(postgres_url, "other:1", 60.0, {})  # another node, holding room TAKEN
    assert other.take("TAKEN")
    ann = await Client.connect(node.port)
    try:
        await ann.hello("Ann")
        drawn = iter(["TAKEN", "FREE"])
        monkeypatch.setattr(codes, "free_code", lambda *_: next(drawn))
        assert node.lobby.cluster is not None
        loop_db = node.lobby.cluster.leases._db
        monkeypatch.setattr(loop_db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        created = await ann.request({"type": "create_room", "edition": "space", "seats": 2})
        monkeypatch.undo()
        assert created["type"] == "joined" and created["room"] == "FREE"
        assert node.lobby.cluster.leases.held.keys() >= {"FREE"}
        assert _count(postgres_url, "SELECT count(*) FROM leases WHERE room = 'FREE'") == 1
    finally:
        monkeypatch.undo()
        other.close()
        await node.stop()
        await ann.close()


async def test_a_takeover_makes_no_round_trip_on_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    try:
        ann = await Client.connect(a.port)
        clients.append(ann)
        await ann.hello("Ann")
        create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1}
        code = (await ann.request(create))["room"]
        await ann.request({"type": "start", "room": code})
        await ann.expect("state", room=code)
        back = await Client.connect(b.port)  # Ann known to b (its members are read from it)
        clients.append(back)
        await back.hello("Ann", ann.token)
        assert a.lobby.cluster is not None and b.lobby.cluster is not None
        _kill(postgres_url, a.lobby.cluster.leases)  # a's sessions end: its rooms are orphans
        store = b.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, b.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        b.lobby.cluster.maintain(time.monotonic())  # finds the orphan: its takeover starts
        assert code not in b.lobby.rooms  # on its way
        await back.expect("joined", room=code)  # Ann is sent her room once it is restored
        await back.expect("state", room=code)  # its game, replayed
        monkeypatch.undo()
        assert b.lobby.rooms[code].game is not None
    finally:
        monkeypatch.undo()
        await b.stop()
        await a.stop()
        for client in clients:
            await client.close()


async def test_a_connection_that_ends_during_its_hellos_round_trip_leaves_its_player_away(
    postgres_url: str,
) -> None:
    node = await _node(postgres_url)
    ann = await Client.connect(node.port)
    await ann.hello("Ann")
    await ann.close()
    player = node.lobby.players[ann.player]
    for _ in range(100):  # the server saw the connection end
        if player.connection is None:
            break
        await asyncio.sleep(0.01)
    reads = node.lobby.store._db._sideline  # type: ignore[union-attr]  # the hello's thread
    busy = threading.Event()
    reads.submit(lambda _: busy.wait(10))  # the hello's round trip waits behind this
    again = await Client.connect(node.port)
    try:
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "Ann"}
        again.send({**hello, "token": ann.token})
        await asyncio.sleep(0.1)
        for session in list(node.sessions):  # the server cuts it off (as a room dropped would)
            session.cut()
        for _ in range(100):  # the server saw it end, before the hello was done
            if not node.sessions:
                break
            await asyncio.sleep(0.01)
        assert not node.sessions
        busy.set()
        await asyncio.wrap_future(reads.submit(lambda _: None))  # the hello's reads are back
        await asyncio.sleep(0.1)  # and its end ran on the loop
        assert player.connection is None  # away, not held by a connection that is gone
    finally:
        busy.set()
        await node.stop()
        await again.close()


async def test_a_game_over_makes_no_round_trip_on_the_event_loop_and_is_sent_once_counted(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = await _node(postgres_url)
    ann = await Client.connect(node.port)
    try:
        await ann.hello("Ann")
        create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1}
        code = (await ann.request(create))["room"]  # no seed: a rated game
        await ann.request({"type": "start", "room": code})
        store = node.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connection
        monkeypatch.setattr(store, "execute", lambda *_, **__: pytest.fail("a round trip"))
        while True:  # Ann takes the first legal choice each time, until the game is over
            message = await ann.recv(timeout=10)
            if message["type"] == "game_over":
                break
            if message["type"] == "state" and message["view"]["legal"]:
                ann.send({"type": "act", "room": code, "version": message["version"], "choice": 0})
        monkeypatch.undo()
        (change,) = message["ratings"]  # Ann's (the bot is an anchor)
        assert change["player"] == ann.player
        sql = "SELECT games FROM standings WHERE player = %s"
        assert _count(postgres_url, sql, ann.player) == 1  # committed before it was sent
    finally:
        monkeypatch.undo()
        await node.stop()
        await ann.close()


async def test_a_request_for_a_room_this_node_does_not_run_is_answered_off_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    busy = threading.Event()
    try:
        ann, bob, cat = [await Client.connect(node.port) for node in (a, b, b)]
        clients += [ann, bob, cat]
        await ann.hello("Ann")
        await bob.hello("Bob")
        await cat.hello("Cat")
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        assert b.lobby.cluster is not None
        store = b.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, b.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        moved = await bob.request({"type": "join_room", "room": code})
        assert moved["type"] == "moved" and moved["address"].endswith(f":{a.port}")
        assert await bob.error({"type": "leave_room", "room": "NOSUCH"}) == "no_such_room"
        # While the lookup waits, Bob's next request waits behind it; Cat is served.
        reads = b.lobby.store._db._sideline  # type: ignore[union-attr]  # the lookup's thread
        reads.submit(lambda _: busy.wait(10))
        bob.send({"type": "join_room", "room": code, "id": 901})
        bob.send({"type": "list_rooms", "id": 902})
        listed = await cat.request({"type": "list_rooms"})
        assert listed["type"] == "rooms"
        assert not [m for m in bob.inbox if m.get("id") in (901, 902)]
        busy.set()
        first, second = await bob.recv(), await bob.recv()
        assert (first["type"], first["id"]) == ("moved", 901)
        assert (second["type"], second["id"]) == ("rooms", 902)
        monkeypatch.undo()
    finally:
        busy.set()
        monkeypatch.undo()
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_a_takeover_learns_the_members_made_on_another_node_off_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # b keeps the rooms nobody is connected to yet
    a, b = await _node(postgres_url), await _node(postgres_url, empty_room_grace=60.0)
    clients: list[Client] = []
    try:
        ann, bob = await Client.connect(a.port), await Client.connect(a.port)
        clients += [ann, bob]
        await ann.hello("Ann")  # both made on a: b knows neither
        await bob.hello("Bob")
        create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1}
        game = (await ann.request(create))["room"]
        await ann.request({"type": "start", "room": game})
        await ann.expect("state", room=game)
        waiting = (await bob.request({"type": "create_room", "edition": "space", "seats": 3}))[
            "room"
        ]
        assert a.lobby.cluster is not None and b.lobby.cluster is not None
        assert ann.player not in b.lobby.players and bob.player not in b.lobby.players
        _kill(postgres_url, a.lobby.cluster.leases)  # a's sessions end: its rooms are orphans
        store = b.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, b.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        b.lobby.cluster.maintain(time.monotonic())  # finds the orphans: their takeovers start
        for _ in range(200):
            if {game, waiting} <= b.lobby.rooms.keys():
                break
            await asyncio.sleep(0.01)
        monkeypatch.undo()
        assert {game, waiting} <= b.lobby.rooms.keys()
        assert b.lobby.players[ann.player].rooms == [game]  # learnt with her room
        assert b.lobby.players[bob.player].rooms == [waiting]
        back = await Client.connect(b.port)
        clients.append(back)
        await back.hello("Ann", ann.token)
        await back.expect("joined", room=game)
    finally:
        monkeypatch.undo()
        await b.stop()
        await a.stop()
        for client in clients:
            await client.close()


async def test_the_records_requests_read_off_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.server.test_records_tcp import solo

    node = await _node(postgres_url, replays_burst=100)
    ann, bob = await Client.connect(node.port), await Client.connect(node.port)
    busy = threading.Event()
    try:
        await ann.hello("Ann")
        await bob.hello("Bob")
        game = (await solo(ann))["game"]
        assert node.lobby.cluster is not None
        store = node.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, node.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        asked = [
            ({"type": "list_replays"}, "replays"),
            ({"type": "list_replays", "player": ann.player}, "replays"),
            ({"type": "get_replay", "game": game}, "replay"),
            ({"type": "get_profile"}, "profile"),
            ({"type": "get_leaderboard", "edition": "space"}, "leaderboard"),
            ({"type": "play_deal", "game": game}, "joined"),
        ]
        for request, answer in asked:
            assert (await ann.request(request))["type"] == answer, request
        assert len((await ann.request({"type": "list_replays"}))["games"]) == 1
        # While a read is held up, Ann's next request waits behind it; Bob is served.
        reads = node.lobby.store._db._sideline  # type: ignore[union-attr]  # the reads' thread
        reads.submit(lambda _: busy.wait(10))
        ann.send({"type": "get_replay", "game": game, "id": 901})
        ann.send({"type": "ping", "id": 902})
        assert (await bob.request({"type": "list_rooms"}))["type"] == "rooms"
        assert not [m for m in ann.inbox if m.get("id") in (901, 902)]
        busy.set()
        await ann.expect("pong", id=902)
        answers = [m["type"] for m in ann.seen if m.get("id") in (901, 902)]
        assert answers == ["replay", "pong"]
        monkeypatch.undo()
    finally:
        busy.set()
        monkeypatch.undo()
        await node.stop()
        await ann.close()
        await bob.close()


async def test_a_request_for_a_room_taken_over_while_its_node_is_looked_for_runs_here(
    postgres_url: str,
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url, empty_room_grace=60.0)
    clients: list[Client] = []
    busy = threading.Event()
    try:
        ann, bob = await Client.connect(a.port), await Client.connect(b.port)
        clients += [ann, bob]
        await ann.hello("Ann")
        await bob.hello("Bob")
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 3}))["room"]
        assert a.lobby.cluster is not None and b.lobby.cluster is not None
        reads = b.lobby.store._db._sideline  # type: ignore[union-attr]  # the lookup's thread
        reads.submit(lambda _: busy.wait(10))
        bob.send({"type": "join_room", "room": code, "id": 901})
        _kill(postgres_url, a.lobby.cluster.leases)  # b takes the room over meanwhile
        b.lobby.cluster.maintain(time.monotonic())
        for _ in range(200):
            if code in b.lobby.rooms:
                break
            await asyncio.sleep(0.01)
        assert code in b.lobby.rooms
        busy.set()
        joined = await bob.expect("joined", id=901)  # not no_such_room: the room is here now
        assert joined["room"] == code and bob.player in b.lobby.rooms[code].members
    finally:
        busy.set()
        await b.stop()
        await a.stop()
        for client in clients:
            await client.close()


class _Identities:
    """No identity known, none connected (the retention sweep's view of a lobby)."""

    def __init__(self) -> None:
        self.players: dict[str, Any] = {}
        self.by_token: dict[str, Any] = {}

    def connected(self, player: str) -> bool:
        return False


async def test_the_retention_sweep_reads_off_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(postgres_url)
    store.save_player("p1", "token-1", "Ann")
    store.save_player("p2", "token-2", "Bob")
    game = store.create_game("ROOM", "space", ["a", "b"], [], {}, 1, 0)
    store.finish_game(game, "abandoned", None, 0)
    store.commit()
    config = ServerConfig(identity_retention=86_400.0, abandoned_retention=86_400.0)
    later = time.time() + 2 * 86_400
    retention = Retention(config, store, _Identities(), wall=lambda: later)
    loop_db = store._db._db  # type: ignore[union-attr]  # the loop's connection
    monkeypatch.setattr(loop_db, "execute", lambda *_, **__: pytest.fail("a round trip"))
    retention.sweep_later()
    for _ in range(200):
        if not _count(postgres_url, "SELECT count(*) FROM players"):
            break
        await asyncio.sleep(0.01)
    monkeypatch.undo()
    assert _count(postgres_url, "SELECT count(*) FROM players") == 0
    assert _count(postgres_url, "SELECT count(*) FROM games") == 0
    store.close()


async def test_a_hello_with_a_revoked_token_makes_no_round_trip_on_the_event_loop(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = await _node(postgres_url)
    ann, bob = await Client.connect(node.port), await Client.connect(node.port)
    clients = [ann, bob]
    try:
        await ann.hello("Ann")
        await bob.hello("Bob")
        with psycopg.connect(postgres_url, autocommit=True) as admin:  # the operator's tool
            revoke = "UPDATE players SET token = 'revoked:' || id WHERE id = %s"
            admin.execute(revoke, (ann.player,))
        assert node.lobby.cluster is not None
        store = node.lobby.store._db._db  # type: ignore[union-attr]  # the loop's connections
        for db in (store, node.lobby.cluster.leases._db):
            monkeypatch.setattr(db, "execute", lambda *_, **__: pytest.fail("a round trip"))
        for token, answer in ((ann.token, "error"), (bob.token, "welcome")):
            again = await Client.connect(node.port)
            clients.append(again)
            hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "Again"}
            reply = await again.request({**hello, "token": token})
            assert reply["type"] == answer, reply
        assert reply["player"] == bob.player
        monkeypatch.undo()
    finally:
        monkeypatch.undo()
        await node.stop()
        for client in clients:
            await client.close()
