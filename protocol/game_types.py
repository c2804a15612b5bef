"""The game's parts as the wire carries them: cards, choices, events and decisions (the view
they make up is protocol.view_types's).

Each type reads itself from its wire form (``from_wire``, which checks every field's exact type
and raises :class:`~protocol.errors.MalformedMessage`) and writes it back (``to_wire``). The
rules engine produces these wire forms (server/engine/views.py, events.py); PROTOCOL.md §5-§6
describe them, and :mod:`protocol.vocabulary` lists the keys and argument names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import MalformedMessage
from protocol.fields import (
    as_cell,
    as_int,
    as_list,
    as_map,
    as_str,
    get_bool,
    get_choice_of,
    get_count,
    get_items,
    get_opt_int,
    get_opt_str,
    get_str,
)
from protocol.vocabulary import (
    ARG_TYPES,
    CHOICES,
    DECISIONS,
    DIRECTIONS,
    EVENTS,
    GOALS,
    RESOURCES,
    ArgType,
    ChoiceField,
)

Cell = tuple[int, int]
CARD_KINDS = ("resource", "action")
EDITIONS = ("space", "shipwrecked")


@dataclass(frozen=True, slots=True)
class Card:
    """A game card: ``value`` is its resource units (0 for an action card), ``dir`` its compass
    direction (Shipwrecked) or None."""

    id: int
    key: str
    kind: str
    value: int
    dir: str | None

    @classmethod
    def from_wire(cls, value: object, where: str = "card") -> Card:
        """Read a card."""
        m = as_map(value, where)
        direction = get_opt_str(m, "dir", where)
        if direction is not None and direction not in DIRECTIONS:
            raise MalformedMessage(f"{where}.dir", "N, E, S, W or null")
        return cls(
            get_count(m, "id", where),
            get_str(m, "key", where),
            get_choice_of(m, "kind", CARD_KINDS, where),
            get_count(m, "value", where),
            direction,
        )

    def to_wire(self) -> dict[str, Any]:
        """The card's wire map."""
        return {
            "id": self.id,
            "key": self.key,
            "kind": self.kind,
            "value": self.value,
            "dir": self.dir,
        }


@dataclass(frozen=True, slots=True)
class Location:
    """A location card; ``shark``: it bears a shark icon (Shipwrecked)."""

    id: int
    key: str
    shark: bool

    @classmethod
    def from_wire(cls, value: object, where: str = "location") -> Location:
        """Read a location card."""
        m = as_map(value, where)
        return cls(get_count(m, "id", where), get_str(m, "key", where), get_bool(m, "shark", where))

    def to_wire(self) -> dict[str, Any]:
        """The location card's wire map."""
        return {"id": self.id, "key": self.key, "shark": self.shark}


def _card_ids(value: object, where: str) -> tuple[int, ...]:
    return tuple(as_int(item, f"{where}[{i}]") for i, item in enumerate(as_list(value, where)))


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal choice: what it does (``do``, a key of :data:`protocol.vocabulary.CHOICES`)
    and the values it carries (a card id, a seat, card ids, a shark and a cell). ``fatal``:
    it certainly kills the chooser (a client asks before sending it)."""

    do: str
    card: int | None = None
    target: int | None = None
    cards: tuple[int, ...] | None = None
    discard: tuple[int, ...] | None = None
    shark: int | None = None
    cell: Cell | None = None
    fatal: bool = False

    @classmethod
    def from_wire(cls, value: object, where: str = "choice") -> Choice:
        """Read a choice: its ``do`` known, its fields those the ``do`` has, of their types."""
        m = as_map(value, where)
        do = get_str(m, "do", where)
        shape = CHOICES.get(do)
        if shape is None:
            raise MalformedMessage(f"{where}.do", "a known choice")
        allowed = {"do", "fatal", *shape.required, *shape.optional}
        extra = sorted(set(m) - allowed)
        if extra:
            raise MalformedMessage(f"{where}.{extra[0]}", f"absent from a {do!r} choice")
        missing = [name for name in shape.required if name not in m]
        if missing:
            raise MalformedMessage(f"{where}.{missing[0]}", f"present in a {do!r} choice")
        fatal = m.get("fatal", False)
        if type(fatal) is not bool:
            raise MalformedMessage(f"{where}.fatal", "a boolean")
        values: dict[str, Any] = {}
        for name in m:
            if name in ("do", "fatal"):
                continue
            place = f"{where}.{name}"
            if name in (ChoiceField.CARDS, ChoiceField.DISCARD):
                values[name] = _card_ids(m[name], place)
            elif name == ChoiceField.CELL:
                values[name] = as_cell(m[name], place)
            else:
                values[name] = as_int(m[name], place)
        return cls(do, fatal=fatal, **values)

    def to_wire(self) -> dict[str, Any]:
        """The choice's wire map (absent fields left out; ``fatal`` only when true)."""
        out: dict[str, Any] = {"do": self.do}
        if self.card is not None:
            out["card"] = self.card
        if self.target is not None:
            out["target"] = self.target
        if self.cards is not None:
            out["cards"] = list(self.cards)
        if self.discard is not None:
            out["discard"] = list(self.discard)
        if self.shark is not None:
            out["shark"] = self.shark
        if self.cell is not None:
            out["cell"] = list(self.cell)
        if self.fatal:
            out["fatal"] = True
        return out


#: An event or decision argument's value (which one its name says: vocabulary.ARG_TYPES).
Arg = int | str | Card | Location | tuple[Card, ...] | Cell | Choice


def read_arg(name: str, value: object, where: str) -> Arg:
    """Read the argument ``name`` by the type its name has."""
    kind = ARG_TYPES.get(name)
    if kind is None:
        raise MalformedMessage(where, "a known argument")
    if kind in (ArgType.SEAT, ArgType.INT):
        return as_int(value, where)
    if kind is ArgType.CARD:
        return Card.from_wire(value, where)
    if kind is ArgType.CARDS:
        return tuple(
            Card.from_wire(item, f"{where}[{i}]") for i, item in enumerate(as_list(value, where))
        )
    if kind is ArgType.LOCATION:
        return Location.from_wire(value, where)
    if kind is ArgType.CELL:
        return as_cell(value, where)
    if kind is ArgType.CHOICE:
        return Choice.from_wire(value, where)
    text = as_str(value, where)
    allowed = {ArgType.DIRECTION: DIRECTIONS, ArgType.GOAL: GOALS, ArgType.RESOURCE: RESOURCES}
    if kind in allowed and text not in allowed[kind]:
        raise MalformedMessage(where, f"one of {', '.join(allowed[kind])}")
    return text  # a reason: one of vocabulary.REASONS or a card key


def arg_to_wire(value: Arg) -> Any:
    """An argument's wire form."""
    if isinstance(value, Card | Location | Choice):
        return value.to_wire()
    if isinstance(value, tuple):
        return [item.to_wire() if isinstance(item, Card) else item for item in value]
    return value


def read_args(value: object, allowed: tuple[str, ...], where: str) -> dict[str, Arg]:
    """Read an ``args`` map whose names are among ``allowed``."""
    m = as_map(value, where)
    args: dict[str, Arg] = {}
    for name, item in m.items():
        if name not in allowed:
            raise MalformedMessage(f"{where}.{name}", "an argument of this key")
        args[name] = read_arg(name, item, f"{where}.{name}")
    return args


@dataclass(frozen=True)
class Event:
    """One log line: its family ``kind``, its ``key`` (vocabulary.EVENTS), the seat it is mainly
    about, and its ``args`` as the recipient may see them (secret ones may be left out)."""

    kind: str
    key: str
    seat: int | None
    args: Mapping[str, Arg] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, value: object, where: str = "event") -> Event:
        """Read an event: a known key of its kind, with that key's arguments (each of its
        type); a secret argument may be missing, any other must be there."""
        m = as_map(value, where)
        key = get_str(m, "key", where)
        known = EVENTS.get(key)
        if known is None:
            raise MalformedMessage(f"{where}.key", "a known event key")
        kind = get_str(m, "kind", where)
        if kind != known.kind:
            raise MalformedMessage(f"{where}.kind", f"{known.kind!r} for key {key!r}")
        args = read_args(m.get("args"), known.args, f"{where}.args")
        missing = [name for name in known.args if name not in args and name not in known.secret]
        if missing:
            raise MalformedMessage(f"{where}.args.{missing[0]}", "present")
        return cls(kind, key, get_opt_int(m, "seat", where), args)

    def to_wire(self) -> dict[str, Any]:
        """The event's wire map."""
        args = {name: arg_to_wire(value) for name, value in self.args.items()}
        return {"kind": self.kind, "key": self.key, "seat": self.seat, "args": args}


@dataclass(frozen=True)
class Decision:
    """What the seat is asked: a ``kind`` of vocabulary.DECISIONS with its ``args``, and the
    cards it chooses from when they are not its own (``reveal``: Hack Suit, Pirate)."""

    kind: str
    args: Mapping[str, Arg] = field(default_factory=dict)
    reveal: tuple[Card, ...] = ()

    @classmethod
    def from_wire(cls, value: object, where: str = "decision") -> Decision:
        """Read a decision."""
        m = as_map(value, where)
        kind = get_str(m, "kind", where)
        names = DECISIONS.get(kind)
        if names is None:
            raise MalformedMessage(f"{where}.kind", "a known decision kind")
        args = read_args(m.get("args"), names, f"{where}.args")
        if len(args) != len(names):
            raise MalformedMessage(f"{where}.args", f"{', '.join(names) or 'empty'}")
        return cls(kind, args, get_items(m, "reveal", where, Card.from_wire))

    def to_wire(self) -> dict[str, Any]:
        """The decision's wire map."""
        args = {name: arg_to_wire(value) for name, value in self.args.items()}
        return {"kind": self.kind, "args": args, "reveal": [c.to_wire() for c in self.reveal]}
