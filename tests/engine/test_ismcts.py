"""The expert's tree search (ISMCTS): decides from its seat's view alone, deterministically,
within its budget, with one tree over the seat's information set."""

from __future__ import annotations

import random

import pytest

from server.bots.budget import Budget
from server.bots.expert import plans
from server.bots.ismcts import Arm, Tree, search_tree, verdict
from server.bots.levels import choose
from server.bots.selfplay import play_game
from server.engine import Edition, Game
from server.engine.search import TURN_POINTS, decision_kind

SMALL = Budget(rollouts=60)


def searched_view(edition: Edition, seed: int) -> dict[str, object]:
    """The first view of a basic-played game at which the expert searches (a turn point of
    the active seat with more than one plan)."""
    from server.bots.basic import choose_basic
    from server.bots.seen import seen_from_view

    game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], seed)
    rng = random.Random(seed)
    while not game.over:
        seat = game.pending_seats()[0]
        view = game.view(seat)
        if decision_kind(game) in TURN_POINTS and len(plans(view, random.Random(0))) > 1:
            return view
        game.apply(seat, choose_basic(seen_from_view(view), rng))
    raise AssertionError("no searched decision")


def test_the_tree_search_is_deterministic_given_its_seed() -> None:
    levels = ["expert", "basic", "basic", "random"]
    first = play_game(Edition.SPACE, levels, 31, budget=SMALL, search="ismcts")
    again = play_game(Edition.SPACE, levels, 31, budget=SMALL, search="ismcts")
    flat = play_game(Edition.SPACE, levels, 31, budget=SMALL)
    assert (first.winner, first.turns, first.decisions) == (
        again.winner,
        again.turns,
        again.decisions,
    )
    assert first.invariant_failures == []
    # The search is another: the same seed makes another game.
    assert (first.turns, first.decisions) != (flat.turns, flat.decisions)


@pytest.mark.parametrize("edition", list(Edition))
def test_tree_search_games_keep_every_invariant(edition: Edition) -> None:
    result = play_game(
        edition, ["expert"] * 4, 17, check=True, budget=Budget(rollouts=8), search="ismcts"
    )
    assert result.invariant_failures == []
    assert result.winner is not None or edition is Edition.SPACE


def test_the_tree_search_keeps_to_its_time_budget() -> None:
    view = searched_view(Edition.SPACE, 5)
    found = plans(view, random.Random(1))
    _, spent = search_tree(view, found, random.Random(1), Budget(10**6, 0.05), None)
    assert 0 < spent < 10**6
    assert (
        choose("expert", view, random.Random(1), Budget(10**6, 0.01), None, "ismcts")
        in (view["legal"])
    )


def test_every_iteration_is_one_rollout_of_the_budget_and_the_close_ones_get_more() -> None:
    view = searched_view(Edition.SPACE, 5)
    found = plans(view, random.Random(1))
    assert search_tree(view, found, random.Random(1), Budget(rollouts=40), None)[1] == 40
    spent = [
        search_tree(view, found, random.Random(seed), Budget(40, close=200), None)[1]
        for seed in range(8)
    ]
    assert all(40 <= n <= 200 for n in spent)
    assert any(n > 40 for n in spent)  # some of them were close


@pytest.mark.parametrize("edition", list(Edition))
def test_the_tree_counts_availability_and_grows_below_the_root(edition: Edition) -> None:
    view = searched_view(edition, 3)
    found = plans(view, random.Random(1))
    tree = Tree(view, found, None)
    rng = random.Random(2)
    for _ in range(120):
        tree.iterate(rng)
    arms = list(tree.root.arms.values())
    assert len(arms) == len(found)
    # Every root plan is legal in every determinization; each iteration takes one.
    assert all(arm.available == 120 for arm in arms)
    assert sum(arm.visits for arm in arms) == 120
    assert all(arm.visits > 0 for arm in arms)
    below = [arm.child for arm in arms if arm.child is not None and arm.child.arms]
    assert below  # the seat's next turn points hold nodes of their own
    for arm in arms:
        if arm.child is not None:
            assert sum(child.visits for child in arm.child.arms.values()) < arm.visits
            assert all(c.available <= arm.visits for c in arm.child.arms.values())


def test_the_tree_spends_most_visits_on_what_scores_best() -> None:
    # A Space astronaut at stay-or-move: the incumbent and racing plans; whichever the tree
    # visits most has the best mean, by the upper confidence bound's pull.
    view = searched_view(Edition.SPACE, 3)
    found = plans(view, random.Random(1))
    tree = Tree(view, found, None)
    rng = random.Random(4)
    for _ in range(300):
        tree.iterate(rng)
    arms = list(tree.root.arms.values())
    most = max(arms, key=lambda arm: arm.visits)
    assert most.mean == max(arm.mean for arm in arms)
    assert most.visits > 300 / len(arms)


def test_the_verdict_plays_a_challenger_only_clearly_ahead_of_the_incumbent() -> None:
    def arm(visits: int, mean: float, spread: float) -> Arm:
        # Half the scores at mean - spread, half at mean + spread.
        return Arm(visits, visits, mean * visits, (mean**2 + spread**2) * visits)

    incumbent = arm(100, 0.30, 0.2)
    best, lead = verdict([incumbent, arm(40, 0.5, 0.2), arm(160, 0.40, 0.2)])
    assert best == 2  # visited most, not the best mean
    assert lead == pytest.approx(0.10 / (0.2 * (1 / 160 + 1 / 100) ** 0.5))
    _, behind = verdict([incumbent, arm(100, 0.29, 0.2)])
    assert behind < 0
    assert verdict([incumbent, arm(1, 0.9, 0.0)]) == (1, 0.0)  # one visit says nothing
