"""The rating rules, one test each: who is rated, each seat's rank, how ratings move."""

from __future__ import annotations

import pytest

from server.store import ratings
from server.store.ratings import NEW, Entrant, Skill, ranks, rated, update


def person(seat: int, player: str = "", left: bool = False) -> Entrant:
    return Entrant(seat, player or f"p{seat:08x}", None, left)


def bot(seat: int, level: str = "basic") -> Entrant:
    return Entrant(seat, None, level, False)


def guest(seat: int) -> Entrant:
    return Entrant(seat, None, None, False)


TABLE = [person(0), bot(1), person(2), bot(3)]


def test_the_winner_ranks_first_and_everyone_else_ties_below() -> None:
    assert ranks(TABLE, 2) == [2, 2, 1, 2]


def test_nobody_winning_ties_everyone() -> None:
    assert ranks(TABLE, None) == [1, 1, 1, 1]


def test_a_player_who_left_ranks_last_below_the_ties() -> None:
    table = [person(0), person(1, left=True), bot(2)]
    assert ranks(table, 2) == [2, 3, 1]
    assert ranks(table, None) == [1, 2, 1]


def test_a_player_who_left_ranks_last_even_when_their_bot_won() -> None:
    table = [person(0), person(1, left=True), bot(2)]
    assert ranks(table, 1) == [1, 2, 1]


def test_a_public_unseeded_game_without_variants_with_a_person_is_rated() -> None:
    assert rated(True, False, [], TABLE)


def test_a_private_game_is_unrated() -> None:
    assert not rated(False, False, [], TABLE)


def test_a_game_with_a_chosen_seed_is_unrated() -> None:
    assert not rated(True, True, [], TABLE)


def test_a_game_with_variants_is_unrated() -> None:
    assert not rated(True, False, ["V1"], TABLE)


def test_a_game_without_a_person_with_an_identity_is_unrated() -> None:
    assert not rated(True, False, [], [guest(0), bot(1), guest(2)])
    assert rated(True, False, [], [guest(0), bot(1), person(2)])


@pytest.mark.parametrize("seats", [1, 6])
def test_only_two_to_five_seats_are_rated(seats: int) -> None:
    assert not rated(True, False, [], [person(n) for n in range(seats)])


def test_guest_ids_are_told_apart() -> None:
    assert ratings.is_guest("g0123abcd") and not ratings.is_guest("p0123abcd")


def test_the_winner_gains_and_the_others_lose() -> None:
    after = update([NEW, NEW, NEW], [1, 2, 2], [False] * 3)
    assert after[0].mu > NEW.mu > after[1].mu == after[2].mu


def test_all_tied_between_equals_moves_nobody_s_mu() -> None:
    after = update([NEW, NEW], [1, 1], [False, False])
    assert after[0].mu == pytest.approx(NEW.mu) and after[1].mu == pytest.approx(NEW.mu)


def test_a_bot_anchor_stays_fixed() -> None:
    anchor = Skill(*ratings.BOT_ANCHORS["expert"])
    after = update([NEW, anchor], [1, 2], [False, True])
    assert after[1] == anchor and after[0].mu > NEW.mu


def test_beating_a_bot_far_below_gains_little() -> None:
    strong = Skill(40.0, 3.0)
    weak = update([strong, Skill(*ratings.BOT_ANCHORS["random"])], [1, 2], [False, True])[0]
    even = update([strong, Skill(40.0, 2.0)], [1, 2], [False, True])[0]
    assert weak.mu - strong.mu < (even.mu - strong.mu) / 4


def test_a_new_rating_is_provisional_and_shows_1000() -> None:
    assert NEW.provisional and NEW.shown == 1000


def test_a_rating_is_settled_once_sigma_is_below_the_threshold() -> None:
    assert not Skill(25.0, ratings.PROVISIONAL_SIGMA - 0.01).provisional
    assert Skill(25.0, ratings.PROVISIONAL_SIGMA).provisional


def test_sigma_falls_below_the_threshold_after_some_games() -> None:
    skills = [NEW] * 4
    games = 0
    while skills[0].provisional:
        skills = update(skills, [1 + (games % 2), 2 - (games % 2), 2, 2], [False] * 4)
        games += 1
    assert 8 <= games <= 25
