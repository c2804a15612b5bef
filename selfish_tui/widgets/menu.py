"""The prompt's menu: the server's legal choices arranged so that every one has a key.

The wire's ``legal`` list stays as the server sent it, and every leaf of the menu is one of its
choices, sent back verbatim. Only the arrangement is the client's:

* Stay, Move and End actions have fixed letters (``s``, ``m``, ``e``), so the number a player
  learned for them never moves when other choices come and go.
* A card with several targets is one entry; choosing it opens the targets (card first, then
  target, as Board Game Arena does), so four action cards against three opponents fit on the
  number keys. Staying while discarding is one entry too, with the card pairs inside.
* The order of kinds is fixed: cards to play, change, then the fixed-letter choices at the
  bottom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfish_tui.i18n import _, ngettext
from selfish_tui.model import Choice, View, card_label, choice_label, player_name

# Choices with a letter of their own, whatever else is on offer.
LETTERS = {"stay": "s", "move": "m", "done": "e"}
# The order kinds are listed in; kinds not named keep the server's order, after these.
KIND_ORDER = ("play", "block", "accept", "change", "stay", "move", "done")
NUMBERED = 9


@dataclass
class Entry:
    """One line of the menu: a choice (a leaf) or a group of choices (opens a submenu)."""

    label: str
    key: str = ""
    choice: Choice | None = None
    group: list[Entry] = field(default_factory=list)
    detail: Choice | None = None  # the choice whose cards the detail line describes
    note: str = ""  # what the detail line says instead, if set

    @property
    def fatal(self) -> bool:
        """A leaf that certainly kills, or a group of nothing else."""
        if self.choice is not None:
            return bool(self.choice.get("fatal"))
        return bool(self.group) and all(e.fatal for e in self.group)


def _rank(choice: Choice) -> int:
    do = str(choice.get("do"))
    return KIND_ORDER.index(do) if do in KIND_ORDER else len(KIND_ORDER)


def _card_name(view: View, card_id: Any) -> str:
    for card in view.get("hand") or []:
        if card.get("id") == card_id:
            return card_label(card)
    return _("a card")


def target_label(view: View, seat: Any, named: bool = True) -> str:
    """A target as the player needs to weigh it: name, row and hand size."""
    name = player_name(view, seat if isinstance(seat, int) else None)
    for player in view.get("players") or []:
        if player.get("seat") == seat:
            count = int(player.get("hand_count", 0))
            where = ngettext("row {row} · {count} card", "row {row} · {count} cards", count).format(
                row=player.get("row"), count=count
            )
            if seat == view.get("seat"):
                name += _(" (you)")
            return f"{name} · {where}" if named else where
    return name if named else ""


def _group_key(choice: Choice) -> tuple[Any, ...] | None:
    if choice.get("do") == "stay" and choice.get("discard"):
        return ("stay", "discard")
    if "target" in choice and "card" in choice:
        return ("target", choice.get("do"), choice.get("card"))
    return None


def build(view: View) -> list[Entry]:
    """The top level of the menu for a view's legal choices, keys assigned."""
    legal: list[Choice] = list(view.get("legal") or [])
    ordered = sorted(legal, key=_rank)  # stable: the server's order within a kind
    groups: dict[tuple[Any, ...], list[Choice]] = {}
    for choice in ordered:
        key = _group_key(choice)
        if key is not None:
            groups.setdefault(key, []).append(choice)
    entries: list[Entry] = []
    placed: set[tuple[Any, ...]] = set()
    for choice in ordered:
        key = _group_key(choice)
        members = groups.get(key) if key is not None else None
        if key is None or members is None or len(members) == 1:
            label = choice_label(choice, view)
            if "target" in choice:
                label += f" ({target_label(view, choice['target'], named=False)})"
            entries.append(Entry(label, choice=choice, detail=choice))
            continue
        if key in placed:
            continue
        placed.add(key)
        entries.append(_group(view, key, members))
    return _assign_keys(entries)


def _group(view: View, key: tuple[Any, ...], members: list[Choice]) -> Entry:
    if key[0] == "stay":
        label = _("Stay, discarding two cards ▸ ({count} ways)").format(count=len(members))
        leaves = [Entry(choice_label(c, view), choice=c, detail=c) for c in members]
    else:
        label = _("Play {card} on… ▸").format(card=_card_name(view, key[2]))
        leaves = [Entry(target_label(view, c.get("target")), choice=c, detail=c) for c in members]
    return Entry(label, group=_assign_keys(leaves), detail=members[0])


def _letter(entry: Entry) -> str | None:
    choice = entry.choice
    if choice is None or choice.get("discard"):
        return None
    return LETTERS.get(str(choice.get("do")))


def _assign_keys(entries: list[Entry]) -> list[Entry]:
    """Numbers for the listed choices, then the fixed-letter ones at the bottom."""
    entries = sorted(entries, key=lambda e: _letter(e) is not None)
    number = 1
    for entry in entries:
        letter = _letter(entry)
        if letter:
            entry.key = letter
        elif number <= NUMBERED:
            entry.key = str(number)
            number += 1
    return entries


def find(entries: list[Entry], key: str) -> Entry | None:
    """The entry a key press means, if any."""
    for entry in entries:
        if entry.key == key:
            return entry
    return None


def leaves(entries: list[Entry]) -> list[Choice]:
    """Every choice the menu offers, in menu order (tests check nothing was lost)."""
    out: list[Choice] = []
    for entry in entries:
        if entry.choice is not None:
            out.append(entry.choice)
        out.extend(leaves(entry.group))
    return out
