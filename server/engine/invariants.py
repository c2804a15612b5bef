"""Invariants that hold after every decision; self-play and property tests check them."""

from __future__ import annotations

from collections import Counter

from .cards import GAME_DECKS, LOCATION_DECKS, Edition
from .state import MAX_SHARKS
from .views import GameLike


def check_invariants(game: GameLike) -> list[str]:
    """Every broken invariant, described; empty when the state is sound."""
    state = game.rules.state
    problems: list[str] = []
    ids = Counter(c.id for c in state.draw)
    ids.update(c.id for c in state.discard)
    for hand in state.hands:
        ids.update(c.id for c in hand)
    ids.update(c.id for c in state.held.values())
    expected = {c.id for c in GAME_DECKS[state.edition]}
    if set(ids) != expected or any(n != 1 for n in ids.values()):
        problems.append("game cards are not each in exactly one place")
    locs = Counter(loc.id for loc in state.loc_draw)
    locs.update(loc.id for loc in state.loc_discard)
    locs.update(loc.id for loc in state.board.values())
    if set(locs) != {loc.id for loc in LOCATION_DECKS[state.edition]} or any(
        n != 1 for n in locs.values()
    ):
        problems.append("location cards are not each in exactly one place")
    if sorted(state.cols) != list(range(state.seats)):
        problems.append("columns do not hold exactly one character each")
    for seat in range(state.seats):
        if not 0 <= state.rows[seat] <= 6:
            problems.append(f"seat {seat} stands off the board")
        if not state.alive[seat] and state.hands[seat]:
            problems.append(f"dead seat {seat} holds cards")
    for (col, row), _loc in state.board.items():
        owner = state.cols.index(col) if col in state.cols else None
        if owner is None or not 0 <= row < state.rows[owner]:
            problems.append(f"location card at ({col}, {row}) is not below its column's character")
    if len(state.sharks) > MAX_SHARKS or (state.edition is Edition.SPACE and state.sharks):
        problems.append("too many sharks")
    for cell in state.sharks:
        if not state.is_water(cell):
            problems.append(f"shark off the water at {cell}")
    if not 1 <= state.goal_row <= 6:
        problems.append("goal row out of range")
    if game.over:
        if game.decision is not None:
            problems.append("a decision is open after the end")
        problems.extend(_winner_problems(game))
    elif not game.pending_seats():
        problems.append("no seat has a decision while the game runs")
    return problems


def _winner_problems(game: GameLike) -> list[str]:
    state = game.rules.state
    living = state.living()
    if state.winner is None:
        # Nobody wins only when everyone has died (S4, W4 a).
        return [] if not living else ["the game ended with no winner while players live"]
    winner = state.winner
    if not state.alive[winner]:
        return ["a dead player won"]
    on_goal = state.rows[winner] >= state.goal_row
    if state.edition is Edition.SPACE and not on_goal:
        return ["a Space winner is not on the ship"]
    if state.edition is Edition.SHIPWRECKED and not (on_goal or living == [winner]):
        return ["a Shipwrecked winner neither reached the raft nor survived alone"]
    return []
