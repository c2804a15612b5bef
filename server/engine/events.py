"""Events: what happened, as structured data tagged with who may see it (RULES C4).

An event is a family ``kind`` (what a client styles by: ``draw``, ``move``, ``win`` ...), a
``key`` naming its sentence exactly (``draw``, ``draw.none``, ``win.raft`` ...; the keys and their
arguments are listed in protocol/PROTOCOL.md), and ``args``: the seats, cards, rows and counts
the sentence is made of. The English sentence is rendered from ``english.EVENT_TEXTS`` only when
someone reads it, so self-play, which reads none, builds no strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, Location
from .english import render_event


@dataclass(slots=True)
class Event:
    """One log entry (treat as immutable; not frozen because frozen init is slower and games
    create tens of thousands of events a second in self-play).

    ``to is None``: everyone sees the whole event. Otherwise the seats in ``to`` see it whole and
    everybody else (spectators included) sees it without the ``secret`` args, as the redacted
    sentence of its key (an event whose key has none is hidden from them).
    """

    kind: str
    key: str
    args: dict[str, Any]
    names: Sequence[str] = ()  # the game's player names, shared (rendering names the seats)
    seat: int | None = None  # the seat the event is mainly about, for highlighting
    to: tuple[int, ...] | None = None
    secret: tuple[str, ...] = field(default=())

    def sees_all(self, seat: int | None) -> bool:
        """Whether ``seat`` (None = spectator) sees the event unredacted."""
        return self.to is None or (seat is not None and seat in self.to)

    @property
    def text(self) -> str:
        """The whole sentence, as the seats in ``to`` read it."""
        return render_event(self.key, self.args, self.names, redacted=False) or ""

    @property
    def public_text(self) -> str | None:
        """The sentence everyone else reads, or None when they see nothing."""
        if self.to is None:
            return self.text
        return render_event(self.key, self.visible_args(None), self.names, redacted=True)

    def visible_args(self, seat: int | None) -> dict[str, Any]:
        """The args ``seat`` may see (the secret ones removed for those outside ``to``)."""
        if self.sees_all(seat) or not self.secret:
            return self.args
        return {name: value for name, value in self.args.items() if name not in self.secret}

    def for_seat(self, seat: int | None) -> str | None:
        """The text ``seat`` may read (None = spectator), or None if the event is hidden."""
        if self.sees_all(seat):
            return self.text
        return self.public_text

    def as_dict(self, seat: int | None) -> dict[str, object] | None:
        """The event as a wire-safe map for ``seat``, or None when it must not see it: ``kind``,
        ``key``, ``seat``, ``text`` and ``args`` (cards as maps, cells as [col, row])."""
        text = self.for_seat(seat)
        if text is None:
            return None
        args = {name: wire_value(value) for name, value in self.visible_args(seat).items()}
        return {"kind": self.kind, "key": self.key, "text": text, "seat": self.seat, "args": args}


def wire_value(value: Any) -> Any:
    """An event argument in wire form: a game card as {id, key, dir}, a location card as
    {id, key, shark}, a cell as [col, row], lists element by element."""
    if isinstance(value, Card):
        return {"id": value.id, "key": value.key, "dir": value.dir}
    if isinstance(value, Location):
        return {"id": value.id, "key": value.key, "shark": value.shark}
    if isinstance(value, tuple):
        return [wire_value(item) for item in value]
    if isinstance(value, list):
        return [wire_value(item) for item in value]
    return value
