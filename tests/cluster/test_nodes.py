"""Two nodes on one PostgreSQL database, in one process: one lobby, rooms sent on (``moved``),
players known on every node, and leases that fence a node out of a room it lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import psycopg
import pytest

from protocol.messages import PROTOCOL_VERSION
from server.bots.client import CreateSpec, HeadlessBot
from server.cluster.leases import Leases
from server.config import ServerConfig
from server.net.tcp import RunningServer, start_server
from server.store.game_ids import GAME_IDS
from server.store.store import Store
from tests.cluster.nodes import gone
from tests.protocol.test_protocol_doc import examples, section
from tests.server.conftest import FAST, Client
from tests.server.test_standings import RATED, human


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
        (documented,) = [m for m in examples(section(5)) if m["type"] == "moved"]
        assert sorted(documented) == sorted(moved)  # PROTOCOL.md's example has its shape
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


async def test_a_room_taken_over_is_listed_once_while_the_others_entry_is_still_read(
    postgres_url: str,
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    stopped = False
    try:
        ann = await _client(a.port, "Ann")
        clients.append(ann)
        created = await ann.request({"type": "create_room", "edition": "space", "seats": 2})
        code = created["room"]
        _maintain(a, b)  # b reads a's entry for the room
        assert b.cluster is not None
        stale = list(b.cluster.remote)
        assert [room for room, _ in stale] == [code]
        stopped = True
        await a.stop()  # its lease is let go: Ann's hello on b takes the room over
        back = await _client(b.port, "Ann", ann.token)
        clients.append(back)
        await back.expect("joined", room=code)
        b.cluster.remote = stale  # as read before the takeover, until the next read
        listed = await back.request({"type": "list_rooms"})
        assert [room["room"] for room in listed["rooms"]] == [code]
    finally:
        if not stopped:
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
    old.fence(first.fence, first.guard, lost.append)
    new.fence(second.fence, second.guard, lambda games: None)
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


async def test_per_address_quotas_count_every_node(postgres_url: str) -> None:
    quotas = {"max_rooms_per_address": 1, "new_players_burst": 2, "new_players_per_second": 1e-3}
    a, b = await _node(postgres_url, **quotas), await _node(postgres_url, **quotas)
    clients: list[Client] = []
    try:
        ann, bob = await _client(a.port, "Ann"), await _client(b.port, "Bob")
        clients += [ann, bob]
        create = {"type": "create_room", "edition": "space", "seats": 2}
        assert (await ann.request(create))["type"] == "joined"
        assert await bob.error(create) == "too_many_rooms"  # one open room per address, in all
        assert b.cluster is not None
        b.cluster.leases.sideline.run(lambda _: None)  # the refused room's lease is let go
        with psycopg.connect(postgres_url) as conn:
            leases = conn.execute("SELECT creator FROM leases").fetchall()
        assert len(leases) == 1 and leases[0][0]
        third = await Client.connect(a.port)
        clients.append(third)
        refused = await third.request({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "Cy"})
        assert refused["code"] == "rate_limited"  # two new identities per address, in all
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_the_terminal_clients_worker_follows_moved_without_saying_so(
    postgres_url: str,
) -> None:
    """The worker the TUI runs (and so the SSH and browser front doors, which run the TUI on
    the server) reaches a room of another node: connected to b, it joins a's room."""
    from protocol.messages import JoinRoom
    from selfish_tui.client import NetworkClient
    from selfish_tui.messages import ConnectionLost, ServerMessage, Welcomed

    a, b = await _node(postgres_url), await _node(postgres_url)
    ann = await _client(a.port, "Ann")
    posted: list[object] = []
    worker = NetworkClient(posted.append, "127.0.0.1", b.port, "Bob")
    running = asyncio.create_task(worker.run())
    try:
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        for _ in range(100):
            if any(isinstance(m, Welcomed) for m in posted):
                break
            await asyncio.sleep(0.05)
        worker.send(JoinRoom(room=code))
        for _ in range(100):
            if any(isinstance(m, ServerMessage) and m.payload.TYPE == "joined" for m in posted):
                break
            await asyncio.sleep(0.05)
        joined = [m.payload.to_wire() for m in posted if isinstance(m, ServerMessage)]
        assert any(d["type"] == "joined" and d["room"] == code and d["seat"] == 1 for d in joined)
        assert worker.port == a.port
        assert not any(isinstance(m, ConnectionLost) for m in posted)  # nothing said
        assert not any(isinstance(m, ServerMessage) and m.payload.TYPE == "moved" for m in posted)
    finally:
        await worker.stop()
        running.cancel()
        await a.stop()
        await b.stop()
        await ann.close()


async def test_the_worker_sent_to_a_node_that_stops_comes_back_through_its_own_address(
    postgres_url: str,
) -> None:
    """A front door's worker knows one address (its own node); sent on to the room's node,
    it must not keep knocking at that node once it is gone, but come back home, where the
    room is taken over and its seat handed back."""
    from protocol.messages import JoinRoom
    from selfish_tui.client import NetworkClient
    from selfish_tui.messages import ServerMessage, Welcomed

    a, b = await _node(postgres_url), await _node(postgres_url)
    ann = await _client(a.port, "Ann")
    posted: list[object] = []
    worker = NetworkClient(posted.append, "127.0.0.1", b.port, "Bob", backoff=(0.1,))
    running = asyncio.create_task(worker.run())
    stopped = False

    async def until(found: Callable[[], bool]) -> None:
        for _ in range(200):
            if found():
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"not seen; posted: {posted}")

    def joined() -> list[int]:
        return [
            index
            for index, m in enumerate(posted)
            if isinstance(m, ServerMessage) and m.payload.TYPE == "joined"
        ]

    try:
        code = (await ann.request({"type": "create_room", "edition": "space", "seats": 2}))["room"]
        await until(lambda: any(isinstance(m, Welcomed) for m in posted))
        worker.send(JoinRoom(room=code))
        await until(lambda: bool(joined()))
        assert worker.port == a.port  # sent on to the room's node
        seen = len(posted)
        stopped = True
        await a.stop()  # its leases are let go: b takes the room over when asked
        await until(lambda: any(index >= seen for index in joined()))
        assert worker.port == b.port
        back = [m for m in posted[seen:] if isinstance(m, ServerMessage)]
        assert any(m.payload.to_wire().get("room") == code for m in back)
    finally:
        await worker.stop()
        running.cancel()
        if not stopped:
            await a.stop()
        await b.stop()
        await ann.close()


def test_a_node_that_lost_a_waiting_rooms_lease_writes_nothing_more_of_it(
    postgres_url: str,
) -> None:
    old, new = Store(postgres_url), Store(postgres_url)
    lost: list[set[object]] = []
    first = Leases(postgres_url, "first:1", 0.2, old.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, new.game_rooms)
    old.fence(first.fence, first.guard, lost.append)
    new.fence(second.fence, second.guard, lambda rooms: None)
    old.on_write = lambda: None  # group commit, as in the server
    seat = {"kind": "human", "name": "Ann", "player": "p-ann", "level": "basic"}
    assert first.take("ROOM")
    old.save_waiting_room("ROOM", "space", [seat, None], {"p-ann": "player"}, {})
    old.commit()
    time.sleep(0.3)  # the first node is paused past its lease
    assert second.take("ROOM")  # taken over: the epoch goes up
    assert first.orphans() == [] and new.waiting_room("ROOM") is not None
    joined = {**seat, "name": "Bob", "player": "p-bob"}
    new.save_waiting_room(
        "ROOM", "space", [seat, joined], {"p-ann": "player", "p-bob": "player"}, {}
    )
    old.forget_waiting_room("ROOM")  # the paused node wakes and closes the room
    old.commit()
    assert lost == [{"ROOM"}]
    stored = new.waiting_room("ROOM")
    assert stored is not None and list(stored.members) == ["p-ann", "p-bob"]
    for leases in (first, second):
        leases.close()
    old.close()
    new.close()


def _count(url: str, sql: str, *params: object) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(sql.encode(), params).fetchone()
        assert row is not None
        return int(row[0])


async def test_a_closed_rooms_last_writes_commit_before_its_lease_goes(postgres_url: str) -> None:
    a = await _node(postgres_url)
    ann = await _client(a.port, "Ann")
    try:
        create = {"type": "create_room", "edition": "space", "seats": 2}
        waiting = (await ann.request(create))["room"]
        assert _count(postgres_url, "SELECT count(*) FROM waiting_rooms") == 1
        await ann.request({"type": "leave_room", "room": waiting})  # the last member: it closes
        playing = (await ann.request({**create, "bots": 1}))["room"]
        await ann.request({"type": "start", "room": playing})
        await ann.expect("state", room=playing)
        await ann.request({"type": "leave_room", "room": playing})  # the game is abandoned
        await ann.request({"type": "ping"})
        for _ in range(100):
            if not _count(postgres_url, "SELECT count(*) FROM leases"):
                break
            await asyncio.sleep(0.05)
        assert _count(postgres_url, "SELECT count(*) FROM leases") == 0
        assert _count(postgres_url, "SELECT count(*) FROM waiting_rooms") == 0
        sql = "SELECT count(*) FROM games WHERE room = %s AND status = 'abandoned'"
        assert _count(postgres_url, sql, playing) == 1
    finally:
        await a.stop()
        await ann.close()


async def test_a_member_of_a_waiting_room_saying_hello_elsewhere_is_sent_to_its_node(
    postgres_url: str,
) -> None:
    a, b = await _node(postgres_url), await _node(postgres_url)
    clients: list[Client] = []
    try:
        ann = await _client(a.port, "Ann")
        clients.append(ann)
        create = {"type": "create_room", "edition": "space", "seats": 2, "public": False}
        code = (await ann.request(create))["room"]
        again = await Client.connect(b.port)
        clients.append(again)
        await again.hello("Ann", ann.token)
        moved = await again.expect("moved")
        assert moved["room"] == code and moved["address"].endswith(f":{a.port}")
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


def test_opening_a_room_claims_its_token_its_creators_count_and_its_lease_at_once(
    postgres_url: str,
) -> None:
    store = Store(postgres_url)
    first = Leases(postgres_url, "first:1", 30.0, store.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, store.game_rooms)
    assert first.claim("ROOMA", "10.0.0.1", 1e-3, 2) == (True, 0, True)
    assert first.claim("ROOMB", "10.0.0.1", 1e-3, 2) == (True, 1, True)  # ROOMA counts
    assert second.claim("ROOMC", "10.0.0.1", 1e-3, 2) == (False, 2, True)  # the bucket is empty
    assert second.rooms_from("10.0.0.1") == 3  # the creator is noted with the lease
    assert second.claim("ROOMA", "10.0.0.2", 1e-3, 2) == (True, 0, False)  # first holds it
    assert set(first.held) == {"ROOMA", "ROOMB"} and set(second.held) == {"ROOMC"}
    first.close()  # its leases run out: ROOMC alone counts, once its sessions are gone
    gone(postgres_url, first)
    assert second.rooms_from("10.0.0.1") == 1
    assert second.take("ROOMA")  # taken over: its creator stays
    assert second.rooms_from("10.0.0.1") == 2
    second.close()
    store.close()


def test_game_ids_come_from_the_sequence_a_few_at_a_time(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = Store(postgres_url), Store(postgres_url)

    def new_game(store: Store) -> int:
        return store.create_game("ROOM", "space", ["a", "b"], [], {}, 1, 0)

    one = new_game(first)
    assert new_game(second) == one + GAME_IDS  # the second node took the next ones
    assert new_game(first) == one + 1  # the first's, taken with its first
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + 60.0)
    assert new_game(first) == one + 2 * GAME_IDS  # the rest, taken long ago, is skipped
    first.close()
    second.close()


def test_a_survey_renews_the_leases_and_finds_the_orphans_at_once(postgres_url: str) -> None:
    store = Store(postgres_url)
    first = Leases(postgres_url, "first:1", 0.2, store.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, store.game_rooms)
    gone = Leases(postgres_url, "gone:1", 30.0, store.game_rooms)
    seat = {"kind": "human", "name": "Ann", "player": "p-ann", "level": "basic"}
    assert gone.take("WAIT") and first.take("ROOM") and first.take("KEPT")
    store.save_waiting_room("WAIT", "space", [seat, None], {"p-ann": "player"}, {})
    store.commit()
    gone.close()  # its node stopped: its waiting room is an orphan
    time.sleep(0.3)  # the first node is paused past its leases
    assert second.take("ROOM")  # taken over
    assert first.survey() == ({"ROOM"}, [("WAIT", None)])
    assert not second.take("KEPT")  # renewed by the survey: still the first's
    first.close()
    second.close()
    store.close()


def test_a_node_that_lost_its_lease_counts_nothing_of_that_rooms_game_over(
    postgres_url: str,
) -> None:
    old, new = Store(postgres_url), Store(postgres_url)
    lost: list[set[int]] = []
    first = Leases(postgres_url, "first:1", 0.2, old.game_rooms)
    second = Leases(postgres_url, "second:1", 30.0, new.game_rooms)
    old.fence(first.fence, first.guard, lost.append)
    old.on_write = lambda: None  # group commit, as in the server
    assert first.take("ROOM")
    seats = [human("Ann", "pa"), human("Bob", "pb")]
    game = old.create_game("ROOM", "space", ["Ann", "Bob"], seats, RATED, 1, 0)
    old.commit()
    time.sleep(0.3)  # the first node is paused past its lease
    assert second.take("ROOM")  # taken over: the epoch goes up
    told: list[object] = []
    old.finish_game(game, "over", 0, 10, "d" * 64, told.append)  # the paused node wakes
    old.commit()
    assert lost == [{game}] and told == [None]  # its room is dropped before it is told
    assert new.standings.of("pa") == [] and new.standings.changes(game) == []
    stored = new.game(game)
    assert stored is not None and stored.status == "playing"
    for leases in (first, second):
        leases.close()
    old.close()
    new.close()
