"""Hardening: each test reproduces one attack on the server.

Most run in memory (tests.server.harness: the lobby, fake connections, a fake clock); the ones
about the socket layer (connections, frames, floods) go through real TCP on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import stat
import struct
from pathlib import Path

import msgpack
import pytest

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import PRIVATE_ROOM_CODE_LENGTH, parse_client
from protocol.names import check_name
from server.admin import main as admin_main
from server.errorlog import ErrorLog
from server.limits.addresses import address_group
from server.store.retention import Retention
from server.store.store import Store
from tests.server.conftest import Client, ClientFactory, ServerFactory
from tests.server.harness import FakeScheduler, Harness

CREATE = {"type": "create_room", "edition": "space", "seats": 2}
BOT_GAME = {**CREATE, "bots": 1, "autostart": True}


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


# ---------------------------------------------------------------- 3: names


@pytest.mark.parametrize(
    "name",
    ["\u3164", "\u2800\u2800\u2800", "\u115f\u1160", "a\u0301"[1:] * 3, "\u200b", "\uffa0 \u3164"],
)
def test_invisible_names_are_refused(name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_name(name)
    assert caught.value.code == ErrorCode.BAD_NAME


@pytest.mark.parametrize("name", ["Bot 1", "bot 12", "BOT3", "\uff22\uff4f\uff54\uff11"])
def test_a_bots_name_is_refused(name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        check_name(name)
    assert caught.value.code == ErrorCode.BAD_NAME and "bots" in caught.value.message


@pytest.mark.parametrize("name", ["Ann", "\u674e\u96f7", "Bot lover", "robot 7", "\u3164A"])
def test_visible_names_still_pass(name: str) -> None:
    assert check_name(name) == name


# ---------------------------------------------------------------- 4: per address, per identity


async def test_chat_limit_holds_across_reconnects() -> None:
    h = Harness(chat_burst=3, chat_per_second=1.0)
    conn, ann = h.client("Ann")
    code = h.request(conn, ann, CREATE)["room"]
    token = next(m["token"] for m in conn.inbox if m["type"] == "welcome")
    said = []
    for n in range(10):  # each line from a fresh connection of the same identity
        h.disconnect(conn, ann)
        conn = h.connect()
        h.hello(conn, "Ann", token)
        said.append(h.request(conn, ann, {"type": "chat", "room": code, "text": f"x{n}"}))
    assert sum(1 for r in said if r["type"] == "chat") == 3
    assert said[-1]["code"] == "rate_limited"


async def test_chat_limit_per_address_across_identities() -> None:
    h = Harness(address_chat_burst=4, address_chat_per_second=1.0)
    host, host_p = h.client("Host")
    code = h.request(host, host_p, CREATE)["room"]
    replies = []
    for n in range(8):  # a new identity for every line, all from one address
        conn, p = h.client(f"P{n}")
        h.request(conn, p, {"type": "join_room", "room": code, "as": "spectator"})
        replies.append(h.request(conn, p, {"type": "chat", "room": code, "text": "spam"}))
    assert [r["type"] for r in replies].count("chat") == 4
    other, other_p = h.client("Far", address="10.9.9.9")  # another address is not affected
    h.request(other, other_p, {"type": "join_room", "room": code, "as": "spectator"})
    assert h.request(other, other_p, {"type": "chat", "room": code, "text": "hi"})["type"] == "chat"


async def test_room_creation_is_limited_per_address() -> None:
    h = Harness(rooms_burst=5, rooms_per_second=0.1, max_rooms_per_player=100)
    results = []
    for n in range(12):  # create and leave: the open-room quota never fills, the rate does
        conn, p = h.client(f"Z{n}")
        reply = h.request(conn, p, CREATE)
        results.append(reply.get("code", "joined"))
        if reply["type"] == "joined":
            h.request(conn, p, {"type": "leave_room", "room": reply["room"]})
    assert results[:5] == ["joined"] * 5 and set(results[5:]) == {"rate_limited"}
    h.clock.advance(10)  # one more after the refill
    conn, p = h.client("Later")
    assert h.request(conn, p, CREATE)["type"] != "error"


async def test_reconnects_with_a_token_are_limited() -> None:
    h = Harness(resumes_burst=5, resumes_per_second=0.5)
    conn, _ = h.client("Ann")
    token = next(m["token"] for m in conn.inbox if m["type"] == "welcome")
    outcomes = []
    for _ in range(20):
        again = h.connect()
        try:
            h.hello(again, "Ann", token)
            outcomes.append("welcome")
        except ProtocolError as exc:
            outcomes.append(str(exc.code))
    assert outcomes.count("welcome") == 5 and outcomes[-1] == "rate_limited"


async def test_connections_opened_per_address_are_limited(
    make_server: ServerFactory,
) -> None:
    server = await make_server(connections_burst=5, connections_per_second=0.1)
    refused = 0
    clients = []
    for _ in range(12):  # open and close at once: never more than one at a time
        client = await Client.connect(server.port)
        clients.append(client)
        if await client.closed(timeout=0.2):
            refused += 1
        await client.close()
    assert refused == 7
    assert server.lobby.limits.connections.allow("127.0.0.2")  # per address


async def test_message_rate_is_shared_by_an_addresss_connections(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(address_rate_burst=20, address_rate_per_second=0.1)
    clients = [await connect(server.port) for _ in range(4)]
    for client in clients:
        for i in range(10):
            client.send({"type": "ping", "id": i})
    pongs = 0
    for client in clients:
        while True:
            try:
                msg = await client.recv(timeout=0.3)
            except (TimeoutError, ConnectionError):
                break
            pongs += msg["type"] == "pong"
    assert pongs == 20  # the address's burst, not four connections' worth


# ---------------------------------------------------------------- 5: floods


async def test_dropped_frames_are_not_decoded_and_a_flood_is_closed(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(rate_per_second=1.0, rate_burst=5, flood_limit=30)
    flood = await connect(server.port)
    for i in range(5):
        flood.send({"type": "ping", "id": i})
    # Over the limit now: a body that is not msgpack is dropped unread (no bad_frame) ...
    flood.send_raw(struct.pack(">I", 2) + b"\xc1\xc1")
    for i in range(10):
        flood.send({"type": "ping", "id": 100 + i})
    seen = []
    with pytest.raises((TimeoutError, ConnectionError)):
        while True:
            seen.append(await flood.recv(timeout=0.3))
    assert [m["type"] for m in seen] == ["pong"] * 5 + ["error"]
    assert seen[-1]["code"] == "rate_limited"  # once, not once per dropped frame
    # ... and a connection that keeps going past flood_limit is cut off.
    for i in range(40):
        flood.send({"type": "ping", "id": 200 + i})
    assert await flood.closed(timeout=3)
    assert any(m.get("message") == "too many messages; closing" for m in flood.seen)
    calm = await connect(server.port, "Calm")
    assert (await calm.request({"type": "ping"}))["type"] == "pong"


# ---------------------------------------------------------------- 6: spectators


async def test_offline_spectators_leave_and_are_capped() -> None:
    h = Harness(max_spectators=5)
    host, host_p = h.client("Host")
    code = h.request(host, host_p, CREATE)["room"]
    room = h.lobby.rooms[code]
    for n in range(100):  # join, vanish
        conn, p = h.client(f"S{n}")
        assert h.request(conn, p, {"type": "join_room", "room": code, "as": "spectator"})
        h.disconnect(conn, p)
    assert list(room.members) == [host_p.id]
    watchers = [h.client(f"W{n}") for n in range(6)]
    replies = [
        h.request(c, p, {"type": "join_room", "room": code, "as": "spectator"}) for c, p in watchers
    ]
    assert [r.get("code") for r in replies].count("room_full") == 1


async def test_presence_broadcasts_are_coalesced() -> None:
    h = Harness(room_broadcast_interval=0.25, max_spectators=50)
    host, host_p = h.client("Host")
    code = h.request(host, host_p, CREATE)["room"]
    before = len(host.of_type("room"))
    for n in range(40):  # within one instant: 40 joins, 40 leaves
        conn, p = h.client(f"S{n}")
        h.request(conn, p, {"type": "join_room", "room": code, "as": "spectator"})
        h.disconnect(conn, p)
    assert len(host.of_type("room")) - before <= 1
    h.clock.advance(1.0)
    rooms = host.of_type("room")
    assert len(rooms) - before == 2 and rooms[-1]["spectators"] == []  # the latest state


async def test_a_reconnecting_player_gets_its_room_at_once() -> None:
    h = Harness(room_broadcast_interval=10.0)
    host, host_p = h.client("Host")
    code = h.request(host, host_p, CREATE)["room"]
    token = next(m["token"] for m in host.inbox if m["type"] == "welcome")
    for _ in range(5):
        h.disconnect(host, host_p)
        host = h.connect()
        h.hello(host, "Host", token)
        kinds = [m["type"] for m in host.inbox]
        assert kinds[:3] == ["welcome", "joined", "room"] and host.inbox[2]["room"] == code


# ---------------------------------------------------------------- 7: privacy


async def test_one_answer_for_missing_and_not_yours() -> None:
    h = Harness()
    owner, owner_p = h.client("Own")
    code = h.request(owner, owner_p, {**CREATE, "public": False})["room"]
    assert len(code) == PRIVATE_ROOM_CODE_LENGTH
    assert len(h.request(owner, owner_p, CREATE)["room"]) == 4  # public rooms keep 4 letters
    spy, spy_p = h.client("Spy")
    missing = "Q" * PRIVATE_ROOM_CODE_LENGTH
    for kind in ("sync", "leave_room", "chat", "back", "start", "rematch"):
        message = {"type": kind, "text": "x"}
        real = h.request(spy, spy_p, {**message, "room": code})
        fake = h.request(spy, spy_p, {**message, "room": missing})
        assert real["code"] == fake["code"] == "no_such_room", kind
        assert real["message"].replace(code, "?") == fake["message"].replace(missing, "?")
    act = {"type": "act", "version": 0, "choice": 0}
    assert h.request(spy, spy_p, {**act, "room": code})["code"] == "no_such_room"
    listed = h.request(spy, spy_p, {"type": "list_rooms"})["rooms"]
    assert code not in [r["room"] for r in listed]


async def test_replays_of_a_private_game_go_to_its_players_only() -> None:
    h = Harness()
    ann, ann_p = h.client("Ann")
    code = h.request(ann, ann_p, {**BOT_GAME, "public": False, "seed": 4})["room"]
    room = h.lobby.rooms[code]
    game = room.game_id
    assert game is not None
    h.store.finish_game(game, "over", 0, 10)  # as if played to its end
    spy, spy_p = h.client("Spy")
    assert h.request(spy, spy_p, {"type": "list_replays"})["games"] == []
    assert h.request(spy, spy_p, {"type": "get_replay", "game": game})["code"] == "no_such_game"
    assert [g["game"] for g in h.request(ann, ann_p, {"type": "list_replays"})["games"]] == [game]
    assert h.request(ann, ann_p, {"type": "get_replay", "game": game})["seed"] == 4
    h.lobby.shutdown()


# ---------------------------------------------------------------- 8: squatting


async def test_a_game_whose_humans_are_gone_frees_its_room(tmp_path: Path) -> None:
    h = Harness(Store(str(tmp_path / "s.sqlite3")), absent_game_timeout=3600.0)
    conn, squatter = h.client("Sq")
    code = h.request(conn, squatter, BOT_GAME)["room"]
    await settle()
    room = h.lobby.rooms[code]
    assert room.status == "playing" and h.lobby.rooms_by_address["10.0.0.1"] == 1
    h.disconnect(conn, squatter)
    h.clock.advance(3599)
    assert code in h.lobby.rooms  # they may still come back
    h.clock.advance(2)
    assert code not in h.lobby.rooms and not h.lobby.rooms_by_address
    stored = h.store.game(room.game_id)  # type: ignore[arg-type]
    assert stored is not None and stored.status == "abandoned"


async def test_coming_back_in_time_keeps_the_game() -> None:
    h = Harness(absent_game_timeout=100.0)
    conn, ann = h.client("Ann")
    # the longest idle grace: no bot plays the game to its end while it waits for Ann
    code = h.request(conn, ann, {**BOT_GAME, "idle_grace": 1_800})["room"]
    token = next(m["token"] for m in conn.inbox if m["type"] == "welcome")
    await settle()
    for _ in range(50):  # reconnect cycling: one timer, moved, never one per disconnect
        h.disconnect(conn, ann)
        conn = h.connect()
        h.hello(conn, "Ann", token)
    h.disconnect(conn, ann)
    assert len(h.lobby.vacancy) == 1
    h.clock.advance(99)
    conn = h.connect()
    h.hello(conn, "Ann", token)
    h.clock.advance(1000)
    assert code in h.lobby.rooms
    h.lobby.shutdown()


async def test_a_waiting_room_with_nobody_connected_closes() -> None:
    h = Harness(empty_room_grace=60.0)
    conn, ann = h.client("Ann")
    code = h.request(conn, ann, {**CREATE, "seats": 3, "bots": 1})["room"]
    h.disconnect(conn, ann)
    h.clock.advance(61)
    assert code not in h.lobby.rooms


async def test_room_quotas_survive_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "s.sqlite3")
    h = Harness(Store(db), max_rooms_per_address=2)
    for n in range(2):
        conn, p = h.client(f"Z{n}", address="10.1.1.1")
        h.request(conn, p, BOT_GAME)
    h.lobby.shutdown()
    h.store.close()
    again = Harness(Store(db), max_rooms_per_address=2)
    assert again.lobby.rooms_by_address["10.1.1.1"] == 2
    conn, p = again.client("Z9", address="10.1.1.1")
    assert again.request(conn, p, BOT_GAME)["code"] == "too_many_rooms"
    again.lobby.shutdown()


# ---------------------------------------------------------------- 9: growth


@pytest.mark.parametrize(
    "message",
    [
        {"type": "get_replay", "game": 2**63},
        {"type": "get_replay", "game": -(2**70)},
        {"type": "remove_bot", "room": "ABCD", "seat": 2**64 - 1},
        {"type": "act", "room": "ABCD", "version": 2**63, "choice": 0},
        {"type": "act", "room": "ABCD", "version": 0, "choice": 2**63},
        {"type": "ping", "id": 2**64 - 1},
    ],
)
def test_huge_integers_are_bad_requests(message: dict[str, object]) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client(message)
    assert caught.value.code == ErrorCode.BAD_REQUEST


def test_failing_requests_are_logged_at_a_bounded_rate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeScheduler()
    errors = ErrorLog(10, clock.time)
    for _ in range(1000):
        try:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        except OverflowError:
            errors.exception("request 'get_replay'", "10.0.0.1:1")
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 10 and errors.suppressed == 990
    clock.advance(60)
    try:
        raise OverflowError("again")
    except OverflowError:
        errors.exception("request 'get_replay'", "10.0.0.1:1")
    assert "990 more failing requests were not logged" in caplog.text


async def test_retention_prunes_abandoned_games_and_unused_identities(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.sqlite3"
    h = Harness(Store(str(db)))
    # Create and leave, ten times: ten abandoned games.
    for n in range(10):
        conn, p = h.client(f"L{n}")
        code = h.request(conn, p, BOT_GAME)["room"]
        await settle()
        h.request(conn, p, {"type": "leave_room", "room": code})
        h.disconnect(conn, p)
    keeper, keeper_p = h.client("Keep")
    h.request(keeper, keeper_p, BOT_GAME)  # seated in an unfinished game
    h.disconnect(keeper, keeper_p)
    players, games, _ = h.store.size()
    assert (players, games) == (11, 11)
    config = h.config.replace(abandoned_retention=86_400.0, identity_retention=86_400.0)
    now = [0.0]
    import time

    now[0] = time.time()
    retention = Retention(config, h.store, h.lobby, wall=lambda: now[0])
    assert retention.sweep() == (0, 0)  # nothing is old yet
    now[0] += 2 * 86_400
    assert retention.sweep() == (10, 10)
    assert h.store.size()[:2] == (1, 1)
    assert set(h.lobby.players) == {keeper_p.id}
    h.lobby.shutdown()


# ---------------------------------------------------------------- 10: slots and memory


async def test_a_connection_must_say_hello_in_time(make_server: ServerFactory) -> None:
    server = await make_server(hello_timeout=0.3, idle_timeout=60.0)
    idle = await Client.connect(server.port)
    loop = asyncio.get_running_loop()
    start = loop.time()
    for _ in range(3):  # pings keep it from being idle, not from saying hello
        idle.send({"type": "ping"})
        await asyncio.sleep(0.1)
    assert await idle.closed(timeout=3)
    assert loop.time() - start < 2
    assert any("hello" in str(m.get("message")) for m in idle.seen if m["type"] == "error")


async def test_a_bare_header_counts_as_a_started_frame(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(frame_timeout=0.3, idle_timeout=60.0)
    staller = await connect(server.port, "Staller")
    staller.send_raw(struct.pack(">I", 60_000))  # a header, then nothing
    assert await staller.closed(timeout=3)
    error = next(m for m in staller.seen if m["type"] == "error")
    assert error["code"] == "idle_timeout" and "frame" in error["message"]


# ---------------------------------------------------------------- 13, 14, 15, 16


async def test_msgpack_timestamp_is_a_bad_frame(connect: ClientFactory, server) -> None:  # type: ignore[no-untyped-def]
    client = await connect(server.port, "Ext")
    body = msgpack.packb({"type": "ping", "at": msgpack.Timestamp(1, 0)}, datetime=False)
    client.send_raw(struct.pack(">I", len(body)) + body)
    assert await client.closed(timeout=3)
    assert next(m for m in client.seen if m["type"] == "error")["code"] == "bad_frame"


async def test_no_version_banner_unless_asked(make_server: ServerFactory) -> None:
    quiet = await make_server()
    loud = await make_server(announce_version=True)
    for running, expected in ((quiet, "selfish-server"), (loud, None)):
        client = await Client.connect(running.port)
        welcome = await client.hello("Ann")
        if expected is not None:
            assert welcome["server"] == expected
        else:
            assert welcome["server"].startswith("selfish-server ") and welcome["server"] != (
                "selfish-server"
            )
        await client.close()


async def test_tokens_are_stored_hashed_and_can_be_revoked(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    h = Harness(Store(str(db)))
    conn, ann = h.client("Ann")
    token = next(m["token"] for m in conn.inbox if m["type"] == "welcome")
    h.store.commit()
    rows = sqlite3.connect(db).execute("SELECT token FROM players").fetchall()
    assert rows and all(token not in row[0] for row in rows)  # not in plaintext
    assert admin_main(["--db", str(db), "revoke", ann.id]) == 0
    with pytest.raises(ProtocolError) as caught:
        h.hello(h.connect(), "Ann", token)  # the running server sees it at once
    assert caught.value.code == ErrorCode.BAD_TOKEN
    assert admin_main(["--db", str(db), "revoke", "pnobody"]) == 1


async def test_a_revoked_token_stays_revoked_after_a_restart(tmp_path: Path) -> None:
    """Revoking writes "revoked:<id>" where the hash was; a restart must not take that for an
    old plaintext token and hash it: ids are public, so anybody could then resume as the
    revoked player."""
    db = tmp_path / "s.sqlite3"
    h = Harness(Store(str(db)))
    conn, ann = h.client("Ann")
    token = next(m["token"] for m in conn.inbox if m["type"] == "welcome")
    h.lobby.shutdown()
    h.store.close()
    assert admin_main(["--db", str(db), "revoke", ann.id]) == 0
    again = Harness(Store(str(db)))
    for guess in (token, f"revoked:{ann.id}"):
        with pytest.raises(ProtocolError) as caught:
            again.hello(again.connect(), "Mallory", guess)
        assert caught.value.code == ErrorCode.BAD_TOKEN
    again.lobby.shutdown()
    again.store.close()


def test_old_plaintext_tokens_are_hashed_on_open(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    Store(str(db)).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO players (id, token, name, created) VALUES ('p1', 'tok', 'A', 0)")
    conn.commit()
    conn.close()
    store = Store(str(db))
    assert [t for _, t, _ in store.players()] != ["tok"]
    store.close()


def test_local_play_room_is_private_and_its_files_are_the_accounts(
    tmp_path: Path,
) -> None:
    from selfish_tui.local import EmbeddedServer

    db = tmp_path / "data" / "local.sqlite3"
    log = tmp_path / "data" / "local-server.log"

    async def scenario(port: int) -> None:
        me = await Client.connect(port)
        await me.hello("Me")
        joined = await me.request({**BOT_GAME, "public": False})
        code = joined["room"]
        assert len(code) == PRIVATE_ROOM_CODE_LENGTH
        other = await Client.connect(port)  # another local account
        await other.hello("Other")
        assert code not in [
            r["room"] for r in (await other.request({"type": "list_rooms"}))["rooms"]
        ]
        for guess in ("ABCD", code[:4], "A" * PRIVATE_ROOM_CODE_LENGTH):
            assert await other.error({"type": "sync", "room": guess}) == "no_such_room"
        await me.close()
        await other.close()

    logger = logging.getLogger("selfish")
    handlers, propagate, level = list(logger.handlers), logger.propagate, logger.level
    try:
        with EmbeddedServer(db, log_file=log, bot_delay=0.0) as server:
            asyncio.run(scenario(server.port))
    finally:  # the embedded server sends the log to its file: give it back to the others
        for handler in logger.handlers[len(handlers) :]:
            handler.close()
        logger.handlers[:] = handlers
        logger.propagate, logger.level = propagate, level
    for path in (db, log):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


# ---------------------------------------------------------------- frames, logs, sync, slots, leaves


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


async def test_a_frame_dear_to_decode_is_a_bad_frame_before_hello(
    make_server: ServerFactory,
) -> None:
    server = await make_server()
    client = await Client.connect(server.port)
    client.send_raw(_frame(msgpack.packb({"type": "ping", "pad": [[]] * 65_000})))
    assert await client.closed(timeout=3)
    error = next(m for m in client.seen if m["type"] == "error")
    assert error["code"] == "bad_frame" and "max_array_len" in error["message"]


async def test_decoded_bytes_are_budgeted_per_address_before_hello(
    make_server: ServerFactory,
) -> None:
    server = await make_server(address_bytes_per_second=1.0, address_bytes_burst=3_000)
    pad = {"type": "ping", "pad": "x" * 900}  # a ~920-byte body
    first, second = await Client.connect(server.port), await Client.connect(server.port)
    for i in range(2):
        first.send({**pad, "id": i})
    for i in range(2):  # another connection of the same address: the same budget
        second.send({**pad, "id": 10 + i})
    answers = []
    for client in (first, second):
        with contextlib.suppress(TimeoutError):
            while True:
                answers.append(await client.recv(timeout=0.5))
    assert [m["type"] for m in answers].count("pong") == 3  # 3 x 920 bytes fit in 3,000
    dropped = [m for m in answers if m["type"] == "error"]
    assert dropped and dropped[0]["code"] == "rate_limited" and "id" not in dropped[0]
    for client in (first, second):
        await client.close()


async def test_deep_frames_are_bad_frames_and_log_no_traceback(
    make_server: ServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server = await make_server()
    client = await Client.connect(server.port)
    body = b"\x83\xa4type\xa4ping\xa1x\xff\xa3pad" + b"\x91" * 900 + b"\x90"  # 914 bytes
    client.send_raw(_frame(body) * 20)
    assert await client.closed(timeout=3)
    error = next(m for m in client.seen if m["type"] == "error")
    assert error["code"] == "bad_frame" and "nested deeper" in error["message"]
    assert not [r for r in caplog.records if r.exc_info or "Fatal error" in r.getMessage()]
    calm = await Client.connect(server.port)
    await calm.hello("Calm")  # the server is fine
    await calm.close()


async def test_log_lines_clients_cause_are_budgeted(
    make_server: ServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "selfish.server")
    server = await make_server(
        log_lines_per_minute=5, connections_burst=2, connections_per_second=0.01
    )
    clients = [await Client.connect(server.port) for _ in range(30)]  # 28 refused
    for client in clients:
        await client.closed(timeout=0.5)
        await client.close()
    caused = [r for r in caplog.records if r.getMessage().startswith("127.0.0.1")]
    assert 0 < len(caused) <= 5  # connected, refused, ...: 5 of some 60
    assert server.lobby.errors.suppressed_lines > 20


def test_error_log_lines_keep_their_budget_apart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "selfish.server")
    clock = FakeScheduler()
    errors = ErrorLog(10, clock.time, lines_per_minute=3)
    for n in range(10):
        errors.line(logging.INFO, "line %d", n)
    assert [r.getMessage() for r in caplog.records] == ["line 0", "line 1", "line 2"]
    assert errors.suppressed_lines == 7 and errors.suppressed == 0
    clock.advance(20)  # one line's worth
    errors.line(logging.INFO, "line %d", 10)
    assert caplog.records[-2].getMessage().startswith("7 log lines caused by clients")
    assert caplog.records[-1].getMessage() == "line 10"


async def test_sync_is_limited_per_identity_and_per_address() -> None:
    h = Harness(
        syncs_burst=2, syncs_per_second=0.5, address_syncs_burst=3, address_syncs_per_second=0.01
    )
    host, host_p = h.client("Host", address="10.0.0.1")
    code = h.request(host, host_p, {**CREATE, "bots": 1})["room"]
    h.request(host, host_p, {"type": "start", "room": code})
    sync = {"type": "sync", "room": code}
    assert [h.request(host, host_p, sync).get("code") for _ in range(3)] == [
        None,
        None,
        "rate_limited",  # the identity's burst of 2
    ]
    h.clock.advance(2.0)  # one sync's worth for the identity
    before = len(host.inbox)
    assert h.request(host, host_p, sync).get("code") is None
    assert any(m["type"] == "events" and m["history"] for m in host.inbox[before:])
    # Another identity of the same address: the address's burst of 3 is spent.
    other, other_p = h.client("Spy", address="10.0.0.1")
    h.request(other, other_p, {"type": "join_room", "room": code, "as": "spectator"})
    assert h.request(other, other_p, sync)["code"] == "rate_limited"
    far, far_p = h.client("Far", address="10.9.9.9")  # another address is not affected
    h.request(far, far_p, {"type": "join_room", "room": code, "as": "spectator"})
    assert h.request(far, far_p, sync).get("code") is None
    h.lobby.shutdown()


async def test_the_oldest_unidentified_connection_makes_way(
    make_server: ServerFactory,
) -> None:
    server = await make_server(max_connections=4, max_unidentified_share=0.5)
    ann = await Client.connect(server.port)
    await ann.hello("Ann")
    silent = [await Client.connect(server.port) for _ in range(2)]  # the share: 2 of 4
    newcomer = await Client.connect(server.port)  # a third: the oldest silent one goes
    assert await silent[0].closed(timeout=3)
    error = next(m for m in silent[0].seen if m["type"] == "error")
    assert error["code"] == "too_many_connections" and "hello" in error["message"]
    await newcomer.hello("New")
    assert not await silent[1].closed(timeout=0.2)
    # Full (Ann, New, the silent one, one more): the next newcomer takes the silent one's slot.
    bob = await Client.connect(server.port)
    await bob.hello("Bob")
    late = await Client.connect(server.port)
    assert await silent[1].closed(timeout=3)
    await late.hello("Late")
    # Full of identified connections: now a newcomer is refused, and nobody is closed.
    refused = await Client.connect(server.port)
    assert await refused.closed(timeout=3)
    assert next(m for m in refused.seen if m["type"] == "error")["message"] == (
        "the server is full"
    )
    for client in (ann, newcomer, bob, late):
        assert (await client.request({"type": "ping"}))["type"] == "pong"
        await client.close()


async def test_leaves_are_coalesced_like_joins() -> None:
    h = Harness(room_broadcast_interval=0.25, max_spectators=50)
    host, host_p = h.client("Host")
    code = h.request(host, host_p, CREATE)["room"]
    watchers = [h.client(f"S{n}") for n in range(20)]
    before = len(host.of_type("room"))
    for _ in range(5):  # at the message rate: join, leave, join, leave ...
        for conn, p in watchers:
            h.request(conn, p, {"type": "join_room", "room": code, "as": "spectator"})
            h.request(conn, p, {"type": "leave_room", "room": code})
    assert len(host.of_type("room")) - before <= 1
    h.clock.advance(1.0)
    rooms = host.of_type("room")
    assert len(rooms) - before == 2 and rooms[-1]["spectators"] == []
    # A player's leave too: the seat is free in the next update, not in one of its own.
    bob, bob_p = h.client("Bob")
    h.request(bob, bob_p, {"type": "join_room", "room": code})
    h.request(bob, bob_p, {"type": "leave_room", "room": code})
    h.clock.advance(1.0)
    assert host.of_type("room")[-1]["seats"][1] is None


def test_r2_per_address_limits_group_ipv6_by_prefix() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:bbbb::9")
    assert address_group("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("2001:db8:1:2::1", 48) == "2001:db8:1::/48"
    assert address_group("203.0.113.7") == "203.0.113.7"
    assert address_group("::ffff:203.0.113.7") == "203.0.113.7"
    assert address_group("local") == "local"  # the SSH gateway's local processes


async def test_a_closing_connection_is_read_no_further_than_64_kib(
    make_server: ServerFactory,
) -> None:
    """After a bad frame the server reads on a little (so the client gets its error rather than
    a reset), but a client that goes on writing as fast as it can is no longer read."""
    server = await make_server()
    client = await Client.connect(server.port)
    client.send_raw(_frame(b"\xc1") + b"\x00" * 2_000_000)
    loop = asyncio.get_running_loop()
    end = loop.time() + 5
    while not server.sessions or any(s.transport.is_reading() for s in server.sessions):
        assert loop.time() < end, "the closing connection was still read"
        await asyncio.sleep(0.01)
    session = next(iter(server.sessions))
    assert session.closing and 65_536 < session._discarded < 2_000_000
    await client.close()


async def test_r2_an_ipv6_64_counts_as_one_address() -> None:
    """A host picking a new address of its /64 for every identity still meets the limit on new
    identities per address (and chat, resumes, syncs alike); another /64 does not."""
    h = Harness(new_players_burst=2, new_players_per_second=0.001)
    for n in range(2):
        h.client(f"V{n}", address=f"2001:db8:1:2::{n + 1:x}")
    with pytest.raises(ProtocolError) as caught:
        h.client("V3", address="2001:db8:1:2:ffff::3")
    assert caught.value.code == ErrorCode.RATE_LIMITED
    h.client("Other", address="2001:db8:1:3::1")
