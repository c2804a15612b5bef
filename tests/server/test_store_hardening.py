"""Hardening, round 2, the store's items: start-up over bad rows (8), file modes
(10), names (9), replays listed by pages (3) and rooms nobody uses (6).

Where the attack happens over the network the test goes through real TCP on loopback; the
rest use the in-memory harness (tests.server.harness) or a real SQLite file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from protocol.client import ClientConnection, Replays
from protocol.codec import encode, unpack
from protocol.confusables import looks_like
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import ListReplays
from protocol.names import check_name
from protocol.server_messages import RoomsMessage, WelcomeMessage
from server.limits.addresses import address_group
from server.net.tcp import RunningServer
from server.rooms import outgoing
from server.store.store import Store
from server.store.tokens import token_hash
from tests.server.conftest import Client, ClientFactory, ServerFactory
from tests.server.harness import FakeConnection, Harness

CREATE = {"type": "create_room", "edition": "space", "seats": 2}
Message = dict[str, Any]


# ---------------------------------------------------------------- 8: one bad row


GOOD_TOKEN = "good-token-of-ann"


def _database_with_bad_rows(db: Path) -> tuple[int, list[int]]:
    """A database file holding one good unfinished game of Ann's and, in every table read at
    start-up, rows of types the code does not expect; returns (good game, bad games)."""
    store = Store(str(db))
    store.save_player("pann00001", GOOD_TOKEN, "Ann")
    seats = [
        {"kind": "human", "name": "Ann", "player": "pann00001", "level": "basic", "left": False},
        {"kind": "bot", "name": "Bot 1", "player": None, "level": "basic", "left": False},
    ]
    names = ["Ann", "Bot 1"]

    def game(**_: object) -> int:
        return store.create_game("GOOD", "space", names, seats, {"public": True}, 5, 0)

    good = game()
    bad = [game() for _ in range(9)]
    store.save_spectators(good, ["pann00001"])
    store.close()
    conn = sqlite3.connect(db)
    with conn:
        # players: a token stored as a BLOB (the case), a name and an id as BLOBs
        conn.execute("INSERT INTO players VALUES ('pblob0001', X'00ff', 'Blob', 0, 0)")
        conn.execute("INSERT INTO players VALUES ('pblob0002', 'x', X'c0', 0, 0)")
        conn.execute("INSERT INTO players VALUES (X'01', 'y', 'Id', 0, 0)")
        # games: every column the start reads, of a wrong type or shape, one per game
        for column, value in (
            ("names", "5"),
            ("names", b"[]"),
            ("seats", "[1, 2]"),
            ("settings", b"{}"),
            ("seed", "abc"),
            ("room", b"ROOM"),
            ("winner", "x"),
        ):
            conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, bad.pop(0)))
        # decisions and server events of the last two bad games
        conn.execute("INSERT INTO decisions VALUES (?, 0, 'a', 'x', 'human', 0)", (bad[0],))
        conn.execute("INSERT INTO server_events VALUES (?, 'p', 7)", (bad[1],))
        # the good game's spectators, not JSON text
        conn.execute("UPDATE spectators SET players = X'00' WHERE game = ?", (good,))
    conn.close()
    return good, list(range(good + 1, good + 10))


async def test_bad_rows_of_every_table_do_not_stop_the_start(
    tmp_path: Path,
    make_server: ServerFactory,
    connect: ClientFactory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    db = tmp_path / "server.sqlite3"
    good, bad = _database_with_bad_rows(db)
    with caplog.at_level(logging.WARNING, logger="selfish.server"):
        server = await make_server(db=str(db))
    # the good game came back and its player resumes it over TCP
    ann = await connect(server.port)
    welcome = await ann.hello("Ann", GOOD_TOKEN)
    assert welcome["player"] == "pann00001"
    joined = await ann.expect("joined")
    assert server.lobby.rooms[joined["room"]].game_id == good
    # each bad row was reported, none stopped the start
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "player 'pblob0001': token is a BLOB, not text; skipped" in logged
    assert "player 'pblob0002': name is a BLOB" in logged
    assert "player b'\\x01': id is a BLOB" in logged
    for game in bad:
        assert f"game {game}" in logged
    assert f"game {good}: spectators is a BLOB" in logged
    await server.stop()
    conn = sqlite3.connect(db)
    statuses = dict(conn.execute("SELECT id, status FROM games").fetchall())
    conn.close()
    assert statuses[good] == "playing"
    assert {statuses[game] for game in bad} == {"abandoned"}


def test_the_store_opens_a_file_whose_old_tokens_collide(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(db)
    Store(str(db)).close()
    with conn:  # an old, unhashed token whose hash another row already has
        conn.execute("INSERT INTO players VALUES ('p1', ?, 'A', 0, 0)", (token_hash("same"),))
        conn.execute("INSERT INTO players VALUES ('p2', 'same', 'B', 0, 0)")
    conn.close()
    store = Store(str(db))
    assert [pid for pid, _, _ in store.players()] == ["p1", "p2"]
    assert store.token_of("p1") is not None and store.token_of("p2") is None
    store.close()


# ---------------------------------------------------------------- 10: file modes


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_database_its_log_and_directory_are_private(tmp_path: Path) -> None:
    previous = os.umask(0o022)  # the usual umask, whatever the test runner's
    try:
        db = tmp_path / "data" / "server.sqlite3"
        store = Store(str(db))
        store.save_player("p1", "t", "Ann")  # a write: the write-ahead log exists now
        wal = db.with_name(db.name + "-wal")
        assert wal.exists()
        assert [_mode(p) for p in (db.parent, db, wal)] == [0o700, 0o600, 0o600]
        store.close()
    finally:
        os.umask(previous)


def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    db.touch(mode=0o640)
    db.chmod(0o640)  # the operator's choice (a backup group)
    Store(str(db)).close()
    assert _mode(db) == 0o640


def test_the_ssh_host_key_is_private(tmp_path: Path) -> None:
    from server.gateway.server import load_host_key

    key = tmp_path / "data" / "ssh_host_ed25519_key"
    load_host_key(key)
    assert [_mode(key.parent), _mode(key)] == [0o700, 0o600]


# ---------------------------------------------------------------- 9: names


@pytest.mark.parametrize(
    "name",
    ["An\u200dn", "\u200eAnn", "Ann\u202e", "\ufeffBob", "Zo\u00ade", "Ann\U000e0041", "\u2066Cy"],
)
def test_format_characters_are_refused_in_names(name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_name(name)
    assert caught.value.code == ErrorCode.BAD_NAME
    hidden = next(ch for ch in name if unicodedata.category(ch) == "Cf")
    assert f"U+{ord(hidden):04X}" in caught.value.message


@pytest.mark.parametrize("name", ["B\u043et 1", "\u0392ot 2", "B0t 1", "b\u03bft 3", "BOT O"])
def test_a_name_that_looks_like_a_bots_is_refused(name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_name(name)
    assert caught.value.message == "that name is kept for the server's bots"


@pytest.mark.parametrize("name", ["Bot lover", "Bob", "Bot lol", "\u674e\u96f7", "Zo\u00eb"])
def test_names_unlike_a_bots_pass(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    ("a", "b"), [("\u0410nn", "Ann"), ("Il", "ll"), ("rn", "m"), ("ann", "Ann")]
)
def test_lookalikes_share_a_skeleton(a: str, b: str) -> None:
    assert looks_like(a, b)


@pytest.mark.parametrize(("a", "b"), [("Ann", "Anne"), ("Bob", "Bob 2"), ("Zo\u00eb", "Zoe")])
def test_different_names_do_not(a: str, b: str) -> None:
    assert not looks_like(a, b)


async def test_a_name_like_a_seated_players_is_refused_in_that_room(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    code = (await ann.request({**CREATE, "seats": 4, "bots": 1}))["room"]
    for name in ("\u0410nn", "ANN"):  # a Cyrillic A; the same letters in capitals
        fake = await connect(server.port, name)
        reply = await fake.request({"type": "join_room", "room": code})
        assert reply["code"] == "bad_name" and "seat 1" in reply["message"], reply
        reply = await fake.request({"type": "join_room", "room": code, "as": "spectator"})
        assert reply["code"] == "bad_name", reply
    # the bot's seat is a seat too (protocol.messages.check_name refuses such a name first)
    with pytest.raises(ProtocolError) as caught:
        server.lobby.rooms[code].check_name("B\u043et 1")
    assert "seat 2" in caught.value.message
    bob = await connect(server.port, "Bob")
    assert (await bob.request({"type": "join_room", "room": code}))["type"] == "joined"
    another = await connect(server.port, "Ann")  # the very same name is numbered, as before
    assert (await another.request({"type": "join_room", "room": code}))["seat"] == 3
    room = await another.expect("room")
    assert [seat["name"] for seat in room["seats"]] == ["Ann", "Bot 1", "Bob", "Ann 2"]


# ---------------------------------------------------------------- 3: replays by pages


def _finished(store: Store, player: str, public: bool, seed: int = 1) -> int:
    seats = [{"kind": "human", "name": "P", "player": player}, {"kind": "bot", "name": "Bot 1"}]
    game = store.create_game("ROOM", "space", ["P", "Bot 1"], seats, {"public": public}, seed, 0)
    store.finish_game(game, "over", 0, 9)
    return game


def _steps(store: Store, read: Callable[[], object]) -> int:
    """SQLite virtual machine steps ``read`` takes (in tens): the cost of a query, the same on
    any machine, however loaded."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    connection = store._db._db
    connection.set_progress_handler(count, 10)
    try:
        read()
    finally:
        connection.set_progress_handler(None, 10)
    return steps


def test_a_page_costs_the_same_with_ten_times_the_games(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "replays.sqlite3"))
    store.on_write = lambda: None  # one commit for the lot, as the server's ticks batch them
    # the worst case of a scan: the games Ann may see are the oldest, behind others' private
    for n in range(60):
        _finished(store, "pann00001" if n % 20 == 0 else "pbob00001", public=n % 20 != 0)
    costs = []
    for games in (1_000, 10_000):
        while store.size()[1] < games:
            _finished(store, "pother", public=False)
        store.commit()
        page, _ = store.replay_page(50, "pann00001")
        assert len(page) == 50
        costs.append(_steps(store, lambda: store.replay_page(50, "pann00001")))
    assert costs[1] <= costs[0] + 2, costs
    store.close()


async def test_list_replays_pages_newest_first_to_the_end(
    tmp_path: Path, make_server: ServerFactory, connect: ClientFactory
) -> None:
    db = tmp_path / "server.sqlite3"
    store = Store(str(db))
    store.save_player("pann00001", GOOD_TOKEN, "Ann")
    mine = []
    for n in range(120):
        _finished(store, "pbob00001", public=True, seed=n)
        if n % 40 == 0:
            mine.append(_finished(store, "pann00001", public=False))
            _finished(store, "pbob00001", public=False)  # Bob's private game: not Ann's to see
    expected = sorted({g.id for g in store.finished_games(1_000)} | set(mine), reverse=True)
    store.close()
    server = await make_server(db=str(db))
    ann = await connect(server.port)
    await ann.hello("Ann", GOOD_TOKEN)
    listed: list[int] = []
    pages = 0
    before = None
    while True:
        request: dict[str, object] = {"type": "list_replays"}
        if before is not None:
            request["before"] = before
        page = await ann.request(request)
        pages += 1
        assert len(page["games"]) <= 50
        listed += [game["game"] for game in page["games"]]
        before = page["next"]
        if before is None:
            break
    assert listed == expected and pages == 3
    # a smaller page, and a page size over the cap
    small = await ann.request({"type": "list_replays", "limit": 7})
    assert [g["game"] for g in small["games"]] == expected[:7] and small["next"] == expected[6]
    big = await ann.request({"type": "list_replays", "limit": 10_000})
    assert len(big["games"]) == 50
    assert await ann.error({"type": "list_replays", "limit": 0}) == "bad_option"
    assert await ann.error({"type": "list_replays", "before": "x"}) == "bad_request"


async def test_replays_have_their_own_smaller_rate(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(replays_per_second=0.001, replays_burst=3)
    ann = await connect(server.port, "Ann")
    for _ in range(3):
        assert (await ann.request({"type": "list_replays"}))["type"] == "replays"
    assert await ann.error({"type": "list_replays"}) == "rate_limited"
    assert await ann.error({"type": "get_replay", "game": 1}) == "rate_limited"
    assert (await ann.request({"type": "ping"}))["type"] == "pong"  # other requests go on
    bob = await connect(server.port, "Bob")  # the same address: its bucket is empty too
    assert await bob.error({"type": "list_replays"}) == "rate_limited"


def test_an_older_database_gets_its_replays_indexed(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    store = Store(str(db))
    public = _finished(store, "pann00001", public=True)
    private = _finished(store, "pann00001", public=False)
    store.close()
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP TABLE replays")  # as before the table existed
        conn.execute("UPDATE games SET seats = '{bad' WHERE id = ?", (private,))
    conn.close()
    store = Store(str(db))
    assert [g.id for g in store.finished_games(50, "pann00001")] == [public]
    store.close()


def test_the_client_library_reads_the_cursor() -> None:
    conn = ClientConnection()
    conn.hello("Ann")
    conn.data_to_send()
    welcome = WelcomeMessage(id=1, player="p1", token="t", server="s").to_wire()
    list(conn.receive_data(encode(welcome)))
    sent = conn.send(ListReplays(before=40, limit=10))
    assert unpack(conn.data_to_send()[4:]) == {
        "type": "list_replays",
        "before": 40,
        "limit": 10,
        "id": sent.id,
    }
    reply = {"type": "replays", "games": [], "next": 31, "id": sent.id}
    (event,) = conn.receive_data(encode(reply))
    assert isinstance(event, Replays) and event.next == 31 and event.request == sent


# ---------------------------------------------------------------- 6: rooms nobody plays in


def _closed_notices(conn: FakeConnection) -> list[Message]:
    return [m for m in conn.inbox if m["type"] == "error" and m["code"] == "room_closed"]


def test_a_room_nobody_starts_expires_though_its_host_stays() -> None:
    h = Harness(waiting_room_timeout=600.0, max_rooms_per_address=1)
    ann, ann_p = h.client("Ann")
    code = h.request(ann, ann_p, CREATE)["room"]
    h.clock.advance(590)
    h.request(ann, ann_p, {"type": "chat", "room": code, "text": "anyone?"})  # still there
    assert code in h.lobby.rooms and not _closed_notices(ann)
    h.clock.advance(15)
    assert code not in h.lobby.rooms and ann_p.rooms == []
    (notice,) = _closed_notices(ann)
    assert notice["room"] == code and "10 minutes" in notice["message"] and "id" not in notice
    # the address's quota is free again
    assert h.request(ann, ann_p, CREATE)["type"] != "error"


def test_a_started_game_does_not_expire_and_a_finished_one_does() -> None:
    h = Harness(waiting_room_timeout=600.0)
    ann, ann_p = h.client("Ann")
    # the longest idle grace, so that no bot steps in for Ann while the game waits for her
    code = h.request(ann, ann_p, {**CREATE, "bots": 1, "seed": 3, "idle_grace": 1_800})["room"]
    h.clock.advance(300)
    h.request(ann, ann_p, {"type": "start", "room": code})
    h.clock.advance(1_000)  # the game waits for Ann: it runs, it is no squatter
    room = h.lobby.rooms[code]
    assert room.playing()
    room._finish()  # the game ends (as its last decision would end it)
    h.clock.advance(590)
    assert code in h.lobby.rooms
    h.clock.advance(15)  # nobody rematched
    assert code not in h.lobby.rooms and _closed_notices(ann)


def test_a_full_server_makes_room_for_a_newcomer_from_the_idlest_room() -> None:
    h = Harness(max_rooms=3, idle_room_grace=60.0, waiting_room_timeout=0.0)
    squatters = [h.client(f"Sq{n}", address=f"10.0.0.{n}") for n in range(3)]
    codes = [h.request(conn, p, CREATE)["room"] for conn, p in squatters]
    new, new_p = h.client("New", address="10.9.9.9")
    assert h.request(new, new_p, CREATE)["code"] == "server_full"  # everyone acted just now
    h.clock.advance(30)
    conn, p = squatters[0]
    h.request(conn, p, {"type": "add_bot", "room": codes[0]})  # acting keeps a room
    conn, p = squatters[1]
    h.request(conn, p, {"type": "sync", "room": codes[1]})  # asking for it again does not
    h.clock.advance(40)  # the other two have not acted for 70 s, room 0 for 40 s
    assert h.request(new, new_p, CREATE)["type"] != "error"
    assert codes[0] in h.lobby.rooms and codes[1] not in h.lobby.rooms
    assert _closed_notices(squatters[1][0])[0]["room"] == codes[1]
    assert h.request(new, new_p, CREATE)["type"] != "error"  # and the next idlest
    assert codes[2] not in h.lobby.rooms and len(h.lobby.rooms) == 3
    # every room left belongs to people who acted within the grace: the server is full
    late, late_p = h.client("Late", address="10.9.9.8")
    assert h.request(late, late_p, CREATE)["code"] == "server_full"


def test_a_spectator_does_not_keep_a_room_alive() -> None:
    h = Harness(max_rooms=1, idle_room_grace=60.0, waiting_room_timeout=0.0)
    sq, sq_p = h.client("Sq", address="10.0.0.1")
    code = h.request(sq, sq_p, CREATE)["room"]
    fan, fan_p = h.client("Fan", address="10.0.0.2")
    h.request(fan, fan_p, {"type": "join_room", "room": code, "as": "spectator"})
    h.clock.advance(50)
    h.request(fan, fan_p, {"type": "chat", "room": code, "text": "hi"})
    h.clock.advance(20)
    new, new_p = h.client("New", address="10.9.9.9")
    assert h.request(new, new_p, CREATE)["type"] != "error"
    assert code not in h.lobby.rooms


def test_room_caps_count_an_ipv6_network_as_one_address() -> None:
    h = Harness(max_rooms_per_address=2, max_rooms_per_player=10)
    same = address_group("2001:db8:1:2::5", 64)
    assert same == address_group("2001:db8:1:2:ffff::9", 64) == "2001:db8:1:2::/64"
    conn, p = h.client("Ann", address=same)
    for _ in range(2):
        assert h.request(conn, p, CREATE)["type"] != "error"
    assert h.request(conn, p, CREATE)["code"] == "too_many_rooms"
    other, other_p = h.client("Bob", address=address_group("2001:db8:1:3::5", 64))
    assert h.request(other, other_p, CREATE)["type"] != "error"


@pytest.mark.parametrize(
    ("ip", "prefix", "group"),
    [
        ("192.0.2.7", 64, "192.0.2.7"),
        ("::ffff:192.0.2.7", 64, "192.0.2.7"),
        ("2001:db8::1", 64, "2001:db8::/64"),
        ("2001:db8:0:0:1::1", 48, "2001:db8::/48"),
        ("2001:db8::1", 128, "2001:db8::1/128"),
        ("fe80::1%lo", 64, "fe80::/64"),
        ("/run/selfish.sock", 64, "/run/selfish.sock"),
    ],
)
def test_address_groups(ip: str, prefix: int, group: str) -> None:
    assert address_group(ip, prefix) == group


class _Transport:
    """A transport as a connection from another host on the Internet shows it."""

    def __init__(self, peer: tuple[str, int, int, int]) -> None:
        self.peer = peer
        self.closed = False

    def get_extra_info(self, name: str) -> object:
        return self.peer if name == "peername" else None

    def close(self) -> None:
        self.closed = True


class _Refuse:
    def admit(self, session: object) -> bool:
        return False  # the registry's answer does not matter here


async def test_a_connection_counts_under_its_ipv6_network(
    make_server: ServerFactory,
) -> None:
    server = await make_server(ipv6_prefix=56)
    session = server.new_session()
    session.registry = _Refuse()  # type: ignore[assignment]
    session.connection_made(_Transport(("2001:db8:0:1ff::77", 5000, 0, 0)))  # type: ignore[arg-type]
    assert session.address == "2001:db8:0:100::/56" and session.peer == "2001:db8:0:1ff::77:5000"


async def test_over_ipv6_tcp_the_room_cap_holds_for_the_network(
    make_server: ServerFactory,
) -> None:
    server = await make_server(host="::1", max_rooms_per_address=1, max_rooms_per_player=4)
    reader, writer = await asyncio.open_connection("::1", server.port)
    ann = Client(reader, writer)
    await ann.hello("Ann")
    assert (await ann.request(CREATE))["type"] == "joined"
    assert await ann.error(CREATE) == "too_many_rooms"
    assert dict(server.lobby.rooms_by_address) == {"::/64": 1}
    await ann.close()


# ---------------------------------------------------------------- 3: list_rooms


def test_list_rooms_packs_each_entry_once_per_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other listing that grew with what the server holds: 1,000 rooms' entries cost 37 ms
    a call. Now a call packs only the entries that changed since the last one."""
    h = Harness(max_rooms_per_player=1_000, max_rooms_per_address=1_000)
    ann, ann_p = h.client("Ann")
    codes = [h.request(ann, ann_p, {**CREATE, "seats": 3})["room"] for _ in range(200)]
    built = []
    real = outgoing.room_summary
    monkeypatch.setattr(outgoing, "room_summary", lambda room: built.append(room) or real(room))
    listing = h.request(ann, ann_p, {"type": "list_rooms", "id": 1})
    assert [r["room"] for r in listing["rooms"]] == codes and len(built) == 200
    rooms = h.lobby.rooms
    summaries = tuple(real(rooms[code]) for code in codes)
    assert listing == RoomsMessage(id=1, rooms=summaries).to_wire()
    built.clear()
    h.request(ann, ann_p, {"type": "list_rooms"})
    assert built == []  # nothing changed: nothing built
    bob, bob_p = h.client("Bob")
    h.request(bob, bob_p, {"type": "join_room", "room": codes[7]})
    again = h.request(ann, ann_p, {"type": "list_rooms"})
    assert built == [rooms[codes[7]]] and again["rooms"][7]["filled"] == 2
