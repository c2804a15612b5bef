"""Space Edition rules (RULES S3-S7, and the Space parts of C5, C6, C18)."""

from __future__ import annotations

from .actions import Choice, DecisionKind, distinct_pairs, first_payment, int_of, ints_of
from .cards import GAME_DECKS, Card, Edition, Location
from .edition import EditionRules, Flow, Table
from .state import Cell, State


class SpaceRules(EditionRules):
    """Astronauts, oxygen and the ship."""

    edition = Edition.SPACE
    resource = "oxygen"
    goal = "ship"
    blocker = "shield"

    def resolve_location(self, table: Table, seat: int, loc: Location, cell: Cell) -> Flow:
        """S6: resolve a space card drawn by ``seat`` and placed on ``cell``."""
        key = loc.key
        if key == "cosmic_radiation":
            yield from self.lose(table, seat, 1, key)
        elif key == "asteroid_field":
            yield from self.lose(table, seat, 2, key)
        elif key == "useful_junk":
            table.draw(seat, 1)
        elif key == "mysterious_nebula":
            table.draw(seat, 2)
        elif key == "meteoroid":
            yield from meteoroid(table, seat)
        elif key == "gravitational_anomaly":
            # Moving back onto ``cell`` discards the card lying there: this very card (C10).
            yield from table.back(seat)
        elif key == "wormhole":
            yield from wormhole(table, seat, loc)
        elif key == "hyperspace":
            yield from table.forward(seat)
        elif key == "solar_flare":
            table.say("location", "location.flare", seat, player=seat)

    def arrived(self, table: Table, seat: int) -> None:
        """S4: an astronaut whose move (with the card it drew, resolved) left them on the ship
        wins at once if alive and holding oxygen; one who paid their last oxygen to get there
        holds none and dies instead (S3)."""
        state = table.state
        if state.alive[seat] and state.rows[seat] >= state.goal_row and state.has_units(seat):
            table.win(seat, "win.ship")

    def travel(self, table: Table, seat: int) -> Flow:
        """S3: who pays their last oxygen to travel survives until the card has resolved."""
        table.travelling = seat
        try:
            yield from table.pay(seat, 2, "travel")
            yield from table.forward(seat)
        finally:
            table.travelling = None
        self.check_resources(table, seat)

    def lose(self, table: Table, seat: int, units: int, reason: str) -> Flow:
        """Discard oxygen (C6); whoever reaches 0 dies (S3)."""
        yield from table.pay(seat, units, reason)
        self.check_resources(table, seat)

    def check_resources(self, table: Table, seat: int) -> None:
        """S3: an astronaut at 0 oxygen dies at once, unless protected while travelling."""
        state = table.state
        if state.alive[seat] and seat != table.travelling and not state.has_units(seat):
            table.die([seat], "death.oxygen")

    def ways_to_pay(self, hand: list[Card], units: int) -> list[list[Card]]:
        """C6: Space pays the first way without asking."""
        return [first_payment(hand, units)]

    def one_action_only(self, seats: int) -> bool:
        """C5: with exactly 2 seats, one action card per turn (the Space text says so)."""
        return seats == 2

    def flared(self, state: State, seat: int) -> bool:
        """S6 Solar Flare: the card just below the astronaut is a Solar Flare."""
        card = state.board.get((state.cols[seat], state.rows[seat] - 1))
        return card is not None and card.key == "solar_flare"

    def fatal(self, table: Table, seat: int, choice: Choice, attack: str | None) -> bool:
        """C18: staying on the last oxygen, an attack that takes it, a Meteoroid discard of it."""
        do = choice["do"]
        if do == "stay":
            return "discard" not in choice and oxygen_left(table, seat, 1) <= 0
        if do == "accept":
            if attack == "hole_in_suit":
                return oxygen_left(table, seat, 1) <= 0
            if attack == "oxygen_siphon":
                return oxygen_left(table, seat, 2) <= 0
            if attack in ("tractor_beam", "hack_suit"):
                # Losing a card certainly kills only when the one card held is oxygen.
                hand = table.state.hands[seat]
                return len(hand) == 1 and hand[0].value > 0
            return False
        if do == "discard":  # Meteoroid
            deck = GAME_DECKS[Edition.SPACE]
            lost = sum(deck[card_id].value for card_id in ints_of(choice, "cards"))
            return table.state.units(seat) - lost <= 0
        return False


def oxygen_left(table: Table, seat: int, lost: int) -> int:
    """The oxygen a seat keeps after paying or giving ``lost`` units (C6, C8)."""
    state = table.state
    paid = sum(card.value for card in first_payment(state.hands[seat], lost))
    change = 1 if paid > lost and table.singles_available(1) else 0
    return state.units(seat) - paid + change


def meteoroid(table: Table, seat: int) -> Flow:
    """S6 Meteoroid: a drawer holding 6 or more cards discards 2 of their choice."""
    state = table.state
    hand = state.hands[seat]
    if not state.alive[seat] or len(hand) < 6:
        return
    options: list[Choice] = [
        {"do": "discard", "cards": [a.id, b.id]} for a, b in distinct_pairs(hand)
    ]
    choice = yield from table.ask(seat, DecisionKind.METEOROID, options)
    cards = [table.card_in_hand(seat, card_id) for card_id in ints_of(choice, "cards")]
    table.discard_cards(seat, cards)
    table.say("discard", "discard.meteoroid", seat, player=seat, cards=cards)
    SPACE.check_resources(table, seat)


def wormhole(table: Table, seat: int, loc: Location) -> Flow:
    """S6 Wormhole and S7: swap with another astronaut; a living one put on the ship wins."""
    state = table.state
    if not state.alive[seat]:
        return
    options: list[Choice] = [{"do": "swap", "target": o} for o in range(state.seats) if o != seat]
    choice = yield from table.ask(seat, DecisionKind.SWAP, options, location=loc)
    target = int_of(choice, "target")
    yield from table.swap(seat, target)
    if state.alive[target] and state.rows[target] >= state.goal_row:
        table.win(target, "win.wormhole")


SPACE = SpaceRules()
"""The Space Edition's rules (stateless: every game shares it)."""
