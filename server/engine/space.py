"""Space Edition cards (RULES S5, S6, S7)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from .actions import Choice, Decision, distinct, distinct_pairs
from .cards import Card, Location, card_list, card_name
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
        g.say("location", f"{g.name(seat)} is caught in a Solar Flare: no action cards "
              "while it lies below.", seat)


def meteoroid(g: Rules, seat: int) -> Flow:
    """S6 Meteoroid: a drawer holding 6 or more cards discards 2 of their choice."""
    hand = g.s.hands[seat]
    if not g.s.alive[seat] or len(hand) < 6:
        return
    options: list[Choice] = [{"do": "discard", "cards": [a.id, b.id]}
                             for a, b in distinct_pairs(hand)]
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


def resolve_action(g: Rules, p: int, card: Card, target: int | None, blocked: bool) -> Flow:
    """S5: resolve an action card played by ``p`` (already discarded, reaction done)."""
    key = card.key
    if key == "rocket_booster":
        yield from g.forward(p)
    elif key == "tether":
        yield from g.forward(p)
        if target is not None and not blocked:
            yield from g.back(target)
    elif blocked or target is None:
        return
    elif key == "laser_blast":
        yield from g.back(target)
    elif key == "hole_in_suit":
        yield from g.lose_oxygen(target, 1, "Hole in Suit")
    elif key == "oxygen_siphon":
        yield from g.steal_units(p, target, 2)
    elif key == "tractor_beam":
        steal_random(g, p, target)
    elif key == "hack_suit":
        yield from look_and_take(g, p, target)


def steal_random(g: Rules, thief: int, victim: int) -> None:
    """Tractor Beam: one card at random from the victim's hand; only the two see which."""
    s = g.s
    hand = s.hands[victim]
    if not hand or not s.alive[thief]:
        return
    card = hand.pop(s.rng.randrange(len(hand)))
    s.hands[thief].append(card)
    a, b = g.name(thief), g.name(victim)
    g.say("steal", f"{a} takes {card_name(card)} from {b}.", thief, (thief, victim),
          f"{a} takes a card from {b}.")
    g.check_oxygen(victim)


def look_and_take(g: Rules, looker: int, victim: int) -> Flow:
    """Hack Suit / Pirate: look at the victim's hand and take one card of one's choice."""
    s = g.s
    hand = s.hands[victim]
    if not hand or not s.alive[looker]:
        return
    a, b = g.name(looker), g.name(victim)
    g.say("look", f"{a} looks at {b}'s hand: {card_list(hand)}.", looker, (looker,),
          f"{a} looks at {b}'s hand.")
    options: list[Choice] = [{"do": "take", "card": c.id} for c in distinct(hand)]
    choice = yield from g.ask(looker, "take", options, f"Take one card from {b}'s hand.",
                              reveal=list(hand))
    card = g.card_in_hand(victim, choice["card"])
    hand.remove(card)
    s.hands[looker].append(card)
    g.say("take", f"{a} takes {card_name(card)} from {b}.", looker, (looker, victim),
          f"{a} takes a card from {b}.")
    g.check_oxygen(victim)
