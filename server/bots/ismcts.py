"""The expert's tree search: single-observer information-set Monte Carlo tree search (ISMCTS).

An alternative to the flat search of ``server.bots.expert`` (``search="ismcts"``), searching
the same turn points with the same plans, opponent models, standing and budget. One tree over
the seat's information set: its nodes are the seat's own turn points, keyed by the seat's own
choices since the root (what the seat knows of its own path; the other seats' moves and the
draws are the environment). Each iteration

1. samples a determinization consistent with the seat's view (``server.engine.search.sample``)
   and draws the opponent models of the round (``server.bots.opponents``);
2. descends the tree: at each node the plans legal in this determinization (at the root the
   root's plans; deeper, :func:`server.bots.expert.plans` of the simulated view) are counted as
   available, and the one with the best upper confidence bound over its availability count is
   taken (an untried one first); the other seats play their models, the seat's own decisions
   that are not turn points its plan's style, until the seat's next turn point;
3. expands the first untried plan it takes, plays the game on by the rollout policy
   (``server.bots.rollout.playout``) to the flat search's horizon, counted from the root, and
   scores it with the same standing;
4. backs the score up every node of the path.

A plan that plays a card that only harms provokes the fighting seats for the rest of that
iteration (``provoked``), as in the flat search. The seat plays the root plan visited most, but
only over the incumbent (the basic bot's choice) if its mean beats the incumbent's by more than
``CONFIDENCE`` standard errors, as the flat search does; a decision still close after the
budget's rollouts gets more iterations, up to the budget's ``close``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.expert import Plan, decide, harms, plans
from server.bots.opponents import Model, basic_model, models_for, provoked, styled
from server.bots.rollout import HORIZON, playout
from server.bots.seen import PATIENT, Style
from server.engine import Edition, Game
from server.engine.actions import strip
from server.engine.cards import GAME_DECKS
from server.engine.search import TURN_POINTS, copy_game, decision_kind, sample, state_of

View = dict[str, Any]
Choice = dict[str, Any]
Table = Sequence[str | None]

#: The exploration constant of the upper confidence bound, in standard deviations of the
#: scores seen so far (a standing's spread is far below the [0, 1] a win spans).
EXPLORATION = 1.0
#: How many standard errors the chosen plan's mean must beat the incumbent's by (the flat
#: search's ``CONFIDENCE``), and how near that bar a decision counts as close.
CONFIDENCE = 1.0
CLOSE = 1.0
#: A close decision's extra iterations come in steps of this many.
CLOSE_STEP = 32
#: A simulated turn point deeper than this many of the seat's own choices is left to the
#: rollout policy: the horizon rarely reaches further, and a deeper node is seldom revisited.
MAX_DEPTH = 4


@dataclass
class Arm:
    """One plan at one node: how often it was available, taken, and what it scored."""

    available: int = 0
    visits: int = 0
    total: float = 0.0
    squares: float = 0.0
    child: Node | None = None

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    def variance(self) -> float:
        """The variance of the mean's estimate (floored, so that two tries say little)."""
        if self.visits < 2:
            return 1.0
        spread = max(self.squares / self.visits - self.mean**2, 1.0 / self.visits)
        return spread / self.visits


@dataclass
class Node:
    """An information set of the searching seat: its arms by plan key."""

    arms: dict[str, Arm] = field(default_factory=dict)


def choose_ismcts(
    view: View,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    table: Table | None = None,
) -> Choice:
    """The expert's choice with the tree search in place of the flat one (same plans, same
    budget, same decisions left to the basic bot)."""
    return decide(view, rng, budget, table, search_tree).choice


def key_of(choice: Choice) -> str:
    """A plan's key at a node: its choice, whatever the determinization's view adds."""
    return repr(sorted(strip(choice).items()))


def search_tree(
    view: View, root_plans: Sequence[Plan], rng: random.Random, budget: Budget, table: Table | None
) -> tuple[int, int]:
    """ISMCTS over ``root_plans`` (the incumbent first) at ``view``'s turn point: the index of
    the plan to play, and the iterations (rollouts) played. Every iteration is one rollout of
    the budget; with ``budget.seconds`` none starts past the deadline."""
    tree = Tree(view, root_plans, table)
    deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds

    def run(until: int) -> None:
        while tree.iterations < until:
            if deadline is not None and tree.iterations and time.perf_counter() > deadline:
                return
            tree.iterate(rng)

    run(budget.rollouts)
    best, lead = tree.verdict()
    while tree.iterations < budget.close and abs(lead - CONFIDENCE) < CLOSE:
        before = tree.iterations
        run(min(budget.close, before + CLOSE_STEP))
        if tree.iterations == before:
            break
        best, lead = tree.verdict()
    return (best if lead > CONFIDENCE else 0), tree.iterations


class Tree:
    """One search's tree over the information set of ``view``'s seat, rooted at its turn
    point with ``root_plans`` (the incumbent first)."""

    def __init__(self, view: View, root_plans: Sequence[Plan], table: Table | None) -> None:
        self.view = view
        self.seat: int = view["seat"]
        self.table = table
        self.deck = GAME_DECKS[Edition(view["edition"])]
        self.root = Node()
        self.root_plans = list(zip([key_of(p.choice) for p in root_plans], root_plans, strict=True))
        self.iterations = 0
        # Every score backed up so far, for the exploration's scale: sum, sum of squares.
        self.total = 0.0
        self.squares = 0.0

    def exploration(self) -> float:
        """The upper confidence bound's constant: :data:`EXPLORATION` standard deviations of
        the scores so far."""
        count = self.iterations
        if count < 2:
            return EXPLORATION
        spread = self.squares / count - (self.total / count) ** 2
        return EXPLORATION * math.sqrt(max(1e-4, spread))

    def pick(self, node: Node, candidates: list[tuple[str, Plan]]) -> tuple[str, Plan]:
        """The candidate to take at ``node`` (each counted as available): the first untried,
        else the one with the best upper confidence bound over its availability count."""
        for key, _ in candidates:
            node.arms.setdefault(key, Arm()).available += 1
        for key, plan in candidates:
            if node.arms[key].visits == 0:
                return key, plan
        spread = self.exploration()

        def bound(item: tuple[str, Plan]) -> float:
            arm = node.arms[item[0]]
            return arm.mean + spread * math.sqrt(math.log(arm.available) / arm.visits)

        return max(candidates, key=bound)

    def iterate(self, rng: random.Random) -> None:
        """One iteration: a determinization, a descent, an expansion, a rollout, a backup."""
        seat = self.seat
        base = sample(self.view, rng)
        seed = rng.getrandbits(32)
        models = models_for(self.table, self.view["seats"], seat, random.Random(seed ^ 0x0990))
        play_rng = random.Random(seed)
        game = copy_game(base, play_rng)
        last = state_of(game).turn + HORIZON
        node = self.root
        candidates = self.root_plans
        path: list[Arm] = []
        style = PATIENT
        while True:
            key, plan = self.pick(node, candidates)
            arm = node.arms[key]
            path.append(arm)
            game.apply(seat, strip(plan.choice))
            style = plan.style
            if harms(self.deck, plan.choice):
                models = provoked(models, seat)
            if arm.visits == 0 or len(path) >= MAX_DEPTH:
                break  # expanded: the rollout policy plays on
            if not _advance(game, seat, play_rng, style, models, last):
                break
            candidates = [
                (key_of(p.choice), p) for p in plans(game.view(seat), play_rng, self.table)
            ]
            if arm.child is None:
                arm.child = Node()
            node = arm.child
        result = playout(game, seat, play_rng, last - state_of(game).turn, style, models)
        for arm in path:
            arm.visits += 1
            arm.total += result
            arm.squares += result * result
        self.iterations += 1
        self.total += result
        self.squares += result * result

    def verdict(self) -> tuple[int, float]:
        """The root's challenger visited most (by index into the root plans), and its mean's
        lead over the incumbent's in standard errors."""
        return verdict([self.root.arms.get(key, Arm()) for key, _ in self.root_plans])


def verdict(arms: Sequence[Arm]) -> tuple[int, float]:
    """Of root ``arms`` (the incumbent first, at least one challenger): the index of the
    challenger visited most (the better mean on a tie), and its mean's lead over the
    incumbent's in standard errors (0 while either has fewer than two visits)."""
    incumbent = arms[0]
    best = max(range(1, len(arms)), key=lambda i: (arms[i].visits, arms[i].mean, -i))
    arm = arms[best]
    if arm.visits < 2 or incumbent.visits < 2:
        return best, 0.0
    return best, (arm.mean - incumbent.mean) / math.sqrt(arm.variance() + incumbent.variance())


def _advance(
    game: Game,
    seat: int,
    rng: random.Random,
    style: Style,
    models: Sequence[Model | None],
    last: int,
) -> bool:
    """Play ``game`` on to ``seat``'s next turn point with a choice to make: True if it got
    there, False if the game ended or the horizon came first."""
    state = state_of(game)
    while not game.over and state.turn <= last:
        who = game.pending_seats()[0]
        if who == seat:
            if decision_kind(game) in TURN_POINTS and len(game.legal(seat)) > 1:
                return True
            choice = styled(game, who, rng, style)
        else:
            choice = (models[who] or basic_model)(game, who, rng)
        game.apply(who, choice)
    return False
