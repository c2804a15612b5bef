"""Events: what happened, as structured data tagged with who may see it (RULES C4).

An event is a family ``kind`` (what a client styles by: ``draw``, ``move``, ``win`` ...), a
``key`` naming what happened exactly (``draw``, ``draw.none``, ``win.raft`` ...), and ``args``:
the seats, cards, rows and counts it is made of. The keys, their args and which of them are
secret are protocol/vocabulary.py's ``EVENTS``; every client says them in its own language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card, Location


@dataclass(slots=True)
class Event:
    """One log entry (treat as immutable; not frozen because frozen init is slower and games
    create tens of thousands of events a second in self-play).

    ``to is None``: everyone sees the whole event. Otherwise the seats in ``to`` see it whole
    and everybody else (spectators included) sees it without the ``secret`` args.
    """

    kind: str
    key: str
    args: dict[str, Any]
    seat: int | None = None  # the seat the event is mainly about, for highlighting
    to: tuple[int, ...] | None = None
    secret: tuple[str, ...] = field(default=())

    def sees_all(self, seat: int | None) -> bool:
        """Whether ``seat`` (None = spectator) sees the event unredacted."""
        return self.to is None or (seat is not None and seat in self.to)

    def visible_args(self, seat: int | None) -> dict[str, Any]:
        """The args ``seat`` may see (the secret ones removed for those outside ``to``)."""
        if self.sees_all(seat) or not self.secret:
            return self.args
        return {name: value for name, value in self.args.items() if name not in self.secret}

    def to_wire(self, seat: int | None, shared: bool = False) -> dict[str, object]:
        """The event as ``seat`` (None: a spectator) may see it, in wire form
        (protocol.game_types.Event): ``kind``, ``key``, ``seat`` and ``args``. ``shared``: its
        cards are their own wire maps, for a caller that only packs them (the server)."""
        shown = self.args if self.to is None else self.visible_args(seat)  # most: to everyone
        args = {name: wire_value(value, shared) for name, value in shown.items()}
        return {"kind": self.kind, "key": self.key, "seat": self.seat, "args": args}


def card_dict(card: Card) -> dict[str, Any]:
    """A game card in wire form (protocol.game_types.Card): ``id``, ``key``, ``kind``,
    ``value``, ``dir``: a copy of the card's own map (copying it costs less than building it)."""
    return dict(card.wire)


def location_dict(loc: Location) -> dict[str, Any]:
    """A location card in wire form (protocol.game_types.Location): ``id``, ``key``,
    ``shark``: a copy of the card's own map."""
    return dict(loc.wire)


def wire_value(value: Any, shared: bool = False) -> Any:
    """An event or decision argument in wire form: cards as maps (with ``shared``, the cards'
    own, not copies), a cell as [col, row], lists element by element (a choice, a map of plain
    values, stays as it is)."""
    if type(value) in _PLAIN:  # most arguments: seats, counts, keys
        return value
    if isinstance(value, Card):
        return value.wire if shared else card_dict(value)
    if isinstance(value, Location):
        return value.wire if shared else location_dict(value)
    if isinstance(value, _SEQUENCES):
        return [wire_value(item, shared) for item in value]
    return value


_SEQUENCES = (tuple, list)
_PLAIN = frozenset({int, str, bool, type(None), float})
