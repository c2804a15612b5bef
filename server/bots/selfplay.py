"""Bot self-play: whole games decided by bots, with invariants checked after every decision."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.bots.budget import Budget
from server.bots.levels import THINKING, choose
from server.engine.actions import DecisionKind
from server.engine.cards import Edition
from server.engine.game import Game
from server.engine.invariants import check_invariants
from server.engine.search import state_of

# A game longer than this is stopped and counted apart: random bots can in principle stay
# forever, and a runaway game must not hang a simulation.
MAX_TURNS = 1000

View = dict[str, Any]
Choice = dict[str, Any]
#: A level that is not one of the server's (bench/bots.py's frozen ``reference``): its choice.
Decider = Callable[[View, random.Random], Choice]


@dataclass
class GameResult:
    """How one self-play game went."""

    seed: int
    winner: int | None
    turns: int
    decisions: int
    capped: bool
    invariant_checks: int = 0
    invariant_failures: list[str] = field(default_factory=list)
    # Seconds each expert decision took (searched or not), in order: for bench/bots.py.
    expert_seconds: list[float] = field(default_factory=list)
    # Per seat: its stay-or-move decisions (one a turn it lived to the end of), and those in
    # which it stayed on the start row (how lively a table is: bench/bots.py).
    own_turns: list[int] = field(default_factory=list)
    start_row_stays: list[int] = field(default_factory=list)


def play_game(
    edition: Edition,
    levels: Sequence[str],
    seed: int,
    check: bool = True,
    max_turns: int = MAX_TURNS,
    variants: Sequence[str] = (),
    budget: Budget | None = None,
    deciders: Mapping[str, Decider] | None = None,
    search: str = "flat",
) -> GameResult:
    """Play one game with one bot level per seat; deterministic for a given seed (and, with
    ``expert`` seats, a budget of rollouts alone). ``budget`` bounds the experts' search;
    ``deciders`` choose for levels the server does not have (benchmarks' own); ``search`` is the
    experts' (``server.bots.levels.SEARCHES``). Each expert is told the levels of the table it
    sits at, as a server room knows them."""
    names = [f"{level}-{seat + 1}" for seat, level in enumerate(levels)]
    game = Game(edition, names, seed, variants=variants)
    state = state_of(game)
    rng = random.Random(seed ^ 0x5E1F15)
    result = GameResult(seed, None, 0, 0, False)
    result.own_turns = [0] * len(levels)
    result.start_row_stays = [0] * len(levels)
    table = tuple(levels)
    own_turns, start_row_stays = result.own_turns, result.start_row_stays
    stay_or_move = DecisionKind.STAY_OR_MOVE  # read once: an enum member read is slow
    while (decision := game.decision) is not None:  # None once the game is over
        if state.turn > max_turns:
            result.capped = True
            break
        seat = game.pending_seats()[0]
        level = levels[seat]
        index: int | None = None
        if level == "random":
            # Same pick as choose("random", view, rng) (the same draw from rng), without
            # building the whole view; taken by its index, as the server takes a client's act.
            options = decision.options[seat]
            index = rng.randrange(len(options))
            choice = options[index]
        elif deciders is not None and level in deciders:
            choice = deciders[level](game.view(seat), rng)
        elif level in THINKING:
            start = time.perf_counter()
            choice = choose(level, game.view(seat), rng, budget, table, search)
            result.expert_seconds.append(time.perf_counter() - start)
        else:
            choice = choose(level, game.view(seat), rng)
        if decision.kind is stay_or_move:
            own_turns[seat] += 1
            if choice["do"] == "stay" and state.rows[seat] == 0:
                start_row_stays[seat] += 1
        if index is None:
            game.apply(seat, choice)
        else:
            game.choose(seat, index)
        result.decisions += 1
        if check:
            result.invariant_checks += 1
            problems = check_invariants(game)
            if problems:
                result.invariant_failures.extend(
                    f"seed {seed} decision {result.decisions}: {p}" for p in problems
                )
                break
    result.winner = game.winner
    result.turns = game.turn
    return result
