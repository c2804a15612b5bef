"""Storage faults lose nothing.

A fault-injecting SQLite connection fails writes or commits on demand, as a full disk or an I/O
error would (the tests run as root: a read-only file would not do). The lobby is driven in
memory on a fake clock; one test goes through real TCP and the per-tick commit.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from server.net import tcp
from server.store.store import Store
from tests.server.conftest import ClientFactory, ServerFactory, drive, safe
from tests.server.harness import FakeConnection, Harness, Message

DISK_FULL = "database or disk is full"


class FlakyConnection(sqlite3.Connection):
    """A connection whose writes (``fail_writes``) or commits (``fail_commits``) fail."""

    fail_writes = False
    fail_commits = False

    def _check(self, sql: str) -> None:
        if self.fail_writes and sql.lstrip().split(None, 1)[0].upper() in (
            "INSERT",
            "UPDATE",
            "DELETE",
        ):
            raise sqlite3.OperationalError(DISK_FULL)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().executemany(sql, *args)

    def commit(self) -> None:
        if self.fail_commits:
            raise sqlite3.OperationalError(DISK_FULL)
        super().commit()


def flaky_store(path: Path) -> tuple[Store, FlakyConnection]:
    conns: list[FlakyConnection] = []

    def connect(p: str) -> sqlite3.Connection:
        conn = sqlite3.connect(p, isolation_level="DEFERRED", factory=FlakyConnection)
        assert isinstance(conn, FlakyConnection)
        conns.append(conn)
        return conn

    return Store(str(path), connect=connect), conns[0]


def stored(path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def act_first(h: Harness, conn: FakeConnection, player: Any, code: str) -> Message:
    """Play the first legal choice of the last state ``conn`` was sent."""
    state = next(m for m in reversed(conn.inbox) if m["type"] == "state")
    return h.request(
        conn,
        player,
        {"type": "act", "room": code, "version": state["version"], "choice": safe(state["view"])},
    )


def my_turn(conn: FakeConnection) -> bool:
    state = next(m for m in reversed(conn.inbox) if m["type"] == "state")
    return bool(state["view"]["legal"])


def settle(h: Harness) -> None:
    """Let the rooms' bot timers (due at once: bot_delay 0) run; no time passes."""
    h.clock.advance(0)


async def test_outage_refuses_writes_and_keeps_what_players_saw(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """During an outage every request that needs a write is refused with
    store_unavailable, bots wait too, ids are never reused, and once the disk takes writes
    again every decision players were sent is on disk; the outage is logged once."""
    db = tmp_path / "s.sqlite3"
    store, flaky = flaky_store(db)
    h = Harness(store, store_retry=5.0)
    ann, ann_p = h.client("Ann")
    joined = h.request(
        ann,
        ann_p,
        {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True},
    )
    code = joined["room"]
    other, other_p = h.client("Oli")
    second = h.request(
        other,
        other_p,
        {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True},
    )["room"]
    settle(h)
    first_ids = {h.lobby.rooms[code].game_id, h.lobby.rooms[second].game_id}
    # The disk fills up: the write of Ann's next decision fails at its commit (she is sent
    # the state all the same), and the next act is refused.
    while not my_turn(ann):
        assert act_first(h, ann, ann_p, code)["type"] != "error"
        settle(h)
    flaky.fail_commits = True
    act_first(h, ann, ann_p, code)
    assert not store.writable
    seen = max(m["version"] for m in ann.inbox if m["type"] == "state")
    # Every request that needs a write is refused; bots do not move either.
    room = h.lobby.rooms[code]
    before = room.version
    for message in (
        {"type": "create_room", "edition": "space", "seats": 2},
        {"type": "act", "room": code, "version": room.version, "choice": 0},
    ):
        assert h.request(ann, ann_p, message)["code"] == "store_unavailable"
    newcomer = h.connect("10.0.0.9")
    with pytest.raises(Exception, match="cannot record new players"):
        h.hello(newcomer, "Neo")
    settle(h)
    h.clock.advance(3)
    settle(h)
    assert room.version == before
    # Errors about the outage: one line, however many writes failed.
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "not writable" in errors[0].getMessage()
    # The disk is back: the next retry saves the backlog, in order; games go on.
    flaky.fail_commits = False
    h.clock.advance(5)
    assert store.writable and "writable again" in caplog.text
    game_id = room.game_id
    on_disk = stored(db, "SELECT count(*) FROM decisions WHERE game = ?", game_id)[0][0]
    # every decision Ann was sent a state for (the stalled bot may have moved on since)
    assert on_disk == max(m["version"] for m in ann.inbox if m["type"] == "state") >= seen
    settle(h)
    # Ann's last act may have left her turn going on: she plays it out, then the bot, stalled
    # by the outage, moves on.
    game = room.game
    assert game is not None
    decided = len(game.decisions)
    for _ in range(20):
        if any(seat != 0 for seat, _choice in game.decisions[decided:]):
            break
        if my_turn(ann):
            assert act_first(h, ann, ann_p, code)["type"] != "error"
        settle(h)
    assert any(seat != 0 for seat, _choice in game.decisions[decided:])
    assert room.version > before
    # A new game after the outage gets a fresh id: no id of a rolled-back write is reused.
    third = h.request(ann, ann_p, {"type": "create_room", "edition": "space", "seats": 2})
    h.request(ann, ann_p, {"type": "add_bot", "room": third["room"]})
    h.request(ann, ann_p, {"type": "start", "room": third["room"]})
    new_id = h.lobby.rooms[third["room"]].game_id
    assert new_id not in first_ids and new_id is not None
    ids = [r[0] for r in stored(db, "SELECT id FROM games ORDER BY id")]
    assert len(ids) == len(set(ids)) == 3
    h.lobby.shutdown()
    store.close()


async def test_ids_of_a_rolled_back_game_are_never_handed_out_again(tmp_path: Path) -> None:
    """A game whose record was rolled back (the commit failed) keeps its id; the
    next game, after the outage, gets another one (they were handed to four rooms at once)."""
    store, flaky = flaky_store(tmp_path / "s.sqlite3")
    store.on_write = lambda: None  # the server's per-tick commit: writes wait for commit()
    first = store.create_game("AAAA", "space", ["a", "b"], [], {}, 1, 0)
    flaky.fail_commits = True
    store.commit()  # rolled back: its insert moves to the backlog
    assert not store.writable
    with pytest.raises(Exception, match="full"):
        store.create_game("BBBB", "space", ["a", "b"], [], {}, 1, 0)
    flaky.fail_commits = False
    assert store.retry()
    second = store.create_game("CCCC", "space", ["a", "b"], [], {}, 1, 0)
    store.commit()
    assert second != first
    assert store.game(first) is not None and store.game(second) is not None
    store.close()


async def test_a_game_that_ended_during_an_outage_does_not_come_back(tmp_path: Path) -> None:
    """The end of a game whose commit failed is saved on recovery: after a restart it
    is not resumed as a zombie, and the room's later game keeps its code."""
    db = tmp_path / "s.sqlite3"
    store, flaky = flaky_store(db)
    h = Harness(store, allow_seed=True)
    ann, ann_p = h.client("Ann")
    code = h.request(
        ann,
        ann_p,
        {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True},
    )["room"]
    settle(h)
    room = h.lobby.rooms[code]
    # Play to the end; from the 30th decision on, commits fail (the end among them): each
    # refused act waits for the retry.
    while not ann.of_type("game_over"):
        settle(h)
        if not store.writable:  # the disk is back a moment later
            flaky.fail_commits = False
            h.clock.advance(h.config.store_retry)
            continue
        if not my_turn(ann):
            continue
        flaky.fail_commits = room.game is not None and len(room.game.decisions) > 30
        if act_first(h, ann, ann_p, code)["type"] == "error":
            assert ann.last()["code"] == "store_unavailable"
    assert room.status == "over"
    flaky.fail_commits = False
    h.clock.advance(h.config.store_retry)
    assert store.writable
    h.lobby.shutdown()
    store.close()
    # Restart: the game is over, not resumed.
    restarted = Harness(Store(str(db)))
    assert restarted.lobby.rooms == {}
    assert stored(db, "SELECT status FROM games") == [("over",)]
    restarted.lobby.shutdown()
    restarted.store.close()


async def test_an_older_unfinished_game_of_a_room_is_abandoned_not_resumed(tmp_path: Path) -> None:
    """Two 'playing' games of one room (the end of the first was lost) used to come
    back as two rooms, the live one with a new code. Only the latest resumes, with its code."""
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    old = store.create_game(
        "ROOM", "space", ["a", "b"], [{"kind": "bot", "name": "a"}] * 2, {}, 1, 0
    )
    new = store.create_game(
        "ROOM", "space", ["a", "b"], [{"kind": "bot", "name": "a"}] * 2, {}, 2, 5
    )
    store.close()
    h = Harness(Store(str(db)))
    assert [(r.code, r.game_id) for r in h.lobby.rooms.values()] == [("ROOM", new)]
    assert h.store.game(old).status == "abandoned"  # type: ignore[union-attr]
    h.lobby.shutdown()
    h.store.close()


@pytest.mark.parametrize(
    "column, value",
    [
        ("names", "not json"),
        ("seats", "{}"),
        ("settings", "[1, 2]"),
        ("decision", b"\xc1\xc1"),  # not msgpack
        ("decision", b"\x92\x01\x02"),  # msgpack, but a list
    ],
)
async def test_one_corrupt_row_does_not_stop_the_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, column: str, value: object
) -> None:
    """One unreadable game is marked abandoned, with a log line; the others
    resume."""
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    seats = [{"kind": "bot", "name": "Bot 1"}, {"kind": "bot", "name": "Bot 2"}]
    bad = store.create_game("BADD", "space", ["Bot 1", "Bot 2"], seats, {}, 1, 0)
    good = store.create_game("GOOD", "space", ["Bot 1", "Bot 2"], seats, {}, 2, 0)
    store.close()
    conn = sqlite3.connect(db)
    if column == "decision":
        conn.execute(
            "INSERT INTO decisions (game, n, seat, choice, by, at) VALUES (?, 0, 0, ?, 'bot', 0)",
            (bad, value),
        )
    else:
        conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, bad))
    conn.commit()
    conn.close()
    h = Harness(Store(str(db)))
    assert [r.game_id for r in h.lobby.rooms.values()] == [good]
    assert f"game {bad}" in caplog.text and "abandoned" in caplog.text
    assert stored(db, "SELECT status FROM games WHERE id = ?", bad) == [("abandoned",)]
    h.lobby.shutdown()
    h.store.close()


async def test_outage_over_tcp_refuses_then_recovers(
    make_server: ServerFactory,
    connect: ClientFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Through the real server (per-tick commits): a game plays until the disk fills,
    then acts, start and create_room get store_unavailable; after the disk is back a retry
    saves what was sent and the game plays to its end."""
    holder: list[FlakyConnection] = []

    def make_store(path: str, synchronous: str) -> Store:
        store, flaky = flaky_store(Path(path))
        holder.append(flaky)
        return store

    monkeypatch.setattr(tcp, "Store", make_store)
    server = await make_server(db=str(tmp_path / "s.sqlite3"), store_retry=0.2)
    flaky = holder[0]
    ann = await connect(server.port, "Ann")
    code = (
        await ann.request(
            {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "autostart": True}
        )
    )["room"]
    state = await ann.expect("state")
    while not state["view"]["legal"]:
        state = await ann.expect("state")
    # The disk fails: Ann's act is taken (its write waits in memory), the next one is refused.
    flaky.fail_writes = True
    act = {"type": "act", "room": code, "version": state["version"]}
    assert (await ann.request({**act, "choice": 0}))["type"] == "ok"
    refused = [await ann.error({**act, "version": state["version"] + 1, "choice": 0})]
    assert refused == ["store_unavailable"]
    assert await ann.error({"type": "create_room", "edition": "space", "seats": 2}) == (
        "store_unavailable"
    )
    flaky.fail_writes = False
    loop = asyncio.get_running_loop()
    end = loop.time() + 5
    while not server.store.writable:
        assert loop.time() < end
        await asyncio.sleep(0.05)
    await ann.request({"type": "sync", "room": code})
    over = await asyncio.wait_for(drive(ann, code), 30)
    game = server.store.game(int(over["game"]))
    assert game is not None and game.status == "over"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
