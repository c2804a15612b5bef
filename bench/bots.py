"""The bots' tournament: how often each level wins against the others, per edition.

Prints figures only (no assertions). For every pairing "A vs B" one seat of level A plays three
seats of level B at a 4-seat table, A's seat rotating through the four seats game by game; the
figure is A's win share (and, for every row, the share of games nobody wins). "4 x A" is four
seats of A. Expert decisions are timed (every decision the expert is asked, searched or not):
median and p99.

    python bench/bots.py [--games N] [--rollouts R] [--seconds S] [--editions E,...]
                         [--pairings P,...] [--expert-games N] [--jobs J] [--seed S]
                         [--log FILE] [--table FILE ...]

``--rollouts`` / ``--seconds`` are the expert's budget per decision (``--seconds 0``: rollouts
alone, which makes every figure replay exactly from ``--seed``). Games run in ``--jobs``
processes (default: every core). ``--log`` appends every game's outcome to a file (one JSON
line each) as it ends, so that a long tournament shows its figures while it runs:
``--table FILE ...`` prints the table of the games logged so far, playing none.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass

from server.bots.expert import DEFAULT_BUDGET, Budget
from server.bots.selfplay import play_game
from server.engine.cards import Edition

SEATS = 4
LEVELS = ("random", "basic", "expert")
PAIRINGS = tuple(f"{a}-vs-{b}" for a in LEVELS for b in LEVELS if a != b) + tuple(
    f"4x{level}" for level in LEVELS
)


@dataclass(frozen=True)
class Job:
    """One game of the tournament."""

    edition: str
    pairing: str
    index: int
    seed: int
    rollouts: int
    seconds: float | None


@dataclass(frozen=True)
class Outcome:
    """How one game went for the level under test."""

    job: Job
    won: bool  # the level under test won (pairings) / somebody won (4 x A)
    no_winner: bool
    expert_seconds: tuple[float, ...]


def seats_of(pairing: str, index: int) -> tuple[list[str], int | None]:
    """The levels at the table for game ``index`` of a pairing, and the tested seat."""
    if pairing.startswith("4x"):
        return [pairing[2:]] * SEATS, None
    tested, other = pairing.split("-vs-")
    seat = index % SEATS
    levels = [other] * SEATS
    levels[seat] = tested
    return levels, seat


def play(job: Job) -> Outcome:
    """Play one game (in a worker process)."""
    levels, seat = seats_of(job.pairing, job.index)
    result = play_game(
        Edition(job.edition),
        levels,
        job.seed,
        check=False,
        budget=Budget(job.rollouts, job.seconds),
    )
    won = result.winner == seat if seat is not None else result.winner is not None
    return Outcome(job, won, result.winner is None, tuple(result.expert_seconds))


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing (400)")
    parser.add_argument(
        "--expert-games",
        type=int,
        default=None,
        help="games per pairing with expert seats (default: --games)",
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=DEFAULT_BUDGET.rollouts,
        help=f"expert: rollouts per decision at most ({DEFAULT_BUDGET.rollouts})",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_BUDGET.seconds,
        help=f"expert: seconds per decision at most, 0 for none ({DEFAULT_BUDGET.seconds})",
    )
    parser.add_argument("--editions", default="space,shipwrecked")
    parser.add_argument(
        "--pairings", default=",".join(PAIRINGS), help=f"any of {', '.join(PAIRINGS)}"
    )
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", help="append each game's outcome to this file (JSON lines)")
    parser.add_argument("--table", nargs="+", metavar="FILE", help="print the table of logs")
    args = parser.parse_args(argv)
    args.edition_list = args.editions.split(",")
    args.pairing_list = args.pairings.split(",")
    for edition in args.edition_list:
        if edition not in {e.value for e in Edition}:
            parser.error(f"unknown edition {edition!r}")
    for pairing in args.pairing_list:
        if pairing not in PAIRINGS:
            parser.error(f"unknown pairing {pairing!r}")
    if args.games < 1 or args.rollouts < 1 or args.seconds < 0 or args.jobs < 1:
        parser.error("--games, --rollouts and --jobs must be positive, --seconds not negative")
    return args


def to_line(outcome: Outcome) -> str:
    """One logged game."""
    job = outcome.job
    return json.dumps(
        {
            "edition": job.edition,
            "pairing": job.pairing,
            "index": job.index,
            "seed": job.seed,
            "rollouts": job.rollouts,
            "seconds": job.seconds,
            "won": outcome.won,
            "no_winner": outcome.no_winner,
            "expert_seconds": list(outcome.expert_seconds),
        }
    )


def from_line(line: str) -> Outcome:
    """A logged game back."""
    data = json.loads(line)
    job = Job(
        data["edition"],
        data["pairing"],
        data["index"],
        data["seed"],
        data["rollouts"],
        data["seconds"],
    )
    return Outcome(job, data["won"], data["no_winner"], tuple(data["expert_seconds"]))


def table(outcomes: list[Outcome]) -> None:
    """Print the tournament's table: a row per edition and pairing played."""
    print(
        "| edition | pairing | games | result | no winner | expert budget "
        "| expert s/decision median | p99 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rows = sorted({(o.job.edition, o.job.pairing) for o in outcomes}, key=_row_order)
    for edition, pairing in rows:
        mine = [o for o in outcomes if o.job.edition == edition and o.job.pairing == pairing]
        games = len(mine)
        nobody = 100 * sum(o.no_winner for o in mine) / games
        if pairing.startswith("4x"):
            result = "-"
        else:
            share = 100 * sum(o.won for o in mine) / games
            result = f"{pairing.split('-vs-')[0]} wins {share:.1f}%"
        times = [t for o in mine for t in o.expert_seconds]
        timing = (
            f"{statistics.median(times):.3f} | {percentile(times, 0.99):.3f}" if times else "- | -"
        )
        name = pairing.replace("-", " ").replace("4x", "4 x ")
        budget = ", ".join(sorted({_budget(o.job) for o in mine})) if "expert" in pairing else "-"
        print(f"| {edition} | {name} | {games} | {result} | {nobody:.1f}% | {budget} | {timing} |")


def _budget(job: Job) -> str:
    """An expert budget as the table shows it."""
    return f"{job.rollouts} rollouts" + (f" or {job.seconds} s" if job.seconds else "")


def _row_order(row: tuple[str, str]) -> tuple[int, int]:
    edition, pairing = row
    editions = [e.value for e in Edition]
    return (editions.index(edition), PAIRINGS.index(pairing))


def main(argv: list[str] | None = None) -> None:
    """Run the tournament and print its table."""
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.table:
        logged: list[Outcome] = []
        for name in args.table:
            with open(name, encoding="utf-8") as lines:
                logged.extend(from_line(line) for line in lines if line.strip())
        table(logged)
        return
    seconds = args.seconds or None
    expert_games = args.expert_games or args.games
    jobs = [
        Job(edition, pairing, index, args.seed * 1_000_003 + index, args.rollouts, seconds)
        for edition in args.edition_list
        for pairing in args.pairing_list
        for index in range(expert_games if "expert" in pairing else args.games)
    ]
    budget = f"{args.rollouts} rollouts" + (f" or {seconds} s" if seconds else "")
    print(
        f"bench/bots.py: {args.games} games per pairing ({expert_games} with experts), 4 seats, "
        f"expert budget {budget} per decision, seed {args.seed}, {args.jobs} processes"
    )
    start = time.perf_counter()
    # Game by game across the pairings, so that a tournament stopped early (or looked at with
    # --table while it runs) has played every pairing about as often.
    jobs.sort(key=lambda job: job.index)
    outcomes: list[Outcome] = []
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    with multiprocessing.get_context("spawn").Pool(args.jobs) as workers:
        for outcome in workers.imap_unordered(play, jobs, chunksize=1):
            outcomes.append(outcome)
            if log is not None:
                log.write(to_line(outcome) + "\n")
                log.flush()
    if log is not None:
        log.close()
    elapsed = time.perf_counter() - start
    print()
    table(outcomes)
    print()
    print(f"{len(jobs)} games in {elapsed:.0f} s wall clock")


if __name__ == "__main__":
    main()
