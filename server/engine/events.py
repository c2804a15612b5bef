"""Events: what happened, as human-readable text, tagged with who may read it (RULES C4)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Event:
    """One log line (treat as immutable; not frozen because frozen init is slower and
    games create tens of thousands of events a second in self-play).

    ``to is None``: everyone reads ``text``. Otherwise the seats in ``to`` read ``text`` and
    everybody else (spectators included) reads ``public_text``, or nothing when it is None.
    """

    kind: str
    text: str
    to: tuple[int, ...] | None = None
    public_text: str | None = None
    seat: int | None = None  # the seat the event is mainly about, for highlighting

    def for_seat(self, seat: int | None) -> str | None:
        """The text ``seat`` may read (None = spectator), or None if the event is hidden."""
        if self.to is None or (seat is not None and seat in self.to):
            return self.text
        return self.public_text

    def as_dict(self, seat: int | None) -> dict[str, object] | None:
        """The event as a wire-safe map for ``seat``, or None when it must not see it."""
        text = self.for_seat(seat)
        if text is None:
            return None
        return {"kind": self.kind, "text": text, "seat": self.seat}
