"""server.store.store: decisions are batched per tick, yet never lost or reordered."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from server.store.store import Store


def _count(db: Path, table: str = "decisions") -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def _new_game(store: Store) -> int:
    return store.create_game("ABCD", "space", ["a", "b"], [], {}, seed=1, version_base=0)


def test_decisions_wait_for_the_ticks_commit_then_land_in_order(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    ticks: list[str] = []
    store.on_write = lambda: ticks.append("scheduled")  # the server's per-tick commit
    game = _new_game(store)
    store.commit()
    for n in range(5):
        store.append_decision(game, n, n % 2, {"do": "play", "card": n}, "human")
    assert ticks and store.dirty
    assert _count(db) == 0  # nothing reaches the file before the tick's commit
    store.commit()
    assert _count(db) == 5
    loaded = store.game(game)
    assert loaded is not None
    assert loaded.decisions == [(n % 2, {"do": "play", "card": n}) for n in range(5)]
    store.close()


def test_a_read_in_the_same_tick_sees_the_queued_decisions(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.sqlite3"))
    store.on_write = lambda: None
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "done"}, "bot")
    loaded = store.game(game)
    assert loaded is not None and loaded.decisions == [(0, {"do": "done"})]
    store.close()


def test_close_flushes_queued_decisions(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    store.on_write = lambda: None
    game = _new_game(store)
    store.append_decision(game, 0, 1, {"do": "stay"}, "human")
    store.close()
    assert _count(db) == 1


def test_without_batching_each_decision_commits_at_once(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "move"}, "human")
    assert _count(db) == 1
    store.close()


def test_pruning_an_abandoned_game_deletes_its_rows_in_every_table(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "move"}, "human")
    store.append_event(game, 1, {"kind": "timeout", "text": "a timed out"})
    kept = _new_game(store)
    store.append_event(kept, 0, {"kind": "bot", "text": "a bot took over"})
    store.finish_game(game, "abandoned", None, 0)
    assert store.prune_games(time.time() + 1) == 1
    store.close()
    assert [_count(db, table) for table in ("games", "decisions", "server_events")] == [1, 0, 1]


def test_an_unreadable_server_event_abandons_its_game_only(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store(str(db))
    broken, fine = _new_game(store), _new_game(store)
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO server_events VALUES (?, 0, '{not json')", (broken,))
    conn.commit()
    conn.close()
    store = Store(str(db))
    assert [game.id for game in store.unfinished_games()] == [fine]
    abandoned = store.game(broken)
    assert abandoned is None  # unreadable: no replay either
    store.close()
    assert _count(db, "games WHERE status = 'abandoned'") == 1
