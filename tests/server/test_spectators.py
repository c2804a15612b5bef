"""Spectators: they come back to their room after a restart, never host, and
their chat during a game reaches the other spectators only; the players read it at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.store.store import Store
from tests.server.conftest import ClientFactory, ServerFactory
from tests.server.harness import FakeConnection, Harness

Message = dict[str, Any]


def table(h: Harness, bots: int = 1, seats: int = 2) -> tuple[FakeConnection, Any, str]:
    conn, ann = h.client("Ann")
    code = h.request(
        conn,
        ann,
        {"type": "create_room", "edition": "space", "seats": seats, "bots": bots, "seed": 3},
    )["room"]
    return conn, ann, code


def watch(h: Harness, code: str, name: str = "Cid") -> tuple[FakeConnection, Any]:
    conn, player = h.client(name)
    assert h.request(conn, player, {"type": "join_room", "room": code, "as": "spectator"})
    return conn, player


def test_a_spectator_comes_back_to_the_room_after_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite3")
    h = Harness(Store(path))
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    cid_conn, cid = watch(h, code)
    token = str(cid_conn.of_type("welcome")[0]["token"])
    h.lobby.shutdown()
    h.disconnect(cid_conn, cid)  # the server's goodbye: the room keeps its stored spectators
    h.store.close()
    again = Harness(Store(path))
    back = again.connect()
    again.hello(back, "Cid", token=token)
    (joined,) = back.of_type("joined")
    assert joined["room"] == code and joined["role"] == "spectator"
    assert back.of_type("state")[-1]["view"]["seat"] is None
    assert [s["name"] for s in back.of_type("room")[-1]["spectators"]] == ["Cid"]


def test_a_spectator_who_does_not_come_back_after_a_restart_leaves(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite3")
    h = Harness(Store(path))
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    watch(h, code)
    ann_token = str(ann_conn.of_type("welcome")[0]["token"])
    h.lobby.shutdown()
    h.store.close()
    again = Harness(Store(path), empty_room_grace=60.0)
    back = again.connect()
    again.hello(back, "Ann", token=ann_token)
    room = again.lobby.rooms[code]
    assert len(room.watchers) == 1
    again.clock.advance(60)
    assert len(room.watchers) == 0
    assert back.of_type("room")[-1]["spectators"] == []
    assert again.store.spectators(room.game_id or 0) == []


def test_a_spectator_never_becomes_host() -> None:
    h = Harness()
    ann_conn, ann, code = table(h, bots=0, seats=3)
    bob_conn, bob = h.client("Bob")
    h.request(bob_conn, bob, {"type": "join_room", "room": code})
    watch(h, code)
    h.request(ann_conn, ann, {"type": "add_bot", "room": code})
    h.request(ann_conn, ann, {"type": "start", "room": code})
    room = h.lobby.rooms[code]
    h.request(ann_conn, ann, {"type": "leave_room", "room": code})
    assert room.host == bob.id  # the seated human, though the spectator came first... after
    h.request(bob_conn, bob, {"type": "leave_room", "room": code})
    assert room.host is None and not room.closed  # the bots play on without a host
    version = room.version
    h.clock.advance(5)
    assert room.version > version


def test_a_spectator_joining_a_room_without_host_does_not_take_it() -> None:
    h = Harness()
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    cid_conn, cid = watch(h, code)
    h.request(ann_conn, ann, {"type": "leave_room", "room": code})
    room = h.lobby.rooms[code]
    assert room.host is None
    watch(h, code, "Dee")
    assert room.host is None
    assert h.request(cid_conn, cid, {"type": "rematch", "room": code})["code"] == "not_host"


def chats(conn: FakeConnection) -> list[str]:
    return [m["text"] for m in conn.of_type("chat")]


def test_spectators_chat_during_a_game_reaches_players_only_after_it() -> None:
    h = Harness()
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    cid_conn, cid = watch(h, code)
    dee_conn, _dee = watch(h, code, "Dee")
    h.request(cid_conn, cid, {"type": "chat", "room": code, "text": "Ann should block"})
    h.request(ann_conn, ann, {"type": "chat", "room": code, "text": "good luck"})
    assert chats(dee_conn) == ["Ann should block", "good luck"]
    assert chats(ann_conn) == ["good luck"]  # the spectator's line is not for the players
    # Ann plays to the end; then she gets what was said.
    room = h.lobby.rooms[code]
    while not ann_conn.of_type("game_over"):
        state = ann_conn.of_type("state")[-1]
        if state["view"]["legal"] and state["version"] == room.version:
            act = {"type": "act", "room": code, "version": room.version, "choice": 0}
            h.request(ann_conn, ann, act)
        h.clock.advance(1)
    after = ann_conn.inbox[ann_conn.inbox.index(ann_conn.of_type("game_over")[0]) :]
    assert [m["text"] for m in after if m["type"] == "chat"] == ["Ann should block"]
    # After the game everyone reads everyone.
    h.request(cid_conn, cid, {"type": "chat", "room": code, "text": "well played"})
    assert chats(ann_conn)[-1] == "well played"


async def test_over_tcp_a_spectator_is_back_in_the_room_after_a_restart(
    make_server: ServerFactory, connect: ClientFactory, tmp_path: Path
) -> None:
    # The real shutdown: every session says bye and closes, which must not make the
    # spectator leave the stored game.
    db = str(tmp_path / "s.sqlite3")
    server = await make_server(db=db, bot_delay=3600.0)
    ann = await connect(server.port, "Ann")
    code = (
        await ann.request(
            {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "seed": 3}
        )
    )["room"]
    await ann.request({"type": "start", "room": code})
    cid = await connect(server.port, "Cid")
    await cid.request({"type": "join_room", "room": code, "as": "spectator"})
    await server.stop()
    again = await make_server(db=db, bot_delay=3600.0)
    back = await connect(again.port)
    await back.hello("Cid", token=cid.token)
    joined = await back.expect("joined")
    assert joined["room"] == code and joined["role"] == "spectator"
    state = await back.expect("state")
    assert state["view"]["seat"] is None


def play_to_the_end(h: Harness, conn: FakeConnection, player: Any, code: str) -> None:
    """Ann takes her first choice whenever she decides, until the game is over."""
    room = h.lobby.rooms[code]
    while not conn.of_type("game_over"):
        state = conn.of_type("state")[-1]
        if state["view"]["legal"] and state["version"] == room.version:
            act = {"type": "act", "room": code, "version": room.version, "choice": 0}
            h.request(conn, player, act)
        h.clock.advance(1)


def test_spectators_chat_held_for_the_players_survives_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite3")
    h = Harness(Store(path))
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    cid_conn, cid = watch(h, code)
    h.request(cid_conn, cid, {"type": "chat", "room": code, "text": "Ann should block"})
    h.request(cid_conn, cid, {"type": "chat", "room": code, "text": "[b]told you[/b]"})
    ann_token = str(ann_conn.of_type("welcome")[0]["token"])
    h.lobby.shutdown()
    h.store.close()
    again = Harness(Store(path))
    back = again.connect()
    player, _ = again.hello(back, "Ann", token=ann_token)
    assert chats(back) == []  # still held: the game is not over
    play_to_the_end(again, back, player, code)
    after = back.inbox[back.inbox.index(back.of_type("game_over")[0]) :]
    held = [m for m in after if m["type"] == "chat"]
    assert [m["text"] for m in held] == ["Ann should block", "[b]told you[/b]"]
    assert {(m["name"], m["seat"]) for m in held} == {("Cid", None)}
    room = again.lobby.rooms[code]
    assert again.store.held_chat(room.game_id or 0) == []  # delivered: nothing stays stored


def test_an_older_database_gets_the_table_of_held_chat(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    store = Store(path)
    store._db.commit_now("DROP TABLE held_chat")  # a database from before the table existed
    store.close()
    store = Store(path)
    game = store.create_game("QZKX", "space", ["Ann", "Bot 1"], [], {}, 3, 0)
    store.hold_chat(game, {"type": "chat", "text": "hi"})
    store.commit()
    assert store.held_chat(game) == [{"type": "chat", "text": "hi"}]


def test_an_abandoned_game_keeps_no_held_chat() -> None:
    h = Harness()
    ann_conn, ann, code = table(h)
    h.request(ann_conn, ann, {"type": "start", "room": code})
    cid_conn, cid = watch(h, code)
    h.request(cid_conn, cid, {"type": "chat", "room": code, "text": "psst"})
    room = h.lobby.rooms[code]
    assert h.store.held_chat(room.game_id or 0) != []
    h.request(ann_conn, ann, {"type": "leave_room", "room": code})
    h.request(cid_conn, cid, {"type": "leave_room", "room": code})
    assert room.closed
    assert h.store.held_chat(room.game_id or 0) == []
