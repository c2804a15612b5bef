"""Space Edition cards (RULES S5, S6, S7)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from .actions import Choice, Decision, distinct_pairs
from .cards import Location, card_list
from .state import Cell

if TYPE_CHECKING:
    from .rules import Rules

Flow = Generator[Decision, object, None]


def resolve_location(g: Rules, seat: int, loc: Location, cell: Cell) -> Flow:
    """S6: resolve a space card drawn by ``seat`` and placed on ``cell``."""
    key = loc.key
    if key == "cosmic_radiation":
        yield from g.lose_oxygen(seat, 1, "Cosmic Radiation")
    elif key == "asteroid_field":
        yield from g.lose_oxygen(seat, 2, "Asteroid Field")
    elif key == "useful_junk":
        g.draw(seat, 1)
    elif key == "mysterious_nebula":
        g.draw(seat, 2)
    elif key == "meteoroid":
        yield from meteoroid(g, seat)
    elif key == "gravitational_anomaly":
        # Moving back onto ``cell`` discards the card lying there: this very card (C10).
        yield from g.back(seat)
    elif key == "wormhole":
        yield from wormhole(g, seat)
    elif key == "hyperspace":
        yield from g.forward(seat)
    elif key == "solar_flare":
        g.say(
            "location",
            f"{g.name(seat)} is caught in a Solar Flare: no action cards while it lies below.",
            seat,
        )


def arrival(g: Rules, seat: int) -> None:
    """S4: an astronaut whose move (with the card it drew, resolved) left them on the ship
    wins at once if alive and holding oxygen; one who paid their last oxygen to get there
    holds none and dies instead (S3)."""
    s = g.s
    if s.alive[seat] and s.rows[seat] >= s.goal_row and s.units(seat) > 0:
        g.win(seat, f"{g.name(seat)} reaches the ship")


def meteoroid(g: Rules, seat: int) -> Flow:
    """S6 Meteoroid: a drawer holding 6 or more cards discards 2 of their choice."""
    hand = g.s.hands[seat]
    if not g.s.alive[seat] or len(hand) < 6:
        return
    options: list[Choice] = [
        {"do": "discard", "cards": [a.id, b.id]} for a, b in distinct_pairs(hand)
    ]
    choice = yield from g.ask(seat, "meteoroid", options, "Meteoroid: discard 2 cards.")
    ids = choice["cards"]
    assert isinstance(ids, list)
    cards = [g.card_in_hand(seat, card_id) for card_id in ids]
    g.discard_cards(seat, cards)
    g.say("discard", f"{g.name(seat)} discards {card_list(cards)} (Meteoroid).", seat)
    g.check_oxygen(seat)


def wormhole(g: Rules, seat: int) -> Flow:
    """S6 Wormhole and S7: swap with another astronaut; a living one put on the ship wins."""
    s = g.s
    if not s.alive[seat]:
        return
    options: list[Choice] = [{"do": "swap", "target": o} for o in range(s.seats) if o != seat]
    choice = yield from g.ask(seat, "swap", options, "Wormhole: swap places with whom?")
    target = choice["target"]
    assert isinstance(target, int)
    yield from g.swap(seat, target)
    if s.alive[target] and s.rows[target] >= s.goal_row:
        g.win(target, f"The Wormhole puts {g.name(target)} on the ship")
