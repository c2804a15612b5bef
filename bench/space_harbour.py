"""How long the basic astronaut should wait on the start row: win share against liveliness.

Prints figures only (no assertions). The basic bot waits on Space's start row while a card that
only harms lies in the discard pile and at most ``space_harbour_away`` living rivals are off the
start row, for at most ``space_harbour_rounds`` rounds (``server.bots.basic.in_harbour``). For
each pair of limits named here its bot plays two tables: one seat against three ``random`` seats
(its seat rotating game by game; the figure is its win share) and four such bots; for both, the
share of games nobody wins, the median turns per game and the share of the bot's turns spent
staying on the start row.

    python bench/space_harbour.py [--rounds 0,1,2,3,1000] [--away 1] [--games N]
                                  [--table-games N] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from dataclasses import replace
from typing import Any

from server.bots.basic import choose_basic
from server.bots.seen import HARBOUR_AWAY, PATIENT, seen_from_view
from server.bots.selfplay import play_game
from server.engine.cards import Edition

SEATS = 4


def waiting(rounds: int, away: int) -> Any:
    """The basic bot that waits at most ``rounds`` rounds, while at most ``away`` rivals are off
    the start row (a decider of ``play_game``)."""
    style = replace(PATIENT, space_harbour_rounds=rounds, space_harbour_away=away)

    def decide(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return choose_basic(seen_from_view(view, style), rng)

    return decide


def run(rounds: int, away: int, table: str, games: int, seed: int) -> str:
    """Play one table's games with the limits ``rounds`` and ``away``: its line of figures."""
    wins = nobody = turns_total = stays = 0
    lengths: list[int] = []
    for index in range(games):
        seat = index % SEATS
        levels = ["waiting"] * SEATS if table == "4x" else ["random"] * SEATS
        levels[seat] = "waiting"
        result = play_game(
            Edition.SPACE,
            levels,
            seed * 1_000_003 + index,
            check=False,
            deciders={"waiting": waiting(rounds, away)},
        )
        wins += result.winner == seat
        nobody += result.winner is None
        lengths.append(result.turns)
        for other, level in enumerate(levels):
            if level == "waiting":
                turns_total += result.own_turns[other]
                stays += result.start_row_stays[other]
    share = wins / games
    margin = 196 * math.sqrt(share * (1 - share) / games)
    won = f"wins {100 * share:.1f}% (±{margin:.1f})" if table == "vs3random" else "-"
    return (
        f"| {rounds} | {away} | {'vs 3 random' if table == 'vs3random' else '4 x basic'} | {games} "
        f"| {won} | {100 * nobody / games:.1f}% | {statistics.median(lengths):g} "
        f"| {100 * stays / max(1, turns_total):.1f}% |"
    )


def main(argv: list[str] | None = None) -> None:
    """Play every limit's tables and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="0,1,2,3,1000", help="the limits, comma separated")
    parser.add_argument(
        "--away",
        default=str(HARBOUR_AWAY),
        help="rivals off the start row at most, comma separated",
    )
    parser.add_argument("--games", type=int, default=400, help="games against random seats")
    parser.add_argument("--table-games", type=int, default=200, help="games of four bots")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    print(
        "| rounds waited at most | rivals off the start row at most | table | games | basic seat "
        "| no winner | median turns | start-row stays |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for away in (int(text) for text in args.away.split(",")):
        for rounds in (int(text) for text in args.rounds.split(",")):
            print(run(rounds, away, "vs3random", args.games, args.seed), flush=True)
            print(run(rounds, away, "4x", args.table_games, args.seed), flush=True)


if __name__ == "__main__":
    main()
