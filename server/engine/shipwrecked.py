"""Shipwrecked Edition cards, sharks and the raft (RULES W4-W7)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from .actions import Choice, Decision, distinct
from .cards import Card, Location, card_name
from .state import MAX_SHARKS, Cell, remove_card

if TYPE_CHECKING:
    from .rules import Rules

Flow = Generator[Decision, object, None]

# Compass directions as board steps: N is toward the raft (W7).
STEPS: dict[str, tuple[int, int]] = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}


def resolve_location(g: Rules, seat: int, loc: Location, cell: Cell) -> Flow:
    """W6: the card's text, then its shark icon (W7), then the raft check (W4 b)."""
    s = g.s
    key = loc.key
    if key == "sea_monster":
        yield from g.food_or_die(seat, "the Sea Monster")
    elif key == "ocean_debris":
        g.draw(seat, 1)
    elif key == "davy_jones_locker":
        g.draw(seat, 2)
    elif key == "shark_bait":
        yield from shark_bait(g, seat)
    elif key == "freeloader":
        yield from freeloader(g, seat)
    elif key == "whirlpool":
        yield from whirlpool(g, seat)
    elif key == "hurricane":
        yield from hurricane(g, seat)
    elif key == "island_call":
        yield from g.back(seat)
    elif key == "raft_drift":
        raft_drift(g)
    elif key == "counter_current":
        yield from g.forward(seat)
    elif key == "feeding_frenzy" and len(s.sharks) == 1:
        s.sharks.append(cell)
        g.say("shark", f"Feeding Frenzy: a second shark appears at {where(cell)}.", seat)
    if loc.shark:
        yield from shark_icon(g, seat, cell)
    raft_check(g)


def where(cell: Cell) -> str:
    """A cell in words, for the log."""
    return f"column {cell[0] + 1}, row {cell[1]}"


def raft_check(g: Rules) -> None:
    """W4 b: living castaways on or past the raft row end the game."""
    s = g.s
    alive, rows, goal_row, seats, active = s.alive, s.rows, s.goal_row, s.seats, s.active
    if max(rows) < goal_row:  # the usual case, told at C speed
        return
    for step in range(seats):  # the first in seat order from the active player wins
        seat = (active + step) % seats
        if alive[seat] and rows[seat] >= goal_row:
            g.win(seat, f"{g.name(seat)} reaches the raft")


def entered(g: Rules, movers: list[int]) -> Flow:
    """W7: a living castaway entering a shark's cell must discard 1 food or be eaten."""
    s = g.s
    victims = [m for m in movers if s.alive[m] and s.pos(m) in s.sharks]
    if victims:
        yield from bites(g, victims)


def bites(g: Rules, victims: list[int]) -> Flow:
    """W7: bites are paid in seat order from the active player; deaths come together."""
    s = g.s
    eaten: list[int] = []
    for seat in s.order_from(s.active):
        if seat not in victims or not s.alive[seat]:
            continue
        g.say("bite", f"A shark bites {g.name(seat)}!", seat)
        if s.units(seat) == 0:
            eaten.append(seat)
        else:
            yield from g.pay(seat, 1, "the shark")
    if eaten:
        g.die(eaten, "is eaten by a shark")


def shark_bait(g: Rules, seat: int) -> Flow:
    """W6 Shark Bait: move a shark onto a water cell next to another living castaway."""
    s = g.s
    if not s.sharks or not s.alive[seat]:
        return
    options: list[Choice] = []
    seen: set[tuple[Cell, Cell]] = set()
    for index, shark in enumerate(s.sharks):
        for other in s.living():
            if other == seat:
                continue
            col, row = s.pos(other)
            for dc, dr in STEPS.values():
                cell = (col + dc, row + dr)
                if s.is_water(cell) and (shark, cell) not in seen:
                    seen.add((shark, cell))
                    options.append({"do": "shark", "shark": index, "cell": list(cell)})
    if not options:
        return
    choice = yield from g.ask(
        seat, "shark_bait", options, "Shark Bait: move a shark next to another castaway."
    )
    moved = choice["shark"]
    cell_list = choice["cell"]
    assert isinstance(moved, int) and isinstance(cell_list, list)
    s.sharks[moved] = (cell_list[0], cell_list[1])
    g.say("shark", f"{g.name(seat)} lures a shark to {where(s.sharks[moved])}.", seat)


def freeloader(g: Rules, seat: int) -> Flow:
    """W6 Freeloader: the castaway furthest back moves forward 1; the drawer draws 1."""
    s = g.s
    living = s.living()
    if living:
        lowest = min(s.rows[o] for o in living)
        behind = [o for o in living if s.rows[o] == lowest]
        mover = behind[0]
        if len(behind) > 1 and s.alive[seat]:
            options: list[Choice] = [{"do": "advance", "target": o} for o in behind]
            choice = yield from g.ask(seat, "freeloader", options, "Freeloader: who moves forward?")
            chosen = choice["target"]
            assert isinstance(chosen, int)
            mover = chosen
        g.say("move", f"Freeloader: {g.name(mover)} is furthest back.", mover)
        yield from g.forward(mover)
    g.draw(seat, 1)


def whirlpool(g: Rules, seat: int) -> Flow:
    """W6 Whirlpool: swap with another castaway, living or dead, not on the raft."""
    s = g.s
    # "Players on the raft are excluded" on either side: a drawer who has just reached the raft
    # does not swap (the raft check that follows makes them win).
    if not s.alive[seat] or s.rows[seat] >= s.goal_row:
        return
    options: list[Choice] = [
        {"do": "swap", "target": o} for o in range(s.seats) if o != seat and s.rows[o] < s.goal_row
    ]
    if not options:
        return
    choice = yield from g.ask(seat, "swap", options, "Whirlpool: swap places with whom?")
    target = choice["target"]
    assert isinstance(target, int)
    yield from g.swap(seat, target)


def hurricane(g: Rules, drawer: int) -> Flow:
    """W6 Hurricane: everyone with a card discards 1 (secretly, at once), then draws 2."""
    s = g.s
    options: dict[int, list[Choice]] = {
        seat: [{"do": "discard", "cards": [c.id]} for c in distinct(s.hands[seat])]
        for seat in s.living()
        if s.hands[seat]
    }
    picks = yield from g.ask_all("hurricane", options, "Hurricane: discard 1 card.")
    for seat in s.living():
        if seat in picks:
            ids = picks[seat]["cards"]
            assert isinstance(ids, list)
            card = g.card_in_hand(seat, ids[0])
            g.discard_cards(seat, [card])
            g.say("discard", f"{g.name(seat)} discards {card_name(card)} (Hurricane).", seat)
    for seat in s.order_from(drawer):
        if s.alive[seat]:
            g.draw(seat, 2)


def raft_drift(g: Rules) -> None:
    """W6 Raft Drift: the raft comes 1 row closer; sharks past the water's edge move back."""
    s = g.s
    s.goal_row = max(1, s.goal_row - 1)
    s.sharks = [(col, min(row, s.goal_row - 1)) for col, row in s.sharks]
    g.say("drift", f"The raft drifts closer: it is now at row {s.goal_row}.")


def shark_icon(g: Rules, drawer: int, cell: Cell) -> Flow:
    """W7: the first shark appears on the card's cell; afterwards the sharks move."""
    s = g.s
    if not s.sharks:
        if s.is_water(cell) and len(s.sharks) < MAX_SHARKS:
            s.sharks.append(cell)
            s.shark_turn = s.turn
            g.say("shark", f"A shark appears at {where(cell)}!")
        return
    if s.shark_turn == s.turn:  # "the shark does not move - this turn"
        g.say("shark", "The sharks do not move in the turn the first shark appeared.")
        return
    yield from shark_movement(g, drawer)


def shark_movement(g: Rules, drawer: int) -> Flow:
    """W7: secret picks, revealed in seat order from the drawer, each moving the sharks."""
    s = g.s
    options: dict[int, list[Choice]] = {
        seat: [{"do": "pick", "card": c.id} for c in distinct(s.hands[seat])]
        for seat in s.living()
        if s.hands[seat]
    }
    picks = yield from g.ask_all(
        "pick", options, "The sharks move: pick a card; its direction steers them."
    )
    for seat, choice in picks.items():
        card = g.card_in_hand(seat, choice["card"])
        remove_card(s.hands[seat], card)
        s.held[seat] = card
    order = s.order_from(drawer)
    for seat in order:
        if seat not in s.held:
            continue
        card = s.held.pop(seat)
        s.discard.append(card)
        victims = shark_step(g, seat, card)
        if victims:
            # "If any shark has eaten, their movement ends": for both sharks, and the picks
            # not yet revealed are discarded unseen, after the bites are paid.
            yield from bites(g, victims)
            unseen = [s.held.pop(other) for other in order if other in s.held]
            if unseen:
                s.discard.extend(unseen)
                g.say("shark", "A shark has eaten: the sharks stop, the other picks are discarded.")
            return


def shark_step(g: Rules, seat: int, card: Card) -> list[int]:
    """One revealed pick moves every shark one cell (W7); returns the castaways bitten."""
    s = g.s
    assert card.dir is not None
    dc, dr = STEPS[card.dir]
    g.say("reveal", f"{g.name(seat)} reveals {card_name(card)}: the sharks swim {card.dir}.", seat)
    entered: list[Cell] = []
    for index, (col, row) in enumerate(s.sharks):
        cell = (col + dc, row + dr)
        if s.is_water(cell):
            s.sharks[index] = cell
            if cell not in entered:  # several sharks entering one cell bite once
                entered.append(cell)
    victims: list[int] = []
    for cell in entered:
        victim = s.seat_at(cell)
        if victim is not None and s.alive[victim]:
            victims.append(victim)
    return victims
