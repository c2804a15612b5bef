"""Keys that mean one thing: which key stands for which card, player or fixed choice.

A choice's key follows what it is about, never its place in the list, so that a key pressed
twice (or pressed for the prompt that was just replaced) never lands on something else:

* each card in our hand has a key of its own (:data:`HAND_KEYS`, in the hand's order when first
  seen), kept for as long as the card stays in the hand; the hand panel shows it beside the
  card, and every choice that uses the card (play, change, block, pick, discard, pay) is on it;
* each player has a key by seat for the whole game (:data:`SEAT_KEYS`): targets, swaps, the
  Freeloader's choice;
* Stay, Move, End actions and "Do not block" have fixed letters (:data:`FIXED_KEYS`);
* what has no lasting identity (a card in a victim's hand, a shark's cell) takes a free letter
  of :data:`OTHER_KEYS` that meant nothing else in the previous prompt.

A key freed by a card that left the hand is not given to a new card before the next prompt has
been shown without it. :class:`KeyRing` keeps this memory for one room (it lives in the room's
state, so a table drawn again, after a language switch say, keeps the keys).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from protocol.game_types import Card
from protocol.view_types import View

# Keys free on the table screen (its panel keys are p t h l c q b g; Tab, Esc, arrows, Enter).
HAND_KEYS = (
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "0",
    "d",
    "f",
    "i",
    "j",
    "k",
    "o",
    "r",
    "u",
)
SEAT_KEYS = tuple("vwxyz")
FIXED_KEYS = {"stay": "s", "move": "m", "done": "e", "accept": "a"}
# Letters for what has no key of its own; they give way to hand cards holding them.
OTHER_KEYS = tuple("dfijkorun")
#: Every key that can stand for a choice (the table binds each of them).
CHOICE_KEYS = tuple(dict.fromkeys((*HAND_KEYS, *SEAT_KEYS, *FIXED_KEYS.values(), *OTHER_KEYS)))

# What a key stands for: ("card", id), ("seat", n), ("fixed", do) or ("other", anything).
Identity = tuple[Any, ...]


def seat_key(seat: Any) -> str:
    """The key of a player, by seat ('' when there is none)."""
    if isinstance(seat, int) and 0 <= seat < len(SEAT_KEYS):
        return SEAT_KEYS[seat]
    return ""


@dataclass
class KeyRing:
    """The keys of one room's cards, and what each key meant in the last prompt shown."""

    cards: dict[int, str] = field(default_factory=dict)  # card id -> its key
    resting: set[str] = field(default_factory=set)  # freed since the last prompt: not reused
    # key -> what it stood for in the last prompt shown (a key can stand for different cells
    # in two sharks' submenus, hence a set)
    last: dict[str, set[Identity]] = field(default_factory=dict)

    def saw(self, view: View) -> None:
        """Take a view's hand in: cards gone free their keys, new cards get theirs."""
        if view.own is None:
            return
        present = [card.id for card in hand_order(view.own.hand)]
        for gone in [c for c in self.cards if c not in present]:
            self.resting.add(self.cards.pop(gone))
        for card_id in present:
            if card_id in self.cards:
                continue
            taken = set(self.cards.values()) | self.resting
            taken |= {k for k, what in self.last.items() if what != {("card", card_id)}}
            free = next((k for k in HAND_KEYS if k not in taken), None)
            if free is not None:
                self.cards[card_id] = free

    def card_key(self, card_id: Any) -> str:
        """The key of a card in our hand ('' if it has none)."""
        return self.cards.get(card_id, "") if isinstance(card_id, int) else ""

    def other_key(self, identity: Identity, taken: Iterable[str]) -> str:
        """A letter for something without a key of its own: the one it had in the last prompt
        if that is still free, else one that meant nothing there and no card holds or has
        just freed ('' if none is left)."""
        busy = set(taken) | set(self.cards.values()) | self.resting
        for key in OTHER_KEYS:
            if key not in busy and self.last.get(key) == {identity}:
                return key
        for key in OTHER_KEYS:
            if key not in busy and key not in self.last:
                return key
        return ""

    def shown(self, bindings: Iterable[tuple[str, Identity]]) -> None:
        """A prompt was built with these keys: remember them for the next one; the keys freed
        before it may go to new cards from now on."""
        self.last = {}
        for key, identity in bindings:
            self.last.setdefault(key, set()).add(identity)
        self.resting.clear()


def hand_order(hand: Iterable[Card]) -> list[Card]:
    """The hand panel's order (resources by value, then actions by card key, a stable order
    that is easy to scan and the same in every language), so a first hand reads 1, 2, 3… from
    the top."""
    return sorted(
        hand,
        key=lambda c: (c.kind != "resource", -c.value, c.key, c.id),
    )
