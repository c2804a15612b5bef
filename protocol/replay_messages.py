"""The server messages about finished games and players: a ``replays`` page, one game's
``replay``, a ``profile``, a ``leaderboard`` page and a shared ``review``."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import MalformedMessage
from protocol.fields import as_int, as_list
from protocol.game_types import EDITIONS, Choice
from protocol.message_base import ServerMessage, message
from protocol.play_messages import RATINGS
from protocol.records import (
    EditionRecord,
    GameSummary,
    LeaderboardEntry,
    RatingChange,
    ReviewMember,
    SeatRecord,
)
from protocol.wire_fields import (
    BOOL,
    COUNT,
    INT,
    NUMBER,
    OPT_INT,
    OPT_STR,
    STR,
    STRS,
    Codec,
    items,
    one_of,
    wire,
)


@message("replays")
@dataclass(frozen=True, kw_only=True)
class ReplaysMessage(ServerMessage):
    """A page of finished games, newest first (protocol.records.GameSummary); ``next``: the
    ``before`` of the next page (None once the list ends)."""

    REPLY_ONLY = True
    games: tuple[GameSummary, ...] = wire(items(GameSummary.from_wire))
    next: int | None = wire(OPT_INT)


def _decision(value: object, where: str) -> tuple[int, Choice]:
    pair = as_list(value, where)
    if len(pair) != 2:
        raise MalformedMessage(where, "[seat, choice]")
    return as_int(pair[0], f"{where}[0]"), Choice.from_wire(pair[1], f"{where}[1]")


#: A game's decisions: ``[seat, choice]`` pairs.
DECISIONS: Codec[tuple[tuple[int, Choice], ...]] = Codec(
    items(_decision).read,
    lambda decisions: [[seat, choice.to_wire()] for seat, choice in decisions],
)


@message("replay")
@dataclass(frozen=True, kw_only=True)
class ReplayMessage(ServerMessage):
    """One finished game whole: its setup and every decision, ``(seat, choice)`` in order
    (with the rules engine they rebuild the game exactly), its result, whether it was public and
    rated, the check of its final state (``digest``, server.engine.digest) under rules version
    ``rules``, and its rating changes. What an export file holds (protocol.replay_file)."""

    REPLY_ONLY = True
    game: int = wire(INT)
    room: str = wire(STR)
    edition: str = wire(one_of(EDITIONS))
    variants: tuple[str, ...] = wire(STRS)
    seats: tuple[SeatRecord, ...] = wire(items(SeatRecord.from_wire))
    seed: int = wire(INT)
    decisions: tuple[tuple[int, Choice], ...] = wire(DECISIONS)
    winner: int | None = wire(OPT_INT)
    turns: int = wire(COUNT)
    started: float = wire(NUMBER)
    ended: float = wire(NUMBER)
    public: bool = wire(BOOL)
    rated: bool = wire(BOOL)
    digest: str = wire(STR)
    rules: int = wire(INT)
    ratings: tuple[RatingChange, ...] = wire(RATINGS, default=())

    @property
    def names(self) -> list[str]:
        """The seats' names in seat order."""
        return [seat.name for seat in self.seats]


@message("profile")
@dataclass(frozen=True, kw_only=True)
class ProfileMessage(ServerMessage):
    """A player's (or a bot level's: ``bot``) record and rating in each edition they played
    (protocol.records.EditionRecord)."""

    REPLY_ONLY = True
    player: str = wire(STR)
    name: str = wire(STR)
    bot: bool = wire(BOOL)
    editions: tuple[EditionRecord, ...] = wire(items(EditionRecord.from_wire))


@message("leaderboard")
@dataclass(frozen=True, kw_only=True)
class LeaderboardMessage(ServerMessage):
    """One page of an edition's leaderboard, best first; ``next``: the ``after`` of the
    following page (None at its end)."""

    REPLY_ONLY = True
    edition: str = wire(one_of(EDITIONS))
    entries: tuple[LeaderboardEntry, ...] = wire(items(LeaderboardEntry.from_wire))
    next: str | None = wire(OPT_STR)


@message("review")
@dataclass(frozen=True, kw_only=True)
class ReviewMessage(ServerMessage):
    """The shared review of ``room``'s finished ``game`` as it is now: the leader's ``step``
    (decisions applied, 0 to ``steps``), its ``leader``, its members in join order; ``open``
    false: it ended, or you left it."""

    room: str = wire(STR)
    game: int = wire(INT)
    step: int = wire(INT)
    steps: int = wire(INT)
    leader: str = wire(STR)
    members: tuple[ReviewMember, ...] = wire(items(ReviewMember.from_wire))
    open: bool = wire(BOOL, default=True)
