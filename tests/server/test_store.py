"""server.store.store, on SQLite and on PostgreSQL alike (``store_url``): decisions are batched
per tick, yet never lost or reordered; what the store keeps reads back the same on both."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import pytest

from server.store.store import Store


def _count(url: str, table: str = "decisions") -> int:
    """Rows in ``table``, read through a connection of its own (what another process sees)."""
    sql = f"SELECT count(*) FROM {table}"
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute(sql.encode()).fetchone()
            assert row is not None
            return int(row[0])
    lite = sqlite3.connect(url)
    try:
        return int(lite.execute(sql).fetchone()[0])
    finally:
        lite.close()


def _corrupt_event(url: str, game: int) -> None:
    """Store a server event whose JSON does not decode, behind the store's back."""
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            conn.execute(
                "INSERT INTO server_events (game, position, event) VALUES (%s, 0, '{not json')",
                (game,),
            )
        return
    lite = sqlite3.connect(url)
    lite.execute("INSERT INTO server_events VALUES (?, 0, '{not json')", (game,))
    lite.commit()
    lite.close()


def _new_game(store: Store, seats: list[dict[str, Any]] | None = None, **settings: Any) -> int:
    return store.create_game("ABCD", "space", ["a", "b"], seats or [], settings, 1, 0)


def test_decisions_wait_for_the_ticks_commit_then_land_in_order(store_url: str) -> None:
    store = Store(store_url)
    ticks: list[str] = []
    store.on_write = lambda: ticks.append("scheduled")  # the server's per-tick commit
    game = _new_game(store)
    store.commit()
    for n in range(5):
        store.append_decision(game, n, n % 2, {"do": "play", "card": n}, "human")
    assert ticks and store.dirty
    assert _count(store_url) == 0  # nothing reaches the database before the tick's commit
    store.commit()
    assert _count(store_url) == 5
    loaded = store.game(game)
    assert loaded is not None
    assert loaded.decisions == [(n % 2, {"do": "play", "card": n}) for n in range(5)]
    store.close()


def test_a_read_in_the_same_tick_sees_the_queued_decisions(store_url: str) -> None:
    store = Store(store_url)
    store.on_write = lambda: None
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "done"}, "bot")
    loaded = store.game(game)
    assert loaded is not None and loaded.decisions == [(0, {"do": "done"})]
    store.close()


def test_close_flushes_queued_decisions(store_url: str) -> None:
    store = Store(store_url)
    store.on_write = lambda: None
    game = _new_game(store)
    store.append_decision(game, 0, 1, {"do": "stay"}, "human")
    store.close()
    assert _count(store_url) == 1


def test_without_batching_each_decision_commits_at_once(store_url: str) -> None:
    store = Store(store_url)
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "move"}, "human")
    assert _count(store_url) == 1
    store.close()


def test_pruning_an_abandoned_game_deletes_its_rows_in_every_table(store_url: str) -> None:
    store = Store(store_url)
    game = _new_game(store)
    store.append_decision(game, 0, 0, {"do": "move"}, "human")
    store.append_event(game, 1, {"kind": "timeout", "text": "a timed out"})
    kept = _new_game(store)
    store.append_event(kept, 0, {"kind": "bot", "text": "a bot took over"})
    store.finish_game(game, "abandoned", None, 0)
    assert store.prune_games(time.time() + 1) == 1
    store.close()
    counts = [_count(store_url, table) for table in ("games", "decisions", "server_events")]
    assert counts == [1, 0, 1]


def test_an_unreadable_server_event_abandons_its_game_only(store_url: str) -> None:
    store = Store(store_url)
    broken, fine = _new_game(store), _new_game(store)
    store.close()
    _corrupt_event(store_url, broken)
    store = Store(store_url)
    assert [game.id for game in store.unfinished_games()] == [fine]
    assert store.game(broken) is None  # unreadable: no replay either
    store.close()
    assert _count(store_url, "games WHERE status = 'abandoned'") == 1


def test_game_ids_are_never_handed_out_twice_across_reopening(store_url: str) -> None:
    store = Store(store_url)
    first = _new_game(store)
    store.close()
    store = Store(store_url)
    assert _new_game(store) > first
    store.close()


def test_replays_list_public_games_for_all_and_private_ones_for_their_seats(
    store_url: str,
) -> None:
    store = Store(store_url)
    public = _new_game(store, [{"player": "p1"}], public=True)
    private = _new_game(store, [{"player": "p1"}, {"player": "p2"}], public=False)
    for game in (public, private):
        store.finish_game(game, "over", 0, 9)
    page, after = store.replay_page(10, "p2")
    assert [game.id for game in page] == [private, public] and after is None
    page, after = store.replay_page(1, "p3")
    assert [game.id for game in page] == [public] and after is None
    page, after = store.replay_page(1, "p1")
    assert [game.id for game in page] == [private] and after == private
    store.close()


def test_spectators_and_held_chat_read_back_in_order(store_url: str) -> None:
    store = Store(store_url)
    game = _new_game(store)
    store.save_spectators(game, ["p2"])
    store.save_spectators(game, ["p3", "p2"])
    for n in range(3):
        store.hold_chat(game, {"type": "chat", "text": str(n)})
    assert store.spectators(game) == ["p3", "p2"]
    assert [line["text"] for line in store.held_chat(game)] == ["0", "1", "2"]
    store.release_chat(game)
    store.save_spectators(game, [])
    assert store.held_chat(game) == [] and store.spectators(game) == []
    store.close()


def test_identities_seated_in_an_unfinished_game_are_never_stale(store_url: str) -> None:
    store = Store(store_url)
    for pid in ("p1", "p2", "p3"):
        store.save_player(pid, "token-" + pid, pid.upper())
    _new_game(store, [{"player": "p1"}, {"bot": "basic"}])
    finished = _new_game(store, [{"player": "p2"}])
    store.finish_game(finished, "over", 0, 3)
    assert sorted(store.stale_players(time.time() + 1)) == ["p2", "p3"]
    assert store.revoke("p3") and store.token_of("p3") is None
    assert store.token_of("p1") is not None
    store.close()


def test_an_identity_seen_since_the_sweeps_read_is_not_deleted(store_url: str) -> None:
    store = Store(store_url)
    store.save_player("p1", "token-1", "Ann")
    store.save_player("p2", "token-2", "Bob")
    store.commit()
    cut = time.time() + 10
    assert sorted(store.stale_players(cut)) == ["p1", "p2"]  # the sweep's read
    # Ann says hello meanwhile (on another node of a cluster, or before the deletion)
    store._db.write("UPDATE players SET seen = ? WHERE id = ?", (cut + 1, "p1"))
    store.delete_players(["p1", "p2"], cut)
    store.commit()
    assert store.player_by_id("p1") is not None and store.player_by_id("p2") is None
    store.close()


def test_a_url_the_store_cannot_serve_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot serve"):
        Store("mysql://someone@somewhere/selfish")
