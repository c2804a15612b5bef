"""A finished game to watch: its record, re-played by the engine, read from any seat's view.

:class:`ReplayRecord` is a game's record as the server's ``replay`` reply or an exported file
gives it (setup, decisions, result). :func:`open_replay` re-plays it with the engine (through
selfish_tui/local.py, the one module of the client that imports the server package) and gives a
:class:`Replay`: the board after each decision as a seat saw it then, or with everything
revealed (every hand, the draw pile in the order it came), and the log as each reader read it.

Every string of a record (names above all) comes from the network or a file: the record is
cleaned (selfish_tui.plain) before anything reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfish_tui.i18n import _
from selfish_tui.model import View
from selfish_tui.plain import clean_message

#: The perspective that sees everything (every hand, the draw pile); a seat number sees what
#: that seat knew.
REVEALED = None

Perspective = int | None


class BadRecord(ValueError):
    """A record that cannot be watched: one sentence for a person, in the active language."""


@dataclass(frozen=True)
class ReplayRecord:
    """One finished game: what the engine needs to re-play it, and what the server said of it."""

    edition: str
    names: tuple[str, ...]
    seed: int
    decisions: tuple[tuple[int, dict[str, Any]], ...]
    variants: tuple[str, ...] = ()
    game: int | None = None  # the server's game id
    room: str = ""
    winner: int | None = None
    turns: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # other fields kept

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> ReplayRecord:
        """The record in a ``replay`` reply (protocol/PROTOCOL.md) or a file's map of the same
        fields; :class:`BadRecord` when a field is missing or of the wrong type."""
        data = clean_message(message)
        if not isinstance(data, dict):
            raise BadRecord(_("a replay is a map of its fields"))
        edition = data.get("edition")
        names = data.get("names")
        seed = data.get("seed")
        decisions = data.get("decisions")
        variants = data.get("variants") or []
        if edition not in ("space", "shipwrecked"):
            raise BadRecord(_("the replay's edition is missing or unknown"))
        if (
            not isinstance(names, list)
            or not 2 <= len(names) <= 5
            or not all(isinstance(name, str) for name in names)
        ):
            raise BadRecord(_("the replay's names are not 2 to 5 names"))
        if not _is_int(seed):
            raise BadRecord(_("the replay's seed is not a whole number"))
        if not isinstance(decisions, list):
            raise BadRecord(_("the replay has no list of decisions"))
        if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
            raise BadRecord(_("the replay's variants are not a list of rule ids"))
        pairs = []
        for number, pair in enumerate(decisions, start=1):
            if (
                not isinstance(pair, list | tuple)
                or len(pair) != 2
                or not _is_int(pair[0])
                or not isinstance(pair[1], dict)
            ):
                raise BadRecord(
                    _("decision {number} of the replay is not a seat and a choice").format(
                        number=number
                    )
                )
            pairs.append((int(pair[0]), dict(pair[1])))
        winner = data.get("winner")
        turns = data.get("turns")
        known = {"edition", "names", "seed", "decisions", "variants", "game", "room"}
        return cls(
            edition=str(edition),
            names=tuple(names),
            seed=int(seed),  # type: ignore[arg-type]
            decisions=tuple(pairs),
            variants=tuple(variants),
            game=int(data["game"]) if _is_int(data.get("game")) else None,
            room=str(data.get("room") or ""),
            winner=winner if isinstance(winner, int) and _is_int(winner) else None,
            turns=turns if isinstance(turns, int) and _is_int(turns) else None,
            extra={k: v for k, v in data.items() if k not in known | {"winner", "turns"}},
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def open_replay(record: ReplayRecord) -> Replay:
    """Re-play ``record`` with the engine; :class:`BadRecord` (with the engine's reason) when
    it does not re-play to the end it claims."""
    from selfish_tui import local

    try:
        replayer = local.Replayer(
            record.edition,
            list(record.names),
            record.seed,
            [list(pair) for pair in record.decisions],
            record.variants,
        )
    except local.ReplayRefused as exc:
        raise BadRecord(str(exc)) from None
    if record.winner is not None and replayer.winner != record.winner:
        raise BadRecord(
            _("the replay's winner is not the one its decisions lead to: it was changed")
        )
    return Replay(record, replayer)


class Replay:
    """A re-played game, one frame per moment (frame 0: the start; frame k: after k decisions).

    ``replayer`` is :class:`selfish_tui.local.Replayer` (or anything with its methods).
    """

    def __init__(self, record: ReplayRecord, replayer: Any) -> None:
        self.record = record
        self._replayer = replayer
        self.frames = len(replayer)
        self.turn_of: list[int] = list(replayer.turns)
        self.cards: dict[int, dict[str, Any]] = dict(replayer.cards)
        self.catalogue: dict[str, dict[str, str]] = dict(replayer.catalogue)
        self.card_names = {
            key: str(entry.get("name", key)) for key, entry in self.catalogue.items()
        }
        # Where each turn begins: the first frame that stands in it.
        self.turn_starts: dict[int, int] = {}
        for index, turn in enumerate(self.turn_of):
            self.turn_starts.setdefault(turn, index)
        self._events: list[dict[str, Any]] | None = None
        self._frame_of_event: list[int] = []

    @property
    def names(self) -> list[str]:
        """The seats' names, in seat order."""
        return list(self.record.names)

    @property
    def seats(self) -> int:
        """How many seats the game had."""
        return len(self.record.names)

    @property
    def last(self) -> int:
        """The last frame (the end of the game)."""
        return self.frames - 1

    @property
    def winner(self) -> int | None:
        """The seat that won, or None."""
        return self._replayer.winner  # type: ignore[no-any-return]

    @property
    def final(self) -> dict[str, Any]:
        """The engine's snapshot of the game's last state (every secret included)."""
        return self._replayer.final  # type: ignore[no-any-return]

    def decision(self, index: int) -> tuple[int, dict[str, Any]] | None:
        """The decision taken from frame ``index`` (seat, choice), None at the end."""
        if 0 <= index < len(self.record.decisions):
            return self.record.decisions[index]
        return None

    def view(self, index: int, perspective: Perspective) -> View:
        """The view at frame ``index``: a seat's own (what it knew then, its choices then), or
        with :data:`REVEALED` the spectator's with every hand (``hands``) and the draw piles,
        next card first (``draw_order``, ``loc_draw_order``)."""
        frame = self._replayer.frame(index)
        view = dict(frame["public"])
        if perspective is not None:
            view.update(frame["seats"][perspective])
            return view
        view["hands"] = [[self.cards[card] for card in hand] for hand in frame["hands"]]
        view["draw_order"] = [self.cards[card] for card in frame["draw"]]
        view["loc_draw_count"] = len(frame["loc_draw"])
        return view

    def hands(self, index: int) -> list[list[dict[str, Any]]]:
        """Every seat's hand at frame ``index`` (card maps)."""
        frame = self._replayer.frame(index)
        return [[self.cards[card] for card in hand] for hand in frame["hands"]]

    def _all_events(self) -> list[dict[str, Any]]:
        if self._events is None:
            self._events = []
            for index in range(self.frames):
                batch = self._replayer.events(index, index + 1)
                self._events.extend(batch)
                self._frame_of_event.extend([index] * len(batch))
        return self._events

    def events(self, start: int, end: int, perspective: Perspective) -> list[dict[str, Any]]:
        """The event maps frames ``start`` .. ``end - 1`` set off, as ``perspective`` read them
        (a seat reads what it was told; :data:`REVEALED` reads every event whole)."""
        out = []
        events = self._all_events()
        frames = self._frame_of_event
        # The events are in frame order: find the span by bisection.
        from bisect import bisect_left

        first, stop = bisect_left(frames, start), bisect_left(frames, end)
        for entry in events[first:stop]:
            to = entry["to"]
            if perspective is None or to is None or perspective in to:
                shown = entry["full"]
            else:
                shown = entry["public"]
            if shown is not None:
                out.append(shown)
        return out

    def event_counts(self) -> list[int]:
        """How many events (revealed) each frame set off, for the turns' timeline."""
        counts = [0] * self.frames
        self._all_events()
        for index in self._frame_of_event:
            counts[index] += 1
        return counts

    def turn_events(self, perspective: Perspective) -> dict[int, list[dict[str, Any]]]:
        """Every turn's events as ``perspective`` read them, by turn number."""
        out: dict[int, list[dict[str, Any]]] = {}
        for frame in range(self.frames):
            turn = self.turn_of[frame]
            out.setdefault(turn, []).extend(self.events(frame, frame + 1, perspective))
        return out

    def frame_of_turn(self, turn: int) -> int:
        """The first frame of ``turn`` (the nearest turn there is, for one out of range)."""
        turns = sorted(self.turn_starts)
        if turn <= turns[0]:
            return self.turn_starts[turns[0]]
        if turn >= turns[-1]:
            return self.turn_starts[turns[-1]]
        return self.turn_starts.get(turn, 0)
