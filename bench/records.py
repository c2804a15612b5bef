"""Records and ratings at scale: a database of 100,000 finished games and 20,000 players.

Prints figures only (no assertions), each beside a baseline measured in the same run:

- building the database through the store, one game's end at a time (its result, records and
  rating update in the transaction of its tick, a tick of 1,000 games);
- a game's end with its rating update, committed alone (median, 99th percentile), beside the
  bare result update of the games row it replaces;
- ``get_leaderboard`` (pages of 50, walking down the board), ``list_replays`` of a player (by
  another player) and ``get_profile``, handled by the lobby as the server does (from the
  request to the encoded reply), beside ``ping``;
- ``--recompute-ratings`` over every stored game: its time, and whether it gave the same
  numbers as the incremental updates.

    nice -n 10 python bench/records.py [--games 100000] [--players 20000] [--db PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from protocol.messages import GetLeaderboard, GetProfile, ListReplays, Ping, Request
from server.config import SHARED_ADDRESS, ServerConfig
from server.lobby.lobby import Lobby, Player
from server.rooms.wire import encode
from server.store.store import Store

LEVELS = ("random", "basic", "expert")


class Handle:
    """A timer nobody fires: the bench drives no clock."""

    def cancel(self) -> None:
        """Nothing to cancel."""


class Clock:
    """The lobby's scheduler: the wall clock, and timers that never fire."""

    def time(self) -> float:
        """Now."""
        return time.monotonic()

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> Handle:
        """Never called back."""
        return Handle()


class Sink:
    """A connection that encodes what it is sent, as the server's would, and keeps nothing."""

    address = "127.0.0.1"
    peer = "127.0.0.1:1"

    def __init__(self) -> None:
        self.sent = 0
        self.last: dict[str, Any] = {}

    def send(self, message: dict[str, Any]) -> None:
        """Encode it (and keep it, to read a page's next)."""
        self.sent += len(encode(message))
        self.last = message

    def send_frame(self, data: bytes) -> None:
        """Count it."""
        self.sent += len(data)

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Count them."""
        self.sent += sum(len(part) for part in parts)

    def close_after(self, message: dict[str, Any]) -> None:
        """Nothing to close."""


def seats_of(rng: random.Random, players: list[str]) -> list[dict[str, Any]]:
    """2-5 seats: people from ``players`` (about four in five seats) and bots."""
    size = rng.randint(2, 5)
    seats: list[dict[str, Any]] = []
    for index, pid in enumerate(rng.sample(players, size)):
        if index and rng.random() < 0.2:
            level = rng.choice(LEVELS)
            seats.append({"kind": "bot", "name": f"Bot {index}", "player": None, "level": level})
        else:
            seats.append(
                {"kind": "human", "name": pid, "player": pid, "level": "basic", "left": False}
            )
    seats[0]["left"] = rng.random() < 0.03
    return seats


def play(store: Store, rng: random.Random, players: list[str]) -> int:
    """One finished game stored: created, then ended (its records and rating updated)."""
    seats = seats_of(rng, players)
    settings = {"public": rng.random() < 0.9, "seeded": False, "variants": []}
    names = [seat["name"] for seat in seats]
    edition = rng.choice(("space", "shipwrecked"))
    game = store.create_game("ABCD", edition, names, seats, settings, rng.getrandbits(62), 0)
    winner = rng.choice([None, *range(len(seats))])
    store.finish_game(game, "over", winner, rng.randint(10, 40), "0" * 64)
    return game


def build(store: Store, games: int, players: list[str], rng: random.Random) -> float:
    """Store ``games`` games, a tick (one commit) per 1,000; their rate per second."""
    store.on_write = lambda: None
    start = time.perf_counter()
    for n in range(games):
        play(store, rng, players)
        if n % 1000 == 999:
            store.commit()
    store.commit()
    store.on_write = None
    return games / (time.perf_counter() - start)


def percentiles(samples: list[float]) -> str:
    """Median and 99th percentile, in milliseconds."""
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered) * 1000:6.3f} ms, p99 {p99 * 1000:6.3f} ms"


def game_ends(
    store: Store, rng: random.Random, players: list[str], count: int
) -> tuple[list[float], list[float]]:
    """``count`` games ended and committed one at a time: the time of each end with its
    commit, and of the end's work alone (what the server does before the tick commits)."""
    times, work = [], []
    store.on_write = lambda: None  # the server's group commit: the tick commits
    for _ in range(count):
        seats = seats_of(rng, players)
        settings = {"public": True, "seeded": False, "variants": []}
        names = [seat["name"] for seat in seats]
        game = store.create_game("ABCD", "space", names, seats, settings, 1, 0)
        store.commit()
        start = time.perf_counter()
        store.finish_game(game, "over", 0, 20, "0" * 64)
        done = time.perf_counter()
        store.commit()
        times.append(time.perf_counter() - start)
        work.append(done - start)
    store.on_write = None
    return times, work


def bare_ends(store: Store, count: int) -> list[float]:
    """The baseline: the games row's result update alone, committed (how an abandoned game
    ends: no records, no rating)."""
    times = []
    for _ in range(count):
        game = store.create_game("ABCD", "space", ["a", "b"], [], {}, 1, 0)
        store.commit()
        start = time.perf_counter()
        store.finish_game(game, "abandoned", None, 1)
        store.commit()
        times.append(time.perf_counter() - start)
    return times


def timed(lobby: Lobby, player: Player, requests: list[Request]) -> list[float]:
    """How long the lobby takes over each request, up to its encoded reply."""
    conn = Sink()
    times = []
    for request in requests:
        start = time.perf_counter()
        lobby.handle(conn, player, request)
        times.append(time.perf_counter() - start)
    return times


def board_walk(lobby: Lobby, player: Player, edition: str, pages: int) -> list[float]:
    """Walk down the leaderboard page by page, each from the ``next`` of the one before (back
    to the top at its end)."""
    conn = Sink()
    times = []
    after = None
    for _ in range(pages):
        start = time.perf_counter()
        lobby.handle(conn, player, GetLeaderboard(edition=edition, after=after, limit=50))
        times.append(time.perf_counter() - start)
        after = conn.last.get("next")
    return times


def main() -> None:
    """Build the database, run the measurements, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--db", help="database file (default: a temporary one, removed)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = tempfile.TemporaryDirectory()
    path = args.db or os.path.join(folder.name, "records.sqlite3")
    store = Store(path)
    players = [f"p{n:08x}" for n in range(args.players)]
    for pid in players:
        store.save_player(pid, f"token-{pid}", pid)
    rate = build(store, args.games, players, rng)
    print(f"stored {args.games} finished games of {args.players} players: {rate:,.0f} games/s")

    ends, work = game_ends(store, rng, players, args.requests)
    bare = bare_ends(store, args.requests)
    print(f"a game's end with its records and rating update, committed: {percentiles(ends)}")
    print(f"  of which the end's work, before the commit:                {percentiles(work)}")
    print(f"  baseline, the bare result update of its row, committed:   {percentiles(bare)}")

    config = ServerConfig(**SHARED_ADDRESS)
    lobby = Lobby(config, store, Clock())
    lobby.restore()
    viewer = lobby.players[players[0]]
    ping = timed(lobby, viewer, [Ping() for _ in range(args.requests)])
    board = board_walk(lobby, viewer, "space", args.requests)
    lists = timed(
        lobby,
        viewer,
        [ListReplays(player=rng.choice(players), limit=50) for _ in range(args.requests)],
    )
    profiles = timed(
        lobby, viewer, [GetProfile(player=rng.choice(players)) for _ in range(args.requests)]
    )
    ranked = store.execute("SELECT count(*) FROM standings WHERE ranked = 1")[0][0]
    print(f"handled by the lobby, {args.requests} requests each ({ranked} players ranked):")
    print(f"  get_leaderboard, pages of 50 down the board: {percentiles(board)}")
    print(f"  list_replays of a player, 50 games:          {percentiles(lists)}")
    print(f"  get_profile:                                  {percentiles(profiles)}")
    print(f"  baseline, ping:                               {percentiles(ping)}")

    start = time.perf_counter()
    games, differ = store.recompute_ratings()
    seconds = time.perf_counter() - start
    same = "same numbers as incremental" if differ == 0 else f"{differ} standings DIFFERED"
    print(f"--recompute-ratings over {games} finished games: {seconds:.1f} s; {same}")
    print(f"  baseline, building them incrementally: {games / rate:.1f} s")
    store.close()
    folder.cleanup()


if __name__ == "__main__":
    main()
