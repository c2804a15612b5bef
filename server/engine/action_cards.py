"""Action cards of both editions (RULES S5, W5), resolved after the reaction (C13).

The two editions' action cards share their mechanics: a forward move (Rocket Booster, Freestyle
Sprint), a forward move then a knock-back (Tether, Ride the Wave), a knock-back (Laser Blast,
Rogue Wave), stealing 2 units (Oxygen Siphon, Message in a Bottle), looking and taking (Hack
Suit, Pirate). Only Hole in Suit, Tractor Beam and Lost are edition-specific.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from .actions import Choice, Decision, distinct
from .cards import Card, card_list, card_name
from .state import remove_card

if TYPE_CHECKING:
    from .rules import Rules

Flow = Generator[Decision, object, None]

FORWARD_ONLY = frozenset({"rocket_booster", "freestyle_sprint"})
TETHERS = frozenset({"tether", "ride_the_wave"})
KNOCK_BACK = frozenset({"laser_blast", "rogue_wave"})
STEAL_TWO = frozenset({"oxygen_siphon", "message_in_a_bottle"})
LOOK_AND_TAKE = frozenset({"hack_suit", "pirate"})


def resolve_action(g: Rules, p: int, card: Card, target: int | None, blocked: bool) -> Flow:
    """Resolve an action card played by ``p`` (already discarded, reaction done).

    A block cancels only the part that affects the blocker (C13): a Tether still moves.
    """
    key = card.key
    if key in FORWARD_ONLY:
        yield from g.forward(p)
        return
    if key in TETHERS:
        yield from tether(g, p, card)
        return
    if blocked or target is None:
        return
    if key in KNOCK_BACK:
        yield from g.back(target)
    elif key in STEAL_TWO:
        yield from g.steal_units(p, target, 2)
    elif key in LOOK_AND_TAKE:
        yield from look_and_take(g, p, target)
    elif key == "hole_in_suit":
        yield from g.lose_oxygen(target, 1, "Hole in Suit")
    elif key == "tractor_beam":
        steal_random(g, p, target)
    elif key == "lost":
        lose_random(g, target)


def tether(g: Rules, p: int, card: Card) -> Flow:
    """Tether / Ride the Wave (S5, W5, C12): move forward, resolved fully; then choose a living
    opponent off row 0, who may react (C13) and, unless they block, moves back 1."""
    s = g.s
    yield from g.forward(p)
    if not s.alive[p]:  # a dead player chooses nothing (C17)
        return
    options: list[Choice] = [
        {"do": "target", "target": o}
        for o in range(s.seats)
        if o != p and s.alive[o] and s.rows[o] > 0
    ]
    if not options:
        return
    choice = yield from g.ask(p, "target", options, f"{card.display}: who moves back?")
    target = choice["target"]
    assert isinstance(target, int)
    g.say("target", f"{g.name(p)} aims {card.display} at {g.name(target)}.", p)
    blocked = yield from g.react(p, target, card)
    if not blocked:
        yield from g.back(target)


def steal_random(g: Rules, thief: int, victim: int) -> None:
    """Tractor Beam: one card at random from the victim's hand; only the two see which."""
    s = g.s
    hand = s.hands[victim]
    if not hand or not s.alive[thief]:
        return
    card = hand.pop(s.rng.randrange(len(hand)))
    s.hands[thief].append(card)
    a, b = g.name(thief), g.name(victim)
    g.say(
        "steal",
        f"{a} takes {card_name(card)} from {b}.",
        thief,
        (thief, victim),
        f"{a} takes a card from {b}.",
    )
    g.check_oxygen(victim)


def look_and_take(g: Rules, looker: int, victim: int) -> Flow:
    """Hack Suit / Pirate: look at the victim's hand and take one card of one's choice."""
    s = g.s
    hand = s.hands[victim]
    if not hand or not s.alive[looker]:
        return
    a, b = g.name(looker), g.name(victim)
    g.say(
        "look",
        f"{a} looks at {b}'s hand: {card_list(hand)}.",
        looker,
        (looker,),
        f"{a} looks at {b}'s hand.",
    )
    options: list[Choice] = [{"do": "take", "card": c.id} for c in distinct(hand)]
    choice = yield from g.ask(
        looker, "take", options, f"Take one card from {b}'s hand.", reveal=list(hand)
    )
    card = g.card_in_hand(victim, choice["card"])
    remove_card(hand, card)
    s.hands[looker].append(card)
    g.say(
        "take",
        f"{a} takes {card_name(card)} from {b}.",
        looker,
        (looker, victim),
        f"{a} takes a card from {b}.",
    )
    g.check_oxygen(victim)


def lose_random(g: Rules, victim: int) -> None:
    """Lost: one card at random from the victim's hand is discarded (face up: public)."""
    s = g.s
    hand = s.hands[victim]
    if not hand:
        return
    card = hand.pop(s.rng.randrange(len(hand)))
    s.discard.append(card)
    g.say("discard", f"{g.name(victim)} loses {card_name(card)} (Lost).", victim)
