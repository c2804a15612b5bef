"""Opponent models: how the expert's rollouts play the other seats.

A model is the choice a seat makes in a simulated game. Each seat is played as the level it
has at the table, as the room knows it: a ``random`` seat at random, a ``basic`` seat as the
basic bot (which never harms in Space), and an ``expert`` seat as the *fighting* bot: the basic
bot that also harms a rival one row from the ship and, once harmed, bears a grudge: it harms the
seat that harmed it wherever its cards that only harm can reach. A seat whose play the room
cannot vouch for (a person, no level, or a level no room seats, like bench/bots.py's
``reference``) is modelled by a mix, drawn per rollout: basic or fighting, half and half. Taking
such a seat for a fighter would be a guess the search could not weigh: the mix lets it weigh a
card that only harms against both.

So a search weighs what a card that only harms provokes: a Laser Blast the expert plays now
brings the fighting seats' Laser Blasts and holes on its own rollouts, while a basic table lets
it pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from server.bots.basic import choose_basic
from server.bots.seen import PATIENT, Style, seen_from_game
from server.engine import Game

Choice = dict[str, Any]
#: A seat's choice in a simulated game.
Model = Callable[[Game, int, random.Random], Choice]

#: The basic bot that fights back (see the module's docstring), before any grudge.
FIGHTING: Style = replace(PATIENT, space_harm_from=1)


def basic_model(game: Game, seat: int, rng: random.Random) -> Choice:
    """The basic bot, patient (as a ``basic`` seat plays)."""
    return styled(game, seat, rng, PATIENT)


def random_model(game: Game, seat: int, rng: random.Random) -> Choice:
    """A legal choice at random (as a ``random`` seat plays)."""
    return rng.choice(game.legal(seat))


@dataclass(frozen=True)
class Fighting:
    """The fighting bot (:data:`FIGHTING`), bearing a grudge against ``grudge`` if set."""

    grudge: int | None = None

    def __call__(self, game: Game, seat: int, rng: random.Random) -> Choice:
        return styled(game, seat, rng, _fighting(self.grudge))


fighting_model = Fighting()


@cache
def _fighting(grudge: int | None) -> Style:
    return replace(FIGHTING, grudge=grudge)


def styled(game: Game, seat: int, rng: random.Random, style: Style) -> Choice:
    """The basic bot's choice for ``seat`` in ``style``, from what the seat sees."""
    legal = game.legal(seat)
    if len(legal) == 1:
        return legal[0]
    return choose_basic(seen_from_game(game, seat, style), rng)


#: The model of each level a room may seat; any other level, and a person, is the mix.
BY_LEVEL: dict[str, Model] = {
    "random": random_model,
    "basic": basic_model,
    "expert": fighting_model,
}


def fights(level: str | None) -> bool:
    """Whether a seat of ``level`` (None: a person) is modelled as the fighting bot always
    (not as the mix)."""
    return level is not None and BY_LEVEL.get(level) is fighting_model


def models_for(
    table: Sequence[str | None] | None, seats: int, seat: int, rng: random.Random
) -> list[Model | None]:
    """The model of every seat for one rollout (None for ``seat``, the searching one).
    ``table``: each seat's level as the room knows it, None for a person; without a table
    every other seat is a person. The model of a person or of a level no room seats is drawn
    from ``rng`` (basic or fighting)."""
    models: list[Model | None] = []
    for other in range(seats):
        level = table[other] if table is not None and other < len(table) else None
        if other == seat:
            models.append(None)
        elif level in BY_LEVEL:
            models.append(BY_LEVEL[level])
        else:
            models.append(basic_model if rng.random() < 0.5 else fighting_model)
    return models


def provoked(models: Sequence[Model | None], seat: int) -> list[Model | None]:
    """The same models after ``seat`` has harmed: every fighting seat bears it a grudge."""
    return [Fighting(seat) if isinstance(model, Fighting) else model for model in models]
