"""Reading a decoded server message's fields by their exact wire types.

A decoded msgpack value is exactly one of int, bool, float, str, bytes, list, dict or None, and
a bool is an int to :func:`isinstance`: every reader here checks the exact type, so ``true``
is never a seat and ``1.0`` never a card id. Each raises
:class:`~protocol.errors.MalformedMessage` naming the field (``where``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from protocol.errors import MalformedMessage

T = TypeVar("T")
Wire = Mapping[str, Any]


def as_map(value: object, where: str) -> Wire:
    """``value`` as a map with string keys."""
    if type(value) is not dict or not all(type(key) is str for key in value):
        raise MalformedMessage(where, "a map with string keys")
    return value


def as_int(value: object, where: str) -> int:
    """``value`` as an integer (never a bool)."""
    if type(value) is not int:
        raise MalformedMessage(where, "an integer")
    return value


def as_str(value: object, where: str) -> str:
    """``value`` as a string."""
    if type(value) is not str:
        raise MalformedMessage(where, "a string")
    return value


def as_list(value: object, where: str) -> list[Any]:
    """``value`` as a list."""
    if type(value) is not list:
        raise MalformedMessage(where, "a list")
    return value


def get_int(m: Wire, key: str, where: str) -> int:
    """The integer ``m[key]``."""
    return as_int(m.get(key), f"{where}.{key}")


def get_count(m: Wire, key: str, where: str) -> int:
    """A non-negative integer ``m[key]`` (a count, an index)."""
    value = get_int(m, key, where)
    if value < 0:
        raise MalformedMessage(f"{where}.{key}", "a non-negative integer")
    return value


def _present(m: Wire, key: str, where: str, may_miss: bool) -> None:
    if not may_miss and key not in m:
        raise MalformedMessage(f"{where}.{key}", "present (null when there is none)")


def get_opt_int(m: Wire, key: str, where: str, *, may_miss: bool = False) -> int | None:
    """The integer or null ``m[key]`` (``may_miss``: a missing key is null)."""
    _present(m, key, where, may_miss)
    value = m.get(key)
    return None if value is None else as_int(value, f"{where}.{key}")


def get_str(m: Wire, key: str, where: str) -> str:
    """The string ``m[key]``."""
    return as_str(m.get(key), f"{where}.{key}")


def get_opt_str(m: Wire, key: str, where: str, *, may_miss: bool = False) -> str | None:
    """The string or null ``m[key]`` (``may_miss``: a missing key is null)."""
    _present(m, key, where, may_miss)
    value = m.get(key)
    return None if value is None else as_str(value, f"{where}.{key}")


def get_bool(m: Wire, key: str, where: str) -> bool:
    """The boolean ``m[key]``."""
    value = m.get(key)
    if type(value) is not bool:
        raise MalformedMessage(f"{where}.{key}", "a boolean")
    return value


def get_number(m: Wire, key: str, where: str) -> float:
    """The number (integer or float, never a bool) ``m[key]``."""
    value = m.get(key)
    if type(value) is not int and type(value) is not float:
        raise MalformedMessage(f"{where}.{key}", "a number")
    return float(value)


def get_choice_of(m: Wire, key: str, allowed: tuple[str, ...], where: str) -> str:
    """The string ``m[key]``, one of ``allowed``."""
    value = get_str(m, key, where)
    if value not in allowed:
        raise MalformedMessage(f"{where}.{key}", f"one of {', '.join(allowed)}")
    return value


def get_map(m: Wire, key: str, where: str) -> Wire:
    """The map ``m[key]``."""
    return as_map(m.get(key), f"{where}.{key}")


def get_items(m: Wire, key: str, where: str, read: Callable[[object, str], T]) -> tuple[T, ...]:
    """The list ``m[key]``, each item read by ``read(item, its place)``."""
    place = f"{where}.{key}"
    return tuple(read(item, f"{place}[{i}]") for i, item in enumerate(as_list(m.get(key), place)))


def get_strs(m: Wire, key: str, where: str) -> tuple[str, ...]:
    """The list of strings ``m[key]``."""
    return get_items(m, key, where, as_str)


def get_ints(m: Wire, key: str, where: str) -> tuple[int, ...]:
    """The list of integers ``m[key]``."""
    return get_items(m, key, where, as_int)


def as_cell(value: object, where: str) -> tuple[int, int]:
    """``value`` as a cell, ``[col, row]``."""
    items = as_list(value, where)
    if len(items) != 2:
        raise MalformedMessage(where, "[col, row]")
    return as_int(items[0], f"{where}[0]"), as_int(items[1], f"{where}[1]")
