"""bench/space_harbour.py runs end to end and prints a row per pair of limits and table.

Its figures are for people to read (docs/bots.md), never asserted."""

from __future__ import annotations

from tests.bench_script import run_bench


def test_harbour_bench_prints_both_tables_of_each_pair_of_limits() -> None:
    arguments = ("--rounds", "0,3", "--away", "1,3", "--games", "4", "--table-games", "4")
    run = run_bench("space_harbour.py", *arguments)
    assert run.returncode == 0, run.stderr
    rows = [
        line
        for line in run.stdout.splitlines()
        if line.startswith("| 0 ") or line.startswith("| 3 ")
    ]
    assert [row.split(" | ")[:4] for row in rows] == [
        [f"| {rounds}", away, table, "4"]
        for away in ("1", "3")
        for rounds in (0, 3)
        for table in ("vs 3 random", "4 x basic")
    ]
    assert run_bench("space_harbour.py", *arguments).stdout == run.stdout  # replays from seed
