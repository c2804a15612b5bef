"""The engine's shortcuts agree with the plain definitions they stand in for."""

from __future__ import annotations

import random

import pytest

from server.engine.actions import distinct, first_payment, payment_ways
from server.engine.cards import GAME_DECKS, Edition
from server.engine.state import new_state, remove_card, shuffle


@pytest.mark.parametrize("edition", list(Edition))
def test_first_payment_is_the_first_of_the_payment_ways(edition: Edition) -> None:
    deck = list(GAME_DECKS[edition])
    rng = random.Random(7)
    for _ in range(3000):
        hand = rng.sample(deck, rng.randrange(0, 12))
        for units in (1, 2):
            assert first_payment(hand, units) == payment_ways(hand, units)[0]


@pytest.mark.parametrize("edition", list(Edition))
def test_card_signatures_tell_apart_exactly_type_and_direction(edition: Edition) -> None:
    deck = GAME_DECKS[edition]
    for a in deck:
        for b in deck:
            assert (a.sig == b.sig) == ((a.type.key, a.dir) == (b.type.key, b.dir))
    assert len(distinct(deck)) == len({(card.key, card.dir) for card in deck})


def test_remove_card_removes_that_very_card_like_list_remove() -> None:
    deck = GAME_DECKS[Edition.SHIPWRECKED]
    hand = list(deck[:6])
    expected = list(hand)
    for card in (deck[3], deck[0], deck[5]):
        remove_card(hand, card)
        expected.remove(card)
        assert hand == expected
    with pytest.raises(ValueError):
        remove_card(hand, deck[3])


@pytest.mark.parametrize("edition", list(Edition))
def test_has_units_tells_whether_units_reach_the_amount(edition: Edition) -> None:
    state = new_state(edition, ["a", "b"], 3)
    deck = list(GAME_DECKS[edition])
    rng = random.Random(11)
    for _ in range(2000):
        state.hands[0] = rng.sample(deck, rng.randrange(0, 12))
        for units in (1, 2, 3):
            assert state.has_units(0, units) == (state.units(0) >= units)


def test_shuffle_gives_random_shuffles_order_from_the_same_draws() -> None:
    for length in (0, 1, 2, 3, 17, 41, 78, 300):
        mine, theirs = random.Random(length), random.Random(length)
        cards, expected = list(range(length)), list(range(length))
        for _ in range(50):
            shuffle(mine, cards)
            theirs.shuffle(expected)
            assert cards == expected
        assert mine.getstate() == theirs.getstate()
