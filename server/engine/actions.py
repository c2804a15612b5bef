"""Decisions and choices: what a seat may choose, as plain wire-safe dicts.

A choice is a small dict (``{"do": "play", "card": 17, "target": 2}``); legal choices are computed
on demand when a decision is opened. Labels and fatal marks (C18) are added only for views, so the
hot path of self-play builds no strings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .cards import Card

Choice = dict[str, object]

# Keys a client may echo back that are not part of a choice's identity.
DECORATION_KEYS = ("label", "fatal")

# Decisions a seat is always asked, even with a single option: skipping them would reveal
# something about a hidden hand (C13) or take a turn's phases out of the player's hands.
ALWAYS_ASK = frozenset({"actions", "stay_or_move", "react"})

SIMULTANEOUS = frozenset({"hurricane", "pick"})


@dataclass
class Decision:
    """A pending decision: which seats choose, and each one's legal choices."""

    kind: str
    options: dict[int, list[Choice]]
    prompt: str
    reveal: dict[int, list[Card]] = field(default_factory=dict)

    @property
    def simultaneous(self) -> bool:
        """True when several seats choose at once (shark picks, Hurricane discards)."""
        return self.kind in SIMULTANEOUS


def strip(choice: Choice) -> Choice:
    """The choice without the decoration keys a view adds."""
    if "label" in choice or "fatal" in choice:
        return {k: v for k, v in choice.items() if k not in DECORATION_KEYS}
    return choice


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
    """Every way to choose 2 of ``cards`` that differs by type and direction."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[Card, Card]] = []
    count = len(cards)
    for i in range(count - 1):
        first = cards[i]
        a = first.sig
        for j in range(i + 1, count):
            second = cards[j]
            b = second.sig
            sig = (a, b) if a <= b else (b, a)
            if sig not in seen:
                seen.add(sig)
                out.append((first, second))
    return out


def _resources(hand: list[Card]) -> tuple[list[Card], list[Card], list[Card], int]:
    """A hand's resource cards, its singles, its doubles (each in hand order) and their total."""
    resources: list[Card] = []
    singles: list[Card] = []
    doubles: list[Card] = []
    total = 0
    for card in hand:
        value = card.value
        if value:
            resources.append(card)
            total += value
            if value == 1:
                singles.append(card)
            elif value == 2:
                doubles.append(card)
    return resources, singles, doubles, total


def payment_ways(hand: list[Card], units: int) -> list[list[Card]]:
    """The distinct ways to pay ``units`` from a hand (C6), fewest cards first.

    Exact payments if any exist; else a double (change is taken afterwards); a hand holding
    ``units`` or fewer pays everything it has, which is one way.
    """
    resources, singles, doubles, total = _resources(hand)
    if total <= units:
        return [resources]
    if units == 1:
        return [[card] for card in distinct(singles or doubles)]
    # units == 2 (no card costs more): a double, or two singles.
    ways: list[list[Card]] = [[card] for card in distinct(doubles)]
    ways.extend([a, b] for a, b in distinct_pairs(singles))
    return ways


def first_payment(hand: list[Card], units: int) -> list[Card]:
    """``payment_ways(hand, units)[0]``, the way Space pays without asking (C6), found without
    listing the others: payments are made on most turns."""
    resources, singles, doubles, total = _resources(hand)
    if total <= units:
        return resources
    if units == 1:
        return [singles[0]] if singles else [doubles[0]]
    return [doubles[0]] if doubles else singles[:2]
