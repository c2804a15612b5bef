"""Action cards of both editions (RULES S5, W5), resolved after the reaction (C13).

The two editions' action cards share their mechanics: a forward move (Rocket Booster, Freestyle
Sprint), a forward move then a knock-back (Tether, Ride the Wave), a knock-back (Laser Blast,
Rogue Wave), stealing 2 units (Oxygen Siphon, Message in a Bottle), looking and taking (Hack
Suit, Pirate). Only Hole in Suit, Tractor Beam and Lost are edition-specific.
"""

from __future__ import annotations

from .actions import Choice, DecisionKind, distinct, int_of
from .cards import Card
from .edition import Flow, Table

FORWARD_ONLY = frozenset({"rocket_booster", "freestyle_sprint"})
TETHERS = frozenset({"tether", "ride_the_wave"})
KNOCK_BACK = frozenset({"laser_blast", "rogue_wave"})
STEAL_TWO = frozenset({"oxygen_siphon", "message_in_a_bottle"})
LOOK_AND_TAKE = frozenset({"hack_suit", "pirate"})


def resolve_action(
    table: Table, player: int, card: Card, target: int | None, blocked: bool
) -> Flow:
    """Resolve an action card played by ``player`` (already discarded, reaction done)."""
    key = card.key
    if key in FORWARD_ONLY:
        yield from table.forward(player)
        return
    if key in TETHERS:
        yield from tether(table, player, card)
        return
    if blocked or target is None:
        return
    if key in KNOCK_BACK:
        yield from table.back(target)
    elif key in STEAL_TWO:
        yield from table.steal_units(player, target, 2)
    elif key in LOOK_AND_TAKE:
        yield from look_and_take(table, player, target)
    elif key == "hole_in_suit":
        yield from table.lose(target, 1, key)
    elif key == "tractor_beam":
        steal_random(table, player, target)
    elif key == "lost":
        lose_random(table, target)


def tether(table: Table, player: int, card: Card) -> Flow:
    """Tether / Ride the Wave (S5, W5, C12): move forward, resolved fully; then choose a living
    opponent off row 0, who may react (C13) and, unless they block, moves back 1. A block
    cancels only the part that affects the blocker: the forward move has happened."""
    state = table.state
    yield from table.forward(player)
    if not state.alive[player]:  # a dead player chooses nothing (C17)
        return
    options: list[Choice] = [
        {"do": "target", "target": o}
        for o in range(state.seats)
        if o != player and state.alive[o] and state.rows[o] > 0
    ]
    if not options:
        return
    choice = yield from table.ask(player, DecisionKind.TARGET, options, card=card)
    target = int_of(choice, "target")
    table.say("target", "target", player, player=player, card=card, target=target)
    blocked = yield from table.react(player, target, card)
    if not blocked:
        yield from table.back(target)


def steal_random(table: Table, thief: int, victim: int) -> None:
    """Tractor Beam: one card at random from the victim's hand; only the two see which."""
    state = table.state
    hand = state.hands[victim]
    if not hand or not state.alive[thief]:
        return
    card = hand.pop(state.rng.randrange(len(hand)))
    state.hands[thief].append(card)
    table.say(
        "steal",
        "steal.card",
        thief,
        (thief, victim),
        ("card",),
        thief=thief,
        victim=victim,
        card=card,
    )
    table.check_resources(victim)


def look_and_take(table: Table, looker: int, victim: int) -> Flow:
    """Hack Suit / Pirate: look at the victim's hand and take one card of one's choice."""
    state = table.state
    hand = state.hands[victim]
    if not hand or not state.alive[looker]:
        return
    table.say(
        "look",
        "look",
        looker,
        (looker,),
        ("cards",),
        looker=looker,
        victim=victim,
        cards=list(hand),
    )
    options: list[Choice] = [{"do": "take", "card": c.id} for c in distinct(hand)]
    choice = yield from table.ask(
        looker, DecisionKind.TAKE, options, reveal=list(hand), victim=victim
    )
    card = table.card_in_hand(victim, int_of(choice, "card"))
    hand.remove(card)
    state.hands[looker].append(card)
    table.say(
        "take", "take", looker, (looker, victim), ("card",), looker=looker, victim=victim, card=card
    )
    table.check_resources(victim)


def lose_random(table: Table, victim: int) -> None:
    """Lost: one card at random from the victim's hand is discarded (face up: public)."""
    state = table.state
    hand = state.hands[victim]
    if not hand:
        return
    card = hand.pop(state.rng.randrange(len(hand)))
    state.discard.append(card)
    table.say("discard", "discard.lost", victim, player=victim, card=card)
