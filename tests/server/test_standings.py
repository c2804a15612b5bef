"""Records and ratings in the store, on SQLite and PostgreSQL alike: kept with each result in
one transaction, recomputed to the same numbers, and built for the games of a database from
before they existed."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from server.store.ratings import BOT_ANCHORS, NEW
from server.store.store import Store


def human(name: str, player: str, left: bool = False) -> dict[str, Any]:
    return {"kind": "human", "name": name, "player": player, "level": "basic", "left": left}


def bot(name: str, level: str = "basic") -> dict[str, Any]:
    return {"kind": "bot", "name": name, "player": None, "level": level, "left": False}


RATED = {"public": True, "seeded": False, "variants": []}


def play(
    store: Store,
    seats: list[dict[str, Any]],
    winner: int | None,
    settings: dict[str, Any] | None = None,
    edition: str = "space",
) -> int:
    names = [seat["name"] for seat in seats]
    chosen = RATED if settings is None else settings
    game = store.create_game("ABCD", edition, names, seats, chosen, 1, 0)
    store.finish_game(game, "over", winner, 10, "d" * 64)
    return game


def standing(store: Store, player: str, edition: str = "space") -> Any:
    return next(s for s in store.standings.of(player) if s.edition == edition)


def test_a_finished_game_counts_in_every_seated_record(store_url: str) -> None:
    store = Store(store_url)
    play(store, [human("Ann", "pa"), human("Bob", "pb"), bot("Bot 1")], 0)
    play(store, [human("Ann", "pa"), human("Bob", "pb")], None)
    ann, bob = standing(store, "pa"), standing(store, "pb")
    assert (ann.games, ann.wins, ann.no_winner, ann.streak) == (2, 1, 1, 0)
    assert (bob.games, bob.wins, bob.no_winner) == (2, 0, 1)
    assert standing(store, "bot:basic").games == 1


def test_streaks_count_wins_in_a_row_and_keep_the_best(store_url: str) -> None:
    store = Store(store_url)
    for winner in (0, 0, 0, 1, 0):
        play(store, [human("Ann", "pa"), human("Bob", "pb")], winner)
    ann = standing(store, "pa")
    assert (ann.streak, ann.best_streak) == (1, 3)


def test_records_are_per_edition(store_url: str) -> None:
    store = Store(store_url)
    play(store, [human("Ann", "pa"), human("Bob", "pb")], 0)
    play(store, [human("Ann", "pa"), human("Bob", "pb")], 1, edition="shipwrecked")
    assert [(s.edition, s.wins) for s in store.standings.of("pa")] == [
        ("shipwrecked", 0),
        ("space", 1),
    ]


def test_a_guest_has_no_record_and_a_bot_anchor_does_not_move(store_url: str) -> None:
    store = Store(store_url)
    play(store, [human("Ann", "pa"), human("Guest 1", "g1"), bot("Bot 1", "expert")], 0)
    assert store.standings.of("g1") == []
    expert = standing(store, "bot:expert")
    assert (expert.mu, expert.sigma) == BOT_ANCHORS["expert"]
    assert standing(store, "pa").mu > NEW.mu
    assert [c.player for c in store.standings.changes(1)] == ["pa"]


def test_an_unrated_game_counts_in_the_record_but_not_the_rating(store_url: str) -> None:
    store = Store(store_url)
    for settings in (
        {**RATED, "public": False},
        {**RATED, "seeded": True},
        {**RATED, "variants": ["V1"]},
        {},
    ):
        play(store, [human("Ann", "pa"), human("Bob", "pb")], 0, settings)
    ann = standing(store, "pa")
    assert (ann.games, ann.rated_games, ann.mu) == (4, 0, None)
    assert not any(g.rated for g in store.finished_games(player="pa"))


def test_the_result_and_the_ratings_commit_together(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    store = Store(path)
    store.on_write = lambda: None  # the server's per-tick commit
    seats = [human("Ann", "pa"), human("Bob", "pb")]
    game = store.create_game("ABCD", "space", ["Ann", "Bob"], seats, RATED, 1, 0)
    store.commit()
    store.finish_game(game, "over", 0, 10, "d" * 64)
    other = sqlite3.connect(path)
    seen = "SELECT (SELECT status FROM games), (SELECT count(*) FROM standings)"
    assert other.execute(seen).fetchone() == ("playing", 0)
    store.commit()
    assert other.execute(seen).fetchone() == ("over", 2)


def random_games(store: Store, count: int, rng: random.Random) -> None:
    people = [f"p{n:08x}" for n in range(12)]
    for _ in range(count):
        size = rng.randint(2, 5)
        seats: list[dict[str, Any]] = []
        for index, pid in enumerate(rng.sample(people, size)):
            if rng.random() < 0.3:
                seats.append(bot(f"Bot {index}", rng.choice(list(BOT_ANCHORS))))
            else:
                seats.append(human(pid, pid, left=rng.random() < 0.1))
        winner = rng.choice([None, *range(size)])
        settings = dict(RATED, public=rng.random() < 0.9)
        play(store, seats, winner, settings, rng.choice(["space", "shipwrecked"]))


def test_recomputing_gives_the_same_numbers(store_url: str) -> None:
    store = Store(store_url)
    random_games(store, 300, random.Random(5))
    incremental = store.standings.snapshot()
    changes = store.execute("SELECT * FROM rating_changes ORDER BY game, seat")
    assert store.recompute_ratings() == (300, 0)
    assert store.standings.snapshot() == incremental
    assert store.execute("SELECT * FROM rating_changes ORDER BY game, seat") == changes


def test_recomputing_mends_a_changed_rating(store_url: str) -> None:
    store = Store(store_url)
    random_games(store, 20, random.Random(6))
    good = store.standings.snapshot()
    store._db.commit_now("UPDATE standings SET mu = 99 WHERE player = 'p00000001'")
    differ = store.recompute_ratings()[1]
    assert differ >= 1 and store.standings.snapshot() == good


def test_the_leaderboard_lists_settled_recent_people_best_first(store_url: str) -> None:
    store = Store(store_url)
    for n in range(40):
        play(store, [human("Ann", "pa"), human("Bob", "pb"), bot("Bot 1")], 0 if n % 3 else 1)
    play(store, [human("Cy", "pc"), human("Di", "pd")], 0)  # provisional: not listed
    board = store.standings.board("space", 10, None, time.time() - 86_400)
    assert [s.player for s in board] == ["pa", "pb"]
    assert store.standings.board("space", 10, (board[0].mu, "pa"), 0) == board[1:]
    assert store.standings.board("space", 10, None, time.time() + 1) == []  # nobody active
    assert store.standings.board("shipwrecked", 10, None, 0) == []


def test_a_players_games_show_another_only_what_they_may_see(store_url: str) -> None:
    store = Store(store_url)
    public = play(store, [human("Ann", "pa"), human("Bob", "pb")], 0)
    shared = play(store, [human("Ann", "pa"), human("Bob", "pb")], 0, {"public": False})
    own = play(store, [human("Ann", "pa"), human("Cy", "pc")], 0, {"public": False})
    assert [g for g, _ in store.standings.games_of("pa", "pa", 10, None)] == [own, shared, public]
    assert [g for g, _ in store.standings.games_of("pa", "pb", 10, None)] == [shared, public]
    assert [g for g, _ in store.standings.games_of("pa", "pz", 10, None)] == [public]
    assert store.standings.games_of("pa", "pa", 1, own) == [(shared, 0)]


OLD_SCHEMA = """
CREATE TABLE players (id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    created REAL NOT NULL, seen REAL);
CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL,
    edition TEXT NOT NULL, names TEXT NOT NULL, seats TEXT NOT NULL, settings TEXT NOT NULL,
    seed INTEGER NOT NULL, version_base INTEGER NOT NULL, status TEXT NOT NULL, winner INTEGER,
    turns INTEGER, started REAL NOT NULL, ended REAL);
CREATE TABLE decisions (game INTEGER NOT NULL REFERENCES games(id), n INTEGER NOT NULL,
    seat INTEGER NOT NULL, choice BLOB NOT NULL, by TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (game, n));
"""


def test_a_database_from_before_records_gets_them_for_its_finished_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    seats = json.dumps([human("Ann", "pa"), human("Bob", "pb")])
    settings = json.dumps({"public": True, "timer": 0, "variants": []})
    for game, (winner, ended) in enumerate([(1, 30.0), (0, 20.0), (None, 10.0)], start=1):
        db.execute(
            "INSERT INTO games VALUES (?, 'ABCD', 'space', '[\"Ann\", \"Bob\"]', ?, ?, 7, 0, "
            "'over', ?, 12, 1.0, ?)",
            (game, seats, settings, winner, ended),
        )
    db.commit()
    db.close()
    store = Store(str(path))
    ann = standing(store, "pa")
    # in the order they ended: no winner, Ann, then Bob
    assert (ann.games, ann.wins, ann.no_winner, ann.streak, ann.best_streak) == (3, 1, 1, 0, 1)
    assert ann.mu is None  # whether their seed was chosen is unknown: unrated
    assert [g.id for g in store.finished_games(player="pa")] == [3, 2, 1]
    assert [g for g, _ in store.standings.games_of("pb", "pz", 10, None)] == [3, 2, 1]
    assert store.recompute_ratings()[1] == 0
    store.close()
    assert standing(Store(str(path)), "pa").games == 3  # opened again: nothing counted twice


def test_recompute_ratings_on_the_command_line_says_whether_the_numbers_held(
    tmp_path: Path, capsys: Any
) -> None:
    from server.cli import main

    path = str(tmp_path / "db.sqlite3")
    store = Store(path)
    random_games(store, 30, random.Random(7))
    store.close()
    assert main(["--db", path, "--recompute-ratings"]) == 0
    assert "of 30 finished games" in capsys.readouterr().out
    changed = sqlite3.connect(path)
    changed.execute("UPDATE standings SET wins = wins + 1")
    changed.commit()
    changed.close()
    assert main(["--db", path, "--recompute-ratings"]) == 1
    assert "standings differed" in capsys.readouterr().out
    assert main(["--db", path, "--recompute-ratings"]) == 0


def test_a_postgresql_database_of_the_first_schema_is_migrated_and_its_games_recorded(
    postgres_url: str,
) -> None:
    import psycopg

    from server.store.dialect import POSTGRES_MIGRATIONS, POSTGRES_SCHEMA

    seats = json.dumps([human("Ann", "pa"), human("Bob", "pb")])
    settings = json.dumps({"public": True, "timer": 0, "variants": []})
    with psycopg.connect(postgres_url) as conn:  # a database as the first schema made it
        conn.execute(POSTGRES_SCHEMA.encode())
        conn.execute("INSERT INTO schema_version (version) VALUES (1)")
        for winner, ended in [(1, 30.0), (0, 20.0), (None, 10.0)]:
            conn.execute(
                "INSERT INTO games (room, edition, names, seats, settings, seed, version_base, "
                "status, winner, turns, started, ended) VALUES ('ABCD', 'space', "
                "'[\"Ann\", \"Bob\"]', %s, %s, 7, 0, 'over', %s, 12, 1.0, %s)",
                (seats, settings, winner, ended),
            )
    store = Store(postgres_url)
    ann = standing(store, "pa")
    # in the order they ended: no winner, Ann, then Bob
    assert (ann.games, ann.wins, ann.no_winner, ann.streak, ann.best_streak) == (3, 1, 1, 0, 1)
    assert store.execute("SELECT version FROM schema_version") == [(len(POSTGRES_MIGRATIONS) + 1,)]
    later = play(store, [human("Ann", "pa"), human("Bob", "pb")], 0)
    assert store.execute("SELECT finished FROM games WHERE id = ?", (later,)) == [(4,)]
    store.close()
    assert standing(Store(postgres_url), "pa").games == 4  # opened again: nothing counted twice


def _waiting_for_a_lock(url: str) -> bool:
    """Whether a session of the database waits for a row lock (seen from a connection of its
    own)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        ).fetchone()
    return row is not None and row[0] > 0


def test_two_nodes_ending_games_of_one_player_at_once_both_count(
    postgres_url: str, monkeypatch: Any
) -> None:
    from server.store import standings

    first, second = Store(postgres_url), Store(postgres_url)  # two nodes, two connections
    play(first, [human("Ann", "pa"), human("Bob", "pb")], 0)  # Ann has a record; Cy is new
    seats = [human("Ann", "pa"), human("Cy", "pc")]
    games = [
        store.create_game("ABCD", "space", ["Ann", "Cy"], seats, RATED, 1, 0)
        for store in (first, second)
    ]
    for store in (first, second):
        store.commit()
    counted, go = threading.Event(), threading.Event()
    tally = standings.tally_game

    def paused(game: Any, ended: float, load: Any) -> Any:
        """The first node's count stops once it has read the records, until told to go on."""
        result = tally(game, ended, load)
        if game.id == games[0]:
            counted.set()
            assert go.wait(10)
        return result

    monkeypatch.setattr(standings, "tally_game", paused)

    def finish(store: Store, game: int) -> None:
        store.finish_game(game, "over", 1, 10, "d" * 64)
        store.commit()

    ahead = threading.Thread(target=finish, args=(first, games[0]))
    ahead.start()
    assert counted.wait(10)  # the first node has read Ann's and Cy's records
    behind = threading.Thread(target=finish, args=(second, games[1]))
    behind.start()
    deadline = time.monotonic() + 10
    while behind.is_alive() and not _waiting_for_a_lock(postgres_url):
        assert time.monotonic() < deadline, "the second node neither waited nor finished"
        behind.join(0.01)
    waited = behind.is_alive()  # for the first one's locks (else it is done: it did not wait)
    go.set()
    ahead.join(10)
    behind.join(10)
    ann, cy = standing(first, "pa"), standing(first, "pc")
    assert (ann.games, ann.wins, ann.rated_games) == (3, 1, 3)
    assert (cy.games, cy.wins, cy.streak, cy.rated_games) == (2, 2, 2, 2)
    changes = [first.standings.changes(game) for game in games]
    assert changes[1][0].before == changes[0][0].after  # the second game rated Ann after the first
    assert waited
    first.close()
    second.close()
