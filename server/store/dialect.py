"""The statements of the store that differ between SQLite and PostgreSQL (the others are
written once, in the SQL both engines speak), and PostgreSQL's schema and its migrations."""

from __future__ import annotations

from dataclasses import dataclass


def is_postgres_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return url.startswith(("postgresql://", "postgres://"))


@dataclass(frozen=True)
class Dialect:
    """What one engine says differently."""

    name: str
    # Index a game over as replays list it: one statement per kind of viewer, each taking the
    # game id (see server.store.schema's replays).
    index_replay: tuple[str, ...]
    # The column that orders rows in insertion order (server_events, held_chat).
    order: str
    # Identities not seen since (?) that hold no seat in an unfinished game.
    stale_players: str
    # The next game id, or None where the store counts them in memory (one process only).
    next_game: str | None
    # Whether writes are fenced by room leases (server.cluster.leases): the store then knows the
    # room of every game it writes.
    fenced: bool


SQLITE = Dialect(
    name="sqlite",
    index_replay=(
        "INSERT OR IGNORE INTO replays (viewer, game) SELECT '', id FROM games WHERE id = ? "
        "AND coalesce(json_extract(settings, '$.public'), 1)",
        "INSERT OR IGNORE INTO replays (viewer, game) SELECT json_extract(value, '$.player'), "
        "games.id FROM games, json_each(games.seats) WHERE games.id = ? "
        "AND NOT coalesce(json_extract(settings, '$.public'), 1) "
        "AND json_type(value, '$.player') = 'text'",
    ),
    order="rowid",
    stale_players=(
        "SELECT id FROM players WHERE coalesce(seen, created) < ? AND id NOT IN ("
        "SELECT json_extract(value, '$.player') FROM games, json_each(games.seats) "
        "WHERE games.status = 'playing' AND json_valid(games.seats) "
        "AND json_extract(value, '$.player') IS NOT NULL)"  # NOT IN with a NULL is empty
    ),
    next_game=None,
    fenced=False,
)

_PUBLIC = "coalesce((settings::jsonb ->> 'public')::boolean, true)"
POSTGRES = Dialect(
    name="postgresql",
    index_replay=(
        f"INSERT INTO replays (viewer, game) SELECT '', id FROM games WHERE id = ? AND {_PUBLIC} "
        "ON CONFLICT DO NOTHING",
        "INSERT INTO replays (viewer, game) SELECT seat ->> 'player', games.id FROM games, "
        "jsonb_array_elements(games.seats::jsonb) AS seat WHERE games.id = ? "
        f"AND NOT {_PUBLIC} AND jsonb_typeof(seat -> 'player') = 'string' "
        "ON CONFLICT DO NOTHING",
    ),
    order="id",
    stale_players=(
        "SELECT id FROM players WHERE coalesce(seen, created) < ? AND id NOT IN ("
        "SELECT seat ->> 'player' FROM games, jsonb_array_elements(games.seats::jsonb) AS seat "
        "WHERE games.status = 'playing' AND seat ->> 'player' IS NOT NULL)"
    ),
    # Every node of a cluster hands out game ids: one sequence for all.
    next_game="SELECT nextval('games_id_seq')",
    fenced=True,
)

# PostgreSQL's tables: SQLite's (server.store.schema), with its types; JSON stays text, so the rows
# read back are checked by server.records alike. ``leases`` and ``cluster_rooms`` serve the
# cluster (server.cluster.leases, server.cluster).
POSTGRES_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    seen DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS games (
    id BIGSERIAL PRIMARY KEY,
    room TEXT NOT NULL,
    edition TEXT NOT NULL,
    names TEXT NOT NULL,
    seats TEXT NOT NULL,
    settings TEXT NOT NULL,
    seed BIGINT NOT NULL,
    version_base BIGINT NOT NULL,
    status TEXT NOT NULL,
    winner INTEGER,
    turns INTEGER,
    started DOUBLE PRECISION NOT NULL,
    ended DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS decisions (
    game BIGINT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    choice BYTEA NOT NULL,
    "by" TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, n)
);
CREATE TABLE IF NOT EXISTS server_events (
    id BIGSERIAL PRIMARY KEY,
    game BIGINT NOT NULL REFERENCES games(id),
    position INTEGER NOT NULL,
    event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS server_events_game ON server_events(game);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
CREATE TABLE IF NOT EXISTS spectators (
    game BIGINT PRIMARY KEY REFERENCES games(id),
    players TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS replays (
    viewer TEXT NOT NULL,
    game BIGINT NOT NULL REFERENCES games(id),
    PRIMARY KEY (viewer, game)
);
CREATE TABLE IF NOT EXISTS held_chat (
    id BIGSERIAL PRIMARY KEY,
    game BIGINT NOT NULL REFERENCES games(id),
    line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS held_chat_game ON held_chat(game);
CREATE TABLE IF NOT EXISTS leases (  -- which node runs a room, until when, under which epoch
    room TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    address TEXT NOT NULL,        -- host:port its clients are sent to (moved)
    epoch BIGINT NOT NULL,        -- raised by every takeover: fences the node before
    creator TEXT,                 -- the address group that created the room (its quota)
    expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_node ON leases(node);
CREATE INDEX IF NOT EXISTS leases_creator ON leases(creator);
CREATE TABLE IF NOT EXISTS address_buckets (  -- per-address rate limits of the whole cluster
    address TEXT NOT NULL,
    kind TEXT NOT NULL,           -- what is limited: new_players, rooms
    tokens DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL, -- the database's clock (epoch seconds) at the last take
    PRIMARY KEY (address, kind)
);
CREATE TABLE IF NOT EXISTS cluster_rooms (  -- every node's public rooms, as list_rooms sends them
    room TEXT PRIMARY KEY REFERENCES leases(room) ON DELETE CASCADE,
    listing BYTEA NOT NULL        -- the room's entry, packed (server.room_list)
);
"""

# Migrations of PostgreSQL's schema: each brings version n to n + 1 (none yet beyond the first
# version, which POSTGRES_SCHEMA creates).
POSTGRES_MIGRATIONS: tuple[str, ...] = ()
SCHEMA_VERSION = 1 + len(POSTGRES_MIGRATIONS)
