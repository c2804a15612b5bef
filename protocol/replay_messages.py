"""The server messages about finished games and players: a ``replays`` page, one game's
``replay``, a ``profile``, a ``leaderboard`` page and a shared ``review``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.errors import MalformedMessage
from protocol.fields import (
    as_int,
    as_list,
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
from protocol.game_types import EDITIONS, Choice
from protocol.message_base import ServerMessage, Wire, message
from protocol.play_messages import rating_changes
from protocol.records import (
    EditionRecord,
    GameSummary,
    LeaderboardEntry,
    RatingChange,
    ReviewMember,
    SeatRecord,
)


@message("replays")
@dataclass(frozen=True, kw_only=True)
class ReplaysMessage(ServerMessage):
    """A page of finished games, newest first (protocol.records.GameSummary); ``next``: the
    ``before`` of the next page (None once the list ends)."""

    REPLY_ONLY = True
    games: tuple[GameSummary, ...]
    next: int | None

    def body(self) -> dict[str, Any]:
        return {"games": [g.to_wire() for g in self.games], "next": self.next}

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        return cls(
            id=rid,
            games=get_items(
                m, "games", "replays", lambda v, w: GameSummary.from_wire(as_map(v, w))
            ),
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
    """One finished game whole: its setup and every decision, ``(seat, choice)`` in order
    (with the rules engine they rebuild the game exactly), its result, whether it was public and
    rated, the check of its final state (``digest``, server.engine.digest) under rules version
    ``rules``, and its rating changes. What an export file holds (protocol.replay_file)."""

    REPLY_ONLY = True
    game: int
    room: str
    edition: str
    variants: tuple[str, ...]
    seats: tuple[SeatRecord, ...]
    seed: int
    decisions: tuple[tuple[int, Choice], ...]
    winner: int | None
    turns: int
    started: float
    ended: float
    public: bool
    rated: bool
    digest: str
    rules: int
    ratings: tuple[RatingChange, ...] = ()

    @property
    def names(self) -> list[str]:
        """The seats' names in seat order."""
        return [seat.name for seat in self.seats]

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": list(self.variants),
            "seats": [seat.to_wire() for seat in self.seats],
            "seed": self.seed,
            "decisions": [[seat, choice.to_wire()] for seat, choice in self.decisions],
            "winner": self.winner,
            "turns": self.turns,
            "started": self.started,
            "ended": self.ended,
            "public": self.public,
            "rated": self.rated,
            "digest": self.digest,
            "rules": self.rules,
            "ratings": [change.to_wire() for change in self.ratings],
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
            seats=get_items(m, "seats", w, lambda v, x: SeatRecord.from_wire(as_map(v, x))),
            seed=get_int(m, "seed", w),
            decisions=get_items(m, "decisions", w, _decision),
            winner=get_opt_int(m, "winner", w),
            turns=get_count(m, "turns", w),
            started=get_number(m, "started", w),
            ended=get_number(m, "ended", w),
            public=get_bool(m, "public", w),
            rated=get_bool(m, "rated", w),
            digest=get_str(m, "digest", w),
            rules=get_int(m, "rules", w),
            ratings=rating_changes(m, w),
        )


@message("profile")
@dataclass(frozen=True, kw_only=True)
class ProfileMessage(ServerMessage):
    """A player's (or a bot level's: ``bot``) record and rating in each edition they played
    (protocol.records.EditionRecord)."""

    REPLY_ONLY = True
    player: str
    name: str
    bot: bool
    editions: tuple[EditionRecord, ...]

    def body(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "bot": self.bot,
            "editions": [record.to_wire() for record in self.editions],
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "profile"
        return cls(
            id=rid,
            player=get_str(m, "player", w),
            name=get_str(m, "name", w),
            bot=get_bool(m, "bot", w),
            editions=get_items(
                m, "editions", w, lambda v, x: EditionRecord.from_wire(as_map(v, x))
            ),
        )


@message("leaderboard")
@dataclass(frozen=True, kw_only=True)
class LeaderboardMessage(ServerMessage):
    """One page of an edition's leaderboard, best first; ``next``: the ``after`` of the
    following page (None at its end)."""

    REPLY_ONLY = True
    edition: str
    entries: tuple[LeaderboardEntry, ...]
    next: str | None

    def body(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "entries": [entry.to_wire() for entry in self.entries],
            "next": self.next,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "leaderboard"
        return cls(
            id=rid,
            edition=get_choice_of(m, "edition", EDITIONS, w),
            entries=get_items(
                m, "entries", w, lambda v, x: LeaderboardEntry.from_wire(as_map(v, x))
            ),
            next=get_opt_str(m, "next", w),
        )


@message("review")
@dataclass(frozen=True, kw_only=True)
class ReviewMessage(ServerMessage):
    """The shared review of ``room``'s finished ``game`` as it is now: the leader's ``step``
    (decisions applied, 0 to ``steps``), its ``leader``, its members in join order; ``open``
    false: it ended, or you left it."""

    room: str
    game: int
    step: int
    steps: int
    leader: str
    members: tuple[ReviewMember, ...]
    open: bool = True

    def body(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "game": self.game,
            "step": self.step,
            "steps": self.steps,
            "leader": self.leader,
            "members": [member.to_wire() for member in self.members],
            "open": self.open,
        }

    @classmethod
    def read(cls, m: Wire, rid: int | None) -> ServerMessage:
        w = "review"
        return cls(
            id=rid,
            room=get_str(m, "room", w),
            game=get_int(m, "game", w),
            step=get_int(m, "step", w),
            steps=get_int(m, "steps", w),
            leader=get_str(m, "leader", w),
            members=get_items(m, "members", w, lambda v, x: ReviewMember.from_wire(as_map(v, x))),
            open=get_bool(m, "open", w),
        )
