"""bench/bots.py runs end to end: the tournament's table and the levels' ratings.

Its figures are for people to read (docs/bots.md), never asserted: only that it plays the
games asked for and prints every row and every level."""

from __future__ import annotations

from tests.bench_script import run_bench

ARGUMENTS = (
    "--games", "4", "--rollouts", "2", "--close", "0", "--seconds", "0", "--jobs", "1",
    "--editions", "space", "--pairings", "basic-vs-random,round-robin",
)  # fmt: skip


def test_the_tournament_prints_its_rows_and_rates_every_level() -> None:
    run = run_bench("bots.py", *ARGUMENTS, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("| space | basic vs random | 4 | basic wins ") for line in lines)
    assert any(line.startswith("| space | round robin | 4 | - |") for line in lines)
    rated = [line.split(" | ")[1] for line in lines if line.startswith("| space | ")]
    assert rated[-4:] == ["random", "basic", "expert", "reference"]
    again = run_bench("bots.py", *ARGUMENTS, timeout=300).stdout.splitlines()
    # Every figure replays from the seed, but the seconds: the timing columns and wall clock.
    assert [line.rsplit(" | ", 2)[0] for line in again[:-1]] == [
        line.rsplit(" | ", 2)[0] for line in lines[:-1]
    ]


def test_the_tournament_seats_the_tree_search_when_asked() -> None:
    run = run_bench(
        "bots.py", "--games", "2", "--rollouts", "8", "--close", "0", "--seconds", "0",
        "--jobs", "1", "--editions", "space", "--pairings", "expert-vs-basic",
        "--search", "ismcts", timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("| space | expert vs")]
    assert len(rows) == 1 and "| 8 rollouts, ismcts |" in rows[0]
