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
    db: str = ":memory:"  # SQLite path; ":memory:" keeps nothing across restarts
    db_synchronous: str = "NORMAL"  # SQLite PRAGMA synchronous; WAL+NORMAL survives a crash
    log_level: str = "INFO"

    # Connections
    max_frame: int = 65_536
    idle_timeout: float = 120.0  # seconds without a complete frame before the connection closes
    # A started frame must be complete within this many seconds: without it a client trickling
    # one byte now and then would hold its connection (and buffer) forever.
    frame_timeout: float = 30.0
    max_connections: int = 2_000
    max_connections_per_address: int = 16
    max_write_buffer: int = 8 * 1024 * 1024  # a client that reads nothing is cut off here
    rate_per_second: float = 20.0  # messages per connection, token bucket
    rate_burst: int = 40

    # Rooms and chat
    max_rooms: int = 1_000
    max_rooms_per_player: int = 4
    # Open rooms created from one IP address. Identities are free, so without this one client
    # could fill max_rooms with games whose only human left (they wait for them forever).
    max_rooms_per_address: int = 16
    # New identities (hello without a token) from one IP address: a burst, then a refill per
    # second. Each identity is kept for good (memory and a database row), so a client looping
    # on hello must not be able to mint them without end.
    new_players_burst: int = 100
    new_players_per_second: float = 1.0
    max_chat: int = 300
    chat_per_second: float = 1.0
    chat_burst: int = 5
    allow_seed: bool = False  # a chosen seed reveals the deck order: only for local games
    empty_room_grace: float = 60.0  # a waiting/finished room nobody is connected to closes after

    # Play pace
    bot_delay: float = 0.3  # server bots decide this long after the decision opens
    expert_seconds: float = 0.3  # an expert bot's search budget per decision (wall clock)
    bot_workers: int = 2  # processes in which expert bots think, shared by every room
    away_delay: float = 2.0  # ... and for a seat marked away
    away_after: int = 2  # timeouts in a row before a seat is marked away
    timer_scale: float = 1.0  # multiplies room timers (tests use tiny values)
    history_events: int = 2_000  # at most this many past events are sent on join
    shutdown_grace: float = 1.0  # seconds to flush goodbyes on shutdown

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


FIELDS = {f.name: f for f in dataclasses.fields(ServerConfig)}


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
