"""Engine speed: complete 4-seat random-bot games per second, per edition, on one core.

Prints figures only (no assertions): games/s, decisions/game and CPU microseconds per decision
for each edition, without invariant checks, plus the same with checks for comparison.

    python bench/engine.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

from server.bots.selfplay import play_game
from server.engine.cards import Edition


def measure(edition: Edition, games: int, seed: int, check: bool) -> tuple[float, float]:
    """(games per second, decisions per game) over ``games`` random-bot games."""
    decisions = 0
    start = time.process_time()  # CPU time of this one process: a one-core figure
    for index in range(games):
        decisions += play_game(edition, ["random"] * 4, seed + index, check).decisions
    elapsed = time.process_time() - start
    return games / elapsed, decisions / games


def main() -> None:
    """Run the benchmark and print one line per edition and mode."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for edition in Edition:
        for check in (False, True):
            rate, per_game = measure(edition, args.games, args.seed, check)
            mode = "with invariant checks" if check else "no invariant checks"
            print(
                f"{edition.value:12} 4 seats random bots, {mode:22}: "
                f"{rate:7.1f} games/s, {per_game:6.1f} decisions/game, "
                f"{1e6 / (rate * per_game):5.2f} us/decision"
            )


if __name__ == "__main__":
    main()
