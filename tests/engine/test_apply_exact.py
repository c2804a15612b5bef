"""Game.apply takes a choice only as the engine offers it, types included (with or without the
view's fatal mark); Game.choose takes one by its place in the legal list."""

from __future__ import annotations

import pytest

from server.engine import Game, IllegalChoice, NotYourDecision
from server.engine.actions import same


def test_same_tells_apart_what_python_equality_mixes_up() -> None:
    assert same({"card": 48, "cell": (1, 2)}, {"card": 48, "cell": [1, 2]})
    assert not same({"card": 48}, {"card": 48.0})
    assert not same({"target": 1}, {"target": True})
    assert not same({"cards": [1, 2]}, {"cards": [1, 2.0]})
    assert not same({"a": 1}, {"a": 1, "b": 2})
    assert not same([1], (1, 2))


def _first(game: Game) -> tuple[int, dict[str, object]]:
    seat = game.pending_seats()[0]
    return seat, game.legal(seat)[0]


def test_an_int_field_sent_as_float_or_bool_is_not_the_legal_choice() -> None:
    game = Game("space", ["a", "b"], 4)
    seat, choice = _first(game)
    field = next(key for key, value in choice.items() if isinstance(value, int))
    for wrong in (float(choice[field]), bool(choice[field])):  # type: ignore[arg-type]
        if wrong == choice[field]:
            with pytest.raises(IllegalChoice):
                game.apply(seat, {**choice, field: wrong})
    assert game.decisions == []
    game.apply(seat, choice)
    assert len(game.decisions) == 1


def test_a_choice_from_the_view_is_taken_with_its_fatal_mark_and_stored_without() -> None:
    game = Game("space", ["a", "b"], 4)
    seat = game.pending_seats()[0]
    shown = {**game.view(seat)["legal"][0], "fatal": True}
    with pytest.raises(IllegalChoice):
        game.apply(seat, {**shown, "label": "something else"})
    game.apply(seat, shown)
    assert game.decisions == [(seat, {k: v for k, v in shown.items() if k != "fatal"})]


def test_choose_takes_the_legal_choice_at_its_index_and_refuses_any_other() -> None:
    game = Game("space", ["a", "b"], 4)
    seat = game.pending_seats()[0]
    legal = game.legal(seat)
    for wrong in (len(legal), -1):
        with pytest.raises(IllegalChoice):
            game.choose(seat, wrong)
    with pytest.raises(NotYourDecision):
        game.choose(1 - seat, 0)
    assert game.decisions == []
    game.choose(seat, len(legal) - 1)
    assert game.decisions == [(seat, legal[-1])]
