"""The ``expert`` bot: determinized Monte Carlo search over the rules engine.

At its own turn points (the actions phase and stay-or-move, where the strategy lies) it samples
the cards its view does not show — the other hands, the order of the draw piles — consistently
with that view (``server.engine.search.sample``), applies each candidate choice to a copy of the
sampled game, plays the game on a few turns with every other seat played by its opponent model
(``server.bots.opponents``: the level it has at the table, as the room knows it), and keeps the
choice with the best mean standing (``server.bots.rollout``). Candidates are compared on the same
samples and the same rollout randomness, and weeded out by sequential halving; a decision still
close after the budget's rollouts gets more, a forced one none (``server.bots.budget``). Its other
decisions (reactions, payments, shark picks, …) are the ``basic`` bot's.

It sees nothing but its view: the sampled games are built from the view alone, so two games that
differ only in hidden cards give it the same choices. Given its random source and a budget of
rollouts alone it is deterministic; a time budget stops the search early when the clock says so,
and changes nothing else.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.bots.basic import choose_basic
from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.opponents import fights, models_for, provoked
from server.bots.rollout import playout
from server.bots.seen import (
    HARM,
    LOOK_AND_TAKE,
    PATIENT,
    RACING,
    STEAL_TWO,
    Style,
    seen_from_view,
    worth,
)
from server.engine import Edition
from server.engine.actions import strip
from server.engine.cards import GAME_DECKS, Card
from server.engine.search import TURN_POINTS, copy_game, sample

View = dict[str, Any]
Choice = dict[str, Any]
Table = Sequence[str | None]

STEALS = STEAL_TWO | LOOK_AND_TAKE | {"tractor_beam"}

#: How many standard errors a challenger's mean advantage over the basic bot's choice must
#: reach in the search for the expert to play it.
CONFIDENCE = 1.0
#: A decision is close while the best challenger's advantage lies within this many standard
#: errors of :data:`CONFIDENCE`: then the search goes on, up to the budget's ``close``.
CLOSE = 1.0
#: A close decision's extra rollouts come in rounds of this many pairs (challenger, incumbent).
CLOSE_STEP = 16
#: With a time budget, no round starts that would take more than the time left at this many
#: times the mean rollout's cost so far: a rollout's cost varies, and a round overrunning the
#: deadline overruns the decision's time.
ROUND_MARGIN = 2.0


@dataclass(frozen=True)
class Plan:
    """A candidate of the search: the choice to make now, and how the seat plays on after it
    in the rollouts (its style)."""

    choice: Choice
    style: Style


@dataclass(frozen=True)
class Decision:
    """What a search chose, and how many rollouts it spent (0 for a forced decision)."""

    choice: Choice
    rollouts: int


#: A search over a turn point's plans (the incumbent first): the index of the plan to play,
#: and the rollouts it took.
Search = Callable[[View, Sequence[Plan], random.Random, Budget, Table | None], tuple[int, int]]

#: The styles the expert weighs at each of its turn points: the basic bot's (patient), and
#: racing. Which one wins depends on the table: in Shipwrecked staying put outlives random
#: bots, while racing beats a table of patient ones.
STYLES = (PATIENT, RACING)


def choose_expert(
    view: View,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    table: Table | None = None,
) -> Choice:
    """The expert's choice: one of ``view["legal"]``; the decisions it does not search are
    the basic bot's. ``table``: every seat's level as the room knows it (None for a person)."""
    return decide(view, rng, budget, table).choice


def decide(
    view: View,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    table: Table | None = None,
    search: Search | None = None,
) -> Decision:
    """:func:`choose_expert`'s choice, with the rollouts it took. ``search`` chooses among the
    plans of a searched decision (:func:`search_flat` without; ``server.bots.ismcts``'s tree
    search is the other)."""
    legal: list[Choice] = view["legal"]
    if len(legal) == 1:
        return Decision(legal[0], 0)
    decision = view["decision"] or {}
    if decision.get("kind") not in TURN_POINTS or view["active"] != view["seat"]:
        return Decision(choose_basic(seen_from_view(view), rng), 0)
    candidates = plans(view, rng, table)
    if len(candidates) == 1 or budget.rollouts < 2 * len(candidates):
        return Decision(candidates[0].choice, 0)  # forced, or too few rollouts to tell apart
    index, spent = (search or search_flat)(view, candidates, rng, budget, table)
    return Decision(candidates[index].choice, spent)


def plans(view: View, rng: random.Random, table: Table | None = None) -> list[Plan]:
    """The candidates of a search at a turn point of ``view``'s seat, the incumbent first: the
    basic bot's choice in each style (:data:`STYLES`), then the :func:`shortlist`, each choice
    once. In Space, at a table with a bot that fights back (:func:`fights_back`), no card that
    only harms."""
    legal: list[Choice] = view["legal"]
    found: list[Plan] = []
    for style in STYLES:
        _add(found, Plan(choose_basic(seen_from_view(view, style), rng), style))
    allowed = [c for c in legal if not c.get("fatal")] or legal
    if view["edition"] == Edition.SPACE.value and fights_back(table, view["seats"], view["seat"]):
        deck = GAME_DECKS[Edition.SPACE]
        allowed = [c for c in allowed if not harms(deck, c)] or allowed
    for choice in shortlist(view, allowed):
        _add(found, Plan(choice, PATIENT))
    return found


def fights_back(table: Table | None, seats: int, seat: int) -> bool:
    """Whether a seat other than ``seat`` is a bot modelled as fighting back
    (``server.bots.opponents``): an ``expert``. At such a table in Space the expert plays no
    card that only harms: four experts weighing Laser Blasts and holes against fighting models
    left nobody winning 22.8% of their games, 18.2% without them, while at a table of basic
    bots, which never harm back, the same cards win 7 points more (docs/bots.md). A person, or
    a level no room seats, may fight back or not: the search weighs it against the mix."""
    if table is None:
        return False
    return any(
        other != seat and other < len(table) and fights(table[other]) for other in range(seats)
    )


def _add(plans: list[Plan], plan: Plan) -> None:
    """Add ``plan`` unless a plan already makes the same choice now."""
    if all(strip(other.choice) != strip(plan.choice) for other in plans):
        plans.append(plan)


def shortlist(view: View, legal: list[Choice]) -> list[Choice]:
    """The candidates worth a search's budget: each action card once, on the opponent it is
    likeliest to matter against (the leader; for a steal, the fullest hand), staying on the two
    least useful action cards rather than every pair, and no making change (C7), which no
    rollout sees a use for. Fewer candidates, more rollouts for each. The cards that only harm
    are weighed too: the opponent models show what they provoke (``server.bots.opponents``)."""
    deck = GAME_DECKS[Edition(view["edition"])]
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


def search_flat(
    view: View, plans: Sequence[Plan], rng: random.Random, budget: Budget, table: Table | None
) -> tuple[int, int]:
    """Sequential halving over the plans, against the first one (the basic bot's choice, the
    incumbent): the index of the plan to play, and the rollouts played.

    Every round plays each candidate still in the running once, on one shared sample, the same
    opponent models (bearing a grudge after a card that only harms: ``provoked``) and the same
    rollout randomness, so that candidates are compared pairwise
    with the incumbent on the same deals (common random numbers). Halving drops the challengers
    with the worst mean difference; the incumbent always stays. A challenger is played only when
    its mean difference is clearly positive (:data:`CONFIDENCE` standard errors): in a game of
    luck a handful of rollouts mostly measures the luck, and the incumbent is a sound default.
    A decision still close after the budget's rollouts (:data:`CLOSE`) goes on between the
    incumbent and the best challenger, up to the budget's ``close`` rollouts in all.

    With a time budget, the first round (over every candidate, as without one) measures what a
    rollout costs now, every phase of the halving is planned for the rollouts that fit in the
    time at the mean cost so far, and no round starts that would likely end past the deadline.
    A clock that stops nothing changes nothing: the search draws the same random numbers and
    plays the same rollouts as without one."""
    seat: int = view["seat"]
    seats: int = view["seats"]
    moves = [strip(plan.choice) for plan in plans]
    deck = GAME_DECKS[Edition(view["edition"])]
    harmful = [harms(deck, plan.choice) for plan in plans]
    count = len(moves)
    diffs = [0.0] * count
    squares = [0.0] * count
    tries = [0] * count
    spent = 0

    def round_of(indices: list[int]) -> None:
        """Every candidate of ``indices`` (the incumbent first) played out once on one sample."""
        nonlocal spent
        base = sample(view, rng)
        seed = rng.getrandbits(32)
        models = models_for(table, seats, seat, random.Random(seed ^ 0x0990))
        after_harm = provoked(models, seat)
        outcome = 0.0
        for index in indices:
            play_rng = random.Random(seed)
            game = copy_game(base, play_rng)
            game.apply(seat, moves[index])
            opponents = after_harm if harmful[index] else models
            result = playout(game, seat, play_rng, style=plans[index].style, models=opponents)
            spent += 1
            if index == 0:
                outcome = result
                continue
            diff = result - outcome
            diffs[index] += diff
            squares[index] += diff * diff
            tries[index] += 1

    def mean(index: int) -> float:
        return diffs[index] / max(1, tries[index])

    def score(index: int) -> float:
        """The challenger's mean advantage in standard errors."""
        done = tries[index]
        if done < 2:
            return 0.0
        variance = max(squares[index] / done - mean(index) ** 2, 1.0 / done)
        return mean(index) / math.sqrt(variance / done)

    def out_of_time(size: int) -> bool:
        """Whether a round of ``size`` rollouts would likely end past the deadline (at the
        mean rollout's cost so far, with :data:`ROUND_MARGIN` to spare)."""
        if deadline is None:
            return False
        now = time.perf_counter()
        cost = (now - start) / max(1, spent) * size * ROUND_MARGIN
        return now + cost > deadline

    def planned() -> int:
        """The rollouts the search is planned for: the budget's, or as many as fit in its time
        at the mean rollout's cost so far, if fewer (measured afresh at every phase, so that a
        round the machine stalled does not cut the whole search short)."""
        if deadline is None or budget.seconds is None:
            return budget.rollouts
        per_rollout = max(1e-6, (time.perf_counter() - start) / max(1, spent))
        return min(budget.rollouts, int(budget.seconds / per_rollout))

    left = list(range(count))
    deadline = None
    ahead = 0  # rounds of the first phase played before it starts (the timing round)
    start = time.perf_counter()
    if budget.seconds is not None:
        # The timing round is the first phase's first round, which every search plays: a
        # clock that stops nothing leaves the search drawing and playing exactly as without.
        deadline = start + budget.seconds
        round_of(left)
        ahead = 1
    phases = max(1, math.ceil(math.log2(count - 1))) if count > 2 else 1
    for _ in range(phases):
        rounds = max(1, planned() // (len(left) * phases))
        for _ in range(rounds - ahead):
            if out_of_time(len(left)):
                break
            round_of(left)
        ahead = 0
        if len(left) <= 2:
            break
        challengers = sorted(left[1:], key=lambda i: (-mean(i), i))
        left = [0, *challengers[: math.ceil(len(challengers) / 2)]]
    best = min(left[1:], key=lambda i: (-mean(i), i))
    while (
        spent + 2 * CLOSE_STEP <= budget.close
        and abs(score(best) - CONFIDENCE) < CLOSE
        and not out_of_time(2)
    ):
        for _ in range(CLOSE_STEP):
            if out_of_time(2):
                break
            round_of([0, best])
    if tries[best] >= 2 and score(best) > CONFIDENCE:
        return best, spent
    return 0, spent


def harms(deck: Sequence[Card], choice: Choice) -> bool:
    """Whether ``choice`` plays a card that only harms."""
    return choice["do"] == "play" and deck[choice["card"]].key in HARM
