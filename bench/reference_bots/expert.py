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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.reference_bots.basic import (
    FORWARD,
    HARM,
    HARM_FROM,
    LOOK_AND_TAKE,
    PATIENT,
    RACING,
    STEAL_TWO,
    TETHERS,
    Style,
    choose_basic,
    seen_from_game,
    seen_from_view,
    worth,
)
from server.engine import Edition, Game
from server.engine.actions import strip
from server.engine.cards import GAME_DECKS, Card
from server.engine.search import TURN_POINTS, copy_game, sample, state_of
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


#: 128 rollouts per searched decision, and the clock stops the search at 0.3 s on a busy
#: machine. At a table of basic bots in Shipwrecked a search of 128 rollouts wins a clearly
#: larger share than one of 32 (bench/bots.py; docs/bots.md).
DEFAULT_BUDGET = Budget(rollouts=128, seconds=0.3)

STEALS = STEAL_TWO | LOOK_AND_TAKE | {"tractor_beam"}
FREE_MOVES = FORWARD | TETHERS

#: How many standard errors a challenger's mean advantage over the basic bot's choice must
#: reach in the search for the expert to play it.
CONFIDENCE = 1.0

#: Rollouts play this many turns (all seats' turns counted) and then score the position.
HORIZON = 8
#: How steeply the standing's strength grows with a unit of resource to spare.
STANDING_SLOPE = 0.35
#: A Space astronaut's chance to reach the ship on its own: logit = a + b x oxygen + c x rows
#: to go + d x free moves held (Rocket Booster, Tether), the fit that bench/space_reach.py
#: prints of the exact chance for an astronaut nobody attacks, playing the best policy.
SPACE_REACH = (0.34, 0.78, -1.14, 0.98)
#: How fast the chance that a rival gets to the ship first grows with each row it is ahead.
SPACE_AHEAD = 1.0

# A rollout longer than this many decisions is scored as a loss (runaway games are rare).
ROLLOUT_LIMIT = 3000


@dataclass(frozen=True)
class Plan:
    """A candidate of the search: the choice to make now, and how the seat plays on after it
    in the rollouts (its style)."""

    choice: Choice
    style: Style


#: The styles the expert weighs at each of its turn points: the basic bot's (patient), and
#: racing. Which one wins depends on the table: in Shipwrecked staying put outlives random
#: bots, while racing beats a table of patient ones.
STYLES = (PATIENT, RACING)


def choose_expert(
    view: View,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
) -> Choice:
    """The expert's choice: one of ``view["legal"]``; the decisions it does not search are
    the basic bot's."""
    legal: list[Choice] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    decision = view["decision"] or {}
    if decision.get("kind") not in TURN_POINTS or view["active"] != view["seat"]:
        return choose_basic(seen_from_view(view), rng)
    candidates = plans(view, rng)
    if len(candidates) == 1 or budget.rollouts < 2 * len(candidates):
        return candidates[0].choice  # too few rollouts to tell two candidates apart
    return candidates[_search(view, candidates, rng, budget)].choice


def plans(view: View, rng: random.Random) -> list[Plan]:
    """The candidates of a search at a turn point of ``view``'s seat, the incumbent first: the
    basic bot's choice in each style (:data:`STYLES`), then the :func:`shortlist`, each choice
    once."""
    legal: list[Choice] = view["legal"]
    found: list[Plan] = []
    for style in STYLES:
        _add(found, Plan(choose_basic(seen_from_view(view, style), rng), style))
    for choice in shortlist(view, [c for c in legal if not c.get("fatal")] or legal):
        _add(found, Plan(choice, PATIENT))
    return found


def _add(plans: list[Plan], plan: Plan) -> None:
    """Add ``plan`` unless a plan already makes the same choice now."""
    if all(strip(other.choice) != strip(plan.choice) for other in plans):
        plans.append(plan)


def shortlist(view: View, legal: list[Choice]) -> list[Choice]:
    """The candidates worth a search's budget: each action card once, on the opponent it is
    likeliest to matter against (the leader; for a steal, the fullest hand), staying on the two
    least useful action cards rather than every pair, and no making change (C7), which no
    rollout sees a use for. Fewer candidates, more rollouts for each.

    No card that only harms where the basic bot never plays one (Space, ``HARM_FROM``): weighed
    there, Laser Blast and Hole in Suit left more tables of four experts with nobody alive to
    win, and won the expert no more games at a basic table (docs/bots.md)."""
    edition = Edition(view["edition"])
    deck = GAME_DECKS[edition]
    players = view["players"]
    best_play: dict[int, Choice] = {}
    cheapest_stay: Choice | None = None
    out: list[Choice] = []
    for choice in legal:
        do = choice["do"]
        if do == "play":
            card = choice["card"]
            held = best_play.get(card)
            key = deck[card].key
            if key in HARM and HARM_FROM[edition] is None:
                continue  # an edition where the basic bot never harms either
            if held is None or _aim(key, players, choice) > _aim(key, players, held):
                best_play[card] = choice
        elif do == "stay" and "discard" in choice:
            if cheapest_stay is None or _worth(deck, choice["discard"]) < _worth(
                deck, cheapest_stay["discard"]
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


def _worth(deck: Sequence[Card], ids: list[int]) -> int:
    return sum(worth(deck[card_id]) for card_id in ids)


def _search(view: View, plans: list[Plan], rng: random.Random, budget: Budget) -> int:
    """Sequential halving over the plans, against the first one (the basic bot's choice, the
    incumbent): the index of the plan to play.

    Every round plays each candidate still in the running once, on one shared sample and the
    same rollout randomness, so that candidates are compared pairwise with the incumbent on the
    same deals (common random numbers). Halving drops the challengers with the worst mean
    difference; the incumbent always stays. A challenger is played only when its mean
    difference is clearly positive (:data:`CONFIDENCE` standard errors): in a game of luck a
    handful of rollouts mostly measures the luck, and the incumbent is a sound default.

    With a time budget, a first round over every candidate measures what a rollout costs now,
    and the halving is planned for the rollouts that fit in the time left."""
    seat: int = view["seat"]
    moves = [strip(plan.choice) for plan in plans]
    count = len(moves)
    diffs = [0.0] * count
    squares = [0.0] * count
    tries = [0] * count

    def round_of(indices: list[int]) -> None:
        """Every candidate of ``indices`` (the incumbent first) played out once on one sample."""
        base = sample(view, rng)
        seed = rng.getrandbits(32)
        outcome = 0.0
        for index in indices:
            play_rng = random.Random(seed)
            game = copy_game(base, play_rng)
            game.apply(seat, moves[index])
            result = playout(game, seat, play_rng, HORIZON, plans[index].style)
            if index == 0:
                outcome = result
                continue
            diff = result - outcome
            diffs[index] += diff
            squares[index] += diff * diff
            tries[index] += 1

    def mean(index: int) -> float:
        return diffs[index] / max(1, tries[index])

    left = list(range(count))
    planned = budget.rollouts
    deadline = None
    if budget.seconds is not None:
        start = time.perf_counter()
        deadline = start + budget.seconds
        round_of(left)
        per_rollout = max(1e-6, (time.perf_counter() - start) / count)
        planned = min(planned, count + int(budget.seconds / per_rollout))
    phases = max(1, math.ceil(math.log2(count - 1))) if count > 2 else 1
    for _ in range(phases):
        rounds = max(1, planned // (len(left) * phases))
        for _ in range(rounds):
            if deadline is not None and time.perf_counter() > deadline:
                break
            round_of(left)
        if len(left) <= 2:
            break
        challengers = sorted(left[1:], key=lambda i: (-mean(i), i))
        left = [0, *challengers[: math.ceil(len(challengers) / 2)]]
    best = min(left[1:], key=lambda i: (-mean(i), i))
    tries_best = tries[best]
    if tries_best < 2:
        return 0
    variance = max(squares[best] / tries_best - mean(best) ** 2, 1.0 / tries_best)
    if mean(best) > CONFIDENCE * math.sqrt(variance / tries_best):
        return best
    return 0


def playout(
    game: Game,
    seat: int,
    rng: random.Random,
    horizon: int | None = None,
    style: Style = PATIENT,
) -> float:
    """Play ``game`` on with :func:`rollout_choice` for every seat (``seat`` in ``style``, the
    others as the basic bot): to its end (1.0 if ``seat`` wins, else 0.0), or, with a
    ``horizon``, for that many more turns at most, then score the position with
    :func:`standing`. (A game of luck ends in a win or a loss that
    says little about one decision; a few turns on, who is alive, how far and with how much
    to spend says more, for a fraction of the cost.)"""
    state = state_of(game)
    last = None if horizon is None else state.turn + horizon
    for _ in range(ROLLOUT_LIMIT):
        if game.over:
            return 1.0 if game.winner == seat else 0.0
        if last is not None and state.turn > last:
            return standing(state, seat)
        who = game.pending_seats()[0]
        game.apply(who, rollout_choice(game, who, rng, style if who == seat else PATIENT))
    return 0.0


def standing(state: State, seat: int) -> float:
    """A guess of ``seat``'s chance to win from a running game's state. In Shipwrecked its
    share of the living players' strength, where strength grows with the rows made and the
    resources held (each row still to go costs two units, C5); in Space
    :func:`space_standing`."""
    if not state.alive[seat]:
        return 0.0
    if state.edition is Edition.SPACE:
        return space_standing(state, seat)
    total = 0.0
    mine = 0.0
    for other in range(state.seats):
        if not state.alive[other]:
            continue
        to_go = max(0, state.goal_row - state.rows[other])
        spare = state.units(other) - 2 * to_go
        strength = math.exp(STANDING_SLOPE * (spare + 2 * state.rows[other]))
        total += strength
        if other == seat:
            mine = strength
    return mine / total


def space_standing(state: State, seat: int) -> float:
    """A living astronaut's chance to win: its chance to reach the ship (:data:`SPACE_REACH`),
    times, for every living rival, the chance that the rival does not get there first.

    Not a share of the living, as in Shipwrecked, where the last one alive wins (W4 a): in
    Space a lone survivor must still reach the ship (S4), and an expert scoring by a share
    holed and knocked back rivals as if killing them won the game (docs/bots.md)."""
    mine, my_rows = _reach(state, seat)
    chance = mine
    for other in range(state.seats):
        if other != seat and state.alive[other]:
            theirs, their_rows = _reach(state, other)
            first = 1.0 / (1.0 + math.exp(SPACE_AHEAD * (their_rows - my_rows)))
            chance *= 1.0 - theirs * first
    return chance


def _reach(state: State, seat: int) -> tuple[float, int]:
    """``seat``'s chance to reach the ship on its own, and its rows to go."""
    base, per_unit, per_row, per_free_move = SPACE_REACH
    to_go = max(0, state.goal_row - state.rows[seat])
    free_moves = sum(1 for card in state.hands[seat] if card.key in FREE_MOVES)
    logit = base + per_unit * state.units(seat) + per_row * to_go + per_free_move * free_moves
    return 1.0 / (1.0 + math.exp(-logit)), to_go


def rollout_choice(game: Game, seat: int, rng: random.Random, style: Style = PATIENT) -> Choice:
    """The choice of ``seat`` in a simulated game: the basic bot's in ``style``, from what the
    seat sees."""
    legal = game.legal(seat)
    if len(legal) == 1:
        return legal[0]
    return choose_basic(seen_from_game(game, seat, style), rng)
