"""The expert's rollouts: a simulated game played on a few turns, then scored.

Every seat plays its opponent model (``server.bots.opponents``), the searching seat its plan's
style; after :data:`HORIZON` turns the position is scored by :func:`standing`, a guess of the
seat's chance to win (a game of luck ends in a win or a loss that says little about one
decision; a few turns on, who is alive, how far and with how much to spend says more, for a
fraction of the cost).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from server.bots.opponents import Model, basic_model, styled
from server.bots.seen import FORWARD, PATIENT, TETHERS, Style
from server.engine import Edition, Game
from server.engine.search import state_of
from server.engine.state import State

#: Rollouts play this many turns (all seats' turns counted) and then score the position.
HORIZON = 8
#: How steeply the standing's strength grows with a unit of resource to spare.
STANDING_SLOPE = 0.35
#: A Space astronaut's chance to reach the ship on its own: logit = a + b x oxygen + c x rows
#: to go + d x free moves held (Rocket Booster, Tether), the fit that bench/space_reach.py
#: prints of the exact chance for an astronaut nobody attacks, playing the best policy.
SPACE_REACH = (0.34, 0.78, -1.14, 0.98)
#: How fast the chance that a rival gets to the ship first grows with each row it is ahead.
SPACE_AHEAD = 1.0

#: The cards that move their player for free (Rocket Booster, Tether; Freestyle Sprint, Ride
#: the Wave): each is worth a move's two units.
FREE_MOVES = FORWARD | TETHERS

# A rollout longer than this many decisions is scored as a loss (runaway games are rare).
ROLLOUT_LIMIT = 3000


def playout(
    game: Game,
    seat: int,
    rng: random.Random,
    horizon: int | None = HORIZON,
    style: Style = PATIENT,
    models: Sequence[Model | None] | None = None,
) -> float:
    """Play ``game`` on, ``seat`` as the basic bot in ``style`` and every other seat by its
    model in ``models`` (the basic bot without): to its end (1.0 if ``seat`` wins, else 0.0),
    or, with a ``horizon``, for that many more turns at most, then score the position with
    :func:`standing`."""
    state = state_of(game)
    last = math.inf if horizon is None else state.turn + horizon
    seat_models = list(models) if models is not None else [None] * state.seats
    for _ in range(ROLLOUT_LIMIT):
        if game.decision is None:  # the game is over
            return 1.0 if state.winner == seat else 0.0
        if state.turn > last:
            return standing(state, seat)
        who = game.pending_seats()[0]
        if who == seat:
            choice = styled(game, who, rng, style)
        else:
            choice = (seat_models[who] or basic_model)(game, who, rng)
        game.apply(who, choice)
    return 0.0


def standing(state: State, seat: int) -> float:
    """A guess of ``seat``'s chance to win from a running game's state. In Shipwrecked its
    share of the living players' strength, where strength grows with the rows made and the
    resources held (each row still to go costs two units, C5); in Space
    :func:`space_standing`."""
    if not state.alive[seat]:
        return 0.0
    if state.edition is Edition.SPACE:
        return space_standing(state, seat)
    total = 0.0
    mine = 0.0
    for other in range(state.seats):
        if not state.alive[other]:
            continue
        to_go = max(0, state.goal_row - state.rows[other])
        spare = state.units(other) - 2 * to_go
        strength = math.exp(STANDING_SLOPE * (spare + 2 * state.rows[other]))
        total += strength
        if other == seat:
            mine = strength
    return mine / total


def space_standing(state: State, seat: int) -> float:
    """A living astronaut's chance to win: its chance to reach the ship (:data:`SPACE_REACH`),
    times, for every living rival, the chance that the rival does not get there first.

    Not a share of the living, as in Shipwrecked, where the last one alive wins (W4 a): in
    Space a lone survivor must still reach the ship (S4), and an expert scoring by a share
    would hole and knock back rivals as if killing them won the game (docs/bots.md)."""
    mine, my_rows = _reach(state, seat)
    chance = mine
    for other in range(state.seats):
        if other != seat and state.alive[other]:
            theirs, their_rows = _reach(state, other)
            first = 1.0 / (1.0 + math.exp(SPACE_AHEAD * (their_rows - my_rows)))
            chance *= 1.0 - theirs * first
    return chance


def _reach(state: State, seat: int) -> tuple[float, int]:
    """``seat``'s chance to reach the ship on its own, and its rows to go."""
    base, per_unit, per_row, per_free_move = SPACE_REACH
    to_go = max(0, state.goal_row - state.rows[seat])
    free_moves = sum(1 for card in state.hands[seat] if card.key in FREE_MOVES)
    logit = base + per_unit * state.units(seat) + per_row * to_go + per_free_move * free_moves
    return 1.0 / (1.0 + math.exp(-logit)), to_go
