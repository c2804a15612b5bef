"""Records and ratings in the store: who held a seat in each finished game, each player's
record and rating per edition, and each rated game's changes.

:meth:`Standings.record` runs inside the store's open transaction with the game's result
(``Store.finish_game``), so a result is never committed without its rating update nor the
other way round. On PostgreSQL, whose database a cluster's nodes share, :func:`record_locked`
does the same inside the commit's own transaction (``server.store.committer``: a step, in the
commit thread): it locks the records it reads (``FOR UPDATE``) until that commit, so two nodes
ending games of one player at once count both, one after the other, where a read of the records
committed before either would let the second write over the first.

:meth:`Standings.recompute` clears the three tables and records every finished game again in
the order the games ended: the same code on the same rows, so the same numbers
(``selfish-server --recompute-ratings``). What one game changes is reckoned, pure, by
``server.store.tally``; this module reads the records it starts from and writes the result.
The SQL is plain (upserts by primary key, no JSON
functions), so PostgreSQL runs it too (its tables: ``server.store.dialect``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from server.store.database import Database
from server.store.ratings import Skill
from server.store.records import GAME_COLUMNS, CorruptRow, StoredGame, game_from_row
from server.store.tally import Change, Standing, Tally, record_keys, tally_game
from server.store.write_path import Owner, Row, placeholders

if TYPE_CHECKING:
    import psycopg

    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")

TABLES = """
CREATE INDEX IF NOT EXISTS games_finished ON games(finished);
CREATE TABLE IF NOT EXISTS seated (  -- who held which seat of each finished game
    player TEXT NOT NULL,         -- a person's id (guests' too) or a bot level's (bot:basic)
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    public INTEGER NOT NULL,      -- 1: the game was public (another player may list it)
    PRIMARY KEY (player, game)
);
CREATE TABLE IF NOT EXISTS standings (  -- a player's (or bot level's) record in one edition
    player TEXT NOT NULL,
    edition TEXT NOT NULL,
    name TEXT NOT NULL,           -- the name of its last game
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    no_winner INTEGER NOT NULL,
    streak INTEGER NOT NULL,      -- wins in a row up to the last game
    best_streak INTEGER NOT NULL,
    last_played REAL NOT NULL,
    rated_games INTEGER NOT NULL,
    mu REAL,                      -- the rating; NULL until the first rated game
    sigma REAL,
    ranked INTEGER NOT NULL,      -- 1: a person whose rating is not provisional
    PRIMARY KEY (player, edition)
);
CREATE INDEX IF NOT EXISTS standings_board ON standings(edition, ranked, mu DESC, player);
CREATE TABLE IF NOT EXISTS rating_changes (  -- each rated game's change, seat by seat
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    PRIMARY KEY (game, seat)
);
"""

_STANDING_COLUMNS = (
    "player, edition, name, games, wins, no_winner, streak, best_streak, last_played, "
    "rated_games, mu, sigma, ranked"
)
_UPSERT = (
    f"INSERT INTO standings ({_STANDING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (player, edition) DO UPDATE SET name = excluded.name, games = excluded.games, "
    "wins = excluded.wins, no_winner = excluded.no_winner, streak = excluded.streak, "
    "best_streak = excluded.best_streak, last_played = excluded.last_played, "
    "rated_games = excluded.rated_games, mu = excluded.mu, sigma = excluded.sigma, "
    "ranked = excluded.ranked"
)
# A newcomer's record, empty, made so that there is a row to lock (record_locked): another
# node's newcomer row not yet committed makes this wait for that commit.
_INSERT_EMPTY = (
    f"INSERT INTO standings ({_STANDING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (player, edition) DO NOTHING"
)
# The records of a game's players, locked until the commit; in the order of their keys, on every
# node alike, so that two games of the same players cannot each hold a lock the other waits for.
_LOCK = (
    f"SELECT {_STANDING_COLUMNS} FROM standings WHERE edition = ? AND player = ANY(?) "
    "ORDER BY player FOR UPDATE"
)
#: How long a player stays on the leaderboard after their last game.
ACTIVE_DAYS = 30


def _standing(row: Sequence[Any]) -> Standing:
    games, wins, no_winner, streak, best = (int(value) for value in row[3:8])
    return Standing(
        player=str(row[0]),
        edition=str(row[1]),
        name=str(row[2]),
        games=games,
        wins=wins,
        no_winner=no_winner,
        streak=streak,
        best_streak=best,
        last_played=float(row[8]),
        rated_games=int(row[9]),
        mu=None if row[10] is None else float(row[10]),
        sigma=None if row[11] is None else float(row[11]),
        ranked=bool(row[12]),
    )


_INSERT_SEATED = (
    "INSERT INTO seated (player, game, seat, public) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (player, game) DO NOTHING"
)
_INSERT_CHANGE = (
    "INSERT INTO rating_changes (game, seat, player, rank, mu_before, sigma_before, mu_after, "
    "sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def write_tally(tally: Tally, write: Callable[[str, Row, Owner], None]) -> None:
    """Write what ``tally`` changed with ``write(statement, row, game)`` (each write belongs to
    the game: fenced by its room's lease)."""
    game = tally.game
    for row in tally.seated:
        write(_INSERT_SEATED, row, game)
    if tally.rated:
        write("UPDATE games SET rated = 1 WHERE id = ?", (game,), game)
    for change in tally.changes:
        write(_INSERT_CHANGE, change.row(game), game)
    for standing in tally.standings:
        write(_UPSERT, standing.row(), game)


def record_locked(game: int, ended: float, conn: psycopg.Connection[Any]) -> list[Change]:
    """PostgreSQL: :meth:`Standings.record` of finished ``game`` in the transaction open on
    ``conn``, after the game's result was written in it (a commit's step), with the records
    of its players locked from their read until that transaction ends. Returns the rating
    changes; a game row that cannot be read is logged and counts in no record."""
    row = conn.execute(placeholders(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"), (game,))
    try:
        found = row.fetchone()
        if found is None:
            raise CorruptRow(f"game {game} is missing")
        stored = game_from_row(found)
    except CorruptRow as exc:
        log.error("game %d: %s; not counted in records", game, exc)
        return []
    keys = record_keys(stored)
    locked: dict[str, Standing] = {}
    if keys:
        ordered = sorted(keys)  # every node makes and locks them in this order
        empty = [Standing(key, stored.edition, keys[key]).row() for key in ordered]
        with conn.pipeline():
            conn.cursor().executemany(placeholders(_INSERT_EMPTY), empty)
            cursor = conn.execute(placeholders(_LOCK), (stored.edition, ordered))
        locked = {standing.player: standing for standing in map(_standing, cursor.fetchall())}
    tally = tally_game(stored, ended, lambda key, name: locked[key])
    cursor = conn.cursor()

    def write(sql: str, params: Row, _: Owner) -> None:
        cursor.execute(placeholders(sql), params)

    with conn.pipeline():
        write_tally(tally, write)
    return tally.changes


class Standings:
    """The records and ratings tables of one database."""

    def __init__(self, db: Database | PostgresDatabase) -> None:
        self._db = db

    # -- writing: one finished game ------------------------------------------------------------

    def record(self, game: StoredGame, ended: float) -> list[Change]:
        """Record finished ``game`` (its result already in its row): who sat where, everyone's
        record, and its rating changes if it is rated (then its row says it is). Writes join
        the open transaction."""
        tally = tally_game(game, ended, lambda key, name: self._load(key, game.edition, name))
        self._write(tally)
        return tally.changes

    def _load(self, key: str, edition: str, name: str) -> Standing:
        """The stored standing of ``key`` in ``edition`` (a new one for a newcomer)."""
        rows = self._db.read(
            f"SELECT {_STANDING_COLUMNS} FROM standings WHERE player = ? AND edition = ?",
            (key, edition),
        )
        return _standing(rows[0]) if rows else Standing(key, edition, name)

    def _write(self, tally: Tally, batched: bool = False) -> None:
        """Write what ``tally`` changed; ``batched`` (a recomputation): each statement's rows
        go in one ``executemany`` when the batch is flushed."""
        write_tally(tally, self._db.write_batched if batched else self._db.write)

    # -- reading ------------------------------------------------------------------------------

    def of(self, player: str) -> list[Standing]:
        """A player's records, one per edition, in edition order."""
        rows = self._db.read(
            f"SELECT {_STANDING_COLUMNS} FROM standings WHERE player = ? ORDER BY edition",
            (player,),
        )
        return [_standing(row) for row in rows]

    def changes(self, game: int) -> list[Change]:
        """The rating changes of ``game``, in seat order (none for an unrated game)."""
        rows = self._db.read(
            "SELECT seat, player, rank, mu_before, sigma_before, mu_after, sigma_after "
            "FROM rating_changes WHERE game = ? ORDER BY seat",
            (game,),
        )
        return [
            Change(int(r[0]), str(r[1]), int(r[2]), Skill(r[3], r[4]), Skill(r[5], r[6]))
            for r in rows
        ]

    def board(
        self, edition: str, size: int, after: tuple[float, str] | None, since: float
    ) -> list[Standing]:
        """Up to ``size`` players of ``edition``'s leaderboard, best first, below ``after``
        (the mu and id of the last player of the page before): non-provisional people who
        played since ``since``. Read along the ``standings_board`` index."""
        where = "edition = ? AND ranked = 1 AND last_played >= ?"
        params: tuple[Any, ...] = (edition, since)
        if after is not None:
            where += " AND (mu < ? OR (mu = ? AND player > ?))"
            params += (after[0], after[0], after[1])
        rows = self._db.read(
            f"SELECT {_STANDING_COLUMNS} FROM standings WHERE {where} "
            "ORDER BY mu DESC, player LIMIT ?",
            (*params, size),
        )
        return [_standing(row) for row in rows]

    def games_of(
        self, player: str, viewer: str, size: int, before: int | None
    ) -> list[tuple[int, int]]:
        """(game, seat) of up to ``size`` finished games ``player`` held a seat in, newest
        first, older than ``before``, that ``viewer`` may see: all of their own; of another's,
        the public ones and those ``viewer`` held a seat in too."""
        cursor = 2**63 - 1 if before is None else before
        if player == viewer:
            rows = self._db.read(
                "SELECT game, seat FROM seated WHERE player = ? AND game < ? "
                "ORDER BY game DESC LIMIT ?",
                (player, cursor, size),
            )
        else:
            rows = self._db.read(
                "SELECT a.game, a.seat FROM seated a WHERE a.player = ? AND a.game < ? AND "
                "(a.public = 1 OR EXISTS (SELECT 1 FROM seated b WHERE b.player = ? "
                "AND b.game = a.game)) ORDER BY a.game DESC LIMIT ?",
                (player, cursor, viewer, size),
            )
        return [(int(game), int(seat)) for game, seat in rows]

    # -- recomputing ----------------------------------------------------------------------------

    def recompute(self) -> int:
        """Clear the records and ratings and count every finished game again, in the order
        they ended (:func:`tally_game`, with the standings kept in memory meanwhile), in one
        transaction; returns how many. A row that cannot be read is left out (logged)."""
        standings: dict[tuple[str, str], Standing] = {}
        count = 0
        last = -1
        with self._db.transaction():
            for table in ("seated", "standings", "rating_changes"):
                self._db.write(f"DELETE FROM {table}", ())
            self._db.write("UPDATE games SET rated = 0 WHERE rated = 1", ())
            while True:
                rows = self._db.read(
                    f"SELECT {GAME_COLUMNS}, finished FROM games WHERE status = 'over' "
                    "AND finished > ? ORDER BY finished LIMIT 1000",
                    (last,),
                )
                if not rows:
                    break
                for row in rows:
                    last = int(row[-1])
                    try:
                        game = game_from_row(row[:-1])
                    except CorruptRow as exc:
                        log.error("%s; left out of records and ratings", exc)
                        continue
                    ended = game.ended if game.ended is not None else time.time()
                    tally = tally_game(game, ended, _keeper(standings, game.edition))
                    tally.standings = []  # written once, at the end
                    self._write(tally, batched=True)
                    count += 1
                self._db.flush_batched()
            for standing in standings.values():
                self._db.write_batched(_UPSERT, standing.row())
        return count

    def snapshot(self) -> dict[tuple[str, str], tuple[Any, ...]]:
        """Every standing as a row, by (player, edition): to compare two computations."""
        rows = self._db.read(f"SELECT {_STANDING_COLUMNS} FROM standings")
        return {(str(row[0]), str(row[1])): tuple(row) for row in rows}


def _keeper(
    standings: dict[tuple[str, str], Standing], edition: str
) -> Callable[[str, str], Standing]:
    """A recomputation's ``load``: the standings so far, in memory."""

    def load(key: str, name: str) -> Standing:
        return standings.setdefault((key, edition), Standing(key, edition, name))

    return load
