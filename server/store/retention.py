"""The retention sweep: abandoned games and identities unused for long are deleted.

Without it the database grows with every room created and left (2.9 GB an hour under a
create-and-leave loop) and with every identity ever minted, and the lobby keeps every identity
in memory. Finished games stay (they are the replays); an identity that holds a seat in an
unfinished game, or is connected, or is in a live room, stays whatever its age.

The server sweeps every ``retention_interval`` (:meth:`Retention.sweep_later`): on PostgreSQL
its reads run in the store's thread for reads, and the deletions on the event loop once they
are back.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.config import ServerConfig
from server.store.game_reads import GameReads
from server.store.store import Store

log = logging.getLogger("selfish.server")


class Identities(Protocol):
    """The lobby's identities, as the sweep reads and prunes them."""

    players: dict[str, Any]
    by_token: dict[str, Any]

    def connected(self, player: str) -> bool:
        """Whether the player has a live connection."""


@dataclass(frozen=True)
class _Cut:
    """A sweep's limits: abandoned games that ended before ``games``, identities not seen
    since ``players`` (None: that retention is off)."""

    games: float | None
    players: float | None


# What a sweep reads: the number of abandoned games to delete, the stale identities.
Found = tuple[int, list[str]]


def _read(reads: GameReads, cut: _Cut) -> Found:
    """A sweep's reads (in PostgreSQL's read thread, or on SQLite at once)."""
    games = 0 if cut.games is None else reads.abandoned(cut.games)
    players = [] if cut.players is None else reads.stale_players(cut.players)
    return games, players


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

    def _cut(self) -> _Cut:
        config, now = self._config, self._wall()
        return _Cut(
            now - config.abandoned_retention if config.abandoned_retention > 0 else None,
            now - config.identity_retention if config.identity_retention > 0 else None,
        )

    def sweep(self) -> tuple[int, int]:
        """Delete what is old enough now; return (games, identities) deleted. Nothing is
        deleted while the store refuses writes."""
        if not self._store.writable:
            return 0, 0
        cut = self._cut()
        return self._prune(cut, _read(self._store, cut))

    def sweep_later(self) -> None:
        """:meth:`sweep`, its reads off the event loop on PostgreSQL (in the store's thread
        for reads: a search of every identity and unfinished game, which the loop need not
        wait for), the deletions made on the loop once they are back; on SQLite at once."""
        if not self._store.writable:
            return
        cut = self._cut()
        later = self._store.reads_later(functools.partial(_read, cut=cut))
        if later is None:
            self._prune(cut, _read(self._store, cut))
            return
        loop = asyncio.get_running_loop()
        later.add_done_callback(lambda done: loop.call_soon_threadsafe(self._read_later, cut, done))

    def _read_later(self, cut: _Cut, done: concurrent.futures.Future[Found]) -> None:
        """On the loop: delete what :meth:`sweep_later`'s reads found."""
        try:
            found = done.result()
        except Exception as exc:  # the database is out: the next sweep tries again
            log.warning("retention: the sweep could not read: %s", exc)
            return
        if self._store.writable:
            self._prune(cut, found)

    def _prune(self, cut: _Cut, found: Found) -> tuple[int, int]:
        """Delete what ``found`` says is old enough; (games, identities) deleted. An
        identity connected, or in a room, stays."""
        store, ids = self._store, self._identities
        games, stale = found
        if games and cut.games is not None:
            store.delete_abandoned(cut.games)
        gone: list[str] = []
        for pid in stale:
            player = ids.players.get(pid)
            if player is not None and (ids.connected(pid) or player.rooms):
                continue
            gone.append(pid)
            if player is not None:
                del ids.players[pid]
                ids.by_token.pop(player.token, None)
        if gone and cut.players is not None:
            store.delete_players(gone, cut.players)
        if games or gone:
            log.info(
                "retention: deleted %d abandoned games and %d unused identities", games, len(gone)
            )
        return games, len(gone)
