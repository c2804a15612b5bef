"""PostgreSQL's group commit runs in a thread of its own (server.store.postgres): a tick's
output waits for its commit, a later tick's output waits behind it, and a commit that fails
keeps its writes for the outage's end."""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any

import psycopg
import pytest

from server.net.outbox import Outbox
from server.store import standings
from server.store.committer import APPLICATION
from server.store.store import Store
from server.store.tally import Change
from tests.server.test_standings import RATED, human


def _decisions(url: str) -> int:
    """Decisions committed, as another connection sees them."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM decisions").fetchone()
        assert row is not None
        return int(row[0])


class Connection:
    """A client connection that notes, as each frame is written, how many decisions the
    database holds."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.queued: list[bytes] = []
        self.written: list[tuple[bytes, int]] = []

    def flush(self) -> None:
        self.write(self.take())

    def take(self) -> list[bytes]:
        out, self.queued = self.queued, []
        return out

    def write(self, frames: list[bytes]) -> None:
        self.written.extend((frame, _decisions(self.url)) for frame in frames)


def _tick(outbox: Outbox, conn: Connection, frame: bytes) -> None:
    conn.queued.append(frame)
    outbox.queue(conn)
    outbox.flush()


async def _written(conn: Connection, count: int) -> None:
    async with asyncio.timeout(10):
        while len(conn.written) < count:
            await asyncio.sleep(0.01)


def _table(url: str) -> tuple[Store, Outbox, Connection, int]:
    """A store on ``url`` batched by an outbox, a connection, and a game (committed)."""
    store = Store(url)
    outbox = Outbox(store)
    game = store.create_game("ABCD", "space", ["a", "b"], [], {}, 1, 0)
    store.commit()
    return store, outbox, Connection(url), game


async def test_a_ticks_output_waits_for_its_commit_and_the_next_tick_waits_behind(
    postgres_url: str,
) -> None:
    store, outbox, conn, game = _table(postgres_url)
    store.append_decision(game, 0, 0, {"do": "play", "card": 1}, "human")
    _tick(outbox, conn, b"state after decision 0")
    assert conn.written == []  # held: the commit runs in its thread, the loop goes on
    _tick(outbox, conn, b"chat")  # wrote nothing, but may show what the commit holds
    store.append_decision(game, 1, 1, {"do": "play", "card": 2}, "human")
    _tick(outbox, conn, b"state after decision 1")
    assert conn.written == []
    await _written(conn, 3)
    frames = [frame for frame, _ in conn.written]
    assert frames == [b"state after decision 0", b"chat", b"state after decision 1"]
    # each went out once what it shows was committed (a later commit may be done too)
    assert all(done >= needed for (_, done), needed in zip(conn.written, [1, 1, 2], strict=True))
    store.close()


async def test_a_failed_commit_keeps_its_writes_until_the_database_takes_them(
    postgres_url: str,
) -> None:
    store, outbox, conn, game = _table(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (APPLICATION,),
        )
    store.append_decision(game, 0, 0, {"do": "play", "card": 1}, "human")
    _tick(outbox, conn, b"state after decision 0")
    await _written(conn, 1)  # the output goes on: the game goes on in memory
    assert not store.writable and _decisions(postgres_url) == 0
    assert store.retry() and _decisions(postgres_url) == 1
    store.append_decision(game, 1, 1, {"do": "play", "card": 2}, "human")
    _tick(outbox, conn, b"state after decision 1")
    await _written(conn, 2)
    assert conn.written[1] == (b"state after decision 1", 2)  # a new commit connection
    store.close()


def test_a_read_waits_for_the_writes_before_it_but_not_inside_elsewhere(postgres_url: str) -> None:
    store = Store(postgres_url)
    store.on_write = lambda: None  # the server's per-tick batching, without a loop
    store.save_player("p1", "token-1", "Ann")
    with store.elsewhere():  # what another node wrote: this node's writes are not waited for
        assert store.token_of("p1") is None
    assert store.token_of("p1") is not None  # the write before it committed first
    store.close()


async def test_after_commit_runs_once_the_writes_made_before_it_are_committed(
    postgres_url: str,
) -> None:
    store, outbox, conn, game = _table(postgres_url)
    seen: list[int] = []
    store.append_decision(game, 0, 0, {"do": "play", "card": 1}, "human")
    store.after_commit(lambda: seen.append(_decisions(postgres_url)))
    assert seen == []  # the decision is not committed yet
    _tick(outbox, conn, b"state after decision 0")
    await _written(conn, 1)
    assert seen == [1]  # it ran after the commit that holds the decision
    store.after_commit(lambda: seen.append(-1))  # nothing waits: at once
    assert seen == [1, -1]
    store.close()


async def test_a_read_off_the_loop_waits_for_the_writes_made_before_it(postgres_url: str) -> None:
    store, outbox, conn, game = _table(postgres_url)
    store.append_decision(game, 0, 0, {"do": "play", "card": 1}, "human")
    later = store.reads_later(lambda reads: reads.game(game))
    assert later is not None and not later.done()  # the read waits for the tick's commit
    _tick(outbox, conn, b"state after decision 0")
    async with asyncio.timeout(10):
        read = await asyncio.wrap_future(later)
    assert read is not None and len(read.decisions) == 1
    store.close()


async def test_a_committed_batch_is_freed_without_the_cyclic_collector(postgres_url: str) -> None:
    store, outbox, conn, game = _table(postgres_url)
    gc.collect()
    gc.disable()  # what the ticks leave behind must go by reference counting alone
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept, to look at
    try:
        for n in range(5):
            store.append_decision(game, n, n % 2, {"do": "play", "card": n}, "human")
            _tick(outbox, conn, b"state %d" % n)
            await _written(conn, n + 1)
        await asyncio.sleep(0.05)  # the last flight's callback has run on the loop
        gc.collect()
        cycles = [type(thing).__name__ for thing in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        store.close()
    assert "_Flight" not in cycles and "Batch" not in cycles


def _records(url: str) -> int:
    """Records committed, as another connection sees them."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM standings").fetchone()
        assert row is not None
        return int(row[0])


def _rated_game(store: Store) -> int:
    """A rated game of Ann and Bob (committed)."""
    seats = [human("Ann", "pa"), human("Bob", "pb")]
    game = store.create_game("ABCD", "space", ["Ann", "Bob"], seats, RATED, 1, 0)
    store.commit()
    return game


async def test_a_finished_games_records_are_counted_off_the_loop_and_told_once_committed(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(postgres_url)
    Outbox(store)
    game = _rated_game(store)
    threads: list[int] = []
    tally = standings.tally_game

    def noted(*args: Any) -> Any:
        threads.append(threading.get_ident())
        return tally(*args)

    monkeypatch.setattr(standings, "tally_game", noted)
    loop_db = store._db._db  # type: ignore[union-attr]  # the loop's connection
    monkeypatch.setattr(loop_db, "execute", lambda *_, **__: pytest.fail("a round trip"))
    told: list[tuple[list[Change] | None, int]] = []
    store.finish_game(
        game, "over", 0, 10, "d" * 64, lambda c: told.append((c, _records(postgres_url)))
    )
    done = store.commit_later()
    assert done is not None and told == []  # counted in the commit thread, told after it
    await asyncio.wait_for(done, 10)
    monkeypatch.undo()
    ((changes, committed),) = told
    assert changes is not None and [change.player for change in changes] == ["pa", "pb"]
    assert committed == 2  # Ann's and Bob's records were committed before anyone was told
    assert threads and threading.get_ident() not in threads
    store.close()


async def test_a_game_finished_during_an_outage_is_counted_once_the_database_is_back(
    postgres_url: str,
) -> None:
    store = Store(postgres_url)
    Outbox(store)
    game = _rated_game(store)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (APPLICATION,),
        )
    told: list[list[Change] | None] = []
    store.finish_game(game, "over", 0, 10, "d" * 64, told.append)
    done = store.commit_later()
    assert done is not None
    await asyncio.wait_for(done, 10)
    assert told == [None] and not store.writable  # not counted now: the game over goes on
    assert _records(postgres_url) == 0
    assert store.retry() and _records(postgres_url) == 2
    assert [c.player for c in store.standings.changes(game)] == ["pa", "pb"]
    store.close()


def test_a_commit_rolled_back_to_end_a_deadlock_is_tried_again(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(postgres_url)
    game = _rated_game(store)
    tally = standings.tally_game
    tries: list[int] = []

    def deadlocked_once(*args: Any) -> Any:
        tries.append(game)
        if len(tries) == 1:  # as PostgreSQL ends a deadlock: this transaction is rolled back
            raise psycopg.errors.DeadlockDetected("deadlock detected")
        return tally(*args)

    monkeypatch.setattr(standings, "tally_game", deadlocked_once)
    told: list[list[Change] | None] = []
    store.finish_game(game, "over", 0, 10, "d" * 64, told.append)
    store.commit()
    assert len(tries) == 2 and store.writable
    assert told and told[0] is not None and _records(postgres_url) == 2
    store.close()
