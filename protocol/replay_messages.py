"""The server messages about finished games: a ``replays`` page and one game's ``replay``."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from protocol.errors import MalformedMessage
from protocol.fields import (
    as_int,
    as_list,
    as_map,
    get_choice_of,
    get_count,
    get_int,
    get_items,
    get_number,
    get_opt_int,
    get_str,
    get_strs,
)
from protocol.game_types import EDITIONS, Choice
from protocol.message_base import ServerMessage, Wire, message


@dataclass(frozen=True)
class ReplaySummary:
    """A finished game in a ``replays`` page; ``ended`` is a Unix time."""

    game: int
    room: str
    edition: str
    variants: tuple[str, ...]
    names: tuple[str, ...]
    winner: int | None
    turns: int
    ended: float

    @classmethod
    def from_wire(cls, value: object, where: str = "games") -> ReplaySummary:
        """Read a game summary."""
        m = as_map(value, where)
        return cls(
            game=get_int(m, "game", where),
            room=get_str(m, "room", where),
            edition=get_choice_of(m, "edition", EDITIONS, where),
            variants=get_strs(m, "variants", where),
            names=get_strs(m, "names", where),
            winner=get_opt_int(m, "winner", where),
            turns=get_count(m, "turns", where),
            ended=get_number(m, "ended", where),
        )

    def to_wire(self) -> dict[str, Any]:
        """The summary's wire map."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["variants"], out["names"] = list(self.variants), list(self.names)
        return out


@message("replays")
@dataclass(frozen=True, kw_only=True)
class ReplaysMessage(ServerMessage):
    """A page of finished games, newest first; ``next``: the ``before`` of the next page
    (None once the list ends)."""

    REPLY_ONLY = True
    games: tuple[ReplaySummary, ...]
    next: int | None

    def body(self) -> dict[str, Any]:
        return {"games": [g.to_wire() for g in self.games], "next": self.next}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            games=get_items(m, "games", "replays", ReplaySummary.from_wire),
            next=get_opt_int(m, "next", "replays"),
        )


def _decision(value: object, where: str) -> tuple[int, Choice]:
    pair = as_list(value, where)
    if len(pair) != 2:
        raise MalformedMessage(where, "[seat, choice]")
    return as_int(pair[0], f"{where}[0]"), Choice.from_wire(pair[1], f"{where}[1]")


@message("replay")
@dataclass(frozen=True, kw_only=True)
class ReplayMessage(ServerMessage):
    """One finished game: its setup and every decision, ``(seat, choice)`` in order: with
    the rules engine they rebuild the game exactly."""

    REPLY_ONLY = True
    game: int
    room: str
    edition: str
    variants: tuple[str, ...]
    names: tuple[str, ...]
    seed: int
    winner: int | None
    turns: int
    decisions: tuple[tuple[int, Choice], ...]

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": list(self.variants),
            "names": list(self.names),
            "seed": self.seed,
            "winner": self.winner,
            "turns": self.turns,
            "decisions": [[seat, choice.to_wire()] for seat, choice in self.decisions],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "replay"
        return cls(
            id=rid,
            game=get_int(m, "game", w),
            room=get_str(m, "room", w),
            edition=get_choice_of(m, "edition", EDITIONS, w),
            variants=get_strs(m, "variants", w),
            names=get_strs(m, "names", w),
            seed=get_int(m, "seed", w),
            winner=get_opt_int(m, "winner", w),
            turns=get_count(m, "turns", w),
            decisions=get_items(m, "decisions", w, _decision),
        )
