"""The expert's search: opponent models that can harm, its budget, its determinism."""

from __future__ import annotations

import random

import pytest

from server.bots.budget import Budget
from server.bots.expert import decide, fights_back, plans
from server.bots.opponents import (
    Fighting,
    basic_model,
    fighting_model,
    models_for,
    provoked,
    random_model,
)
from server.engine import Edition, Game
from tests.engine.scenario import build, card_id

TABLE = ("expert", "basic", "basic", "basic")


def blaster(cid_row: int, discard: list[str]) -> Game:
    """Space, three seats: Ann holds a Laser Blast, Bob stands on row 2 and Cid on ``cid_row``
    (the ship is row 6 in Space)."""
    return build(
        "space",
        3,
        hands={0: ["laser_blast", "oxygen", "oxygen", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        rows={1: 2, 2: cid_row},
        discard=discard,
        draw=["oxygen"],
    )


def blasts(game: Game, choice: dict[str, object]) -> int | None:
    """The target of ``choice`` if it is Ann's Laser Blast, else None."""
    if choice.get("card") == card_id(game, 0, "laser_blast"):
        target = choice.get("target")
        assert isinstance(target, int)
        return target
    return None


def test_the_fighting_model_knocks_back_a_rival_one_row_from_the_ship() -> None:
    game = blaster(5, [])
    assert blasts(game, fighting_model(game, 0, random.Random(0))) == 2
    assert blasts(game, basic_model(game, 0, random.Random(0))) is None  # basic never harms


def test_a_provoked_fighting_model_harms_the_seat_that_harmed_it() -> None:
    game = blaster(3, [])
    assert blasts(game, fighting_model(game, 0, random.Random(0))) is None
    angry = provoked([None, fighting_model, basic_model], 1)
    assert angry == [None, Fighting(1), basic_model]  # a basic seat never harms back
    assert blasts(game, Fighting(1)(game, 0, random.Random(0))) == 1
    assert blasts(game, Fighting(2)(game, 0, random.Random(0))) == 2


def test_each_seat_is_modelled_by_its_level_and_a_person_by_a_mix() -> None:
    table = ("basic", "random", "basic", "expert")
    models = models_for(table, 4, 0, random.Random(0))
    assert models == [None, random_model, basic_model, fighting_model]
    drawn = {
        model
        for seed in range(40)
        for model in models_for((None, None), 2, 1, random.Random(seed))
        if model is not None
    }
    assert drawn == {basic_model, fighting_model}


def test_a_level_no_room_seats_is_modelled_as_a_person() -> None:
    """bench/bots.py's ``reference`` is no fighter the room knows of: the mix, like a person."""
    for seed in range(20):
        unknown = models_for(("expert", "reference", "basic"), 3, 0, random.Random(seed))
        person = models_for(("expert", None, "basic"), 3, 0, random.Random(seed))
        assert unknown == person
    drawn = {
        models_for(("expert", "reference"), 2, 0, random.Random(seed))[1] for seed in range(40)
    }
    assert drawn == {basic_model, fighting_model}


def test_the_expert_weighs_a_laser_blast_in_space() -> None:
    game = blaster(5, [])
    found = [blasts(game, plan.choice) for plan in plans(game.view(0), random.Random(0))]
    assert 2 in found


@pytest.mark.parametrize(
    ("table", "weighed"),
    [
        (None, True),  # every other seat a person: basic or fighting, the search weighs it
        (("expert", "basic", "basic"), True),
        (("expert", "random", None), True),
        (("expert", "basic", "expert"), False),
        (("expert", "reference", "basic"), True),  # a level no room seats: the mix
        (("expert", "reference", "expert"), False),
    ],
)
def test_the_expert_harms_in_space_only_where_no_bot_fights_back(
    table: tuple[str | None, ...] | None, weighed: bool
) -> None:
    game = blaster(5, [])
    found = {blasts(game, plan.choice) for plan in plans(game.view(0), random.Random(0), table)}
    assert (found - {None} != set()) is weighed
    assert fights_back(table, 3, 0) is not weighed
    assert fights_back(("expert", "basic", "basic"), 3, 0) is False
    assert fights_back(("basic", "expert", "basic"), 3, 1) is False  # its own seat


def test_the_castaway_expert_weighs_a_rogue_wave_at_any_table() -> None:
    game = build(
        "shipwrecked",
        3,
        hands={0: ["rogue_wave", "food", "food", "food"], 1: ["food"]},
        rows={1: 1, 2: 3},
        draw=["food"],
    )
    table = ("expert", "expert", "expert")
    found = [plan.choice for plan in plans(game.view(0), random.Random(0), table)]
    assert [c["target"] for c in found if c.get("card") == card_id(game, 0, "rogue_wave")] == [2]


def test_a_forced_decision_spends_no_rollouts() -> None:
    game = Game(Edition.SPACE, ["Ann", "Bob", "Cid", "Dee"], 4)
    budget = Budget(rollouts=64, close=256)
    seen_forced = seen_searched = False
    rng = random.Random(3)
    while not game.over and not (seen_forced and seen_searched):
        seat = game.pending_seats()[0]
        view = game.view(seat)
        decision = decide(view, rng, budget, TABLE)
        if len(view["legal"]) == 1 or view["decision"]["kind"] not in ("actions", "stay_or_move"):
            assert decision.rollouts == 0
            seen_forced = True
        elif decision.rollouts:
            seen_searched = True
        game.apply(seat, decision.choice)
    assert seen_forced and seen_searched


def searched(budget: Budget, seed: int = 8, decisions: int = 40) -> list[int]:
    """The rollouts of every searched decision of seat 0 in the first ``decisions`` of a game
    of an expert against three basic bots."""
    game = Game(Edition.SPACE, ["Ann", "Bob", "Cid", "Dee"], seed)
    rng = random.Random(seed)
    spent: list[int] = []
    for _ in range(decisions):
        if game.over:
            break
        seat = game.pending_seats()[0]
        view = game.view(seat)
        decision = decide(view, rng, budget, TABLE) if seat == 0 else None
        if decision is not None and decision.rollouts:
            spent.append(decision.rollouts)
        game.apply(seat, decision.choice if decision else view["legal"][0])
    return spent


def test_close_decisions_get_more_rollouts_within_the_budget() -> None:
    plain = searched(Budget(rollouts=32))
    assert plain and max(plain) <= 32
    extended = searched(Budget(rollouts=32, close=96))
    assert max(extended) <= 96
    assert any(spent > 32 for spent in extended)


@pytest.mark.parametrize("edition", list(Edition))
def test_the_search_is_deterministic_given_its_seed(edition: Edition) -> None:
    game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], 6)
    for _ in range(30):
        seat = game.pending_seats()[0]
        view = game.view(seat)
        first = decide(view, random.Random(11), Budget(rollouts=24, close=48), (None,) * 4)
        again = decide(view, random.Random(11), Budget(rollouts=24, close=48), (None,) * 4)
        assert first == again
        game.apply(seat, first.choice)
        if game.over:
            break
