"""The interface between the common rules and an edition's own rules.

``rules.Rules`` runs the turn flow common to every edition (RULES C); whatever differs between
editions it asks of the game's ``EditionRules``: resolving a location card, what entering a cell
does, paying for staying and losing resources, the fatal checks, the edition's limits. An
edition's rules work on the game through ``Table``, the operations of the common rules they
need, so that no edition module imports ``rules`` (adding an edition means adding a module).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

from .actions import Answer, Choice, Decision, DecisionKind, payment_ways
from .cards import Card, Edition, Location
from .state import Cell, State

Flow = Generator[Decision, Answer, None]
Asking = Generator[Decision, Answer, Choice]


class Table(Protocol):
    """The operations of the common rules (``rules.Rules``) an edition's rules use."""

    state: State
    #: The seat that paid its last resources to travel and is protected meanwhile (S3).
    travelling: int | None

    def say(
        self,
        kind: str,
        key: str,
        seat: int | None = None,
        to: tuple[int, ...] | None = None,
        secret: tuple[str, ...] = (),
        /,
        **args: Any,
    ) -> None:
        """Record an event."""

    def ask(
        self,
        seat: int,
        kind: DecisionKind,
        options: list[Choice],
        /,
        reveal: list[Card] | None = None,
        **args: Any,
    ) -> Asking:
        """A one-seat decision."""

    def ask_all(
        self, kind: DecisionKind, options: dict[int, list[Choice]]
    ) -> Generator[Decision, Answer, dict[int, Choice]]:
        """A simultaneous decision."""

    def card_in_hand(self, seat: int, card_id: int) -> Card:
        """The card with this id in a seat's hand."""

    def discard_cards(self, seat: int, cards: list[Card]) -> None:
        """Move cards from a hand to the discard pile."""

    def draw(self, seat: int, count: int) -> None:
        """A seat draws game cards."""

    def pay(self, seat: int, units: int, reason: str) -> Flow:
        """Discard resource cards worth ``units`` (C6)."""

    def lose(self, seat: int, units: int, reason: str) -> Flow:
        """The edition's loss of ``units`` resources (may kill)."""

    def check_resources(self, seat: int) -> None:
        """The edition's death check after resources left a hand."""

    def die(self, seats: list[int], key: str, /, **args: Any) -> None:
        """The seats die together (C14)."""

    def win(self, seat: int, key: str) -> None:
        """End the game with a winner."""

    def forward(self, seat: int) -> Flow:
        """Move forward 1 and resolve the location card drawn (C9)."""

    def back(self, seat: int) -> Flow:
        """Move back 1 (C10)."""

    def swap(self, a: int, b: int) -> Flow:
        """Swap two characters (C11)."""

    def react(self, attacker: int, target: int, card: Card) -> Generator[Decision, Answer, bool]:
        """The target's reaction (C13); True when blocked."""

    def steal_units(self, thief: int, victim: int, units: int) -> Flow:
        """Move resource cards worth ``units`` from victim to thief (C8)."""

    def singles_available(self, wanted: int) -> bool:
        """Whether the discard and draw piles together hold ``wanted`` single resources."""


class EditionRules:
    """What an edition decides; the defaults are what an edition without the feature does."""

    edition: Edition
    resource = "oxygen"  # the resource's word (an event arg)
    goal = "ship"  # the goal's word (an event arg)
    blocker = "shield"  # the key of the reaction card (C13)

    def resolve_location(self, table: Table, seat: int, loc: Location, cell: Cell) -> Flow:
        """Resolve a location card drawn by ``seat`` and placed on ``cell``, with everything it
        leads to (C17)."""
        raise NotImplementedError

    def entered(self, table: Table, movers: list[int]) -> Flow:
        """What entering a cell does to the movers (only called while sharks are in play)."""
        return
        yield

    def arrived(self, table: Table, seat: int) -> None:
        """After a forward move of ``seat`` has resolved (with its card)."""

    def after_action(self, table: Table) -> None:
        """After an action card has resolved (with everything it led to)."""

    def after_deaths(self, table: Table, living: list[int]) -> None:
        """After deaths left ``living`` (not empty) alive."""

    def travel(self, table: Table, seat: int) -> Flow:
        """Phase 3 move: pay 2, then move forward (C5, C9)."""
        yield from table.pay(seat, 2, "travel")
        yield from table.forward(seat)

    def lose(self, table: Table, seat: int, units: int, reason: str) -> Flow:
        """Lose ``units`` resources (staying, a card's loss)."""
        yield from table.pay(seat, units, reason)

    def check_resources(self, table: Table, seat: int) -> None:
        """A death check after resources left ``seat``'s hand."""

    def ways_to_pay(self, hand: list[Card], units: int) -> list[list[Card]]:
        """The ways a hand may give up ``units`` (C6): the payer chooses among them."""
        return payment_ways(hand, units)

    def one_action_only(self, seats: int) -> bool:
        """Whether phase 2 allows one action card only (C5)."""
        return False

    def flared(self, state: State, seat: int) -> bool:
        """Whether ``seat`` may play no action card now (S6 Solar Flare)."""
        return False

    def fatal(self, table: Table, seat: int, choice: Choice, attack: str | None) -> bool:
        """C18: the choice certainly kills the chooser (``attack``: the action card a target is
        reacting to)."""
        return False
