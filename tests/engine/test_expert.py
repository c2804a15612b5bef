"""The expert bot: decides from its seat's view alone, deterministically, within its budget."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from server.bots.budget import Budget
from server.bots.expert import choose_expert
from server.bots.ismcts import choose_ismcts
from server.bots.levels import choose
from server.bots.selfplay import play_game
from server.engine import Edition, Game
from server.engine.state import State
from tests.engine.test_search import v1_stay_with_discards

SMALL = Budget(rollouts=60)


def hide_differently(state: State) -> None:
    """Rearrange what the first player cannot see: the other hands and the draw pile below the
    card it draws first (same counts, other cards)."""
    first = state.first
    others = [seat for seat in range(state.seats) if seat != first]
    pool = [card for seat in others for card in state.hands[seat]] + state.draw[:-1]
    random.Random(99).shuffle(pool)
    for seat in others:
        count = len(state.hands[seat])
        state.hands[seat], pool = pool[:count], pool[count:]
    state.draw[:-1] = pool
    random.Random(98).shuffle(state.loc_draw)


@pytest.mark.parametrize("edition", list(Edition))
@pytest.mark.parametrize("chooser", [choose_expert, choose_ismcts], ids=["flat", "tree"])
def test_the_expert_chooses_the_same_when_only_hidden_cards_differ(
    edition: Edition, chooser: Callable[[dict[str, Any], random.Random, Budget], Any]
) -> None:
    """Both searches (flat and the tree) decide from the seat's view alone."""
    names = ["Ann", "Bob", "Cid", "Dee"]
    plain = Game(edition, names, 12)
    other = Game(edition, names, 12, arrange=hide_differently)
    seat = plain.active
    assert plain.snapshot()["hands"] != other.snapshot()["hands"]
    assert plain.view(seat) == other.view(seat)
    for _ in range(3):  # a few decisions of the first turn, each taken in both games
        view = plain.view(seat)
        if not view["legal"]:
            break
        mine = chooser(view, random.Random(7), SMALL)
        assert chooser(other.view(seat), random.Random(7), SMALL) == mine
        plain.apply(seat, mine)
        other.apply(seat, mine)


def test_the_expert_is_deterministic_given_its_seed() -> None:
    first = play_game(Edition.SPACE, ["expert", "basic", "basic", "random"], 31, budget=SMALL)
    again = play_game(Edition.SPACE, ["expert", "basic", "basic", "random"], 31, budget=SMALL)
    assert (first.winner, first.turns, first.decisions) == (
        again.winner,
        again.turns,
        again.decisions,
    )


def test_the_expert_keeps_to_its_time_budget() -> None:
    game = Game(Edition.SHIPWRECKED, ["Ann", "Bob", "Cid"], 4)
    view = game.view(game.active)
    result = play_game(
        Edition.SHIPWRECKED, ["expert", "basic", "basic"], 8, budget=Budget(10**6, 0.01)
    )
    # Every decision stopped once the clock said so (one round of rollouts may follow).
    assert result.expert_seconds and max(result.expert_seconds) < 1.0
    assert choose("expert", view, random.Random(1), Budget(10**6, 0.01)) in view["legal"]


@pytest.mark.parametrize("edition", list(Edition))
def test_expert_games_keep_every_invariant(edition: Edition) -> None:
    result = play_game(edition, ["expert"] * 4, 17, check=True, budget=Budget(rollouts=8))
    assert result.invariant_failures == []
    assert result.winner is not None or edition is Edition.SPACE


def test_the_expert_never_picks_a_fatal_choice_when_another_exists() -> None:
    rng = random.Random(3)
    seen = 0
    for seed in range(6):
        game = Game(Edition.SPACE, ["Ann", "Bob"], seed)
        while not game.over:
            seat = game.pending_seats()[0]
            view = game.view(seat)
            if seat == 0:
                choice = choose_expert(view, rng, Budget(rollouts=4))
                if any(not c.get("fatal") for c in view["legal"]):
                    assert not choice.get("fatal")
                seen += any(c.get("fatal") for c in view["legal"])
            else:
                choice = rng.choice(view["legal"])
            game.apply(seat, choice)
    assert seen > 0


def test_a_budget_needs_a_rollout_and_a_positive_time() -> None:
    with pytest.raises(ValueError):
        Budget(0)
    with pytest.raises(ValueError):
        Budget(10, 0.0)


@pytest.mark.parametrize("edition", list(Edition))
def test_the_expert_plays_basics_choice_unless_its_search_finds_better(edition: Edition) -> None:
    # With one rollout nothing can be told apart: every decision is the basic bot's.
    from server.bots.basic import choose_basic
    from server.bots.seen import seen_from_view

    game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], 21)
    rng = random.Random(5)
    for _ in range(60):
        if game.over:
            break
        seat = game.pending_seats()[0]
        view = game.view(seat)
        state = rng.getstate()
        mine = choose_expert(view, rng, Budget(rollouts=1))
        rng.setstate(state)
        assert mine == choose_basic(seen_from_view(view), rng)
        game.apply(seat, mine)


def test_the_castaways_standing_is_a_share_of_the_table_and_nothing_for_the_dead() -> None:
    from server.bots.rollout import standing
    from server.engine.search import state_of

    game = Game(Edition.SHIPWRECKED, ["Ann", "Bob", "Cid"], 3)
    state = state_of(game)
    state.hands = [list(state.hands[0]) for _ in range(3)]  # equal hands
    state.rows = [2, 2, 2]
    even = standing(state, 0)
    assert even == pytest.approx(1 / 3)
    state.rows = [3, 2, 2]
    assert standing(state, 0) > even > standing(state, 1)
    state.alive[0] = False
    assert standing(state, 0) == 0.0
    assert standing(state, 1) == pytest.approx(1 / 2)


def test_the_astronauts_standing_is_its_chance_to_reach_the_ship_first() -> None:
    # In Space a lone survivor must still reach the ship (S4): the last one alive is no sure
    # winner, as a share of the table would make it.
    from server.bots.rollout import standing
    from server.engine.search import state_of

    game = Game(Edition.SPACE, ["Ann", "Bob", "Cid"], 3)
    state = state_of(game)
    state.hands = [list(state.hands[0]) for _ in range(3)]  # equal hands: 6 oxygen each
    state.rows = [0, 0, 0]
    even = standing(state, 0)
    assert 0.0 < even < 1 / 3
    state.rows = [1, 0, 0]
    ahead = standing(state, 0)
    assert ahead > even > standing(state, 1)
    state.rows = [1, 0, 5]  # Cid is one row from the ship
    threatened = standing(state, 0)
    assert threatened < ahead / 2
    state.rows = [1, 0, 4]  # knocked back, Cid is less of a threat
    assert standing(state, 0) > threatened
    state.rows = [1, 0, 0]
    state.alive[1] = state.alive[2] = False
    alone = standing(state, 0)
    assert ahead < alone < 0.9  # a share would be 1
    state.hands[0].append(state.hands[0][0])  # one more oxygen
    assert standing(state, 0) > alone
    state.alive[0] = False
    assert standing(state, 0) == 0.0


def test_the_castaway_expert_weighs_a_rogue_wave() -> None:
    from server.bots.expert import plans
    from tests.engine.scenario import build, card_id

    game = build(
        "shipwrecked",
        3,
        hands={0: ["rogue_wave", "food", "food", "food"], 1: ["food"]},
        rows={1: 1, 2: 3},
        draw=["food"],
    )
    found = [plan.choice for plan in plans(game.view(0), random.Random(0))]
    assert [c["target"] for c in found if c.get("card") == card_id(game, 0, "rogue_wave")] == [2]


def test_the_expert_weighs_racing_against_the_basic_style() -> None:
    # Three food at stay-or-move: the basic (patient) castaway stays, a racing one moves. Both
    # are candidates, the basic bot's first (the incumbent), and each plays on in its style.
    from server.bots.expert import plans
    from server.bots.seen import PATIENT, RACING
    from tests.engine.scenario import castaway_with_three_food

    found = plans(castaway_with_three_food().view(0), random.Random(0))
    assert (found[0].choice["do"], found[0].style) == ("stay", PATIENT)
    assert [(p.choice["do"], p.style) for p in found[1:]] == [("move", RACING)]


def test_the_expert_decides_a_v1_stay_or_move() -> None:
    """In a V1 room the expert's rebuilt games lacked the variant, so a stay by
    discarding raised IllegalChoice and the server played a plain choice instead."""
    game = v1_stay_with_discards()
    seat = game.pending_seats()[0]
    view = game.view(seat)
    choice = choose_expert(view, random.Random(1), Budget(rollouts=40))
    assert choice in view["legal"]


def test_expert_games_with_v1_play_to_the_end() -> None:
    result = play_game(
        Edition.SPACE, ["expert", "basic"], 1, variants=["V1"], budget=Budget(rollouts=16)
    )
    assert result.invariant_failures == []
    assert result.turns > 0


@pytest.mark.parametrize("edition", list(Edition))
def test_a_clock_that_never_stops_the_search_changes_nothing(edition: Edition) -> None:
    """A clocked search the clock does not stop draws the same random numbers and plays the
    same rollouts as the unclocked one: the clock only ever cuts a search short."""
    from server.bots.expert import decide

    rng = random.Random(11)
    table = ["expert", "basic", "basic", "basic"]
    searched = 0
    for seed in range(5, 10):
        game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], seed)
        while not game.over and searched < 8:
            seat = game.pending_seats()[0]
            view = game.view(seat)
            choice = choose("basic", view, rng)
            if seat == 0:
                unclocked, clocked = random.Random(searched), random.Random(searched)
                plain = decide(view, unclocked, Budget(24, None, 72), table)
                timed = decide(view, clocked, Budget(24, 1000.0, 72), table)
                assert timed == plain
                assert clocked.getstate() == unclocked.getstate()
                searched += plain.rollouts > 0
                choice = plain.choice
            game.apply(seat, choice)
    assert searched == 8
