"""Invariants that hold after every decision; self-play and property tests check them."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .cards import GAME_DECKS, LOCATION_DECKS, Edition
from .state import MAX_SHARKS

if TYPE_CHECKING:
    from .game import Game


def check_invariants(game: Game) -> list[str]:
    """Every broken invariant, described; empty when the state is sound."""
    s = game.rules.s
    problems: list[str] = []
    ids = Counter(c.id for c in s.draw)
    ids.update(c.id for c in s.discard)
    for hand in s.hands:
        ids.update(c.id for c in hand)
    ids.update(c.id for c in s.held.values())
    expected = {c.id for c in GAME_DECKS[s.edition]}
    if set(ids) != expected or any(n != 1 for n in ids.values()):
        problems.append("game cards are not each in exactly one place")
    locs = Counter(loc.id for loc in s.loc_draw)
    locs.update(loc.id for loc in s.loc_discard)
    locs.update(loc.id for loc in s.board.values())
    if set(locs) != {loc.id for loc in LOCATION_DECKS[s.edition]} or any(
        n != 1 for n in locs.values()
    ):
        problems.append("location cards are not each in exactly one place")
    if sorted(s.cols) != list(range(s.seats)):
        problems.append("columns do not hold exactly one character each")
    for seat in range(s.seats):
        if not 0 <= s.rows[seat] <= 6:
            problems.append(f"seat {seat} stands off the board")
        if not s.alive[seat] and s.hands[seat]:
            problems.append(f"dead seat {seat} holds cards")
    for (col, row), _loc in s.board.items():
        owner = s.cols.index(col) if col in s.cols else None
        if owner is None or not 0 <= row < s.rows[owner]:
            problems.append(f"location card at ({col}, {row}) is not below its column's character")
    if len(s.sharks) > MAX_SHARKS or (s.edition is Edition.SPACE and s.sharks):
        problems.append("too many sharks")
    for cell in s.sharks:
        if not s.is_water(cell):
            problems.append(f"shark off the water at {cell}")
    if not 1 <= s.goal_row <= 6:
        problems.append("goal row out of range")
    if game.over:
        if game.decision is not None:
            problems.append("a decision is open after the end")
        problems.extend(_winner_problems(game))
    elif not game.pending_seats():
        problems.append("no seat has a decision while the game runs")
    return problems


def _winner_problems(game: Game) -> list[str]:
    s = game.rules.s
    living = s.living()
    if s.winner is None:
        # Nobody wins only when everyone has died (S4, W4 a).
        return [] if not living else ["the game ended with no winner while players live"]
    winner = s.winner
    if not s.alive[winner]:
        return ["a dead player won"]
    on_goal = s.rows[winner] >= s.goal_row
    if s.edition is Edition.SPACE and not on_goal:
        return ["a Space winner is not on the ship"]
    if s.edition is Edition.SHIPWRECKED and not (on_goal or living == [winner]):
        return ["a Shipwrecked winner neither reached the raft nor survived alone"]
    return []
