"""The retention sweep: abandoned games and identities unused for long are deleted.

Without it the database grows with every room created and left (2.9 GB an hour under a
create-and-leave loop) and with every identity ever minted, and the lobby keeps every identity
in memory. Finished games stay (they are the replays); an identity that holds a seat in an
unfinished game, or is connected, or is in a live room, stays whatever its age.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from server.config import ServerConfig
from server.store.store import Store

log = logging.getLogger("selfish.server")


class Identities(Protocol):
    """The lobby's identities, as the sweep reads and prunes them."""

    players: dict[str, Any]
    by_token: dict[str, Any]

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""


class Retention:
    """Deletes what ``abandoned_retention`` and ``identity_retention`` say is old enough."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        identities: Identities,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._config = config
        self._store = store
        self._identities = identities
        self._wall = wall  # the database's timestamps are wall-clock times

    def sweep(self) -> tuple[int, int]:
        """Delete what is old enough now; return (games, identities) deleted. Nothing is
        deleted while the store refuses writes."""
        config, store = self._config, self._store
        if not store.writable:
            return 0, 0
        now = self._wall()
        games = 0
        if config.abandoned_retention > 0:
            games = store.prune_games(now - config.abandoned_retention)
        gone: list[str] = []
        if config.identity_retention > 0:
            ids = self._identities
            for pid in store.stale_players(now - config.identity_retention):
                player = ids.players.get(pid)
                if player is not None and (ids.connected(pid) or player.rooms):
                    continue
                gone.append(pid)
                if player is not None:
                    del ids.players[pid]
                    ids.by_token.pop(player.token, None)
            store.delete_players(gone)
        if games or gone:
            log.info(
                "retention: deleted %d abandoned games and %d unused identities", games, len(gone)
            )
        return games, len(gone)
