"""The rating rules, pure: which games are rated, each seat's rank in one, and the Weng-Lin
(Plackett-Luce) update of the ``openskill`` library.

No store and no clock: :mod:`server.store.standings` reads what it needs, calls these functions and
writes their results. A bot level plays at a fixed rating, an anchor (docs/records.md, and
``bench/rating_anchors.py`` that measures anchored against moving bot ratings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from protocol.messages import MAX_SEATS, MIN_SEATS

# openskill's defaults: a new player has mu 25, sigma 25/3; each game adds tau (25/300) to
# sigma first, so that a rating never freezes.
MODEL = PlackettLuce()
NEW_MU = MODEL.mu
NEW_SIGMA = MODEL.sigma
#: A rating is provisional (shown "1000?") while sigma is at least this: about 15 games of
#: four seats, or 10 of two (bench/rating_anchors.py prints the count).
PROVISIONAL_SIGMA = 6.75
#: What players read: 40 times mu, so that a new player has 1000.
DISPLAY_SCALE = 40

#: Each bot level's fixed rating (mu, sigma): basic at a newcomer's 25 (1000), the others as
#: far from it as the bots' tournament shares say under the model (bench/rating_anchors.py
#: fits them, and measures why fixed beats moving). A small sigma: a bot's strength is known.
BOT_ANCHORS: dict[str, tuple[float, float]] = {
    "random": (15.4, 2.0),
    "basic": (25.0, 2.0),
    "expert": (27.9, 2.0),
}


@dataclass(frozen=True)
class Skill:
    """A rating as the model has it."""

    mu: float
    sigma: float

    @property
    def shown(self) -> int:
        """What players read."""
        return round(DISPLAY_SCALE * self.mu)

    @property
    def provisional(self) -> bool:
        """Still too uncertain to be listed or trusted (shown with a "?")."""
        return self.sigma >= PROVISIONAL_SIGMA


NEW = Skill(NEW_MU, NEW_SIGMA)


@dataclass(frozen=True)
class Entrant:
    """One seat of a finished game as the rules see it: ``player`` the person's identity (None
    for a guest or a bot), ``level`` the bot's level (None for a person), ``left``: its person
    left before the end."""

    seat: int
    player: str | None
    level: str | None
    left: bool


def is_guest(player: str) -> bool:
    """Whether a player id is a guest's (``hello`` with ``guest``: ids beginning with ``g``)."""
    return player.startswith("g")


def rated(public: bool, seeded: bool, variants: Sequence[str], entrants: Sequence[Entrant]) -> bool:
    """Whether a game counts for ratings: public, its seed not chosen, no variants, 2-5 seats,
    and at least one person with an identity seated when it started."""
    return (
        public
        and not seeded
        and not variants
        and MIN_SEATS <= len(entrants) <= MAX_SEATS
        and any(e.player is not None for e in entrants)
    )


def ranks(entrants: Sequence[Entrant], winner: int | None) -> list[int]:
    """Each seat's rank (1 is best, ties share one): the winner first and everyone else tied
    below; all tied when nobody wins; a person who left before the end last, below the ties
    (also when a bot won for them after they left)."""
    won = winner is not None and not any(e.seat == winner and e.left for e in entrants)
    stayed = 2 if won else 1
    return [stayed + 1 if e.left else 1 if won and e.seat == winner else stayed for e in entrants]


def update(skills: Sequence[Skill], places: Sequence[int], fixed: Sequence[bool]) -> list[Skill]:
    """The ratings after one game: ``places`` as :func:`ranks` gives them; a ``fixed`` seat
    (a bot's anchor) keeps its rating, and plays at it."""
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    after = MODEL.rate(teams, ranks=list(places))
    return [
        skill if keep else Skill(team[0].mu, team[0].sigma)
        for skill, keep, team in zip(skills, fixed, after, strict=True)
    ]
