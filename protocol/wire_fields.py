"""Wire types declared once: each field of a server message, or of one of its parts, names
its codec (:func:`wire`), and :func:`write_fields` and :func:`read_fields` write and read the
whole type from those declarations.

A codec reads one field of a decoded map by its exact wire type (protocol.fields: ``true`` is
never a seat, ``1.0`` never a card id) and raises :class:`~protocol.errors.MalformedMessage`
naming the field; it writes the field's value in wire form. :class:`WireRecord` gives a part
(a seat, a rating, a summary) its ``to_wire`` and ``from_wire`` from the same declarations;
:class:`protocol.message_base.ServerMessage` does the same for the messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from protocol.fields import (
    Wire,
    as_map,
    get_bool,
    get_choice_of,
    get_count,
    get_int,
    get_items,
    get_number,
    get_opt_int,
    get_opt_str,
    get_str,
    get_strs,
)

T = TypeVar("T")
R = TypeVar("R", bound="WireRecord")


def _same(value: object) -> object:
    return value


@dataclass(frozen=True, slots=True)
class Codec(Generic[T]):
    """How one field is read (``read(map, key, where)``) and written (``write(value)``);
    ``omit_none``: a None value is left out of the map (and a missing key reads as None)."""

    read: Callable[[Wire, str, str], T]
    write: Callable[[T], object] = _same
    omit_none: bool = False


def wire(
    codec: Codec[Any],
    *,
    default: Any = dataclasses.MISSING,
    default_factory: Any = dataclasses.MISSING,
) -> Any:
    """A dataclass field read and written by ``codec`` (with ``default`` or
    ``default_factory`` when it has one)."""
    return dataclasses.field(
        default=default, default_factory=default_factory, metadata={"codec": codec}
    )


STR: Codec[str] = Codec(get_str)
INT: Codec[int] = Codec(get_int)
COUNT: Codec[int] = Codec(get_count)  # an integer of at least 0: a count, an index
BOOL: Codec[bool] = Codec(get_bool)
NUMBER: Codec[float] = Codec(get_number)
OPT_INT: Codec[int | None] = Codec(get_opt_int)  # present, null when there is none
OPT_STR: Codec[str | None] = Codec(get_opt_str)
STRS: Codec[tuple[str, ...]] = Codec(get_strs, list)
#: A string left out of the map when there is none.
SOMETIMES_STR: Codec[str | None] = Codec(
    lambda m, key, where: get_opt_str(m, key, where, may_miss=True), omit_none=True
)


def one_of(allowed: tuple[str, ...]) -> Codec[str]:
    """A string, one of ``allowed``."""
    return Codec(lambda m, key, where: get_choice_of(m, key, allowed, where))


def items(read_one: Callable[[object, str], T]) -> Codec[tuple[T, ...]]:
    """A list, each item read by ``read_one(item, its place)`` and written by its
    ``to_wire``."""

    def write(values: tuple[Any, ...]) -> object:
        return [value.to_wire() for value in values]

    return Codec(lambda m, key, where: get_items(m, key, where, read_one), write)


def part(read_one: Callable[[object, str], T]) -> Codec[T]:
    """One map, read by ``read_one(map, its place)`` and written by its ``to_wire``."""

    def write(value: Any) -> object:
        return value.to_wire()

    return Codec(lambda m, key, where: read_one(m.get(key), f"{where}.{key}"), write)


def opt_part(read_one: Callable[[object, str], T]) -> Codec[T | None]:
    """One map as :func:`part` reads it, or null."""

    def read(m: Wire, key: str, where: str) -> T | None:
        value = m.get(key)
        return None if value is None else read_one(value, f"{where}.{key}")

    def write(value: Any) -> object:
        return None if value is None else value.to_wire()

    return Codec(read, write)


_DECLARED: dict[type, tuple[tuple[str, Codec[Any]], ...]] = {}


def declared(kind: type) -> tuple[tuple[str, Codec[Any]], ...]:
    """``kind``'s fields that have a codec, in declaration order, as (name, codec) pairs."""
    found = _DECLARED.get(kind)
    if found is None:
        found = tuple(
            (field.name, field.metadata["codec"])
            for field in dataclasses.fields(kind)
            if "codec" in field.metadata
        )
        _DECLARED[kind] = found
    return found


def write_fields(value: object) -> dict[str, Any]:
    """Every declared field of ``value`` in wire form, by name."""
    out: dict[str, Any] = {}
    for name, codec in declared(type(value)):
        item = getattr(value, name)
        if item is None and codec.omit_none:
            continue
        out[name] = codec.write(item)
    return out


def read_fields(kind: type, m: Wire, where: str) -> dict[str, Any]:
    """Every declared field of ``kind`` read from ``m`` (raises MalformedMessage)."""
    return {name: codec.read(m, name, where) for name, codec in declared(kind)}


class WireRecord:
    """A part of a message (a dataclass) written and read by its declared fields."""

    __slots__ = ()

    def to_wire(self) -> dict[str, Any]:
        """The part's wire map."""
        return write_fields(self)

    @classmethod
    def from_wire(cls: type[R], value: object, where: str) -> R:
        """Read the part from its map (raises MalformedMessage)."""
        record = cls(**read_fields(cls, as_map(value, where), where))
        record.check(where)
        return record

    def check(self, where: str) -> None:
        """Refuse what the fields' types let through but their meaning does not (raises
        MalformedMessage); nothing to refuse unless a part says so."""
