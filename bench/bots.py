"""The bots' tournament: how often each level wins against the others, per edition.

Prints figures only (no assertions). For every pairing "A vs B" one seat of level A plays three
seats of level B at a 4-seat table, A's seat rotating through the four seats game by game; the
figure is A's win share with its margin of error (95%), and, for every row, the share of games
nobody wins, the median turns per game and the share of the tested level's turns spent staying
on the start row (row 0). "4 x A" is four seats of A. Expert decisions are timed (every decision
the expert is asked, searched or not): median and p99.

The ``round-robin`` pairing seats one of each level (random, basic, expert, reference) at every
table, the seats rotated game by game; its games rate the levels with openskill's Weng-Lin
Plackett-Luce model, the one the server rates players with (the winner ranked first, the others
tied below; all tied when nobody wins), so that a player's rating and the bots' share one scale.
``reference`` is a frozen copy of the expert (bench/reference_bots/): a fixed yardstick.

    python bench/bots.py [--games N] [--rollouts R] [--close C] [--seconds S] [--search S]
                         [--editions E,...] [--pairings P,...] [--expert-games N]
                         [--jobs J] [--seed S] [--log FILE] [--table FILE ...]

``--rollouts`` / ``--close`` / ``--seconds`` are the expert's budget per decision (``--seconds
0``: rollouts alone, which makes every figure replay exactly from ``--seed``); ``--search
ismcts`` seats the expert with its tree search (``server.bots.ismcts``) in place of the flat
one. Games run in ``--jobs`` processes (default: every core). ``--log`` appends every game's
outcome to a file (one JSON line each) as it ends, so that a long tournament shows its figures
while it runs: ``--table FILE ...`` prints the tables of the games logged so far, playing none.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the checkout: bench.reference_bots

from openskill.models import PlackettLuce

from bench.reference_bots import choose_reference
from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.levels import SEARCHES
from server.bots.selfplay import play_game
from server.engine.cards import Edition

SEATS = 4
LEVELS = ("random", "basic", "expert", "reference")
ROUND_ROBIN = "round-robin"
PAIRINGS = (
    tuple(f"{a}-vs-{b}" for a in LEVELS for b in LEVELS if a != b)
    + tuple(f"4x{level}" for level in LEVELS)
    + (ROUND_ROBIN,)
)
#: The pairings the bots' targets are set on (docs/bots.md; the default).
TARGETS = ("expert-vs-basic", "4xexpert", "expert-vs-reference", "basic-vs-random", ROUND_ROBIN)


@dataclass(frozen=True)
class Job:
    """One game of the tournament."""

    edition: str
    pairing: str
    index: int
    seed: int
    rollouts: int
    close: int
    seconds: float | None
    search: str = "flat"


@dataclass(frozen=True)
class Outcome:
    """How one game went: who sat where, who won, how long it took, how the seats played."""

    job: Job
    levels: tuple[str, ...]
    winner: int | None
    turns: int
    own_turns: tuple[int, ...]
    start_row_stays: tuple[int, ...]
    expert_seconds: tuple[float, ...]

    @property
    def tested(self) -> str:
        """The level under test: A of "A vs B" and "4 x A"; every level in a round robin."""
        pairing = self.job.pairing
        return pairing[2:] if pairing.startswith("4x") else pairing.split("-vs-")[0]

    @property
    def won(self) -> bool:
        """The level under test won (a pairing) / somebody won (4 x A, round robin)."""
        if self.winner is None:
            return False
        return self.job.pairing.startswith("4x") or self.levels[self.winner] == self.tested


def seats_of(pairing: str, index: int) -> list[str]:
    """The levels at the table for game ``index`` of a pairing."""
    if pairing == ROUND_ROBIN:
        shift = index % SEATS
        return list(LEVELS[shift:] + LEVELS[:shift])
    if pairing.startswith("4x"):
        return [pairing[2:]] * SEATS
    tested, other = pairing.split("-vs-")
    levels = [other] * SEATS
    levels[index % SEATS] = tested
    return levels


def play(job: Job) -> Outcome:
    """Play one game (in a worker process)."""
    levels = seats_of(job.pairing, job.index)
    result = play_game(
        Edition(job.edition),
        levels,
        job.seed,
        check=False,
        budget=Budget(job.rollouts, job.seconds, job.close),
        # The reference keeps its own clock (0.3 s) when the expert has one.
        deciders={"reference": partial(choose_reference, clock=job.seconds is not None)},
        search=job.search,
    )
    return Outcome(
        job,
        tuple(levels),
        result.winner,
        result.turns,
        tuple(result.own_turns),
        tuple(result.start_row_stays),
        tuple(result.expert_seconds),
    )


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def margin(hits: int, games: int) -> float:
    """The 95% margin of error of a share of ``hits`` in ``games``, in points."""
    share = hits / games
    return 100 * 1.96 * math.sqrt(share * (1 - share) / games)


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
        help=f"expert: rollouts per searched decision ({DEFAULT_BUDGET.rollouts})",
    )
    parser.add_argument(
        "--close",
        type=int,
        default=DEFAULT_BUDGET.close,
        help=f"expert: rollouts at most for a close decision, 0 for no more than --rollouts "
        f"({DEFAULT_BUDGET.close})",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_BUDGET.seconds,
        help=f"expert: seconds per decision at most, 0 for none ({DEFAULT_BUDGET.seconds})",
    )
    parser.add_argument(
        "--search",
        choices=tuple(SEARCHES),
        default="flat",
        help="expert: its search, flat (the expert rooms seat) or ismcts (the tree search)",
    )
    parser.add_argument("--editions", default="space,shipwrecked")
    parser.add_argument(
        "--pairings", default=",".join(TARGETS), help=f"any of {', '.join(PAIRINGS)}"
    )
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", help="append each game's outcome to this file (JSON lines)")
    parser.add_argument("--table", nargs="+", metavar="FILE", help="print the tables of logs")
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
    args.close = max(args.close, args.rollouts) if args.close else 0
    return args


def to_line(outcome: Outcome) -> str:
    """One logged game."""
    data = asdict(outcome)
    return json.dumps(data)


def from_line(line: str) -> Outcome:
    """A logged game back."""
    data = json.loads(line)
    job = Job(**data.pop("job"))
    return Outcome(job, **{key: tuple(v) if isinstance(v, list) else v for key, v in data.items()})


def _stays(outcomes: list[Outcome], level: str) -> str:
    """The share of ``level``'s turns in ``outcomes`` spent staying on the start row."""
    turns = stays = 0
    for outcome in outcomes:
        for seat, seated in enumerate(outcome.levels):
            if seated == level:
                turns += outcome.own_turns[seat]
                stays += outcome.start_row_stays[seat]
    return f"{100 * stays / turns:.1f}%" if turns else "-"


def table(outcomes: list[Outcome]) -> None:
    """Print the tournament's table: a row per edition and pairing played."""
    print(
        "| edition | pairing | games | result (±95%) | no winner | median turns "
        "| start-row stays | expert budget | expert s/decision median | p99 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = sorted({(o.job.edition, o.job.pairing) for o in outcomes}, key=_row_order)
    for edition, pairing in rows:
        mine = [o for o in outcomes if o.job.edition == edition and o.job.pairing == pairing]
        games = len(mine)
        nobody = sum(o.winner is None for o in mine)
        nobody_text = f"{100 * nobody / games:.1f}% (±{margin(nobody, games):.1f})"
        if pairing.startswith("4x") or pairing == ROUND_ROBIN:
            result = "-"
        else:
            wins = sum(o.won for o in mine)
            result = f"{mine[0].tested} wins {100 * wins / games:.1f}% (±{margin(wins, games):.1f})"
        stays = "-" if pairing == ROUND_ROBIN else _stays(mine, mine[0].tested)
        turns = statistics.median(o.turns for o in mine)
        times = [t for o in mine for t in o.expert_seconds]
        timing = (
            f"{statistics.median(times):.3f} | {percentile(times, 0.99):.3f}" if times else "- | -"
        )
        name = pairing.replace("-", " ").replace("4x", "4 x ")
        budget = (
            ", ".join(sorted({_budget(o.job) for o in mine}))
            if "expert" in pairing or pairing == ROUND_ROBIN
            else "-"
        )
        print(
            f"| {edition} | {name} | {games} | {result} | {nobody_text} | {turns:g} | {stays} "
            f"| {budget} | {timing} |"
        )


def levels_table(outcomes: list[Outcome]) -> None:
    """Print each level's rating from the round-robin games, its median turns per game at a
    table of four of it, and the share of its turns spent staying on the start row (over every
    game it sat in)."""
    editions = sorted({o.job.edition for o in outcomes}, key=[e.value for e in Edition].index)
    print(
        "| edition | level | rating mu | sigma | ordinal (mu - 3 sigma) | round-robin wins "
        "| median turns, 4 x level | start-row stays, every game |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for edition in editions:
        mine = [o for o in outcomes if o.job.edition == edition]
        robin = sorted((o for o in mine if o.job.pairing == ROUND_ROBIN), key=lambda o: o.job.index)
        model = PlackettLuce()
        ratings = {level: model.rating(name=level) for level in LEVELS}
        for outcome in robin:
            teams = [[ratings[level]] for level in outcome.levels]
            ranks = [
                1 if outcome.winner is None or seat == outcome.winner else 2
                for seat in range(len(teams))
            ]
            for level, (rated,) in zip(outcome.levels, model.rate(teams, ranks=ranks), strict=True):
                ratings[level] = rated
        for level in LEVELS:
            seated = [o for o in mine if level in o.levels]
            if not seated:
                continue
            rating = ratings[level]
            if robin:
                wins = sum(o.winner is not None and o.levels[o.winner] == level for o in robin)
                rated = f"{rating.mu:.1f} | {rating.sigma:.1f} | {rating.ordinal():.1f}"
                won = f"{100 * wins / len(robin):.1f}% of {len(robin)}"
            else:
                rated, won = "- | - | -", "-"
            four = [o.turns for o in mine if o.job.pairing == f"4x{level}"]
            turns = f"{statistics.median(four):g}" if four else "-"
            print(f"| {edition} | {level} | {rated} | {won} | {turns} | {_stays(seated, level)} |")


def _budget(job: Job) -> str:
    """An expert budget as the table shows it."""
    close = f" (close {job.close})" if job.close > job.rollouts else ""
    clock = f" or {job.seconds} s" if job.seconds else ""
    search = "" if job.search == "flat" else f", {job.search}"
    return f"{job.rollouts} rollouts{close}{clock}{search}"


def _row_order(row: tuple[str, str]) -> tuple[int, int]:
    edition, pairing = row
    editions = [e.value for e in Edition]
    return (editions.index(edition), PAIRINGS.index(pairing))


def show(outcomes: list[Outcome]) -> None:
    """Both tables."""
    table(outcomes)
    print()
    levels_table(outcomes)


def main(argv: list[str] | None = None) -> None:
    """Run the tournament and print its tables."""
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.table:
        logged: list[Outcome] = []
        for name in args.table:
            with open(name, encoding="utf-8") as lines:
                logged.extend(from_line(line) for line in lines if line.strip())
        show(logged)
        return
    seconds = args.seconds or None
    expert_games = args.expert_games or args.games
    jobs = [
        Job(
            edition,
            pairing,
            index,
            args.seed * 1_000_003 + index,
            args.rollouts,
            args.close,
            seconds,
            args.search,
        )
        for edition in args.edition_list
        for pairing in args.pairing_list
        for index in range(expert_games if _searches(pairing) else args.games)
    ]
    budget = _budget(jobs[0]) if jobs else "-"
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
    show(outcomes)
    print()
    print(f"{len(jobs)} games in {elapsed:.0f} s wall clock")


def _searches(pairing: str) -> bool:
    """Whether a pairing seats a level that searches."""
    return "expert" in pairing or "reference" in pairing or pairing == ROUND_ROBIN


if __name__ == "__main__":
    main()
