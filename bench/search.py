"""Search support speed: game copies and view determinizations per second, on one core.

Prints figures only (no assertions). Positions are the turn points of seeded 4-seat random-bot
games; each is copied (``copy_game``, with its own random source and with a search's shared one)
and rebuilt from the active seat's view with sampled hidden cards (``sample``).

    python bench/search.py [--positions N] [--repeat R]
"""

from __future__ import annotations

import argparse
import random
import time

from server.engine import Game
from server.engine.cards import Edition
from server.engine.search import at_turn_point, copy_game, sample


def positions(edition: Edition, count: int) -> list[Game]:
    """Copies of the first ``count`` turn points met in seeded random-bot games."""
    found: list[Game] = []
    seed = 0
    while len(found) < count:
        game = Game(edition, ["A", "B", "C", "D"], seed)
        rng = random.Random(seed)
        while not game.over and len(found) < count:
            seat = game.pending_seats()[0]
            if at_turn_point(game) and rng.random() < 0.2:
                found.append(copy_game(game))
            game.apply(seat, rng.choice(game.legal(seat)))
        seed += 1
    return found


def rate(work: list[object], run: object, repeat: int) -> float:
    """Calls per CPU second of ``run`` over ``work``, ``repeat`` times."""
    assert callable(run)
    start = time.process_time()
    for _ in range(repeat):
        for item in work:
            run(item)
    return repeat * len(work) / (time.process_time() - start)


def main() -> None:
    """Measure and print one line per edition and operation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    shared = random.Random(1)
    for edition in Edition:
        games = positions(edition, args.positions)
        views = [game.view(game.active) for game in games]
        figures = {
            "copy_game (own rng copied)": rate(list(games), copy_game, args.repeat),
            "copy_game (shared rng)": rate(
                list(games), lambda game: copy_game(game, shared), args.repeat
            ),
            "sample (from a seat's view)": rate(
                list(views), lambda view: sample(view, shared), args.repeat
            ),
        }
        for name, value in figures.items():
            print(f"{edition.value:12} {name:28}: {value:9.0f} /s")


if __name__ == "__main__":
    main()
