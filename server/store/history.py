"""The room's own log lines (``timeout``, ``away``, ``bot``) of a game, kept where they were said.

The engine's log holds what the rules did; the room adds lines of its own as members receive
them live. Each is kept (and stored) with the length of the game's log when it was said, so the
history sent on sync, reconnect, restart and mid-game join interleaves them exactly as they
were seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from protocol.vocabulary import EVENTS
from server.engine import Event
from server.store.store import Store

Message = dict[str, Any]


def seat_event(
    kind: str, key: str, index: int, to: tuple[int, ...] | None = None, **args: Any
) -> Event:
    """An event of the room about seat ``index`` (``away.*``, ``bot``, ``timeout``); with
    ``to``, the others see it without the choice."""
    args["player"] = index
    secret = ("choice",) if to is not None else ()
    return Event(kind, key, args, index, to, secret)


def to_record(event: Event) -> Message:
    """An event as the store keeps it."""
    return {
        "kind": event.kind,
        "key": event.key,
        "args": event.args,
        "seat": event.seat,
        "to": event.to,
        "secret": event.secret,
    }


def from_record(record: Message) -> Event | None:
    """An event stored by :func:`to_record`, or None if the record is not one. Args its key
    does not have are left out: a record from protocol 1 kept the English ``label`` of a
    bot's choice."""
    try:
        to = record.get("to")
        key = str(record["key"])
        names = EVENTS[key].args
        return Event(
            str(record["kind"]),
            key,
            {name: value for name, value in dict(record["args"]).items() if name in names},
            record.get("seat"),
            None if to is None else tuple(int(seat) for seat in to),
            tuple(str(arg) for arg in record.get("secret", ())),
        )
    except (KeyError, TypeError, ValueError):
        return None


class History:
    """The room's own events of the current game, each with its place in the game's log."""

    def __init__(self) -> None:
        self._said: list[tuple[int, Event]] = []

    def clear(self) -> None:
        """A new game."""
        self._said = []

    def restore(self, stored: Iterable[tuple[int, Message]]) -> None:
        """The events of a stored game; a record that does not decode is left out of the
        history, not a reason to stop."""
        said = ((position, from_record(record)) for position, record in stored)
        self._said = [(position, event) for position, event in said if event is not None]

    def record(self, store: Store, game: int, position: int, events: Iterable[Event]) -> None:
        """Keep (and store) ``events``, said before line ``position`` of the game's log."""
        for event in events:
            self._said.append((position, event))
            store.append_event(game, position, to_record(event))

    def merged(self, log: Sequence[Event]) -> list[Event]:
        """The game's ``log`` with the room's own events where members received them live."""
        out: list[Event] = []
        said = iter(self._said)
        pending = next(said, None)
        for index, event in enumerate(log):
            while pending is not None and pending[0] <= index:
                out.append(pending[1])
                pending = next(said, None)
            out.append(event)
        while pending is not None:
            out.append(pending[1])
            pending = next(said, None)
        return out
