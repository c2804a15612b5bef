"""Finished games, records and ratings on the wire: the parts of their replies (a game in a
list, a seat, a rating, a record, a leaderboard line, a review's member; the replies themselves
are in :mod:`protocol.server_messages` with every other), and the requests (defined in
:mod:`protocol.messages` with every other request).

Each part has ``to_wire`` (what the server sends) and ``from_wire`` (what a client reads;
:class:`~protocol.errors.MalformedMessage` for a map that is not one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The requests are in protocol.messages with every other; here for those who read them here.
from protocol.errors import MalformedMessage
from protocol.messages import (
    BOT_LEVELS,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    ListReplays,
    PlayDeal,
    ReviewFollow,
    ReviewJoin,
    ReviewLead,
    ReviewLeave,
    ReviewRequest,
    ReviewStep,
)

__all__ = [
    "BOT_PLAYERS",
    "EditionRecord",
    "GameSummary",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "LeaderboardEntry",
    "ListReplays",
    "PlayDeal",
    "Rating",
    "RatingChange",
    "ReviewFollow",
    "ReviewJoin",
    "ReviewLead",
    "ReviewLeave",
    "ReviewMember",
    "ReviewRequest",
    "ReviewStep",
    "SeatRecord",
]

#: Player ids of the bot levels' records and ratings (``get_profile`` takes them too).
BOT_PLAYERS = {level: f"bot:{level}" for level in BOT_LEVELS}
# --------------------------------------------------------------------------- replies' parts

_NULL = type(None)


def need(m: Mapping[str, Any], key: str, *kinds: type) -> Any:
    """``m[key]``, of exactly one of ``kinds`` (``type(None)`` for null); else raise."""
    value = m.get(key)
    if type(value) not in kinds:
        names = " or ".join("null" if kind is _NULL else kind.__name__ for kind in kinds)
        raise MalformedMessage(key, names)
    return value


def maps(m: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """``m[key]``: a list of maps; else raise."""
    items = need(m, key, list)
    if not all(isinstance(item, dict) for item in items):
        raise MalformedMessage(key, "a list of maps")
    return list(items)


def strings(m: Mapping[str, Any], key: str) -> list[str]:
    """``m[key]``: a list of strings; else raise."""
    items = need(m, key, list)
    if not all(isinstance(item, str) for item in items):
        raise MalformedMessage(key, "a list of strings")
    return list(items)


@dataclass(frozen=True)
class SeatRecord:
    """Who held a seat of a finished game: a person (``player`` their id, None for a guest)
    or a server bot (``level``); ``left``: its person left before the end (a bot finished)."""

    name: str
    kind: str  # human | bot
    player: str | None = None
    level: str | None = None
    left: bool = False

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "name": self.name,
            "kind": self.kind,
            "player": self.player,
            "level": self.level,
            "left": self.left,
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> SeatRecord:
        """As read; raises MalformedMessage."""
        kind = need(m, "kind", str)
        if kind not in ("human", "bot"):
            raise MalformedMessage("kind", "human or bot")
        return cls(
            name=need(m, "name", str),
            kind=kind,
            player=need(m, "player", str, _NULL),
            level=need(m, "level", str, _NULL),
            left=need(m, "left", bool),
        )


@dataclass(frozen=True)
class GameSummary:
    """One finished game in a ``replays`` page. ``seat``: the listed player's seat (a
    listing by ``player``), else None."""

    game: int
    room: str
    edition: str
    variants: list[str]
    seats: list[SeatRecord]
    winner: int | None
    turns: int
    ended: float
    public: bool
    rated: bool
    seat: int | None = None

    @property
    def names(self) -> list[str]:
        """The names in seat order."""
        return [seat.name for seat in self.seats]

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": self.variants,
            "seats": [seat.to_wire() for seat in self.seats],
            "winner": self.winner,
            "turns": self.turns,
            "ended": self.ended,
            "public": self.public,
            "rated": self.rated,
            "seat": self.seat,
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> GameSummary:
        """As read; raises MalformedMessage."""
        return cls(
            game=need(m, "game", int),
            room=need(m, "room", str),
            edition=need(m, "edition", str),
            variants=strings(m, "variants"),
            seats=[SeatRecord.from_wire(seat) for seat in maps(m, "seats")],
            winner=need(m, "winner", int, _NULL),
            turns=need(m, "turns", int),
            ended=float(need(m, "ended", float, int)),
            public=need(m, "public", bool),
            rated=need(m, "rated", bool),
            seat=need(m, "seat", int, _NULL),
        )


@dataclass(frozen=True)
class RatingChange:
    """What one seat's rating was before a rated game and after it."""

    seat: int
    player: str
    rank: int  # 1 is the winner; tied seats share a rank
    before: Rating
    after: Rating

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "seat": self.seat,
            "player": self.player,
            "rank": self.rank,
            "before": self.before.to_wire(),
            "after": self.after.to_wire(),
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> RatingChange:
        """As read; raises MalformedMessage."""
        return cls(
            seat=need(m, "seat", int),
            player=need(m, "player", str),
            rank=need(m, "rank", int),
            before=Rating.from_wire(need(m, "before", dict)),
            after=Rating.from_wire(need(m, "after", dict)),
        )


@dataclass(frozen=True)
class Rating:
    """A Weng-Lin (Plackett-Luce) rating: ``mu`` and ``sigma`` as the model has them;
    ``rating`` is what players read (40 times mu, rounded); ``provisional`` (shown "1000?") until
    sigma falls below the server's threshold."""

    rating: int
    mu: float
    sigma: float
    provisional: bool

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "rating": self.rating,
            "mu": self.mu,
            "sigma": self.sigma,
            "provisional": self.provisional,
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Rating:
        """As read; raises MalformedMessage."""
        return cls(
            rating=need(m, "rating", int),
            mu=float(need(m, "mu", float, int)),
            sigma=float(need(m, "sigma", float, int)),
            provisional=need(m, "provisional", bool),
        )

    def shown(self) -> str:
        """How a player reads it: ``1040``, or ``1040?`` while provisional."""
        return f"{self.rating}?" if self.provisional else str(self.rating)


@dataclass(frozen=True)
class EditionRecord:
    """A player's record in one edition. ``streak``: wins in a row up to the last game (0
    after a game not won); ``best_streak``: the longest ever. ``rating``: None until a rated
    game."""

    edition: str
    games: int
    wins: int
    no_winner: int  # games that ended with nobody winning
    streak: int
    best_streak: int
    last_played: float
    rated_games: int
    rating: Rating | None

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "edition": self.edition,
            "games": self.games,
            "wins": self.wins,
            "no_winner": self.no_winner,
            "streak": self.streak,
            "best_streak": self.best_streak,
            "last_played": self.last_played,
            "rated_games": self.rated_games,
            "rating": None if self.rating is None else self.rating.to_wire(),
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> EditionRecord:
        """As read; raises MalformedMessage."""
        rating = need(m, "rating", dict, _NULL)
        return cls(
            edition=need(m, "edition", str),
            games=need(m, "games", int),
            wins=need(m, "wins", int),
            no_winner=need(m, "no_winner", int),
            streak=need(m, "streak", int),
            best_streak=need(m, "best_streak", int),
            last_played=float(need(m, "last_played", float, int)),
            rated_games=need(m, "rated_games", int),
            rating=None if rating is None else Rating.from_wire(rating),
        )


@dataclass(frozen=True)
class LeaderboardEntry:
    """One line of a leaderboard."""

    rank: int
    player: str
    name: str
    rating: Rating
    games: int
    wins: int
    last_played: float

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {
            "rank": self.rank,
            "player": self.player,
            "name": self.name,
            "rating": self.rating.to_wire(),
            "games": self.games,
            "wins": self.wins,
            "last_played": self.last_played,
        }

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> LeaderboardEntry:
        """As read; raises MalformedMessage."""
        return cls(
            rank=need(m, "rank", int),
            player=need(m, "player", str),
            name=need(m, "name", str),
            rating=Rating.from_wire(need(m, "rating", dict)),
            games=need(m, "games", int),
            wins=need(m, "wins", int),
            last_played=float(need(m, "last_played", float, int)),
        )


@dataclass(frozen=True)
class ReviewMember:
    """Someone in a shared review; ``following``: they see the leader's step."""

    player: str
    name: str
    following: bool

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        return {"player": self.player, "name": self.name, "following": self.following}

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> ReviewMember:
        """As read; raises MalformedMessage."""
        return cls(need(m, "player", str), need(m, "name", str), need(m, "following", bool))
