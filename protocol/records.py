"""Finished games, records and ratings on the wire: the typed replies (PROTOCOL.md §5, §12),
and the requests they answer (defined in :mod:`protocol.messages` with every other request).

Replies are dataclasses with ``to_wire`` (what the server sends) and ``from_wire`` (what a
client reads; :class:`MalformedMessage` for a map that is not one), so both ends build and read
the same definitions. Shared review (a finished game stepped through together) and "play this
deal" (a new room with a finished game's shuffle) are here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The requests are in protocol.messages with every other; here for those who read them here.
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
    "Leaderboard",
    "LeaderboardEntry",
    "ListReplays",
    "MalformedMessage",
    "PlayDeal",
    "Profile",
    "Rating",
    "RatingChange",
    "Replay",
    "Replays",
    "Review",
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
# --------------------------------------------------------------------------- replies


class MalformedMessage(ValueError):
    """A server message that is not what its type says (a client treats it as a broken
    server)."""


def _need(m: Mapping[str, Any], key: str, *kinds: type) -> Any:
    """``m[key]``, of exactly one of ``kinds`` (``type(None)`` for null); else raise."""
    value = m.get(key)
    if type(value) not in kinds:
        raise MalformedMessage(f"{m.get('type', 'a record')}: {key!r} missing or mistyped")
    return value


def _maps(m: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = _need(m, key, list)
    if not all(isinstance(item, dict) for item in items):
        raise MalformedMessage(f"{key!r} must be a list of maps")
    return list(items)


def _strings(m: Mapping[str, Any], key: str) -> list[str]:
    items = _need(m, key, list)
    if not all(isinstance(item, str) for item in items):
        raise MalformedMessage(f"{key!r} must be a list of strings")
    return list(items)


_NULL = type(None)


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
        kind = _need(m, "kind", str)
        if kind not in ("human", "bot"):
            raise MalformedMessage(f"a seat's kind is {kind!r}")
        return cls(
            name=_need(m, "name", str),
            kind=kind,
            player=_need(m, "player", str, _NULL),
            level=_need(m, "level", str, _NULL),
            left=_need(m, "left", bool),
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
        """As sent (``names`` repeats the seats' names, for clients of the first layout)."""
        return {
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": self.variants,
            "names": self.names,
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
            game=_need(m, "game", int),
            room=_need(m, "room", str),
            edition=_need(m, "edition", str),
            variants=_strings(m, "variants"),
            seats=[SeatRecord.from_wire(seat) for seat in _maps(m, "seats")],
            winner=_need(m, "winner", int, _NULL),
            turns=_need(m, "turns", int),
            ended=float(_need(m, "ended", float, int)),
            public=_need(m, "public", bool),
            rated=_need(m, "rated", bool),
            seat=_need(m, "seat", int, _NULL),
        )


@dataclass(frozen=True)
class Replays:
    """``replays``: a page of finished games, newest first; ``next`` is the ``before`` of the
    page after (None: this page ends the list)."""

    games: list[GameSummary]
    next: int | None
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        out = {"type": "replays", "games": [g.to_wire() for g in self.games], "next": self.next}
        return _with_id(out, self.id)

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Replays:
        """As read; raises MalformedMessage."""
        games = [GameSummary.from_wire(g) for g in _maps(m, "games")]
        return cls(games, _need(m, "next", int, _NULL), _need(m, "id", int, _NULL))


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
            seat=_need(m, "seat", int),
            player=_need(m, "player", str),
            rank=_need(m, "rank", int),
            before=Rating.from_wire(_need(m, "before", dict)),
            after=Rating.from_wire(_need(m, "after", dict)),
        )


@dataclass(frozen=True)
class Replay:
    """``replay``: one finished game whole. ``decisions`` are ``[seat, choice]`` pairs;
    with ``edition``, ``variants``, the seats' names and ``seed`` they rebuild the game, whose
    final state has the check ``digest`` (``server.engine.digest``) under rules version
    ``rules``. ``ratings``: each rated seat's change (empty for an unrated game)."""

    game: int
    room: str
    edition: str
    variants: list[str]
    seats: list[SeatRecord]
    seed: int
    decisions: list[list[Any]]
    winner: int | None
    turns: int
    started: float
    ended: float
    public: bool
    rated: bool
    digest: str
    rules: int
    ratings: list[RatingChange] = field(default_factory=list)
    id: int | None = None

    @property
    def names(self) -> list[str]:
        """The names in seat order."""
        return [seat.name for seat in self.seats]

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        out = {
            "type": "replay",
            "game": self.game,
            "room": self.room,
            "edition": self.edition,
            "variants": self.variants,
            "names": self.names,
            "seats": [seat.to_wire() for seat in self.seats],
            "seed": self.seed,
            "decisions": self.decisions,
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
        return _with_id(out, self.id)

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Replay:
        """As read; raises MalformedMessage."""
        decisions = _need(m, "decisions", list)
        for pair in decisions:
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or type(pair[0]) is not int
                or not isinstance(pair[1], dict)
            ):
                raise MalformedMessage("a decision is a [seat, choice map] pair")
        return cls(
            game=_need(m, "game", int),
            room=_need(m, "room", str),
            edition=_need(m, "edition", str),
            variants=_strings(m, "variants"),
            seats=[SeatRecord.from_wire(seat) for seat in _maps(m, "seats")],
            seed=_need(m, "seed", int),
            decisions=decisions,
            winner=_need(m, "winner", int, _NULL),
            turns=_need(m, "turns", int),
            started=float(_need(m, "started", float, int)),
            ended=float(_need(m, "ended", float, int)),
            public=_need(m, "public", bool),
            rated=_need(m, "rated", bool),
            digest=_need(m, "digest", str),
            rules=_need(m, "rules", int),
            ratings=[RatingChange.from_wire(c) for c in _maps(m, "ratings")],
            id=_need(m, "id", int, _NULL),
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
            rating=_need(m, "rating", int),
            mu=float(_need(m, "mu", float, int)),
            sigma=float(_need(m, "sigma", float, int)),
            provisional=_need(m, "provisional", bool),
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
        rating = _need(m, "rating", dict, _NULL)
        return cls(
            edition=_need(m, "edition", str),
            games=_need(m, "games", int),
            wins=_need(m, "wins", int),
            no_winner=_need(m, "no_winner", int),
            streak=_need(m, "streak", int),
            best_streak=_need(m, "best_streak", int),
            last_played=float(_need(m, "last_played", float, int)),
            rated_games=_need(m, "rated_games", int),
            rating=None if rating is None else Rating.from_wire(rating),
        )


@dataclass(frozen=True)
class Profile:
    """``profile``: a player's (or bot level's: ``bot`` true) records, one per edition played."""

    player: str
    name: str
    bot: bool
    editions: list[EditionRecord]
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        out = {
            "type": "profile",
            "player": self.player,
            "name": self.name,
            "bot": self.bot,
            "editions": [record.to_wire() for record in self.editions],
        }
        return _with_id(out, self.id)

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Profile:
        """As read; raises MalformedMessage."""
        return cls(
            player=_need(m, "player", str),
            name=_need(m, "name", str),
            bot=_need(m, "bot", bool),
            editions=[EditionRecord.from_wire(r) for r in _maps(m, "editions")],
            id=_need(m, "id", int, _NULL),
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
            rank=_need(m, "rank", int),
            player=_need(m, "player", str),
            name=_need(m, "name", str),
            rating=Rating.from_wire(_need(m, "rating", dict)),
            games=_need(m, "games", int),
            wins=_need(m, "wins", int),
            last_played=float(_need(m, "last_played", float, int)),
        )


@dataclass(frozen=True)
class Leaderboard:
    """``leaderboard``: one page, best first; ``next`` is the ``after`` of the following page
    (None: the board ends here)."""

    edition: str
    entries: list[LeaderboardEntry]
    next: str | None
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        out = {
            "type": "leaderboard",
            "edition": self.edition,
            "entries": [entry.to_wire() for entry in self.entries],
            "next": self.next,
        }
        return _with_id(out, self.id)

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Leaderboard:
        """As read; raises MalformedMessage."""
        return cls(
            edition=_need(m, "edition", str),
            entries=[LeaderboardEntry.from_wire(e) for e in _maps(m, "entries")],
            next=_need(m, "next", str, _NULL),
            id=_need(m, "id", int, _NULL),
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
        return cls(_need(m, "player", str), _need(m, "name", str), _need(m, "following", bool))


@dataclass(frozen=True)
class Review:
    """``review``: the shared review of ``room``'s finished ``game`` as it is now, sent to
    each of its members on every change (and as the direct reply to ``review_join``).
    ``step``: the leader's step (decisions applied, 0 to ``steps``). ``open`` false: the review
    ended (the room's next game began, or the room closed) or you left it."""

    room: str
    game: int
    step: int
    steps: int
    leader: str
    members: list[ReviewMember]
    open: bool = True
    id: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """As sent."""
        out = {
            "type": "review",
            "room": self.room,
            "game": self.game,
            "step": self.step,
            "steps": self.steps,
            "leader": self.leader,
            "members": [member.to_wire() for member in self.members],
            "open": self.open,
        }
        return _with_id(out, self.id)

    @classmethod
    def from_wire(cls, m: Mapping[str, Any]) -> Review:
        """As read; raises MalformedMessage."""
        return cls(
            room=_need(m, "room", str),
            game=_need(m, "game", int),
            step=_need(m, "step", int),
            steps=_need(m, "steps", int),
            leader=_need(m, "leader", str),
            members=[ReviewMember.from_wire(member) for member in _maps(m, "members")],
            open=_need(m, "open", bool),
            id=_need(m, "id", int, _NULL),
        )


def _with_id(out: dict[str, Any], request: int | None) -> dict[str, Any]:
    if request is not None:
        out["id"] = request
    return out
