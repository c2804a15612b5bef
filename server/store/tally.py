"""The reckoning of one finished game in records and ratings, pure: who held which of its
seats, whose records it counts in (its people's and its bot levels'; a guest keeps nothing),
each of those records as it is after the game, and, for a rated game, its people's rating
changes (by the rules of ``server.store.ratings``). :func:`tally_game` is the one reckoning,
game by game and in a recomputation alike; ``server.store.standings`` reads the records it
starts from and writes what it changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.records import BOT_PLAYERS, Rating, RatingChange
from server.store import ratings
from server.store.ratings import Entrant, Skill
from server.store.records import StoredGame


@dataclass
class Standing:
    """One ``standings`` row."""

    player: str
    edition: str
    name: str
    games: int = 0
    wins: int = 0
    no_winner: int = 0
    streak: int = 0
    best_streak: int = 0
    last_played: float = 0.0
    rated_games: int = 0
    mu: float | None = None
    sigma: float | None = None
    ranked: bool = False

    @property
    def skill(self) -> Skill | None:
        """The rating, once there is one."""
        return None if self.mu is None or self.sigma is None else Skill(self.mu, self.sigma)

    def row(self) -> tuple[Any, ...]:
        """As written."""
        return (
            self.player,
            self.edition,
            self.name,
            self.games,
            self.wins,
            self.no_winner,
            self.streak,
            self.best_streak,
            self.last_played,
            self.rated_games,
            self.mu,
            self.sigma,
            int(self.ranked),
        )


@dataclass(frozen=True)
class Change:
    """One seat's rating change in a rated game."""

    seat: int
    player: str
    rank: int
    before: Skill
    after: Skill

    def row(self, game: int) -> tuple[Any, ...]:
        """As ``rating_changes`` keeps it."""
        before, after = self.before, self.after
        return (
            game,
            self.seat,
            self.player,
            self.rank,
            before.mu,
            before.sigma,
            after.mu,
            after.sigma,
        )

    def to_wire(self) -> RatingChange:
        """As ``replay`` and ``game_over`` carry it."""
        return RatingChange(
            self.seat, self.player, self.rank, rating(self.before), rating(self.after)
        )


def rating(skill: Skill) -> Rating:
    """A rating as the protocol carries it."""
    return Rating(skill.shown, skill.mu, skill.sigma, skill.provisional)


def entrants(game: StoredGame) -> list[Entrant]:
    """The seats of a stored game as the rating rules see them (a guest has no identity)."""
    out = []
    for index, seat in enumerate(game.seats):
        player = seat.get("player")
        person = seat.get("kind") != "bot"
        identity = player if person and isinstance(player, str) else None
        if identity is not None and ratings.is_guest(identity):
            identity = None
        level = None if person else str(seat.get("level", "basic"))
        out.append(Entrant(index, identity, level, person and bool(seat.get("left"))))
    return out


def is_rated(game: StoredGame, seats: list[Entrant] | None = None) -> bool:
    """Whether a stored game (its ``seats``, if already read) counts for ratings (games stored
    before the seed was noted as chosen or not count as seeded: unrated)."""
    public = game.settings.get("public", True) is True
    seeded = game.settings.get("seeded", True) is not False
    return ratings.rated(public, seeded, game.variants, entrants(game) if seats is None else seats)


@dataclass
class Tally:
    """What one finished game changes: the ``seated`` rows, whether it is rated, its rating
    changes, and the standings of everyone with a record in it (as they are after it)."""

    game: int
    seated: list[tuple[Any, ...]]
    rated: bool
    changes: list[Change]
    standings: list[Standing]


def record_keys(game: StoredGame, seats: list[Entrant] | None = None) -> dict[str, str]:
    """Whose records finished ``game`` counts in (its people's, its bot levels'; not a guest's),
    in seat order, each with the name it played under (its ``seats``, if already read)."""
    keys: dict[str, str] = {}
    for entrant in entrants(game) if seats is None else seats:
        key = _key(entrant)
        if key is not None and key not in keys:
            keys[key] = game.names[entrant.seat] if entrant.level is None else entrant.level
    return keys


def tally_game(game: StoredGame, ended: float, load: Callable[[str, str], Standing]) -> Tally:
    """Count finished ``game`` in the standings ``load(key, name)`` gives (changing them):
    the one reckoning of records and ratings, game by game and in a recomputation alike."""
    public = game.settings.get("public", True) is True
    seats = entrants(game)
    seated = []
    for entrant, seat in zip(seats, game.seats, strict=True):
        holder = _holder(entrant, seat)
        if holder is not None:
            seated.append((holder, game.id, entrant.seat, int(public)))
    standings: dict[str, Standing] = {}
    for key, name in record_keys(game, seats).items():
        standing = load(key, name)
        standing.name = name
        standings[key] = standing
    for key, standing in standings.items():
        won = any(e.seat == game.winner and not e.left for e in seats if _key(e) == key)
        standing.games += 1
        standing.wins += won
        standing.no_winner += game.winner is None
        standing.streak = standing.streak + 1 if won else 0
        standing.best_streak = max(standing.best_streak, standing.streak)
        standing.last_played = ended
    rated = is_rated(game, seats)
    changes = _rate(game, seats, standings) if rated else []
    return Tally(game.id, seated, rated, changes, list(standings.values()))


def _rate(game: StoredGame, seats: list[Entrant], standings: dict[str, Standing]) -> list[Change]:
    """Move the ratings of a rated game's people (bots are anchors; guests keep nothing)."""
    before = []
    for entrant in seats:
        if entrant.level is not None:
            before.append(Skill(*ratings.BOT_ANCHORS[entrant.level]))
        else:
            key = _key(entrant)
            skill = None if key is None else standings[key].skill
            before.append(skill or ratings.NEW)
    places = ratings.ranks(seats, game.winner)
    after = ratings.update(before, places, [e.level is not None for e in seats])
    changes = []
    for entrant, old, new, place in zip(seats, before, after, places, strict=True):
        key = _key(entrant)
        if key is None:
            continue  # a guest keeps nothing
        standing = standings[key]
        standing.mu, standing.sigma = new.mu, new.sigma
        if entrant.level is not None:
            continue  # an anchor: the same before and after
        standing.rated_games += 1
        standing.ranked = not new.provisional
        changes.append(Change(entrant.seat, key, place, old, new))
    return changes


def _key(entrant: Entrant) -> str | None:
    """Whose record a seat counts in: its person's, its bot level's, or nobody's (a guest)."""
    if entrant.level is not None:
        return BOT_PLAYERS.get(entrant.level, f"bot:{entrant.level}")
    return entrant.player


def _holder(entrant: Entrant, seat: dict[str, Any]) -> str | None:
    """Who is listed as having held a seat: its person (a guest too: they may list their own
    games while their identity lasts) or its bot level."""
    if entrant.level is not None:
        return _key(entrant)
    player = seat.get("player")
    return player if isinstance(player, str) else None
