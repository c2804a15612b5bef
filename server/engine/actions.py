"""Decisions and choices: what a seat may choose, as plain wire-safe dicts.

A choice is a small dict (``{"do": "play", "card": 17, "target": 2}``, the wire form of
protocol.game_types.Choice); legal choices are computed on demand when a decision is opened.
Fatal marks (C18) are added only for views, so the hot path of self-play computes none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import Card

Choice = dict[str, object]


class DecisionKind(StrEnum):
    """What a seat decides. A str, so that it compares and encodes as its value."""

    ACTIONS = "actions"
    STAY_OR_MOVE = "stay_or_move"
    PAY = "pay"
    GIVE = "give"  # which resources a thief takes (Oxygen Siphon, Message in a Bottle)
    REACT = "react"
    TARGET = "target"
    TAKE = "take"
    METEOROID = "meteoroid"
    SWAP = "swap"
    SHARK_BAIT = "shark_bait"
    FREELOADER = "freeloader"
    HURRICANE = "hurricane"
    PICK = "pick"

    @property
    def simultaneous(self) -> bool:
        """Several seats choose at once (shark picks, Hurricane discards)."""
        return self in SIMULTANEOUS

    @property
    def always_asked(self) -> bool:
        """Asked even with a single option: skipping it would reveal something about a hidden
        hand (C13) or take a turn's phases out of the player's hands."""
        return self in ALWAYS_ASKED


SIMULTANEOUS = frozenset({DecisionKind.HURRICANE, DecisionKind.PICK})
ALWAYS_ASKED = frozenset({DecisionKind.ACTIONS, DecisionKind.STAY_OR_MOVE, DecisionKind.REACT})


@dataclass(slots=True)
class Picks:
    """The answer to a simultaneous decision: each seat's choice."""

    choices: dict[int, Choice]


#: What a flow is resumed with: the choice of a one-seat decision, the picks of a simultaneous
#: one (None only to start it).
Answer = Choice | Picks | None


def one_choice(answer: Answer) -> Choice:
    """The answer of a one-seat decision (the game sends nothing else to it)."""
    if isinstance(answer, dict):
        return answer
    raise TypeError(f"a one-seat decision was answered with {answer!r}")


def all_picks(answer: Answer) -> dict[int, Choice]:
    """The answer of a simultaneous decision."""
    if isinstance(answer, Picks):
        return answer.choices
    raise TypeError(f"a simultaneous decision was answered with {answer!r}")


def int_of(choice: Choice, key: str) -> int:
    """A choice's integer field (a card id, a seat, a shark)."""
    value = choice[key]
    if isinstance(value, int):
        return value
    raise TypeError(f"{key} of {choice!r} is not an integer")


def ints_of(choice: Choice, key: str) -> list[int]:
    """A choice's list of integers (card ids, a cell)."""
    value = choice[key]
    if isinstance(value, list) and all(isinstance(item, int) for item in value):
        return value
    raise TypeError(f"{key} of {choice!r} is not a list of integers")


@dataclass(slots=True)
class Decision:
    """A pending decision: which seats choose, each one's legal choices, the decision's args
    (protocol/vocabulary.py ``DECISIONS``) and the cards a seat chooses from when they are not
    its own (``reveal``)."""

    kind: DecisionKind
    options: dict[int, list[Choice]]
    args: dict[str, Any] = field(default_factory=dict)
    reveal: dict[int, list[Card]] = field(default_factory=dict)

    @property
    def simultaneous(self) -> bool:
        """True when several seats choose at once (shark picks, Hurricane discards)."""
        return self.kind.simultaneous


def strip(choice: Choice) -> Choice:
    """The choice without the ``fatal`` mark a view adds (a bot choosing from a view's
    ``legal`` returns the choice with it)."""
    if "fatal" in choice:
        return {k: v for k, v in choice.items() if k != "fatal"}
    return choice


def exact(option: Choice, wanted: Choice) -> bool:
    """Whether ``wanted``, equal to ``option`` by ``==``, is it types included: ``48.0`` is not
    ``48`` and ``True`` is not ``1`` (Python's ``==`` says they are). An option's values are
    strings, integers and flat lists of integers, so one level of lists is all there is to see."""
    for key, value in option.items():
        other = wanted[key]
        if type(other) is not type(value):
            return False
        if isinstance(value, list) and isinstance(other, list):
            for item, given in zip(value, other, strict=True):
                if type(given) is not type(item):
                    return False
    return True


def distinct(cards: Iterable[Card]) -> list[Card]:
    """One card of each (type, direction): copies that differ in nothing are one choice."""
    seen: set[str] = set()
    out: list[Card] = []
    for card in cards:
        sig = card.sig
        if sig not in seen:
            seen.add(sig)
            out.append(card)
    return out


def distinct_pairs(cards: list[Card]) -> list[tuple[Card, Card]]:
    """Every way to choose 2 of ``cards`` that differs by type and direction, in the order of
    the first pair of each kind (by position of its first card, then of its second)."""
    # A pair's first card is the first of its kind; its second, the first card of each kind
    # after it, unless that kind came before the first card (its pair was listed from there).
    sigs = [card.sig for card in cards]
    count = len(cards)
    earlier: set[str] = set()  # the kinds of the cards before the current first card
    out: list[tuple[Card, Card]] = []
    for i in range(count - 1):
        a = sigs[i]
        if a in earlier:  # a copy of an earlier card: each pair it starts is listed already
            continue
        first = cards[i]
        partners: set[str] = set()
        for j in range(i + 1, count):
            b = sigs[j]
            if b not in partners and b not in earlier:
                partners.add(b)
                out.append((first, cards[j]))
        earlier.add(a)
    return out


def payment_ways(hand: list[Card], units: int) -> list[list[Card]]:
    """The distinct ways to pay ``units`` from a hand (C6), fewest cards first.

    Exact payments if any exist; else a double (change is taken afterwards); a hand holding
    ``units`` or fewer pays everything it has, which is one way.
    """
    if units == 1:  # the commonest payment (staying, bites, single losses): in one pass
        # One way per distinct single, else per distinct double; a hand holding one single
        # and nothing else pays it, and one holding nothing pays nothing.
        single_ways: list[list[Card]] = []
        double_ways: list[list[Card]] = []
        seen: set[str] = set()
        for card in hand:
            value = card.value
            if value and card.sig not in seen:
                seen.add(card.sig)
                (single_ways if value == 1 else double_ways).append([card])
        return single_ways or double_ways or [[]]
    singles: list[Card] = []
    doubles: list[Card] = []
    for card in hand:
        value = card.value
        if value == 1:
            singles.append(card)
        elif value == 2:
            doubles.append(card)
    if len(singles) + 2 * len(doubles) <= units:
        return [[card for card in hand if card.value]]
    # units == 2 (no card costs more): a double, or two singles.
    ways: list[list[Card]] = [[card] for card in distinct(doubles)]
    for a, b in distinct_pairs(singles):
        ways.append([a, b])
    return ways


def first_payment(hand: list[Card], units: int) -> list[Card]:
    """``payment_ways(hand, units)[0]``, the way Space pays without asking (C6), found without
    listing the others, in one pass that stops as soon as it can: payments are made on most
    turns. For 1 unit the first single, else the first double; for 2 (no card costs more) the
    first double, else the first two singles. A hand holding ``units`` or fewer gets the same
    from these rules as from paying everything it has."""
    if units == 1:
        double = None
        for card in hand:
            value = card.value
            if value == 1:
                return [card]
            if value == 2 and double is None:
                double = card
        return [] if double is None else [double]
    singles: list[Card] = []
    for card in hand:
        value = card.value
        if value == 2:
            return [card]
        if value == 1 and len(singles) < 2:
            singles.append(card)
    return singles
