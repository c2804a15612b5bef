"""Shipwrecked Edition rules: castaways, food, sharks and the raft (RULES W3-W7, C18)."""

from __future__ import annotations

from .actions import Choice, DecisionKind, distinct, int_of, ints_of
from .cards import GAME_DECKS, Card, Edition, Location
from .edition import EditionRules, Flow, Table
from .state import MAX_SHARKS, Cell

# Compass directions as board steps: N is toward the raft (W7).
STEPS: dict[str, tuple[int, int]] = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}


class ShipwreckedRules(EditionRules):
    """Castaways, food, sharks and the raft."""

    edition = Edition.SHIPWRECKED
    resource = "food"
    goal = "raft"
    blocker = "dive"

    def resolve_location(self, table: Table, seat: int, loc: Location, cell: Cell) -> Flow:
        """W6: the card's text, then its shark icon (W7), then the raft check (W4 b)."""
        state = table.state
        key = loc.key
        if key == "sea_monster":
            yield from self.lose(table, seat, 1, key)
        elif key == "ocean_debris":
            table.draw(seat, 1)
        elif key == "davy_jones_locker":
            table.draw(seat, 2)
        elif key == "shark_bait":
            yield from shark_bait(table, seat)
        elif key == "freeloader":
            yield from freeloader(table, seat)
        elif key == "whirlpool":
            yield from whirlpool(table, seat, loc)
        elif key == "hurricane":
            yield from hurricane(table, seat)
        elif key == "island_call":
            yield from table.back(seat)
        elif key == "raft_drift":
            raft_drift(table)
        elif key == "counter_current":
            yield from table.forward(seat)
        elif key == "feeding_frenzy" and len(state.sharks) == 1:
            state.sharks.append(cell)
            table.say("shark", "shark.frenzy", seat, cell=cell)
        if loc.shark:
            yield from shark_icon(table, seat, cell)
        raft_check(table)

    def entered(self, table: Table, movers: list[int]) -> Flow:
        """W7: a living castaway entering a shark's cell must discard 1 food or be eaten."""
        state = table.state
        victims: list[int] = []
        for mover in movers:  # a plain loop: one or two movers, on most moves while sharks swim
            if state.alive[mover] and (state.cols[mover], state.rows[mover]) in state.sharks:
                victims.append(mover)
        if victims:
            yield from bites(table, victims)

    def after_action(self, table: Table) -> None:
        """W4 b: the raft check after an action card."""
        raft_check(table)

    def after_deaths(self, table: Table, living: list[int]) -> None:
        """W4 a: the last castaway alive wins."""
        if len(living) == 1:
            table.win(living[0], "win.last")

    def lose(self, table: Table, seat: int, units: int, reason: str) -> Flow:
        """Discard food, or die holding none (W3)."""
        if not table.state.alive[seat]:
            return
        if not table.state.has_units(seat):
            table.die([seat], "death.no_food", reason=reason)
            return
        yield from table.pay(seat, units, reason)

    def fatal(self, table: Table, seat: int, choice: Choice, attack: str | None) -> bool:
        """C18: staying with no food, or a choice that puts the chooser on a shark's cell
        with no food left (W7), not blocking a knock-back (Rogue Wave, Ride the Wave) included."""
        state = table.state
        do = choice["do"]
        if do == "stay":
            return not state.has_units(seat)
        if do not in MAY_MEET_A_SHARK:
            return False
        col, row = state.pos(seat)
        units = state.units(seat)
        ahead = (col, row + 1)
        if do == "move":
            cell, units = ahead, units - 2  # 2 units are always paid exactly (C6)
        elif do == "play":
            key = GAME_DECKS[Edition.SHIPWRECKED][int_of(choice, "card")].key
            if key not in ("freestyle_sprint", "ride_the_wave"):
                return False
            cell = ahead
        elif do == "advance" and choice["target"] == seat:  # Freeloader
            cell = ahead
        elif do == "swap":  # Whirlpool
            cell = state.pos(int_of(choice, "target"))
        elif do == "accept" and attack in KNOCKED_BACK_BY:
            cell = (col, row - 1)
        else:
            return False
        return units <= 0 and cell in state.sharks


MAY_MEET_A_SHARK = frozenset(("move", "play", "advance", "swap", "accept"))
# The cards whose target, unless they block, moves back 1. Ride the Wave's target is asked after
# the rider's move (C12), so what not blocking leads to is as certain as for Rogue Wave.
KNOCKED_BACK_BY = frozenset(("rogue_wave", "ride_the_wave"))


def raft_check(table: Table) -> None:
    """W4 b: living castaways on or past the raft row end the game."""
    state = table.state
    rows, goal_row = state.rows, state.goal_row
    if max(rows) < goal_row:  # the usual case, told at C speed
        return
    alive, seats, active = state.alive, state.seats, state.active
    for step in range(seats):  # the first in seat order from the active player wins
        seat = (active + step) % seats
        if alive[seat] and rows[seat] >= goal_row:
            table.win(seat, "win.raft")


def bites(table: Table, victims: list[int]) -> Flow:
    """W7: bites are paid in seat order from the active player; deaths come together."""
    state = table.state
    eaten: list[int] = []
    for seat in state.order_from(state.active):
        if seat not in victims or not state.alive[seat]:
            continue
        table.say("bite", "bite", seat, player=seat)
        if not state.has_units(seat):
            eaten.append(seat)
        else:
            yield from table.pay(seat, 1, "bite")
    if eaten:
        table.die(eaten, "death.eaten")


def shark_bait(table: Table, seat: int) -> Flow:
    """W6 Shark Bait: move a shark onto a water cell next to another living castaway."""
    state = table.state
    if not state.sharks or not state.alive[seat]:
        return
    options: list[Choice] = []
    seen: set[tuple[Cell, Cell]] = set()
    for index, shark in enumerate(state.sharks):
        for other in state.living():
            if other == seat:
                continue
            col, row = state.pos(other)
            for dc, dr in STEPS.values():
                cell = (col + dc, row + dr)
                if state.is_water(cell) and (shark, cell) not in seen:
                    seen.add((shark, cell))
                    options.append({"do": "shark", "shark": index, "cell": list(cell)})
    if not options:
        return
    choice = yield from table.ask(seat, DecisionKind.SHARK_BAIT, options)
    moved = int_of(choice, "shark")
    col, row = ints_of(choice, "cell")
    state.sharks[moved] = (col, row)
    table.say("shark", "shark.bait", seat, player=seat, cell=(col, row))


def freeloader(table: Table, seat: int) -> Flow:
    """W6 Freeloader: the castaway furthest back moves forward 1; the drawer draws 1."""
    state = table.state
    living = state.living()
    if living:
        lowest = min(state.rows[o] for o in living)
        behind = [o for o in living if state.rows[o] == lowest]
        mover = behind[0]
        if len(behind) > 1 and state.alive[seat]:
            options: list[Choice] = [{"do": "advance", "target": o} for o in behind]
            choice = yield from table.ask(seat, DecisionKind.FREELOADER, options)
            mover = int_of(choice, "target")
        table.say("move", "move.freeloader", mover, player=mover)
        yield from table.forward(mover)
    table.draw(seat, 1)


def whirlpool(table: Table, seat: int, loc: Location) -> Flow:
    """W6 Whirlpool: swap with another castaway, living or dead, not on the raft."""
    state = table.state
    # "Players on the raft are excluded" on either side: a drawer who has just reached the raft
    # does not swap (the raft check that follows makes them win).
    if not state.alive[seat] or state.rows[seat] >= state.goal_row:
        return
    options: list[Choice] = [
        {"do": "swap", "target": o}
        for o in range(state.seats)
        if o != seat and state.rows[o] < state.goal_row
    ]
    if not options:
        return
    choice = yield from table.ask(seat, DecisionKind.SWAP, options, location=loc)
    yield from table.swap(seat, int_of(choice, "target"))


def hurricane(table: Table, drawer: int) -> Flow:
    """W6 Hurricane: everyone with a card discards 1 (secretly, at once), then draws 2."""
    state = table.state
    options: dict[int, list[Choice]] = {
        seat: [{"do": "discard", "cards": [c.id]} for c in distinct(state.hands[seat])]
        for seat in state.living()
        if state.hands[seat]
    }
    picks = yield from table.ask_all(DecisionKind.HURRICANE, options)
    for seat in state.living():
        if seat in picks:
            card = table.card_in_hand(seat, ints_of(picks[seat], "cards")[0])
            table.discard_cards(seat, [card])
            table.say("discard", "discard.hurricane", seat, player=seat, card=card)
    for seat in state.order_from(drawer):
        if state.alive[seat]:
            table.draw(seat, 2)


def raft_drift(table: Table) -> None:
    """W6 Raft Drift: the raft comes 1 row closer; sharks past the water's edge move back."""
    state = table.state
    state.goal_row = max(1, state.goal_row - 1)
    state.sharks = [(col, min(row, state.goal_row - 1)) for col, row in state.sharks]
    table.say("drift", "drift", row=state.goal_row)


def shark_icon(table: Table, drawer: int, cell: Cell) -> Flow:
    """W7: the first shark appears on the card's cell; afterwards the sharks move."""
    state = table.state
    if not state.sharks:
        if state.is_water(cell) and len(state.sharks) < MAX_SHARKS:
            state.sharks.append(cell)
            state.shark_turn = state.turn
            table.say("shark", "shark", cell=cell)
        return
    if state.shark_turn == state.turn:  # "the shark does not move - this turn"
        table.say("shark", "shark.rest")
        return
    yield from shark_movement(table, drawer)


def shark_movement(table: Table, drawer: int) -> Flow:
    """W7: secret picks, revealed in seat order from the drawer, each moving the sharks."""
    state = table.state
    options: dict[int, list[Choice]] = {
        seat: [{"do": "pick", "card": c.id} for c in distinct(state.hands[seat])]
        for seat in state.living()
        if state.hands[seat]
    }
    picks = yield from table.ask_all(DecisionKind.PICK, options)
    for seat, choice in picks.items():
        card = table.card_in_hand(seat, int_of(choice, "card"))
        state.hands[seat].remove(card)
        state.held[seat] = card
    order = state.order_from(drawer)
    for seat in order:
        if seat not in state.held:
            continue
        card = state.held.pop(seat)
        state.discard.append(card)
        victims = shark_step(table, seat, card)
        if victims:
            # "If any shark has eaten, their movement ends": for both sharks, and the picks
            # not yet revealed are discarded unseen, after the bites are paid.
            yield from bites(table, victims)
            unseen = [state.held.pop(other) for other in order if other in state.held]
            if unseen:
                state.discard.extend(unseen)
                table.say("shark", "shark.fed")
            return


def shark_step(table: Table, seat: int, card: Card) -> list[int]:
    """One revealed pick moves every shark one cell (W7); returns the castaways bitten."""
    state = table.state
    assert card.dir is not None
    dc, dr = STEPS[card.dir]
    table.say("reveal", "reveal", seat, player=seat, card=card, dir=card.dir)
    entered: list[Cell] = []
    for index, (col, row) in enumerate(state.sharks):
        cell = (col + dc, row + dr)
        if state.is_water(cell):
            state.sharks[index] = cell
            if cell not in entered:  # several sharks entering one cell bite once
                entered.append(cell)
    victims: list[int] = []
    for cell in entered:
        victim = state.seat_at(cell)
        if victim is not None and state.alive[victim]:
            victims.append(victim)
    return victims


SHIPWRECKED = ShipwreckedRules()
"""The Shipwrecked Edition's rules (stateless: every game shares it)."""
