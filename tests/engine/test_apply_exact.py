"""Game.apply takes a choice only as the engine offers it: types included, and with a view's
decoration (label, fatal mark) only as the view showed it."""

from __future__ import annotations

import pytest

from server.engine import Game, IllegalChoice
from server.engine.actions import exact


def test_exact_tells_apart_what_python_equality_mixes_up() -> None:
    assert exact({"card": 48, "cell": [1, 2]}, {"card": 48, "cell": [1, 2]})
    assert not exact({"card": 48}, {"card": 48.0})
    assert not exact({"target": 1}, {"target": True})
    assert not exact({"cards": [1, 2]}, {"cards": [1, 2.0]})
    assert not exact({"cell": [1, 2]}, {"cell": (1, 2)})


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


def test_a_view_choice_must_keep_the_views_label() -> None:
    game = Game("space", ["a", "b"], 4)
    seat = game.pending_seats()[0]
    shown = game.view(seat)["legal"][0]
    with pytest.raises(IllegalChoice):
        game.apply(seat, {**shown, "label": "something else"})
    game.apply(seat, shown)  # verbatim from the view
    assert len(game.decisions) == 1
