"""The prompt's menu: the server's legal choices arranged so that every one has a key.

The wire's ``legal`` list stays as the server sent it, and every leaf of the menu is one of its
choices, sent back by its place in that list. Only the arrangement and the keys are the client's:

* A key stands for what a choice is about (selfish_tui.choice_keys): the card in our hand it
  uses, the player it aims at, or a fixed letter for Stay, Move, End actions and "Do not block".
  So the key a player learned for a card or a player never moves while other choices come and
  go, and a key pressed twice never lands on something else.
* A card with several targets is one entry; choosing it opens the targets (card first, then
  target, as Board Game Arena does). A choice of two cards (Meteoroid, paying, staying by
  discarding) is one entry per card: its key opens the choices with it, where the other card's
  key finishes it. Several sharks to move: one entry per shark, its cells inside.
* The order of kinds is fixed: cards to play, change, then the fixed-letter choices at the
  bottom.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from protocol.game_types import Choice
from protocol.view_types import View
from selfish_tui.choice_keys import FIXED_KEYS, Identity, KeyRing, hand_order, seat_key
from selfish_tui.i18n import _, ngettext
from selfish_tui.model import card_label, choice_label, hand, own_seat, player_name

# The order kinds are listed in; kinds not named keep the server's order, after these.
KIND_ORDER = ("play", "block", "accept", "change", "stay", "move", "done")


@dataclass
class Entry:
    """One line of the menu: a choice (a leaf) or a group of choices (opens a submenu)."""

    label: str
    key: str = ""
    choice: Choice | None = None
    group: list[Entry] = field(default_factory=list)
    detail: Choice | None = None  # the choice whose cards the detail line describes
    note: str = ""  # what the detail line says instead, if set
    identity: Identity = ()  # what the key stands for (selfish_tui.choice_keys)
    # Keys of identical copies in the hand (the engine offers one choice per kind of card):
    # each copy's own key makes the same choice. (key, that copy's identity)
    aliases: list[tuple[str, Identity]] = field(default_factory=list)

    @property
    def fatal(self) -> bool:
        """A leaf that certainly kills, or a group of nothing else."""
        if self.choice is not None:
            return self.choice.fatal
        return bool(self.group) and all(e.fatal for e in self.group)


def _rank(choice: Choice) -> int:
    do = choice.do
    return KIND_ORDER.index(do) if do in KIND_ORDER else len(KIND_ORDER)


def _card_name(view: View, card_id: int | None) -> str:
    for card in hand(view):
        if card.id == card_id:
            return card_label(card)
    return _("a card")


def target_label(view: View, seat: int | None, named: bool = True) -> str:
    """A target as the player needs to weigh it: name, row and hand size."""
    name = player_name(view, seat)
    for player in view.public.players:
        if player.seat == seat:
            count = player.hand_count
            where = ngettext("row {row} · {count} card", "row {row} · {count} cards", count).format(
                row=player.row, count=count
            )
            if seat == own_seat(view):
                name += _(" (you)")
            return f"{name} · {where}" if named else where
    return name if named else ""


def _cards_of(choice: Choice) -> list[int] | None:
    """The cards of a choice made of several of ours (discard, pay, stay discarding)."""
    for value in (choice.cards, choice.discard):
        if value is not None:
            return list(value)
    return None


def build(view: View, ring: KeyRing | None = None) -> list[Entry]:
    """The top level of the menu for a view's legal choices, keys assigned from ``ring`` (the
    room's keys; a fresh one when none is given)."""
    if ring is None:
        ring = KeyRing()
        ring.saw(view)
    legal = list(view.legal)
    held = {card.id: card for card in hand(view)}
    position = {card.id: index for index, card in enumerate(hand_order(held.values()))}
    ordered = sorted(legal, key=_rank)  # stable: the server's order within a kind
    entries: list[tuple[tuple[Any, ...], Entry]] = []  # (sort key, entry)
    combos: dict[int, list[Choice]] = {}  # own card -> the several-card choices with it
    targeted: dict[tuple[str, int], list[Choice]] = {}  # (do, card) -> its targets
    sharks: dict[int, list[Choice]] = {}
    others: list[Choice] = []
    for choice in ordered:
        cards = _cards_of(choice)
        label = choice_label(choice, view)
        if choice.do in FIXED_KEYS and cards is None:
            do = choice.do
            entry = Entry(label, FIXED_KEYS[do], choice, detail=choice, identity=("fixed", do))
            entries.append(((1, _rank(choice), 0), entry))
        elif cards is not None and len(cards) > 1 and all(c in held for c in cards):
            for card in cards:
                combos.setdefault(card, []).append(choice)
        elif cards is not None and len(cards) == 1 and cards[0] in held:
            combos.setdefault(cards[0], []).append(choice)
        elif choice.target is not None and choice.card is not None and choice.card in held:
            targeted.setdefault((choice.do, choice.card), []).append(choice)
        elif choice.target is not None and choice.card is None:
            seat = choice.target
            entry = Entry(label, seat_key(seat), choice, detail=choice, identity=("seat", seat))
            entries.append(((0, _rank(choice), seat), entry))
        elif choice.card is not None and choice.card in held:
            card = choice.card
            key = ring.card_key(card)
            entry = Entry(label, key, choice, detail=choice, identity=("card", card))
            entries.append(((0, _rank(choice), position[card]), entry))
        elif choice.shark is not None:
            sharks.setdefault(choice.shark, []).append(choice)
        else:
            others.append(choice)
    for (_do, card), members in targeted.items():
        entries.append(((0, _rank(members[0]), position[card]), _targets(view, ring, members)))
    for card, members in combos.items():
        entry = _combos(view, ring, card, members)
        entries.append(((0, _rank(members[0]), position[card]), entry))
    top = [entry for _sort, entry in sorted(entries, key=lambda pair: pair[0])]
    _add_aliases(view, ring, top)
    taken = {key for key, _identity in bindings(top)}
    for choice in others:
        # A card in another's hand (after Hack Suit or Pirate) or anything new: a free letter.
        what: Identity = (
            ("card", choice.card) if choice.card is not None else ("other", repr(choice))
        )
        key = ring.other_key(what, taken)
        taken.add(key)
        entry = Entry(choice_label(choice, view), key, choice, detail=choice, identity=what)
        top.append(entry)
    top.extend(_sharks(view, ring, sharks, taken))
    # The fixed letters at the bottom, where they always are.
    top.sort(key=lambda entry: entry.identity[:1] == ("fixed",))
    return top


def _targets(view: View, ring: KeyRing, members: list[Choice]) -> Entry:
    """A card played on a player: one leaf when it has one target, else a group of targets."""
    card = members[0].card
    key, identity = ring.card_key(card), ("card", card)
    if len(members) == 1:
        choice = members[0]
        label = choice_label(choice, view)
        label += f" ({target_label(view, choice.target, named=False)})"
        return Entry(label, key, choice, detail=choice, identity=identity)
    leaves = [
        Entry(
            target_label(view, c.target),
            seat_key(c.target),
            c,
            detail=c,
            identity=("seat", c.target),
        )
        for c in members
    ]
    label = _("Play {card} on… ▸").format(card=_card_name(view, card))
    return Entry(label, key, group=leaves, detail=members[0], identity=identity)


def _combos(view: View, ring: KeyRing, card: int, members: list[Choice]) -> Entry:
    """The choices made with one of our cards: a leaf when it is the card alone, else a group
    where the other card's key finishes the choice."""
    key, identity = ring.card_key(card), ("card", card)
    if len(members) == 1 and _cards_of(members[0]) == [card]:
        choice = members[0]
        return Entry(choice_label(choice, view), key, choice, detail=choice, identity=identity)
    leaves: list[Entry] = []
    taken = {key}
    for choice in members:
        rest = [c for c in _cards_of(choice) or [] if c != card]
        if len(rest) == 1:
            what: Identity = ("card", rest[0])
            leaf_key = ring.card_key(rest[0])
        elif not rest:
            what, leaf_key = ("alone", card), ""  # the card by itself: arrows and Enter
        else:
            what = ("other", tuple(rest))
            leaf_key = ring.other_key(what, taken)
        taken.add(leaf_key)
        leaves.append(
            Entry(choice_label(choice, view), leaf_key, choice, detail=choice, identity=what)
        )
    name = _card_name(view, card)
    do = members[0].do
    if do == "stay":
        label = _("Stay, discarding {card} and… ▸").format(card=name)
    elif do == "pay":
        label = _("Pay with {card} and… ▸").format(card=name)
    else:
        label = _("Discard {card} and… ▸").format(card=name)
    return Entry(label, key, group=leaves, detail=members[0], identity=identity)


def _sharks(
    view: View, ring: KeyRing, sharks: dict[int, list[Choice]], taken: set[str]
) -> list[Entry]:
    """Shark Bait's cells: one list for one shark, a group per shark for several."""

    def cells(members: list[Choice], busy: set[str]) -> list[Entry]:
        out = []
        for choice in members:
            what = ("cell", choice.shark, repr(choice.cell))
            key = ring.other_key(what, busy)
            busy.add(key)
            out.append(Entry(choice_label(choice, view), key, choice, detail=choice, identity=what))
        return out

    if len(sharks) == 1:
        return cells(next(iter(sharks.values())), taken)
    keys = {}
    for shark in sharks:
        keys[shark] = ring.other_key(("shark", shark), taken)
        taken.add(keys[shark])
    return [
        Entry(
            _("Shark {number} to… ▸").format(number=shark + 1),
            keys[shark],
            group=cells(members, set(taken)),  # never a key of the level above
            detail=members[0],
            identity=("shark", shark),
        )
        for shark, members in sharks.items()
    ]


def _add_aliases(
    view: View, ring: KeyRing, entries: list[Entry], used: set[Identity] | None = None
) -> None:
    """The engine offers one choice per kind of card: give a card's entry the key of the first
    identical copy in the hand, and the other copies' keys besides (at its level, and in the
    submenus below), so that each copy's own key makes the choice."""
    cards = hand_order(hand(view))
    used = {entry.identity for entry in entries} | (used or set())
    for entry in entries:
        if entry.group:
            _add_aliases(view, ring, entry.group, {entry.identity})
        if entry.identity[:1] != ("card",):
            continue
        card = next((c for c in cards if c.id == entry.identity[1]), None)
        if card is None:
            continue
        copies = [
            copy
            for copy in cards
            if (copy.key, copy.dir) == (card.key, card.dir)
            and ring.card_key(copy.id)
            and (copy is card or ("card", copy.id) not in used)
        ]
        if not copies:
            continue
        used.update(("card", copy.id) for copy in copies)
        entry.key = ring.card_key(copies[0].id)
        entry.identity = ("card", copies[0].id)
        entry.aliases = [(ring.card_key(c.id), ("card", c.id)) for c in copies[1:]]


def bindings(entries: list[Entry]) -> Iterator[tuple[str, Identity]]:
    """Every (key, what it stands for) of a menu, its submenus' included."""
    for entry in entries:
        if entry.key:
            yield entry.key, entry.identity
        yield from entry.aliases
        yield from bindings(entry.group)


def find(entries: list[Entry], key: str) -> Entry | None:
    """The entry a key press means, if any."""
    for entry in entries:
        if entry.key == key or any(alias == key for alias, _identity in entry.aliases):
            return entry
    return None


def leaves(entries: list[Entry]) -> list[Choice]:
    """Every choice the menu offers, once each, in menu order (tests check nothing was lost;
    a choice of two cards is under both)."""
    out: list[Choice] = []
    for entry in entries:
        for choice in [entry.choice] if entry.choice is not None else leaves(entry.group):
            if choice not in out:
                out.append(choice)
    return out
