"""server/engine/search.py: games rebuilt from a seat's view, and copies."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from server.engine import Edition, Game, check_invariants
from server.engine.search import (
    arrange,
    at_turn_point,
    copy_game,
    hidden,
    sample,
    state_of,
)


def turn_points(edition: Edition, seed: int, every: int = 5) -> list[Game]:
    """Copies of every ``every``-th turn point of a seeded random-bot game."""
    game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], seed)
    rng = random.Random(seed)
    found: list[Game] = []
    count = 0
    while not game.over:
        seat = game.pending_seats()[0]
        if at_turn_point(game):
            count += 1
            if count % every == 0:
                found.append(copy_game(game))
        game.apply(seat, rng.choice(game.legal(seat)))
    return found


def mid_game(edition: Edition, seed: int = 3) -> Game:
    """A turn point a few turns into a random-bot game."""
    games = turn_points(edition, seed, every=1)
    return games[len(games) // 3]


def secret_part(game: Game) -> dict[str, object]:
    state = state_of(game)
    return {
        "hands": [[c.id for c in hand] for hand in state.hands],
        "draw": [c.id for c in state.draw],
        "loc_draw": [loc.id for loc in state.loc_draw],
    }


@pytest.mark.parametrize("edition", list(Edition))
def test_a_sampled_game_shows_the_seat_the_same_view(edition: Edition) -> None:
    rng = random.Random(1)
    for game in turn_points(edition, 5) + turn_points(edition, 6):
        seat = game.active
        view = game.view(seat)
        rebuilt = sample(view, rng)
        assert rebuilt.view(seat) == view
        assert check_invariants(rebuilt) == []


@pytest.mark.parametrize("edition", list(Edition))
def test_a_sampled_game_conserves_every_card(edition: Edition) -> None:
    game = mid_game(edition)
    seat = game.active
    rebuilt = sample(game.view(seat), random.Random(2))
    original, copy = state_of(game), state_of(rebuilt)
    for part in ("draw", "discard", "loc_draw", "loc_discard"):
        assert len(getattr(copy, part)) == len(getattr(original, part))
    assert [len(h) for h in copy.hands] == [len(h) for h in original.hands]
    everything = Counter(c.id for pile in (copy.draw, copy.discard, *copy.hands) for c in pile)
    assert sorted(everything) == list(range(78)) and set(everything.values()) == {1}
    assert copy.hands[seat] == original.hands[seat]


def test_sampling_varies_only_the_hidden_cards() -> None:
    game = mid_game(Edition.SPACE)
    view = game.view(game.active)
    arrangements = {str(secret_part(sample(view, random.Random(n)))) for n in range(5)}
    assert len(arrangements) == 5


def test_sampled_space_opponents_always_hold_oxygen() -> None:
    rng = random.Random(4)
    for game in turn_points(Edition.SPACE, 8, every=2):
        view = game.view(game.active)
        state = state_of(sample(view, rng))
        for seat in state.living():
            assert state.units(seat) > 0


def test_arrange_puts_the_hidden_cards_where_asked() -> None:
    game = mid_game(Edition.SHIPWRECKED)
    seat = game.active
    view = game.view(seat)
    secret = hidden(view)
    cards = sorted(secret.cards, reverse=True)
    hands, start = {}, 0
    for other, count in secret.hand_counts.items():
        hands[other] = cards[start : start + count]
        start += count
    draw = cards[start:]
    rebuilt = arrange(view, hands, draw, sorted(secret.locations), random.Random(0))
    state = state_of(rebuilt)
    for other, ids in hands.items():
        assert [c.id for c in state.hands[other]] == ids
    assert [c.id for c in state.draw] == draw
    assert [loc.id for loc in state.loc_draw] == sorted(secret.locations)
    assert rebuilt.view(seat) == view


def test_arrange_refuses_an_arrangement_that_misses_a_card() -> None:
    game = mid_game(Edition.SPACE)
    view = game.view(game.active)
    secret = hidden(view)
    cards = list(secret.cards)
    hands, start = {}, 0
    for other, count in secret.hand_counts.items():
        hands[other] = cards[start : start + count]
        start += count
    with pytest.raises(ValueError, match="hidden cards"):
        arrange(view, hands, cards[start:-1], list(secret.locations), random.Random(0))


def test_no_game_is_rebuilt_from_another_seats_turn_point() -> None:
    game = mid_game(Edition.SPACE)
    other = (game.active + 1) % 4
    with pytest.raises(ValueError, match="turn point"):
        sample(game.view(other), random.Random(0))


@pytest.mark.parametrize("edition", list(Edition))
def test_a_copy_plays_on_exactly_as_the_original(edition: Edition) -> None:
    for game in turn_points(edition, 9, every=7):
        copy = copy_game(game)
        assert copy.snapshot() | {"decisions": 0} == game.snapshot() | {"decisions": 0}
        rng_a, rng_b = random.Random(1), random.Random(1)
        while not game.over:
            seat = game.pending_seats()[0]
            assert copy.pending_seats()[0] == seat
            assert copy.legal(seat) == game.legal(seat)
            game.apply(seat, rng_a.choice(game.legal(seat)))
            copy.apply(seat, rng_b.choice(copy.legal(seat)))
        assert copy.over and copy.winner == game.winner
        assert state_of(copy).hands == state_of(game).hands


def test_copies_are_independent() -> None:
    game = mid_game(Edition.SHIPWRECKED)
    before = game.snapshot()
    copy = copy_game(game)
    original, copied = state_of(game), state_of(copy)
    for field in dataclasses.fields(original):
        value = getattr(original, field.name)
        if isinstance(value, list | dict) and field.name != "hands":
            assert getattr(copied, field.name) is not value, field.name
    assert all(a is not b for a, b in zip(original.hands, copied.hands, strict=True))
    rng = random.Random(0)
    while not copy.over:
        seat = copy.pending_seats()[0]
        copy.apply(seat, rng.choice(copy.legal(seat)))
    assert game.snapshot() == before
    assert not game.over


def test_only_turn_points_are_copied() -> None:
    game = Game(Edition.SPACE, ["Ann", "Bob"], 1)
    rng = random.Random(1)
    refused = 0
    while not game.over:
        seat = game.pending_seats()[0]
        if not at_turn_point(game):
            refused += 1
            with pytest.raises(ValueError, match="turn point"):
                copy_game(game)
        game.apply(seat, rng.choice(game.legal(seat)))
    assert refused > 0
    with pytest.raises(ValueError):
        copy_game(game)


def v1_stay_with_discards(seed: int = 1) -> Game:
    """A two-seat Space game with variant V1 at the first stay-or-move that offers a stay by
    discarding two action cards (played with the first legal choice up to there)."""
    game = Game(Edition.SPACE, ["Ann", "Bob"], seed, variants=["V1"])
    while not game.over:
        seat = game.pending_seats()[0]
        legal = game.legal(seat)
        at_stay = game.decision is not None and game.decision.kind == "stay_or_move"
        if at_stay and any("discard" in choice for choice in legal):
            return game
        game.apply(seat, legal[0])
    raise AssertionError("no V1 stay came up")


def test_a_sampled_game_keeps_the_rooms_variants() -> None:
    game = v1_stay_with_discards()
    seat = game.pending_seats()[0]
    view = game.view(seat)
    rebuilt = sample(view, random.Random(5))
    assert rebuilt.variants == ("V1",)
    assert rebuilt.legal(seat) == game.legal(seat)
    stay = next(choice for choice in view["legal"] if "discard" in choice)
    rebuilt.apply(seat, {"do": "stay", "discard": stay["discard"]})  # refused without V1
