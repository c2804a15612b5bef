"""Server settings: one dataclass holding the address, the store and every limit.

``ServerConfig()`` with no arguments is what tests and the embedded server (``selfish play``)
want: loopback, an ephemeral in-memory store. ``selfish-server`` builds its config from
defaults < TOML file (``--config``) < command-line flags, see :func:`load_toml`.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PORT = 7777


def default_db_path() -> str:
    """The per-user database path: ``$XDG_DATA_HOME/selfish/server.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return os.path.join(base, "selfish", "server.sqlite3")


@dataclass
class ServerConfig:
    """Everything the server needs to know; every limit a client can hit is a field."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0 = any free port (RunningServer.port tells which)
    # SQLite path (":memory:" keeps nothing across restarts) or postgresql:// URL (a cluster)
    db: str = ":memory:"
    db_synchronous: str = "NORMAL"  # SQLite PRAGMA synchronous; WAL+NORMAL survives a crash
    log_level: str = "INFO"

    # Connections
    max_frame: int = 65_536
    idle_timeout: float = 120.0  # seconds without a complete frame before the connection closes
    # A started frame must be complete within this many seconds: without it a client trickling
    # one byte now and then would hold its connection (and buffer) forever.
    frame_timeout: float = 10.0
    # A connection must say hello within this many seconds: idle unidentified connections
    # would otherwise hold max_connections slots with a ping every idle_timeout.
    hello_timeout: float = 10.0
    max_connections: int = 2_000
    max_connections_per_address: int = 16
    # Connections that have not said hello hold at most this share of max_connections; when
    # it (or max_connections) is reached, the oldest of them is closed to let a newcomer in.
    max_unidentified_share: float = 0.5
    # IPv6 clients count per network of this prefix length for every per-address limit (one
    # host is handed a whole /64); IPv4 clients per address.
    ipv6_prefix: int = 64
    max_write_buffer: int = 8 * 1024 * 1024  # a client that reads nothing is cut off here
    rate_per_second: float = 20.0  # messages per connection, token bucket
    rate_burst: int = 40
    # The same for all connections of one address together (a reconnect does not refill it).
    address_rate_per_second: float = 60.0
    address_rate_burst: int = 120
    # Bytes of frames decoded per address, hello or not (a frame over it is dropped unread, as
    # one over the message rate): decoding costs the server per byte, whatever the frame holds.
    # The burst holds two frames of max_frame, so any single frame can pass.
    address_bytes_per_second: float = 16_384.0
    address_bytes_burst: int = 131_072
    # Messages dropped for rate, beyond the burst, after which the connection is closed: each
    # dropped frame is answered once per second at most and never decoded.
    flood_limit: int = 100
    connections_per_second: float = 2.0  # connections opened per address
    connections_burst: int = 30
    resumes_per_second: float = 0.5  # hello with a token, per identity
    resumes_burst: int = 10
    address_resumes_per_second: float = 2.0  # hello with a token, per address
    address_resumes_burst: int = 40

    # Rooms and chat
    max_rooms: int = 1_000
    max_rooms_per_player: int = 4
    # Open rooms created from one IP address. Identities are free, so without this one client
    # could fill max_rooms with games whose only human left (they wait for them forever).
    max_rooms_per_address: int = 16
    # Rooms created per address and per identity (each bucket apart): a burst, then a refill.
    rooms_per_second: float = 0.1
    rooms_burst: int = 10
    max_spectators: int = 20  # per room
    # ``room`` updates for comings and goings (connects, joins, leaves) are sent this rarely
    room_broadcast_interval: float = 0.25
    # A started game none of whose humans is connected for this long is closed (abandoned),
    # freeing its room: otherwise bot games waiting for a gone human fill max_rooms.
    absent_game_timeout: float = 3_600.0
    # New identities (hello without a token) from one IP address: a burst, then a refill per
    # second. Each identity is kept (memory and a database row) until ``identity_retention``
    # passes without it, so a client looping on hello must not be able to mint them without end.
    new_players_burst: int = 100
    new_players_per_second: float = 1.0
    max_chat: int = 300
    # ``sync`` resends a game's whole history (tens of KB for a few bytes asked): per identity
    # and per address, a burst, then a refill per second.
    syncs_per_second: float = 0.5
    syncs_burst: int = 3
    address_syncs_per_second: float = 2.0
    address_syncs_burst: int = 20
    chat_per_second: float = 1.0  # per identity, across its connections
    chat_burst: int = 5
    address_chat_per_second: float = 4.0  # per address, all its identities together
    address_chat_burst: int = 20
    allow_seed: bool = False  # a chosen seed reveals the deck order: only for local games
    # Finished games and records (list_replays, get_replay, get_profile, get_leaderboard) read
    # the database: their own rate, per address and per identity (each bucket apart), far below
    # the message rate; and a page of at most this many (games, or leaderboard entries).
    replays_per_second: float = 1.0
    replays_burst: int = 10
    replays_page: int = 50
    # Shared review: a leader steps through a game at a person's pace (each step is one frame
    # to every member), per identity.
    review_per_second: float = 5.0
    review_burst: int = 20
    empty_room_grace: float = 60.0  # a waiting/finished room nobody is connected to closes after
    # A room whose game nobody starts (or, once over, rematches) closes this long after it was
    # created (or its game ended), connected members or not, or squatters would keep rooms.
    waiting_room_timeout: float = 600.0
    # On a full server a create_room closes the waiting or finished room whose seated people
    # have not sent anything about it for longest, if that is at least this long.
    idle_room_grace: float = 60.0

    # Play pace
    # Server bots decide this long after the decision opens: a pace a person can follow.
    # bench/pace.py (docs/server.md): at 1.0 s a bot's log line stays in view about 2 s at
    # 80x24, long enough to read it; at 0.3 s it would stay 0.6 s (three bots' turns in two
    # seconds).
    bot_delay: float = 1.0
    expert_seconds: float = 0.4  # an expert bot's search budget per decision (wall clock)
    bot_workers: int = 2  # processes in which expert bots think, shared by every room
    away_delay: float = 2.0  # ... and for a seat marked away
    away_after: int = 2  # timeouts in a row before a seat is marked away
    # An idle seat's countdown (the room's idle_grace, server.rooms.grace) is shown to every member
    # in its last this many seconds: shown from the start it would count down at every decision.
    idle_notice: float = 60.0
    timer_scale: float = 1.0  # multiplies room timers (tests use tiny values)
    history_events: int = 2_000  # at most this many past events are sent on join
    shutdown_grace: float = 1.0  # seconds to flush goodbyes on shutdown

    # SSH gateway (server/gateway/, docs/operations.md): off unless ssh_port is given
    ssh_port: int = -1  # -1 = no SSH gateway; 0 = any free port
    ssh_host: str = ""  # address to listen on; empty = the same as host
    ssh_auth: str = "open"  # open: anyone, no password; keys: only ssh_authorized_keys
    ssh_authorized_keys: str = ""  # an OpenSSH authorized_keys file
    ssh_host_key: str = ""  # empty = ssh_host_ed25519_key in the data directory (made once)
    ssh_max_sessions: int = 64  # each session is a client process (~20 MiB)
    ssh_max_sessions_per_address: int = 8
    ssh_sessions_per_second: float = 4.0  # new sessions start at this pace after the burst
    ssh_sessions_burst: int = 8
    ssh_start_queue: float = 10.0  # a start that would wait longer than this is refused
    ssh_idle_timeout: float = 1800.0  # seconds without a keystroke before a session closes
    # Connections still logging in (key exchange, authentication), all addresses together:
    # past this many, new ones are dropped before the key exchange (OpenSSH's MaxStartups).
    ssh_max_logins: int = 32
    # New SSH connections per address: a burst, then a refill per second; past it, dropped
    # before the key exchange (each costs the server's process a key exchange).
    ssh_handshakes_per_second: float = 2.0
    ssh_handshakes_burst: int = 10
    # How players type this server's SSH address, "host" or "host:port", for the resume
    # command the gateway shows keyless players; empty = the address they reached.
    ssh_public_address: str = ""
    # A cluster (db = "postgresql://..."): a node holds each room it runs under a lease of this
    # many seconds, renewed every quarter of it; a node that stops renewing (killed, cut off)
    # has its rooms taken over by another node once their leases expire.
    lease_seconds: float = 5.0
    # host:port the other nodes send this node's clients to (moved); empty = host:port bound
    # (with host 0.0.0.0 or ::, this machine's name)
    node_address: str = ""
    # Storage and growth
    store_retry: float = 5.0  # seconds between tries of a database that refused a write
    # Abandoned games and identities not seen for this many seconds are deleted (0 keeps them).
    abandoned_retention: float = 7 * 86_400.0
    identity_retention: float = 90 * 86_400.0
    retention_interval: float = 3_600.0  # seconds between two retention sweeps
    error_log_per_minute: int = 10  # tracebacks of failing requests logged per minute at most
    # Log lines a client can cause (connects, refusals, closes, hellos, joins) per minute at
    # most, all clients together; the rest are counted in one line when logging resumes.
    log_lines_per_minute: int = 600
    announce_version: bool = False  # welcome.server names the package version only if set

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


FIELDS = {f.name: f for f in dataclasses.fields(ServerConfig)}

#: The per-address rate limits lifted: for servers whose clients all share one address
#: (``selfish play``'s embedded server, the load bench, tests), where those limits would make
#: every client pay for the others.
SHARED_ADDRESS: dict[str, Any] = {
    "address_rate_per_second": 1e6,
    "address_rate_burst": 1_000_000,
    "address_bytes_per_second": 1e9,
    "address_bytes_burst": 1_000_000_000,
    "address_syncs_per_second": 1e6,
    "address_syncs_burst": 1_000_000,
    "connections_per_second": 1e6,
    "connections_burst": 1_000_000,
    "address_resumes_per_second": 1e6,
    "address_resumes_burst": 1_000_000,
    "rooms_per_second": 1e6,
    "rooms_burst": 1_000_000,
    "address_chat_per_second": 1e6,
    "address_chat_burst": 1_000_000,
    "replays_per_second": 1e6,
    "replays_burst": 1_000_000,
}


def load_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read settings from a TOML file: top-level keys (or a ``[server]`` table) named like the
    :class:`ServerConfig` fields. Unknown keys and wrong types raise ValueError."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    table = data.get("server", data)
    if not isinstance(table, dict):
        raise ValueError("[server] must be a table")
    settings: dict[str, Any] = {}
    for key, value in table.items():
        if key not in FIELDS:
            raise ValueError(f"unknown setting {key!r} in {path}")
        expected = type(getattr(ServerConfig(), key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not expected:
            raise ValueError(f"setting {key!r} must be a {expected.__name__}")
        settings[key] = value
    return settings
