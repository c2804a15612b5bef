"""The engine's shortcuts agree with the plain definitions they stand in for."""

from __future__ import annotations

import itertools
import random

import pytest

from server.engine.actions import distinct, distinct_pairs, first_payment, payment_ways
from server.engine.cards import GAME_DECKS, Card, Edition
from server.engine.state import new_state, shuffle


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


def test_cards_are_equal_exactly_when_they_are_the_same_card() -> None:
    # One object per card: identity (what Card compares by) is equality of the fields.
    decks = [GAME_DECKS[edition] for edition in Edition]
    cards = [card for deck in decks for card in deck]
    for a in cards:
        for b in cards:
            assert (a == b) == ((a.id, a.type, a.dir) == (b.id, b.type, b.dir))
    hand = list(decks[1][:6])
    hand.remove(decks[1][3])
    assert hand == [*decks[1][:3], *decks[1][4:6]]


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


@pytest.mark.parametrize("edition", list(Edition))
def test_distinct_pairs_are_the_first_pair_of_each_kind_in_position_order(edition: Edition) -> None:
    deck = list(GAME_DECKS[edition])
    rng = random.Random(5)
    for _ in range(1500):
        # Few kinds, many copies: resources and a few action types, as hands are.
        cards = rng.sample(deck[:60], rng.randrange(0, 10))
        expected: list[tuple[Card, Card]] = []
        kinds: set[tuple[str, str]] = set()
        for a, b in itertools.combinations(cards, 2):
            kind = (min(a.sig, b.sig), max(a.sig, b.sig))
            if kind not in kinds:
                kinds.add(kind)
                expected.append((a, b))
        assert distinct_pairs(cards) == expected


@pytest.mark.parametrize("edition", list(Edition))
def test_paying_one_unit_is_a_distinct_single_else_a_distinct_double(edition: Edition) -> None:
    # The plain definition (C6) that payment_ways' one-pass shortcut for 1 unit stands in for.
    deck = list(GAME_DECKS[edition])
    rng = random.Random(9)
    for _ in range(3000):
        hand = rng.sample(deck, rng.randrange(0, 12))
        resources = [card for card in hand if card.value]
        singles = [card for card in hand if card.value == 1]
        doubles = [card for card in hand if card.value == 2]
        if sum(card.value for card in resources) <= 1:
            expected = [resources]
        else:
            expected = [[card] for card in distinct(singles or doubles)]
        assert payment_ways(hand, 1) == expected
