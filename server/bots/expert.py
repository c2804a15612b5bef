"""The ``expert`` bot: determinized Monte Carlo search over the rules engine.

At its own turn points (the actions phase and stay-or-move, where the strategy lies) it samples
the cards its view does not show — the other hands, the order of the draw piles — consistently
with that view (``server.engine.search.sample``), applies each candidate choice to a copy of the
sampled game, plays the game out with a fast rollout policy for every seat, and keeps the choice
with the best mean outcome (1 for a win of its own, 0 otherwise). Candidates are compared on the
same samples and the same rollout randomness, and weeded out by sequential halving, so that the
budget goes to the close calls. Its other decisions (reactions, payments, shark picks, …) are the
``basic`` bot's.

It sees nothing but its view: the sampled games are built from the view alone, so two games that
differ only in hidden cards give it the same choices. Given its random source and a budget of
rollouts alone it is deterministic; a time budget stops the search early when the clock says so.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.engine import Edition, Game
from server.engine.search import (
    TURN_POINTS,
    card_keys,
    copy_game,
    decision_kind,
    sample,
    state_of,
)
from server.engine.state import State

View = dict[str, Any]
Choice = dict[str, Any]


@dataclass(frozen=True)
class Budget:
    """How much search one decision may take: at most ``rollouts`` playouts and, when
    ``seconds`` is set, no longer than that (wall clock)."""

    rollouts: int
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.rollouts < 1:
            raise ValueError("a budget needs at least one rollout")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("a time budget must be positive")


#: About 0.3 s per searched decision on one core of the development machine.
DEFAULT_BUDGET = Budget(rollouts=5000, seconds=0.3)

# A rollout longer than this many decisions is scored as a loss (runaway games are rare).
ROLLOUT_LIMIT = 3000

KNOCK_BACK = frozenset({"laser_blast", "rogue_wave"})
STEALS = frozenset({"oxygen_siphon", "message_in_a_bottle", "hack_suit", "pirate", "tractor_beam"})
# How eagerly the rollout policy plays each action card (0: keeps it).
ROLLOUT_EAGERNESS = {
    "oxygen_siphon": 6.0,
    "message_in_a_bottle": 6.0,
    "hack_suit": 5.0,
    "pirate": 5.0,
    "tractor_beam": 4.0,
    "rocket_booster": 4.5,
    "freestyle_sprint": 4.5,
    "tether": 4.6,
    "ride_the_wave": 4.6,
    "laser_blast": 3.0,
    "rogue_wave": 3.0,
    "hole_in_suit": 2.0,
    "lost": 1.5,
}


def choose_expert(
    view: View,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    fallback: Callable[[View, random.Random], Choice] | None = None,
) -> Choice:
    """The expert's choice: one of ``view["legal"]``. ``fallback`` decides the decisions that
    are not searched (``server.bots.levels`` passes the basic bot; without one, the first
    choice that is not fatal)."""
    legal: list[Choice] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    decision = view["decision"] or {}
    if decision.get("kind") not in TURN_POINTS or view["active"] != view["seat"]:
        if fallback is None:
            return next((c for c in legal if not c.get("fatal")), legal[0])
        return fallback(view, rng)
    candidates = shortlist(view, [c for c in legal if not c.get("fatal")] or legal)
    if len(candidates) == 1:
        return candidates[0]
    return candidates[_search(view, candidates, rng, budget)]


def shortlist(view: View, legal: list[Choice]) -> list[Choice]:
    """The candidates worth a search's budget: each action card once, on the opponent it is
    likeliest to matter against (the leader; for a steal, the fullest hand), staying on the
    two least useful action cards rather than every pair, and no making change (C7), which no
    rollout sees a use for. Fewer candidates, more rollouts for each."""
    keys = card_keys(Edition(view["edition"]))
    players = view["players"]
    best_play: dict[int, Choice] = {}
    cheapest_stay: Choice | None = None
    out: list[Choice] = []
    for choice in legal:
        do = choice["do"]
        if do == "play":
            card = choice["card"]
            held = best_play.get(card)
            if held is None or _aim(keys[card], players, choice) > _aim(keys[card], players, held):
                best_play[card] = choice
        elif do == "stay" and "discard" in choice:
            if cheapest_stay is None or _worth(keys, choice["discard"]) < _worth(
                keys, cheapest_stay["discard"]
            ):
                cheapest_stay = choice
        elif do != "change":
            out.append(choice)
    out.extend(best_play.values())
    if cheapest_stay is not None:
        out.append(cheapest_stay)
    return out or legal


def _aim(key: str, players: list[dict[str, Any]], choice: Choice) -> tuple[int, int]:
    """How good a target is for an action card: fuller hands for steals, else the leader."""
    target = choice.get("target")
    if target is None:
        return (0, 0)
    player = players[target]
    if key in STEALS:
        return (player["hand_count"], player["row"])
    return (player["row"], player["hand_count"])


def _search(view: View, candidates: list[Choice], rng: random.Random, budget: Budget) -> int:
    """Sequential halving over the candidates; the index of the best mean.

    With a time budget, a first round over every candidate measures what a rollout costs now,
    and the halving is planned for the rollouts that fit in the time left."""
    seat: int = view["seat"]
    moves = [{k: v for k, v in c.items() if k not in ("label", "fatal")} for c in candidates]
    count = len(moves)
    totals = [0.0] * count
    tries = [0] * count
    keys = card_keys(Edition(view["edition"]))

    def round_of(indices: list[int]) -> None:
        """Every candidate of ``indices`` played out once on one shared sample."""
        base = sample(view, rng)
        seed = rng.getrandbits(32)
        for index in indices:
            play_rng = random.Random(seed)
            game = copy_game(base, play_rng)
            game.apply(seat, moves[index])
            totals[index] += playout(game, seat, play_rng, keys)
            tries[index] += 1

    left = list(range(count))
    planned = budget.rollouts
    deadline = None
    if budget.seconds is not None:
        start = time.perf_counter()
        deadline = start + budget.seconds
        round_of(left)
        per_rollout = max(1e-6, (time.perf_counter() - start) / count)
        planned = min(planned, count + int(budget.seconds / per_rollout))
    phases = max(1, math.ceil(math.log2(count)))
    for _ in range(phases):
        rounds = max(1, planned // (len(left) * phases))
        for _ in range(rounds):
            if deadline is not None and time.perf_counter() > deadline:
                break
            round_of(left)
        if len(left) == 1:
            break
        left.sort(key=lambda i: (-totals[i] / max(1, tries[i]), i))
        left = left[: math.ceil(len(left) / 2)]
    return min(left, key=lambda i: (-totals[i] / max(1, tries[i]), i))


def playout(game: Game, seat: int, rng: random.Random, keys: tuple[str, ...]) -> float:
    """Play ``game`` to the end with :func:`rollout_choice` for every seat: 1.0 if ``seat``
    wins, else 0.0."""
    for _ in range(ROLLOUT_LIMIT):
        if game.over:
            return 1.0 if game.winner == seat else 0.0
        who = game.pending_seats()[0]
        game.apply(who, rollout_choice(game, who, rng, keys))
    return 0.0


def rollout_choice(game: Game, seat: int, rng: random.Random, keys: tuple[str, ...]) -> Choice:
    """A fast, sensible choice for ``seat`` in a simulated game (which it may read in full):
    move with a reserve, play attacks and moves, block, pay and give up the least."""
    legal = game.legal(seat)
    if len(legal) == 1:
        return legal[0]
    kind = decision_kind(game)
    state = state_of(game)
    if kind == "actions":
        return _rollout_actions(state, seat, legal, rng, keys)
    if kind == "stay_or_move":
        return _rollout_stay_or_move(state, seat, legal)
    if kind == "react":
        return legal[-1]  # the blocks come after "accept"
    if kind in ("pay", "meteoroid", "hurricane"):
        return min(legal, key=lambda c: _worth(keys, c["cards"]))
    if kind == "pick":
        return min(legal, key=lambda c: _worth(keys, [c["card"]]))
    if kind == "take":
        return max(legal, key=lambda c: _worth(keys, [c["card"]]))
    if kind == "swap":
        return _rollout_swap(state, seat, legal)
    return legal[rng.randrange(len(legal))]


def _rollout_actions(
    state: State, seat: int, legal: list[Choice], rng: random.Random, keys: tuple[str, ...]
) -> Choice:
    rows = state.rows
    best = legal[-1]  # "done"
    top = 0.0
    for choice in legal:
        if choice["do"] != "play":
            continue
        key = keys[choice["card"]]
        score = ROLLOUT_EAGERNESS.get(key, 0.0)
        target = choice.get("target")
        if target is not None:
            ahead = rows[target] - rows[seat]
            if key in KNOCK_BACK and ahead < 0:
                continue
            score += rows[target] / 10
        score += rng.random() * 0.5
        if score > top:
            top, best = score, choice
    return best


def _rollout_stay_or_move(state: State, seat: int, legal: list[Choice]) -> Choice:
    units = state.units(seat)
    space = state.edition is Edition.SPACE
    move = legal[-1] if legal[-1]["do"] == "move" else None
    last_step = state.rows[seat] == state.goal_row - 1
    # Space: keep one oxygen, which reaching the ship needs (S4). Shipwrecked: keep food to
    # outlast the others (W4 a), except for the last step onto the raft.
    if move is not None and (units >= (3 if space else 7) or (last_step and not space)):
        return move
    if space and len(legal) > 1 and "discard" in legal[1]:
        return legal[1]  # two action cards instead of an oxygen
    return legal[0]


def _rollout_swap(state: State, seat: int, legal: list[Choice]) -> Choice:
    rows, alive = state.rows, state.alive
    on_goal = rows[seat] >= state.goal_row

    def score(choice: Choice) -> int:
        other: int = choice["target"]
        if on_goal:
            return 0 if alive[other] else 1
        return rows[other]

    return max(legal, key=score)


def _worth(keys: tuple[str, ...], ids: list[int]) -> int:
    """How much a search's rollout wants to keep these cards (resources most)."""
    total = 0
    for card_id in ids:
        key = keys[card_id]
        if key in ("oxygen", "food"):
            total += 10
        elif key in ("oxygen2", "food2"):
            total += 20
        elif key in ("shield", "dive"):
            total += 9
        else:
            total += 5
    return total
