"""New games' ids from PostgreSQL's sequence, a few at a time, the next ones asked for in the
background (a cluster's nodes share the sequence: SQLite's store counts them itself)."""

from __future__ import annotations

import concurrent.futures
import logging
import time
from typing import TYPE_CHECKING

from server.store.write_path import Row

if TYPE_CHECKING:  # psycopg is an optional dependency
    from server.store.postgres import PostgresDatabase

log = logging.getLogger("selfish.server")

# Ids taken from the sequence at once (one round trip for them), at least, and the seconds
# they are used for: those left are skipped, so that ids keep about the order the games
# started in on every node (within that long). The next ones are asked for in the background
# once half are used or half that time is gone: twice as many as were used since the last were
# asked for (a burst of new games, as when thousands of players arrive, would otherwise empty
# the stock before the next came back), up to GAME_IDS_MOST.
GAME_IDS = 16
GAME_IDS_MOST = 1024
GAME_IDS_SECONDS = 1.0


class GameIds:
    """The ids taken from the sequence (``next_game``: GAME_IDS of its values) and not used
    yet."""

    def __init__(self, db: PostgresDatabase, next_game: str) -> None:
        self._db = db
        self._sql = next_game
        self._ids: list[int] = []  # last first
        self._until = 0.0  # monotonic time after which they are skipped
        self._asked: tuple[float, concurrent.futures.Future[list[Row]]] | None = None
        self._used = 0  # ids taken since the last were asked for
        self._size = 0  # the ids in the stock when it came

    def take(self) -> int:
        """A new game's id. The event loop waits for the sequence only when the ids in stock
        ran out or went stale (a burst of new games, an idle node's first game); otherwise
        the next ones, asked for in the background, replace the stock as they come."""
        now = time.monotonic()
        asked = self._asked
        if asked is not None and asked[1].done():
            self._asked = None
            try:
                self._stock(asked[1].result(), asked[0])
            except Exception as exc:  # the stock runs out, and the next ids are read here
                log.warning("could not take game ids from the sequence: %s", exc)
        if not self._ids or now > self._until:
            # A sequence's next values owe nothing to this node's writes: the read need not
            # wait for them to commit.
            with self._db.elsewhere():
                self._stock(self._db.read(self._sql, (self._wanted(),)), now)
            self._used = 0
        game = self._ids.pop()
        self._used += 1
        stale = now > self._until - GAME_IDS_SECONDS / 2
        if self._asked is None and (len(self._ids) < self._size // 2 or stale):
            self._asked = now, self._db.read_later(self._sql, (self._wanted(),))
            self._used = 0
        return game

    def _wanted(self) -> int:
        return min(GAME_IDS_MOST, max(GAME_IDS, 2 * self._used))

    def _stock(self, rows: list[Row], asked: float) -> None:
        """The ids ``rows`` hold, read from the sequence at ``asked``, replace those left."""
        self._ids = sorted((int(row[0]) for row in rows), reverse=True)
        self._size = len(self._ids)
        self._until = asked + GAME_IDS_SECONDS
