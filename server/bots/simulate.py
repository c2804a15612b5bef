"""``selfish simulate``: engine-only bot self-play and its summary: the caller's words for it
(the selfish CLI's, selfish_tui/reports.py), and with ``--json`` the summary as one JSON line."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.levels import BOT_LEVELS
from server.bots.selfplay import play_game
from server.engine.cards import Edition
from server.engine.variants import check_variants


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="selfish simulate", description="Play bot games with the rules engine alone."
    )
    parser.add_argument("--edition", choices=[e.value for e in Edition], required=True)
    parser.add_argument(
        "--players", type=int, required=True, choices=range(2, 6), metavar="N", help="seats, 2-5"
    )
    parser.add_argument("--games", type=int, required=True, metavar="G")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument(
        "--bots",
        default="random",
        help=f"bot level for every seat, or a comma list one per seat ({', '.join(BOT_LEVELS)})",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="RULE",
        help="turn on a rule variant by its id (RULES V, e.g. V1); may be repeated",
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=DEFAULT_BUDGET.rollouts,
        metavar="N",
        help=f"expert bots: rollouts per decision at most (default {DEFAULT_BUDGET.rollouts})",
    )
    parser.add_argument(
        "--close",
        type=int,
        default=DEFAULT_BUDGET.close,
        metavar="N",
        help=f"expert bots: rollouts at most for a close decision (default {DEFAULT_BUDGET.close})",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_BUDGET.seconds,
        metavar="S",
        help=f"expert bots: seconds per decision at most, 0 for no time limit (default "
        f"{DEFAULT_BUDGET.seconds}; with 0 the games replay exactly from the seed)",
    )
    parser.add_argument(
        "--no-invariants",
        action="store_true",
        help="skip the invariant checks (for speed measurements)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    levels = args.bots.split(",")
    if len(levels) == 1:
        levels *= args.players
    if len(levels) != args.players or any(level not in BOT_LEVELS for level in levels):
        parser.error(f"--bots needs 1 or {args.players} levels from {', '.join(BOT_LEVELS)}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        args.variants = check_variants(Edition(args.edition), args.variant)
    except ValueError as exc:
        parser.error(str(exc))
    if args.rollouts < 1 or args.seconds < 0:
        parser.error("--rollouts must be at least 1 and --seconds at least 0")
    args.levels = levels
    args.budget = Budget(args.rollouts, args.seconds or None, max(args.close, args.rollouts))
    return args


def simulate(
    edition: Edition,
    levels: list[str],
    games: int,
    seed: int,
    check: bool = True,
    variants: tuple[str, ...] = (),
    budget: Budget | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and summarise them (``budget``: the expert bots' search)."""
    seeds = random.Random(seed)
    wins = [0] * len(levels)
    no_winner = capped = checks = 0
    failures: list[str] = []
    turns: list[int] = []
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        result = play_game(
            edition, levels, seeds.getrandbits(32), check, variants=variants, budget=budget
        )
        if result.winner is None:
            no_winner += 1
        else:
            wins[result.winner] += 1
        capped += result.capped
        checks += result.invariant_checks
        failures.extend(result.invariant_failures)
        turns.append(result.turns)
        decisions += result.decisions
    elapsed = time.perf_counter() - start
    return {
        "edition": edition.value,
        "variants": list(variants),
        "players": len(levels),
        "games": games,
        "seed": seed,
        "bots": levels,
        "wins": wins,
        "no_winner": no_winner,
        "capped": capped,
        "mean_turns": round(sum(turns) / games, 2),
        "max_turns": max(turns),
        "mean_decisions": round(decisions / games, 2),
        "games_per_second": round(games / elapsed, 1) if elapsed else None,
        "invariant_checks": checks,
        "invariant_failures": len(failures),
        "failures": failures[:10],
    }


def main(
    argv: list[str] | None = None,
    words: Callable[[dict[str, Any]], list[str]] | None = None,
) -> int:
    """Entry point: play, print ``words(summary)`` line by line (none without ``words``) and
    with ``--json`` the summary; exit status 1 if any invariant failed."""
    args = parse(sys.argv[1:] if argv is None else argv)
    summary = simulate(
        Edition(args.edition),
        args.levels,
        args.games,
        args.seed,
        not args.no_invariants,
        args.variants,
        args.budget,
    )
    for line in words(summary) if words is not None else []:
        print(line)
    if args.json:
        print(json.dumps(summary))
    return 1 if summary["invariant_failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
