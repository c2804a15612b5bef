"""What the Space expert would win if it weighed the cards that only harm, and what it would cost.

Prints figures only (no assertions). The expert of ``server/bots/expert.py`` never weighs Laser
Blast or Hole in Suit in Space (docs/bots.md). For each *rule* named here, a copy of it that does
weigh them, where the rule allows, plays two tables: one seat against three ``basic`` bots (its
seat rotating game by game; the figure is its win share) and four such experts (the figure is the
share of games nobody wins). Those are two targets of issue 15: at least 50% at the basic table,
at most 20% without a winner at the table of experts.

Rules (the expert's search weighs a card that only harms, on the rival it aims it at, when):

- ``never``: never (the expert as it is);
- ``any``: always;
- ``near``: the rival stands two rows from the ship or nearer;
- ``ahead``: the rival stands ahead of the expert;
- ``calm``: no card that only harms lies in the discard pile;
- ``calm-near``: both ``calm`` and ``near``.

    python bench/space_harm.py [--rules R,...] [--games N] [--table-games N]
                               [--rollouts R] [--jobs J] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import server.bots.expert as expert
from server.bots.basic import HARM
from server.bots.expert import Budget
from server.bots.selfplay import play_game
from server.engine.cards import GAME_DECKS, Edition

SEATS = 4
View = dict[str, Any]
Choice = dict[str, Any]


def _near(view: View, choice: Choice) -> bool:
    return bool(view["goal_row"] - view["players"][choice["target"]]["row"] <= 2)


def _ahead(view: View, choice: Choice) -> bool:
    players = view["players"]
    return bool(players[choice["target"]]["row"] > players[view["seat"]]["row"])


def _calm(view: View, choice: Choice) -> bool:
    deck = GAME_DECKS[Edition.SPACE]
    return not any(deck[card["id"]].key in HARM for card in view["discard"])


RULES: dict[str, Callable[[View, Choice], bool] | None] = {
    "never": None,
    "any": lambda view, choice: True,
    "near": _near,
    "ahead": _ahead,
    "calm": _calm,
    "calm-near": lambda view, choice: _calm(view, choice) and _near(view, choice),
}


def weigh_harm(rule: str) -> None:
    """Make this process's expert weigh the cards that only harm where ``rule`` allows."""
    allows = RULES[rule]
    if allows is None:
        return
    # The expert's shortlist leaves those cards out where basic's HARM_FROM says None (Space).
    expert.HARM_FROM = {edition: 0 for edition in Edition}
    weighing_all = expert.shortlist
    deck = GAME_DECKS[Edition.SPACE]

    def shortlist(view: View, legal: list[Choice]) -> list[Choice]:
        kept = [
            choice
            for choice in weighing_all(view, legal)
            if choice["do"] != "play"
            or deck[choice["card"]].key not in HARM
            or allows(view, choice)
        ]
        return kept or legal

    expert.shortlist = shortlist


@dataclass(frozen=True)
class Job:
    """One game: the rule, the table (``basic`` or ``experts``), its index, seed and budget."""

    rule: str
    table: str
    index: int
    seed: int
    rollouts: int


def play(job: Job) -> tuple[Job, bool]:
    """Play one game (in a worker process): whether the tested seat won (at the basic table),
    or whether nobody won (at the table of experts)."""
    weigh_harm(job.rule)
    seat = job.index % SEATS
    if job.table == "experts":
        levels = ["expert"] * SEATS
    else:
        levels = ["basic"] * SEATS
        levels[seat] = "expert"
    result = play_game(
        Edition.SPACE, levels, job.seed, check=False, budget=Budget(job.rollouts, None)
    )
    if job.table == "experts":
        return job, result.winner is None
    return job, result.winner == seat


def share_line(label: str, hits: int, games: int) -> str:
    """``label share% (±margin) of games``."""
    share = hits / games
    margin = 1.96 * math.sqrt(share * (1 - share) / games)
    return f"{label} {share:.1%} (±{margin:.1%}) of {games}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default=",".join(RULES), help=f"any of {', '.join(RULES)}")
    parser.add_argument("--games", type=int, default=400, help="games at the basic table")
    parser.add_argument("--table-games", type=int, default=200, help="games of four experts")
    parser.add_argument("--rollouts", type=int, default=expert.DEFAULT_BUDGET.rollouts)
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=5000)
    arguments = parser.parse_args()
    rules = arguments.rules.split(",")
    for rule in rules:
        if rule not in RULES:
            parser.error(f"unknown rule {rule!r}")
    if min(arguments.games, arguments.table_games, arguments.rollouts, arguments.jobs) < 1:
        parser.error("--games, --table-games, --rollouts and --jobs must be positive")
    jobs = [
        Job(rule, table, index, arguments.seed + index, arguments.rollouts)
        for rule in rules
        for table, games in (("basic", arguments.games), ("experts", arguments.table_games))
        for index in range(games)
    ]
    started = time.perf_counter()
    # A fresh process for every game: weigh_harm changes the process's expert.
    with multiprocessing.Pool(arguments.jobs, maxtasksperchild=1) as pool:
        outcomes = pool.map(play, jobs, chunksize=1)
    print(f"space, {arguments.rollouts} rollouts per expert decision, seeds from {arguments.seed}")
    for rule in rules:
        won = [hit for job, hit in outcomes if job.rule == rule and job.table == "basic"]
        empty = [hit for job, hit in outcomes if job.rule == rule and job.table == "experts"]
        print(
            f"  {rule:9}  expert vs 3 basic: "
            + share_line("wins", sum(won), len(won))
            + ";  4 x expert: "
            + share_line("no winner", sum(empty), len(empty))
        )
    print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
