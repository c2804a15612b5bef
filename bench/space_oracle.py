"""How often a Space bot that sees every hand wins: a yardstick for what a bot can reach.

Prints figures only (no assertions). One seat, the *oracle*, plays three seats of ``random`` or
``basic`` bots at a 4-seat Space table, its seat rotating game by game. At each of its turn
points (the actions phase and stay-or-move) it tries every legal choice (the fatal ones only
when nothing else is legal) on copies of the true game, which hold every hand as it is; the
draw piles are shuffled afresh in each copy (with ``--sees-order`` they are not: the oracle
knows what every draw will bring). Each copy is played to its end, the oracle on as the basic
bot and the others as the bots they are, and the oracle keeps the choice that won most often
(every choice on the same playouts: common random numbers). Its other decisions are the basic
bot's.

It sees more than any bot may, and it weighs every choice it has, so it is a yardstick for the
bots' targets (docs/bots.md): the ``basic`` seat against three ``random`` and the
``expert`` against three ``basic``. It is not a proof of a ceiling: after each choice it plays
on as the basic bot.

    python bench/space_oracle.py [--against random|basic] [--games N] [--playouts P]
                                 [--sees-order] [--jobs J] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass

from server.bots.opponents import basic_model
from server.engine.actions import strip
from server.engine.cards import Edition
from server.engine.game import Game
from server.engine.search import at_turn_point, copy_game, state_of

SEATS = 4
# A playout longer than this counts as a loss: random seats can in principle stay forever.
PLAYOUT_LIMIT = 5000


@dataclass(frozen=True)
class Job:
    """One game: the oracle's seat, the other seats' level, the seed, the playouts per choice."""

    seat: int
    against: str
    seed: int
    playouts: int
    sees_order: bool


@dataclass(frozen=True)
class Outcome:
    """How one game went: whether the oracle won, and whether anybody did."""

    won: bool
    no_winner: bool


def other_choice(game: Game, seat: int, against: str, rng: random.Random) -> dict[str, object]:
    """A non-oracle seat's choice: as the bot of level ``against`` would make it."""
    legal = game.legal(seat)
    if against == "random" or len(legal) == 1:
        return rng.choice(legal)
    return basic_model(game, seat, rng)


def playout(game: Game, oracle: int, against: str, rng: random.Random) -> float:
    """Play ``game`` to its end: 1.0 if the oracle's seat wins, else 0.0."""
    for _ in range(PLAYOUT_LIMIT):
        if game.over:
            return 1.0 if game.winner == oracle else 0.0
        who = game.pending_seats()[0]
        if who == oracle:
            game.apply(who, basic_model(game, who, rng))
        else:
            game.apply(who, other_choice(game, who, against, rng))
    return 0.0


def oracle_choice(game: Game, seat: int, job: Job, rng: random.Random) -> dict[str, object]:
    """The legal choice whose playouts from the true game won most often (the first on ties)."""
    legal = game.legal(seat)
    candidates = [choice for choice in legal if not choice.get("fatal")] or legal
    if len(candidates) == 1 or not at_turn_point(game):
        return basic_model(game, seat, rng)
    wins = [0.0] * len(candidates)
    for _ in range(job.playouts):
        seed = rng.getrandbits(32)
        for index, choice in enumerate(candidates):
            play_rng = random.Random(seed)
            copy = copy_game(game, play_rng)
            if not job.sees_order:
                state = state_of(copy)
                play_rng.shuffle(state.draw)
                play_rng.shuffle(state.loc_draw)
            copy.apply(seat, strip(choice))
            wins[index] += playout(copy, seat, job.against, play_rng)
    best = max(range(len(candidates)), key=lambda index: (wins[index], -index))
    return candidates[best]


def play(job: Job) -> Outcome:
    """One game of the oracle against three bots of ``job.against``."""
    names = [
        f"oracle-{seat + 1}" if seat == job.seat else f"{job.against}-{seat + 1}"
        for seat in range(SEATS)
    ]
    game = Game(Edition.SPACE, names, job.seed)
    rng = random.Random(job.seed ^ 0x0AC1E)
    while not game.over:
        who = game.pending_seats()[0]
        if who == job.seat:
            choice = oracle_choice(game, who, job, rng)
        else:
            choice = other_choice(game, who, job.against, rng)
        game.apply(who, choice)
    return Outcome(game.winner == job.seat, game.winner is None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", choices=("random", "basic"), default="random")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--playouts", type=int, default=32, help="playouts per legal choice")
    parser.add_argument(
        "--sees-order", action="store_true", help="the oracle knows the draw piles' order too"
    )
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    jobs = [
        Job(
            index % SEATS,
            arguments.against,
            arguments.seed + index,
            arguments.playouts,
            arguments.sees_order,
        )
        for index in range(arguments.games)
    ]
    started = time.perf_counter()
    with multiprocessing.Pool(arguments.jobs) as pool:
        outcomes = pool.map(play, jobs, chunksize=1)
    games = len(outcomes)
    won = sum(outcome.won for outcome in outcomes)
    share = won / games
    margin = 1.96 * math.sqrt(share * (1 - share) / games)
    no_winner = sum(outcome.no_winner for outcome in outcomes) / games
    sees = "every hand and the draw order" if arguments.sees_order else "every hand"
    print(
        f"space: oracle (sees {sees}) vs 3 {arguments.against}, {games} games, "
        f"{arguments.playouts} playouts per choice"
    )
    print(f"  oracle wins {share:.1%} (95% interval ±{margin:.1%}); no winner {no_winner:.1%}")
    print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
