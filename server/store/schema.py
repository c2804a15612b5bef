"""The database's tables, and the migrations that bring an older database up to them: a table
added since is created by :data:`SCHEMA` itself (``IF NOT EXISTS``), a column by
:data:`MIGRATIONS`; PostgreSQL's by ``server.store.dialect``'s schema and numbered migrations."""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

from server.store.database import Database
from server.store.dialect import POSTGRES_MIGRATIONS, POSTGRES_SCHEMA, RECORDS_VERSION
from server.store.standings import TABLES
from server.store.tokens import token_hash

if TYPE_CHECKING:
    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,   -- token_hash() of the token; the token itself is not kept
    name TEXT NOT NULL,
    created REAL NOT NULL,
    seen REAL                     -- last hello (retention prunes identities unseen for long)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL,
    edition TEXT NOT NULL,
    names TEXT NOT NULL,          -- JSON list, seat order
    seats TEXT NOT NULL,          -- JSON list of seat occupants (see room.Seat.to_record)
    settings TEXT NOT NULL,       -- JSON: public, timer, autostart, variants
    seed INTEGER NOT NULL,
    version_base INTEGER NOT NULL,
    status TEXT NOT NULL,         -- playing | over | abandoned
    winner INTEGER,
    turns INTEGER,
    started REAL NOT NULL,
    ended REAL,
    rated INTEGER NOT NULL DEFAULT 0,  -- counted for ratings (server.store.ratings)
    digest TEXT,                  -- the final state's check (server.engine.digest)
    finished INTEGER              -- the order games ended in (records are recomputed in it)
);
CREATE TABLE IF NOT EXISTS decisions (
    game INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    choice BLOB NOT NULL,         -- msgpack map, as the choice travels on the wire
    by TEXT NOT NULL,             -- human | bot | timeout | away | idle
    at REAL NOT NULL,
    PRIMARY KEY (game, n)
) WITHOUT ROWID;                  -- one b-tree written per decision, not a table and its key's
CREATE TABLE IF NOT EXISTS server_events (  -- the room's own log lines: timeout, away, bot
    game INTEGER NOT NULL REFERENCES games(id),
    position INTEGER NOT NULL,    -- length of the game's log when it was said
    event TEXT NOT NULL           -- JSON: kind, key, args, seat, to, secret
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE TABLE IF NOT EXISTS spectators (  -- who watches an unfinished game (back after a restart)
    game INTEGER PRIMARY KEY REFERENCES games(id),
    players TEXT NOT NULL         -- JSON list of player ids, in join order
);
CREATE TABLE IF NOT EXISTS replays (  -- who may list a finished game: list_replays reads a page
    viewer TEXT NOT NULL,         -- '' (everyone) for a public game, else a seated player's id
    game INTEGER NOT NULL REFERENCES games(id),
    PRIMARY KEY (viewer, game)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS held_chat (  -- spectators' lines of an unfinished game, in order
    game INTEGER NOT NULL REFERENCES games(id),
    line TEXT NOT NULL            -- JSON: the chat message the players get at game_over
);
CREATE TABLE IF NOT EXISTS waiting_rooms (  -- rooms whose game has not started yet
    room TEXT PRIMARY KEY,
    edition TEXT NOT NULL,
    seats TEXT NOT NULL,          -- JSON list of every seat (room.Seat.to_record), null if free
    members TEXT NOT NULL,        -- JSON map: player id -> player | spectator, in join order
    settings TEXT NOT NULL        -- JSON: public, timer, graces, autostart, variants, creator, seed
);
"""

# Fills ``replays`` from the finished games of a database older than it (rows whose JSON does
# not decode are left out: they cannot be listed anyway).
_PUBLIC = "coalesce(json_extract(settings, '$.public'), 1)"
BACKFILL_REPLAYS = f"""
INSERT OR IGNORE INTO replays (viewer, game)
    SELECT '', id FROM games WHERE status = 'over' AND json_valid(settings) AND {_PUBLIC};
INSERT OR IGNORE INTO replays (viewer, game)
    SELECT json_extract(value, '$.player'), games.id FROM games, json_each(games.seats)
    WHERE games.status = 'over' AND json_valid(games.seats) AND json_valid(settings)
    AND NOT {_PUBLIC} AND json_type(value, '$.player') = 'text';
"""

# Older databases: columns added since, each with the statement that adds it.
MIGRATIONS = (
    ("players", "seen", "ALTER TABLE players ADD COLUMN seen REAL"),
    # counted for ratings: decided when the game ended (server.store.ratings); 0 before ratings
    ("games", "rated", "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0"),
    # the final-state check (server.engine.digest); NULL for games ended before it
    ("games", "digest", "ALTER TABLE games ADD COLUMN digest TEXT"),
    # the order in which games ended: records and ratings are recomputed in it
    ("games", "finished", "ALTER TABLE games ADD COLUMN finished INTEGER"),
)


def create(db: Database) -> bool:
    """Create what is missing and migrate an older database, committed at once. True when the
    database has finished games from before records were kept: the caller records them
    (``Standings.recompute``)."""
    tables = {row[0] for row in db.read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.setup(SCHEMA)
    if "games" in tables and "replays" not in tables:
        db.setup(BACKFILL_REPLAYS)
    for table, column, statement in MIGRATIONS:
        if column not in {row[1] for row in db.read(f"PRAGMA table_info({table})")}:
            db.commit_now(statement)
    db.setup(TABLES)
    backfill = "games" in tables and "standings" not in tables
    if backfill:
        # the order games ended in, for games from before it was kept
        ordered = db.read(
            "SELECT id FROM games WHERE status = 'over' AND finished IS NULL ORDER BY ended, id"
        )
        with db.transaction():
            for n, (game,) in enumerate(ordered, start=1):
                db.write("UPDATE games SET finished = ? WHERE id = ?", (n, game))
    # Tokens of databases from before they were hashed (a hash is 64 hex digits). A revoked
    # token is no token: hashing "revoked:<id>" would make it one anybody who knows the id has.
    # A token that is not text (a BLOB, a number) is no token either: Store.players skips it.
    for pid, token in db.read(
        "SELECT id, token FROM players WHERE typeof(token) = 'text' AND length(token) != 64 "
        "AND token NOT LIKE 'revoked:%'"
    ):
        try:
            db.commit_now("UPDATE players SET token = ? WHERE id = ?", (token_hash(token), pid))
        except sqlite3.IntegrityError as exc:  # two rows with one old token: the first has it
            log.error("player %r: its token cannot be hashed (%s); skipped", pid, exc)
    return backfill


def create_postgres(db: PostgresDatabase) -> bool:
    """PostgreSQL's tables, and the migrations an older database of it lacks (its version is
    kept in ``schema_version``), committed at once. Several nodes may start together: an
    advisory lock lets one create while the others wait. True when the database has finished
    games from before records were kept: the caller records them (``Standings.recompute``)."""
    db.setup("SELECT pg_advisory_lock(7777)")
    try:
        db.setup(POSTGRES_SCHEMA)
        rows = db.read("SELECT version FROM schema_version")
        version = int(rows[0][0]) if rows else 1
        if not rows:
            db.commit_now("INSERT INTO schema_version (version) VALUES (?)", (version,))
        backfill = False
        for statement in POSTGRES_MIGRATIONS[version - 1 :]:
            db.setup(statement)
            version += 1
            db.commit_now("UPDATE schema_version SET version = ?", (version,))
            if version == RECORDS_VERSION:
                backfill = bool(db.read("SELECT 1 FROM games WHERE status = 'over' LIMIT 1"))
        return backfill
    finally:
        db.setup("SELECT pg_advisory_unlock(7777)")
