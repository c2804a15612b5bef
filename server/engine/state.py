"""The game state as plain data, and the setup of a new game (RULES C2, C3)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TypeVar

from .cards import GAME_DECKS, LOCATION_DECKS, Card, Edition, Location

START_ROW_GOAL = 6
MAX_SHARKS = 2

Cell = tuple[int, int]

T = TypeVar("T")


@dataclass
class State:
    """Everything a game holds. Draw piles keep their top card at the END of the list."""

    edition: Edition
    names: list[str]
    rng: random.Random
    draw: list[Card]
    discard: list[Card]
    hands: list[list[Card]]
    cols: list[int]
    rows: list[int]
    alive: list[bool]
    loc_draw: list[Location]
    loc_discard: list[Location] = field(default_factory=list)
    board: dict[Cell, Location] = field(default_factory=dict)
    goal_row: int = START_ROW_GOAL
    sharks: list[Cell] = field(default_factory=list)
    # Shark-movement picks that have left their hands face down and are not yet revealed (W7).
    held: dict[int, Card] = field(default_factory=dict)
    # The turn in which the first shark appeared: no shark moves for the rest of it (W7).
    shark_turn: int = 0
    first: int = 0
    active: int = 0
    turn: int = 0
    phase: str = "setup"
    actions_played: int = 0
    winner: int | None = None
    over: bool = False
    seats: int = field(init=False)

    def __post_init__(self) -> None:
        # Number of seats (living or dead): read in hot loops, so kept as a plain attribute.
        self.seats = len(self.names)

    def units(self, seat: int) -> int:
        """Resource units (oxygen / food) in a hand."""
        # A plain loop: faster than sum() over a comprehension for a hand's few cards.
        total = 0
        for card in self.hands[seat]:
            total += card.value
        return total

    def has_units(self, seat: int, units: int = 1) -> bool:
        """Whether a hand holds at least ``units`` resource units: ``units(seat) >= units``,
        told as soon as the count gets there (death and move checks, several a turn)."""
        total = 0
        for card in self.hands[seat]:
            total += card.value
            if total >= units:
                return True
        return False

    def pos(self, seat: int) -> Cell:
        """The (column, row) a seat's character stands on."""
        return (self.cols[seat], self.rows[seat])

    def seat_at(self, cell: Cell) -> int | None:
        """The seat whose character (living or dead) stands on ``cell``, if any."""
        for seat in range(self.seats):
            if self.cols[seat] == cell[0] and self.rows[seat] == cell[1]:
                return seat
        return None

    def living(self) -> list[int]:
        """Living seats in seat order."""
        living: list[int] = []
        for seat, alive in enumerate(self.alive):  # a loop: a comprehension is a call (3.11)
            if alive:
                living.append(seat)
        return living

    def order_from(self, start: int) -> list[int]:
        """All seats in seat order beginning with ``start``."""
        return [(start + i) % self.seats for i in range(self.seats)]

    def is_water(self, cell: Cell) -> bool:
        """Sharks swim on rows 0 .. goal row - 1 of the board's columns (W7)."""
        col, row = cell
        return 0 <= col < self.seats and 0 <= row < self.goal_row


def shuffle(rng: random.Random, cards: list[T]) -> None:
    """``rng.shuffle(cards)``: the same order from the same draws, in about half the time.
    CPython's Fisher-Yates written out in one loop (``Random.shuffle`` calls ``_randbelow``
    for each index, which draws the bound's bit length and draws again until below it): every
    deal and reshuffle of a game runs it. tests/engine/test_fast_paths.py holds it to
    ``random.shuffle``; being the engine's own, it also keeps stored games' deck orders should
    a later Python change that function (only ``random()``'s sequence is promised)."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        bits = bound.bit_length()
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def new_state(edition: Edition, names: list[str], seed: int) -> State:
    """Set up a game (C3): first player at random, dealt hands, shuffled decks."""
    if not 2 <= len(names) <= 5:
        raise ValueError("a game has 2 to 5 seats")
    rng = random.Random(seed)
    seats = len(names)
    deck = list(GAME_DECKS[edition])
    shuffle(rng, deck)
    locations = list(LOCATION_DECKS[edition])
    shuffle(rng, locations)
    first = rng.randrange(seats)
    hands: list[list[Card]] = [[] for _ in range(seats)]
    order = [(first + i) % seats for i in range(seats)]
    # "First found in deck order", seat after seat: the first seat takes the first 4 singles
    # and the first double from the top (the end of the list), the next seat the next ones, and
    # so on; so one scan from the top deals them all, each hand in the order of its cards.
    singles = doubles = 0
    passed: list[Card] = []  # the cards the scan went past, top first
    index = len(deck) - 1
    while singles < 4 * seats or doubles < seats:
        card = deck[index]
        if card.value == 1 and singles < 4 * seats:
            hands[order[singles // 4]].append(card)
            singles += 1
        elif card.value == 2 and doubles < seats:
            hands[order[doubles]].append(card)
            doubles += 1
        else:
            passed.append(card)
        index -= 1
    passed.reverse()
    deck = deck[: index + 1] + passed
    for _ in range(4):
        for seat in order:
            hands[seat].append(deck.pop())
    return State(
        edition=edition,
        names=list(names),
        rng=rng,
        draw=deck,
        discard=[],
        hands=hands,
        cols=list(range(seats)),
        rows=[0] * seats,
        alive=[True] * seats,
        loc_draw=locations,
        first=first,
        active=first,
    )
