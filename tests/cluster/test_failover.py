"""Failover with real processes: a node killed with SIGKILL mid-game, and a node paused with
SIGSTOP past its lease and resumed, on one PostgreSQL database."""

from __future__ import annotations

import asyncio
import itertools
import signal
from pathlib import Path
from typing import Any

import psycopg

from server.bots.client import CreateSpec, HeadlessBot
from tests.cluster.nodes import Node
from tests.server.conftest import Client


def _versions(frames: list[dict[str, Any]]) -> list[int]:
    return [frame["version"] for frame in frames if frame.get("type") == "state"]


def _decisions(url: str) -> dict[int, list[int]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT game, n FROM decisions ORDER BY game, n").fetchall()
    games: dict[int, list[int]] = {}
    for game, n in rows:
        games.setdefault(int(game), []).append(int(n))
    return games


async def test_games_of_a_killed_node_go_on_on_the_other_and_lose_nothing_seen(
    postgres_url: str, tmp_path: Path
) -> None:
    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    try:
        bots: list[HeadlessBot] = []
        runs = []
        for table in range(3):
            codes: asyncio.Queue[str] = asyncio.Queue()
            host = HeadlessBot(
                "127.0.0.1",
                a.port,
                name=f"Host{table}",
                others=(("127.0.0.1", b.port),),
                act_delay=0.05,
                record=True,
                seed=table,
                create=CreateSpec("space", 2, 0, seed=100 + table),
                on_room=codes.put_nowait,
            )
            runs.append(asyncio.create_task(host.run()))
            code = await asyncio.wait_for(codes.get(), 10)
            guest = HeadlessBot(
                "127.0.0.1",
                a.port,
                name=f"Guest{table}",
                others=(("127.0.0.1", b.port),),
                act_delay=0.05,
                record=True,
                seed=50 + table,
                room=code,
            )
            runs.append(asyncio.create_task(guest.run()))
            bots += [host, guest]
        while not all(len(_versions(bot.frames)) >= 5 for bot in bots):
            await asyncio.sleep(0.05)
        a.signal(signal.SIGKILL)
        results = await asyncio.wait_for(asyncio.gather(*runs), 90)
        assert all(len(result) == 1 for result in results)  # every game played to its end
        for bot in bots:
            assert bot.connections >= 2 and bot.port == b.port
            seen = _versions(bot.frames)
            # Each state after the reconnection is at least the last one seen before it: a
            # decision a player saw and the store lost would take the version back.
            assert all(later >= earlier for earlier, later in itertools.pairwise(seen)), seen
        for game, numbers in _decisions(postgres_url).items():
            assert numbers == list(range(len(numbers))), game  # none lost, none twice
        assert b.log("taken over")
    finally:
        await a.stop()
        await b.stop()


async def test_a_killed_nodes_rooms_are_taken_over_long_before_its_leases_expire(
    postgres_url: str, tmp_path: Path
) -> None:
    # Leases of a minute: only PostgreSQL's view of the dead node's sessions lets b take the
    # room over within the test's time.
    a = await Node.start(postgres_url, tmp_path, lease_seconds=60.0)
    b = await Node.start(postgres_url, tmp_path, lease_seconds=60.0)
    try:
        codes: asyncio.Queue[str] = asyncio.Queue()
        others = (("127.0.0.1", b.port),)
        host = HeadlessBot(
            "127.0.0.1",
            a.port,
            name="Host",
            others=others,
            act_delay=0.05,
            record=True,
            create=CreateSpec("space", 2, 0, seed=3),
            on_room=codes.put_nowait,
        )
        runs = [asyncio.create_task(host.run())]
        code = await asyncio.wait_for(codes.get(), 10)
        guest = HeadlessBot(
            "127.0.0.1", a.port, name="Guest", others=others, act_delay=0.05, record=True, room=code
        )
        runs.append(asyncio.create_task(guest.run()))
        while not all(len(_versions(bot.frames)) >= 5 for bot in (host, guest)):
            await asyncio.sleep(0.05)
        a.signal(signal.SIGKILL)
        results = await asyncio.wait_for(asyncio.gather(*runs), 30)
        assert all(len(result) == 1 for result in results)
        assert b.log(f"room {code}: taken over")
    finally:
        await a.stop()
        await b.stop()


async def test_a_node_paused_past_its_lease_writes_nothing_when_it_wakes(
    postgres_url: str, tmp_path: Path
) -> None:
    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    clients: list[Client] = []
    try:
        ann, bob = await Client.connect(a.port), await Client.connect(a.port)
        clients += [ann, bob]
        await ann.hello("Ann")
        await bob.hello("Bob")
        create = {"type": "create_room", "edition": "space", "seats": 2, "seed": 7}
        code = (await ann.request(create))["room"]
        await bob.request({"type": "join_room", "room": code})
        await ann.request({"type": "start", "room": code})
        # Whoever must decide first: that client's act is sent while the node is paused.
        state: dict[str, Any] = {}
        mover = ann
        while not state:
            for client in (ann, bob):
                while client.inbox:
                    message = client.inbox.pop(0)
                    if message["type"] == "state" and message["view"]["legal"]:
                        state, mover = message, client
            if not state:
                for client in (ann, bob):
                    client.send({"type": "ping"})
                    await client.expect("pong")
        before = _decisions(postgres_url)
        a.signal(signal.SIGSTOP)
        for _ in range(100):  # the lease (1 s) runs out; b takes the room over
            await asyncio.sleep(0.1)
            if b.log("taken over"):
                break
        assert b.log(f"room {code}: taken over")
        choice = 0  # the first of view.legal
        mover.send({"type": "act", "room": code, "version": state["version"], "choice": choice})
        a.signal(signal.SIGCONT)
        answers: list[str] = []
        try:
            while True:
                message = await mover.recv(timeout=10)
                answers.append(message["type"])
                if message["type"] in ("moved", "error") and message.get("id") is not None:
                    break
        except ConnectionError:
            answers.append("cut")  # dropped, with nothing of the act sent
        assert "ok" not in answers and "state" not in answers, answers
        assert _decisions(postgres_url) == before  # the woken node wrote nothing
        again = await Client.connect(b.port)
        clients.append(again)
        await again.hello("Mover", mover.token)
        resumed = await again.expect("state", room=code)
        assert resumed["version"] == state["version"]
        again.send({"type": "act", "room": code, "version": resumed["version"], "choice": choice})
        assert (await again.expect("state", room=code))["version"] > state["version"]
        await asyncio.sleep(0.5)
        assert a.log("lost") and a.process.returncode is None
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def _posted(posted: list[Any], wanted: Any, after: int = 0) -> Any:
    """The first message ``posted`` after index ``after`` that ``wanted`` accepts."""
    async with asyncio.timeout(30):
        while True:
            for message in posted[after:]:
                if wanted(message):
                    return message
            await asyncio.sleep(0.05)


async def test_the_terminal_client_given_both_addresses_finds_its_seat_after_a_kill(
    postgres_url: str, tmp_path: Path
) -> None:
    """`selfish connect A,B`: the TUI's worker, on A's game, is back in its seat on B once A
    is killed."""
    from protocol.messages import CreateRoom, Start
    from selfish_tui.client import NetworkClient, parse_addresses
    from selfish_tui.messages import ServerMessage, Welcomed

    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    (host, port), *others = parse_addresses(f"127.0.0.1:{a.port}, 127.0.0.1:{b.port}")
    posted: list[Any] = []
    worker = NetworkClient(posted.append, host, port, "Ann", others=others, backoff=(0.1,))
    running = asyncio.create_task(worker.run())

    def payload(kind: str) -> Any:
        return lambda m: isinstance(m, ServerMessage) and kind == m.payload.TYPE

    try:
        await _posted(posted, lambda m: isinstance(m, Welcomed))
        worker.send(CreateRoom(edition="space", seats=2, bots=1, seed=5))
        code = (await _posted(posted, payload("joined"))).payload.room
        worker.send(Start(room=code))
        seen = await _posted(posted, payload("state"))
        assert worker.port == a.port
        a.signal(signal.SIGKILL)
        back = await _posted(posted, payload("state"), after=len(posted))
        assert back.payload.room == code and back.payload.version >= seen.payload.version
        assert worker.port == b.port and b.log(f"room {code}: taken over")
    finally:
        await worker.stop()
        running.cancel()
        await a.stop()
        await b.stop()


async def test_a_waiting_room_of_a_killed_node_is_reopened_on_the_other_as_it_was(
    postgres_url: str, tmp_path: Path
) -> None:
    """Nobody reconnects first: b takes the waiting room over by itself and lists it in the
    one lobby; its members, back on b by their tokens, find their seats and start the game."""
    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    clients = [await Client.connect(a.port) for _ in range(3)]
    ann, bob, cy = clients
    try:
        for client, name in zip(clients, ("Ann", "Bob", "Cy"), strict=True):
            await client.hello(name)
        create = {"type": "create_room", "edition": "space", "seats": 4, "bots": 1, "timer": 30}
        code = (await ann.request(create))["room"]
        await bob.request({"type": "join_room", "room": code})
        await cy.request({"type": "join_room", "room": code, "as": "spectator"})
        before = await bob.expect("room", room=code)  # what the members were last shown
        a.signal(signal.SIGKILL)
        for _ in range(100):  # b sees a's sessions end and takes the room over
            if b.log(f"room {code}: taken over (waiting room"):
                break
            await asyncio.sleep(0.1)
        assert b.log(f"room {code}: taken over (waiting room")
        dan = await Client.connect(b.port)
        clients.append(dan)
        await dan.hello("Dan")
        listed = await dan.request({"type": "list_rooms"})
        assert [room["room"] for room in listed["rooms"]] == [code]  # still in the lobby
        back = []
        for old, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy")):
            client = await Client.connect(b.port)
            clients.append(client)
            await client.hello(name, old.token)
            back.append((client, await client.expect("joined", room=code)))
        (ann2, ann_joined), (bob2, bob_joined), (_, cy_joined) = back
        assert (ann_joined["seat"], bob_joined["seat"], cy_joined["role"]) == (0, 2, "spectator")
        after = await bob2.expect("room", room=code)
        for key in ("size", "public", "timer", "host", "status"):
            assert after[key] == before[key], key

        def table(room: dict[str, Any]) -> list[tuple[str, str] | None]:
            return [seat and (seat["name"], seat["kind"]) for seat in room["seats"]]

        assert table(after) == table(before)
        assert [s["name"] for s in after["spectators"]] == ["Cy"]
        assert (await dan.request({"type": "join_room", "room": code}))["seat"] == 3
        assert (await ann2.request({"type": "start", "room": code}))["type"] == "ok"
        assert (await bob2.expect("state", room=code))["room"] == code
        with psycopg.connect(postgres_url) as conn:
            row = conn.execute("SELECT count(*) FROM waiting_rooms").fetchone()
        assert row == (0,)  # it plays now: stored as a game
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_a_member_back_from_a_killed_node_takes_its_waiting_room_over_in_its_hello(
    postgres_url: str, tmp_path: Path
) -> None:
    # Leases of a minute: b's own look for gone leases comes every 15 s, so the hello does it.
    a = await Node.start(postgres_url, tmp_path, lease_seconds=60.0)
    b = await Node.start(postgres_url, tmp_path, lease_seconds=60.0)
    ann = await Client.connect(a.port)
    clients = [ann]
    try:
        await ann.hello("Ann")
        create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1}
        code = (await ann.request(create))["room"]
        a.signal(signal.SIGKILL)
        await ann.closed()
        for _ in range(50):
            again = await Client.connect(b.port)
            clients.append(again)
            await again.hello("Ann", ann.token)
            reply = await again.recv()
            while reply["type"] not in ("joined", "moved"):
                reply = await again.recv()
            if reply["type"] == "joined":
                break
            # PostgreSQL had not ended a's sessions yet: sent to a, which refuses, a client
            # tries b again (tests/cluster/test_failover's bots do)
            await asyncio.sleep(0.1)
        assert reply["type"] == "joined" and reply["room"] == code and reply["seat"] == 0
        assert (await again.request({"type": "start", "room": code}))["type"] == "ok"
        assert b.log(f"room {code}: taken over (waiting room")
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def _play_to_game_over(ann: Client) -> tuple[str, int]:
    """Ann opens a room with a bot and plays its game to the end: (its code, the game)."""
    await ann.hello("Ann")
    create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "seed": 7}
    code = (await ann.request(create))["room"]
    await ann.request({"type": "start", "room": code})
    while True:  # Ann takes the first legal choice each time, until the game is over
        message = await ann.recv(timeout=10)
        if message["type"] == "game_over":
            return code, int(message["game"])
        if message["type"] == "state" and message["view"]["legal"]:
            act = {"type": "act", "room": code, "version": message["version"], "choice": 0}
            ann.send(act)


async def test_a_player_of_a_room_at_its_game_over_saying_hello_elsewhere_is_sent_to_it(
    postgres_url: str, tmp_path: Path
) -> None:
    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    clients: list[Client] = []
    try:
        ann = await Client.connect(a.port)
        clients.append(ann)
        code, first = await _play_to_game_over(ann)
        await ann.close()  # Ann's connection drops; her room waits for its rematch on a
        again = await Client.connect(b.port)
        clients.append(again)
        await again.hello("Ann", ann.token)
        moved = await again.expect("moved")  # unasked: her room runs on a, both nodes alive
        assert moved["room"] == code and moved["address"].endswith(f":{a.port}")
        back = await Client.connect(a.port)
        clients.append(back)
        await back.hello("Ann", ann.token)
        await back.expect("joined", room=code)  # her room, at its game over
        assert (await back.request({"type": "rematch", "room": code}))["type"] != "error"
        await back.expect("state", room=code)
        assert not b.log(f"room {code}: taken over")
        with psycopg.connect(postgres_url) as conn:
            games = conn.execute(
                "SELECT id, status FROM games WHERE room = %s ORDER BY id", (code,)
            ).fetchall()
        assert [status for _, status in games] == ["over", "playing"] and games[0][0] == first
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()


async def test_a_killed_nodes_room_at_its_game_over_is_taken_over_for_its_rematch(
    postgres_url: str, tmp_path: Path
) -> None:
    a = await Node.start(postgres_url, tmp_path)
    b = await Node.start(postgres_url, tmp_path)
    clients: list[Client] = []
    try:
        ann = await Client.connect(a.port)
        clients.append(ann)
        code, first = await _play_to_game_over(ann)
        a.signal(signal.SIGKILL)
        for _ in range(100):  # b sees a's sessions gone at its next survey
            await asyncio.sleep(0.1)
            if b.log(f"room {code}: taken over"):
                break
        assert b.log(f"room {code}: taken over (game {first}, over")
        again = await Client.connect(b.port)
        clients.append(again)
        await again.hello("Ann", ann.token)
        await again.expect("joined", room=code)  # her room, at its game over
        assert (await again.request({"type": "rematch", "room": code}))["type"] != "error"
        await again.expect("state", room=code)
        with psycopg.connect(postgres_url) as conn:
            games = conn.execute(
                "SELECT id, status FROM games WHERE room = %s ORDER BY id", (code,)
            ).fetchall()
        assert [status for _, status in games] == ["over", "playing"] and games[0][0] == first
    finally:
        await a.stop()
        await b.stop()
        for client in clients:
            await client.close()
