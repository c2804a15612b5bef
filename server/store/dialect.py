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
    # The next game ids (as many as its parameter says), or None where the store counts them
    # in memory (one process only).
    next_game: str | None
    # The next number in the order games ended in (records are recomputed in it), as an SQL
    # expression the game's update takes it with (in the commit: no round trip of its own),
    # or None where the store counts them in memory.
    next_finished: str | None
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
    next_finished=None,
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
    # Every node of a cluster hands out game ids: one sequence for all (? of them at a time).
    next_game="SELECT nextval('games_id_seq') FROM generate_series(1, ?)",
    next_finished="nextval('games_finished_seq')",
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
CREATE TABLE IF NOT EXISTS waiting_rooms (
    room TEXT PRIMARY KEY,
    edition TEXT NOT NULL,
    seats TEXT NOT NULL,
    members TEXT NOT NULL,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (  -- which node runs a room, until when, under which epoch
    room TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    address TEXT NOT NULL,        -- host:port its clients are sent to (moved)
    epoch BIGINT NOT NULL,        -- raised by every takeover: fences the node before
    creator TEXT,                 -- the address group that created the room (its quota)
    expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_node ON leases(node);
-- A commit's fence in the commit's own round trip (server.cluster.leases.Leases.guard): locks
-- the node's lease rows of the rooms written FOR SHARE and raises SF001 unless the node holds
-- each of them under the epoch it took it with.
CREATE OR REPLACE FUNCTION selfish_fence(who TEXT, rooms TEXT[], epochs BIGINT[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM leases WHERE node = who AND room = ANY(rooms) FOR SHARE;
    IF (SELECT count(*) FROM leases, unnest(rooms, epochs) AS held(room, epoch)
        WHERE leases.room = held.room AND leases.epoch = held.epoch AND leases.node = who)
        <> cardinality(rooms) THEN
        RAISE EXCEPTION 'a lease was lost' USING ERRCODE = 'SF001';
    END IF;
END $$;
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

# Migrations of PostgreSQL's schema: the one at index n - 1 brings version n to n + 1
# (POSTGRES_SCHEMA makes version 1).
POSTGRES_MIGRATIONS: tuple[str, ...] = (
    # 2: records and ratings (server.store.standings), SQLite's tables with PostgreSQL's types;
    # the games that ended before it are numbered in the order they ended, then recomputed
    """
ALTER TABLE games ADD COLUMN IF NOT EXISTS rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN IF NOT EXISTS digest TEXT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS finished BIGINT;
CREATE SEQUENCE IF NOT EXISTS games_finished_seq;
WITH ordered AS (
    SELECT id, row_number() OVER (ORDER BY ended, id) AS n FROM games WHERE status = 'over'
)
UPDATE games SET finished = ordered.n FROM ordered WHERE games.id = ordered.id;
SELECT setval('games_finished_seq', coalesce((SELECT max(finished) FROM games), 0) + 1, false);
CREATE INDEX IF NOT EXISTS games_finished ON games(finished);
CREATE TABLE IF NOT EXISTS seated (
    player TEXT NOT NULL,
    game BIGINT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    public INTEGER NOT NULL,
    PRIMARY KEY (player, game)
);
CREATE TABLE IF NOT EXISTS standings (
    player TEXT NOT NULL,
    edition TEXT NOT NULL,
    name TEXT NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    no_winner INTEGER NOT NULL,
    streak INTEGER NOT NULL,
    best_streak INTEGER NOT NULL,
    last_played DOUBLE PRECISION NOT NULL,
    rated_games INTEGER NOT NULL,
    mu DOUBLE PRECISION,
    sigma DOUBLE PRECISION,
    ranked INTEGER NOT NULL,
    PRIMARY KEY (player, edition)
);
CREATE INDEX IF NOT EXISTS standings_board ON standings(edition, ranked, mu DESC, player);
CREATE TABLE IF NOT EXISTS rating_changes (
    game BIGINT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, seat)
);
""",
    # 3: the open rooms of each creator on each node (max_rooms_per_address), kept by a trigger
    # on leases: a room's claim reads its creator's few rows instead of counting its leases
    # (server.cluster.leases); and the games of a room's code, by id (its last game). Both rows
    # a takeover touches are locked in the order of their nodes, so that two takeovers between
    # two nodes, each way, cannot deadlock.
    """
CREATE TABLE IF NOT EXISTS creator_rooms (
    creator TEXT NOT NULL,
    node TEXT NOT NULL,
    rooms INTEGER NOT NULL,       -- the leases of that node noting that creator
    PRIMARY KEY (creator, node)
);
CREATE OR REPLACE FUNCTION selfish_creator_add(who TEXT, at TEXT, n INTEGER) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO creator_rooms AS c (creator, node, rooms) VALUES (who, at, n)
    ON CONFLICT (creator, node) DO UPDATE SET rooms = c.rooms + n;
$$;
CREATE OR REPLACE FUNCTION selfish_count_creators() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.creator IS NOT DISTINCT FROM NEW.creator
        AND OLD.node = NEW.node THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.creator IS NOT NULL
        AND (TG_OP = 'DELETE' OR NEW.creator IS NULL OR OLD.node <= NEW.node) THEN
        PERFORM selfish_creator_add(OLD.creator, OLD.node, -1);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.creator IS NOT NULL THEN
        PERFORM selfish_creator_add(NEW.creator, NEW.node, 1);
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.creator IS NOT NULL AND NEW.creator IS NOT NULL
        AND OLD.node > NEW.node THEN
        PERFORM selfish_creator_add(OLD.creator, OLD.node, -1);
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS leases_creators ON leases;
CREATE TRIGGER leases_creators AFTER INSERT OR DELETE OR UPDATE OF node, creator ON leases
FOR EACH ROW EXECUTE FUNCTION selfish_count_creators();
-- the last game of a room's code: a dead node's room at its game over is taken over
CREATE INDEX IF NOT EXISTS games_room ON games(room, id);
DELETE FROM creator_rooms;
INSERT INTO creator_rooms (creator, node, rooms)
SELECT creator, node, count(*) FROM leases WHERE creator IS NOT NULL GROUP BY creator, node;
""",
)
#: The version that added records and ratings: a database migrated to it gets them recomputed.
RECORDS_VERSION = 2
