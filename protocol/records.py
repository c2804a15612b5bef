"""Finished games, records and ratings on the wire: the parts of their replies (a game in a
list, a seat, a rating, a record, a leaderboard line, a review's member). The replies themselves
are in :mod:`protocol.server_messages` with every other, the requests in
:mod:`protocol.messages`.

Each part declares its fields' wire types once (protocol.wire_fields), which give it
``to_wire`` (what the server sends) and ``from_wire`` (what a client reads;
:class:`~protocol.errors.MalformedMessage` for a map that is not one).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.game_types import EDITIONS
from protocol.messages import BOT_LEVELS
from protocol.room_messages import SEAT_KINDS
from protocol.wire_fields import (
    BOOL,
    COUNT,
    INT,
    NUMBER,
    OPT_INT,
    OPT_STR,
    STR,
    STRS,
    WireRecord,
    items,
    one_of,
    opt_part,
    part,
    wire,
)

__all__ = [
    "BOT_PLAYERS",
    "EditionRecord",
    "GameSummary",
    "LeaderboardEntry",
    "Rating",
    "RatingChange",
    "ReviewMember",
    "SeatRecord",
]

#: Player ids of the bot levels' records and ratings (``get_profile`` takes them too).
BOT_PLAYERS = {level: f"bot:{level}" for level in BOT_LEVELS}
# --------------------------------------------------------------------------- replies' parts


@dataclass(frozen=True, slots=True)
class SeatRecord(WireRecord):
    """Who held a seat of a finished game: a person (``player`` their id, None for a guest)
    or a server bot (``level``); ``left``: its person left before the end (a bot finished)."""

    name: str = wire(STR)
    kind: str = wire(one_of(SEAT_KINDS))
    player: str | None = wire(OPT_STR, default=None)
    level: str | None = wire(OPT_STR, default=None)
    left: bool = wire(BOOL, default=False)


@dataclass(frozen=True, slots=True)
class GameSummary(WireRecord):
    """One finished game in a ``replays`` page. ``seat``: the listed player's seat (a
    listing by ``player``), else None."""

    game: int = wire(INT)
    room: str = wire(STR)
    edition: str = wire(one_of(EDITIONS))
    variants: tuple[str, ...] = wire(STRS)
    seats: tuple[SeatRecord, ...] = wire(items(SeatRecord.from_wire))
    winner: int | None = wire(OPT_INT)
    turns: int = wire(COUNT)
    ended: float = wire(NUMBER)
    public: bool = wire(BOOL)
    rated: bool = wire(BOOL)
    seat: int | None = wire(OPT_INT, default=None)

    @property
    def names(self) -> list[str]:
        """The names in seat order."""
        return [seat.name for seat in self.seats]


@dataclass(frozen=True, slots=True)
class Rating(WireRecord):
    """A Weng-Lin (Plackett-Luce) rating: ``mu`` and ``sigma`` as the model has them;
    ``rating`` is what players read (40 times mu, rounded); ``provisional`` (shown "1000?") until
    sigma falls below the server's threshold."""

    rating: int = wire(INT)
    mu: float = wire(NUMBER)
    sigma: float = wire(NUMBER)
    provisional: bool = wire(BOOL)

    def shown(self) -> str:
        """How a player reads it: ``1040``, or ``1040?`` while provisional."""
        return f"{self.rating}?" if self.provisional else str(self.rating)


RATING = part(Rating.from_wire)
SOME_RATING = opt_part(Rating.from_wire)  # null until a rated game


@dataclass(frozen=True, slots=True)
class RatingChange(WireRecord):
    """What one seat's rating was before a rated game and after it."""

    seat: int = wire(COUNT)
    player: str = wire(STR)
    rank: int = wire(INT)  # 1 is the winner; tied seats share a rank
    before: Rating = wire(RATING)
    after: Rating = wire(RATING)


@dataclass(frozen=True, slots=True)
class EditionRecord(WireRecord):
    """A player's record in one edition. ``streak``: wins in a row up to the last game (0
    after a game not won); ``best_streak``: the longest ever. ``rating``: None until a rated
    game."""

    edition: str = wire(one_of(EDITIONS))
    games: int = wire(COUNT)
    wins: int = wire(COUNT)
    no_winner: int = wire(COUNT)  # games that ended with nobody winning
    streak: int = wire(COUNT)
    best_streak: int = wire(COUNT)
    last_played: float = wire(NUMBER)
    rated_games: int = wire(COUNT)
    rating: Rating | None = wire(SOME_RATING)


@dataclass(frozen=True, slots=True)
class LeaderboardEntry(WireRecord):
    """One line of a leaderboard."""

    rank: int = wire(INT)
    player: str = wire(STR)
    name: str = wire(STR)
    rating: Rating = wire(RATING)
    games: int = wire(COUNT)
    wins: int = wire(COUNT)
    last_played: float = wire(NUMBER)


@dataclass(frozen=True, slots=True)
class ReviewMember(WireRecord):
    """Someone in a shared review; ``following``: they see the leader's step."""

    player: str = wire(STR)
    name: str = wire(STR)
    following: bool = wire(BOOL)
