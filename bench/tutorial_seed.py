"""Search the seed of a tutorial game (selfish_tui/tutorial.py, SEEDS).

A tutorial room is a seeded game with two basic bots whose choices the server seeds from the
room's seed (``random.Random(seed ^ 0x5E1F)``, server/rooms/room.py), so a seed fixes everything but
the newcomer's choices. For each seed this plays the game on the engine as the server would,
once per kind of newcomer (random key pressers of the Pilot tests' weights, a basic bot, one
who always takes the first choice), watches seat 0's views with the tutorial's own
:class:`~selfish_tui.tutorial.Tutor`, and prints, per seed: whether the newcomer has the first
turn, the turn by which every lesson had been shown (worst newcomer), the game's length in
turns (longest), and for how many newcomers some lesson never came.

    nice -n 19 python bench/tutorial_seed.py --edition shipwrecked --seeds 0-200 [--top 10]

The seed chosen is the best line: every newcomer meets every lesson, the newcomer starts, the
last lesson comes early and the game is short.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import Any

from selfish_tui.tutorial import BOTS, LEVEL, Tutor
from server.bots.levels import choose
from server.engine import Game

# The Pilot tests' newcomer (tests/tui/pilot.py): moving on keeps games short.
WEIGHTS = {"move": 8, "done": 3, "stay": 2, "play": 2, "accept": 2, "block": 2}
MAX_TURNS = 200

Policy = Callable[[dict[str, Any]], dict[str, Any]]


def presser(rng: random.Random) -> Policy:
    """A newcomer pressing keys as the Pilot tests do (never a fatal choice while another
    exists), with its own random source."""

    def decide(view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        indices = [i for i, c in enumerate(legal) if not c.get("fatal")] or list(range(len(legal)))
        weights = [WEIGHTS.get(str(legal[i].get("do")), 1) for i in indices]
        return dict(legal[rng.choices(indices, weights)[0]])

    return decide


def newcomers() -> list[tuple[str, Policy]]:
    """The kinds of newcomer every seed is tried with."""
    policies: list[tuple[str, Policy]] = [
        (f"presser {n}", presser(random.Random(n))) for n in range(6)
    ]
    bot_rng = random.Random(99)
    policies.append(("basic", lambda view: dict(choose("basic", view, bot_rng))))
    policies.append(
        (
            "first",
            lambda view: dict(
                next((c for c in view["legal"] if not c.get("fatal")), view["legal"][0])
            ),
        )
    )
    return policies


def play(edition: str, seed: int, decide: Policy) -> tuple[int | None, int, bool]:
    """(turn when the last lesson was shown or None, the game's turns, newcomer starts)."""
    names = ["You"] + [f"Bot {n}" for n in range(1, BOTS + 1)]
    game = Game(edition, names, seed)
    bots = random.Random(seed ^ 0x5E1F)  # the server's autoplay source (server/rooms/room.py)
    tutor = Tutor(edition)
    starts = game.active == 0
    done_at: int | None = None
    while not game.over and game.turn < MAX_TURNS:
        view = game.view(0)
        tutor.due(view)
        if done_at is None and tutor.finished:
            done_at = game.turn
        pending = game.pending_seats()
        seat = pending[0]
        # The server's bots decide at once in seat order; the newcomer answers in between.
        choice = decide(view) if seat == 0 else dict(choose(LEVEL, game.view(seat), bots))
        game.apply(seat, choice)
    return done_at, game.turn, starts


def main() -> int:
    """Try the seeds; print the best."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="shipwrecked")
    parser.add_argument("--seeds", default="0-100", help="a range, first-last")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    first, last = (int(n) for n in args.seeds.split("-"))
    rows = []
    for seed in range(first, last + 1):
        results = [play(args.edition, seed, decide) for _name, decide in newcomers()]
        missed = sum(1 for done, _turns, _s in results if done is None)
        worst = max((done or MAX_TURNS) for done, _turns, _s in results)
        longest = max(turns for _done, turns, _s in results)
        starts = results[0][2]
        rows.append((missed, not starts, worst, longest, seed))
    rows.sort()
    print(f"{args.edition}: seeds {first}-{last}, {len(newcomers())} newcomers each")
    print("seed  starts  last lesson by turn  longest game  newcomers missing a lesson")
    for missed, not_starts, worst, longest, seed in rows[: args.top]:
        print(
            f"{seed:4}  {'yes' if not not_starts else 'no':6}  {worst:19}  {longest:12}  {missed}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
