"""Bot levels' ratings: kept fixed (anchors) or moved like anyone's? Measured on simulated games.

Two parts, figures only (no assertions):

1. **Where the anchors sit.** The bots' tournament (docs/bots.md, ``bench/bots.py``: one seat of a
   level against three of another, Space, 400 games a pairing) gives win shares; under the
   Plackett-Luce model with the anchors' sigma each share says how far apart two levels' mu are.
   Both directions of a pairing are averaged (one random seat among three basic ones wins less
   than the model expects, because a table of random bots so often leaves no winner).
2. **Fixed or moving.** A population of people with a true skill each plays simulated
   free-for-all games of 2-5 seats, many with bots; the winner is drawn with the model's
   probabilities from the true skills (nobody wins in some games); people come and go, and
   newcomers are weaker than those who stay (as on a real server). The same games are rated twice:
   bot levels fixed at their anchors, and bot levels moving like anyone's (from the same
   start). Printed every so many games: how far people's mean rating has drifted from their
   mean true skill (the scale's stability), where each bot level's rating has gone, and how well
   ratings order people (Spearman's rank correlation with the true skill); and how many games a
   newcomer needs to stop being provisional.

    nice -n 10 python bench/rating_anchors.py [--games 40000] [--people 400] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass

from server.store import ratings
from server.store.ratings import NEW, Skill, update

# docs/bots.md, Space at 128 rollouts, 400 games each: (tested level, other level, share the
# tested seat won, share with no winner).
TOURNAMENT = (
    ("basic", "random", 0.360, 0.390),
    ("random", "basic", 0.120, 0.208),
    ("expert", "basic", 0.260, 0.140),
    ("basic", "expert", 0.162, 0.145),
)


def gap(share: float, no_winner: float, sigma: float) -> float:
    """How much higher one seat's mu is than each of three equal rivals' if it wins ``share``
    of the games (nobody winning ``no_winner``), under the model's winner probabilities."""
    c = math.sqrt(4 * (sigma**2 + ratings.MODEL.beta**2))
    won = share / (1 - no_winner)  # its share of the games somebody won
    return c * math.log(3 * won / (1 - won))


def anchors_from_tournament(sigma: float) -> dict[str, float]:
    """The levels' mu, basic at 25, from the tournament's shares."""
    pairs: dict[tuple[str, str], list[float]] = {}
    for tested, other, share, none in TOURNAMENT:
        key = tuple(sorted((tested, other)))
        distance = gap(share, none, sigma)
        # the distance from the alphabetically first to the second level
        pairs.setdefault(key, []).append(distance if tested == key[0] else -distance)  # type: ignore[arg-type]
    basic_random = statistics.mean(pairs[("basic", "random")])
    expert_basic = -statistics.mean(pairs[("basic", "expert")])
    return {"random": 25.0 - basic_random, "basic": 25.0, "expert": 25.0 + expert_basic}


@dataclass
class Person:
    """A simulated player: the true skill, and the rating of each run."""

    true: float
    fixed: Skill = NEW
    moving: Skill = NEW
    games: int = 0


def winner_of(truths: list[float], rng: random.Random, no_winner: float) -> int | None:
    """A winner drawn with the model's probabilities from the true skills."""
    if rng.random() < no_winner:
        return None
    c = math.sqrt(len(truths) * ratings.MODEL.beta**2)
    weights = [math.exp(t / c) for t in truths]
    return rng.choices(range(len(truths)), weights)[0]


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation."""

    def rank(values: list[float]) -> list[int]:
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0] * len(values)
        for position, index in enumerate(order):
            out[index] = position
        return out

    rx, ry = rank(xs), rank(ys)
    n = len(xs)
    d2 = sum((a - b) ** 2 for a, b in zip(rx, ry, strict=True))
    return 1 - 6 * d2 / (n * (n * n - 1))


def simulate(games: int, people: int, seed: int, anchors: dict[str, float]) -> None:
    """Rate the same simulated games with fixed and with moving bot levels; print the
    figures every tenth of the way."""
    rng = random.Random(seed)
    anchor = {level: Skill(mu, ratings.BOT_ANCHORS[level][1]) for level, mu in anchors.items()}
    moving_bots = dict(anchor)
    population = [Person(rng.gauss(25, 4)) for _ in range(people)]
    settled: list[int] = []  # games a newcomer needed to stop being provisional
    print(
        f"{'games':>7} {'fixed: drift':>13} {'spearman':>9} | {'moving: drift':>13} "
        f"{'spearman':>9} {'random':>7} {'basic':>7} {'expert':>7}"
    )
    for n in range(1, games + 1):
        if rng.random() < 0.02:  # someone leaves; a newcomer, weaker on average, comes
            population[rng.randrange(people)] = Person(rng.gauss(22, 4))
        size = rng.randint(2, 5)
        bots = rng.randint(0, size - 1) if rng.random() < 0.6 else 0
        seated = rng.sample(population, size - bots)
        levels = [rng.choice(list(anchor)) for _ in range(bots)]
        truths = [p.true for p in seated] + [anchors[level] for level in levels]
        winner = winner_of(truths, rng, 0.15)
        places = [1 if winner is None or i == winner else 2 for i in range(size)]
        fixed = update(
            [p.fixed for p in seated] + [anchor[level] for level in levels],
            places,
            [False] * len(seated) + [True] * bots,
        )
        moving = update(
            [p.moving for p in seated] + [moving_bots[level] for level in levels],
            places,
            [False] * size,
        )
        for i, person in enumerate(seated):
            person.fixed, person.moving = fixed[i], moving[i]
            person.games += 1
            if (
                person.games > 1
                and not person.fixed.provisional
                and person.fixed.sigma > (ratings.PROVISIONAL_SIGMA - 0.2)
            ):
                settled.append(person.games)
        for j, level in enumerate(levels):  # a level seated twice moves by its last seat
            moving_bots[level] = moving[len(seated) + j]
        if n % (games // 10) == 0:
            truth = [p.true for p in population]
            fixed_mu = [p.fixed.mu for p in population]
            moving_mu = [p.moving.mu for p in population]
            print(
                f"{n:7} {statistics.mean(fixed_mu) - statistics.mean(truth):+13.2f} "
                f"{spearman(fixed_mu, truth):9.3f} | "
                f"{statistics.mean(moving_mu) - statistics.mean(truth):+13.2f} "
                f"{spearman(moving_mu, truth):9.3f} "
                + " ".join(
                    f"{moving_bots[level].mu:7.2f}" for level in ("random", "basic", "expert")
                )
            )
    if settled:
        print(
            f"a newcomer stops being provisional (sigma < {ratings.PROVISIONAL_SIGMA}) after "
            f"{statistics.median(settled):.0f} games (median; tables of 2-5 seats)"
        )


def main() -> None:
    """Print the anchors the tournament gives, then the simulation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--people", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sigma = ratings.BOT_ANCHORS["basic"][1]
    fitted = anchors_from_tournament(sigma)
    print("bot levels' mu from the tournament's shares (basic at 25):")
    for level, mu in fitted.items():
        print(
            f"  {level:7} {mu:6.2f}   (BOT_ANCHORS in server/store/ratings.py: "
            f"{ratings.BOT_ANCHORS[level][0]})"
        )
    used = {level: ratings.BOT_ANCHORS[level][0] for level in fitted}
    print(
        f"\n{args.people} people, {args.games} simulated games; drift: people's mean rating "
        "minus their mean true skill (mu units)"
    )
    simulate(args.games, args.people, args.seed, used)


if __name__ == "__main__":
    main()
