"""bench/space_oracle.py runs end to end and says what it measured.

Its figures are for people to read (docs/bots.md), never asserted: only that the harness plays
the games it was asked for, against the bots named, and prints its share, is checked here.
"""

from __future__ import annotations

import re

import pytest

from tests.bench_script import run_bench


def run_oracle(*arguments: str) -> str:
    run = run_bench("space_oracle.py", *arguments)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize(
    ("against", "order", "sees"),
    [("random", (), "every hand"), ("basic", ("--sees-order",), "every hand and the draw order")],
)
def test_oracle_plays_the_games_asked_and_prints_its_share(
    against: str, order: tuple[str, ...], sees: str
) -> None:
    arguments = ("--against", against, "--games", "4", "--playouts", "2", "--jobs", "1", *order)
    printed = run_oracle(*arguments)
    assert f"oracle (sees {sees}) vs 3 {against}, 4 games, 2 playouts per choice" in printed
    share = re.search(r"oracle wins (\d+\.\d)%", printed)
    assert share is not None and float(share.group(1)) in (0.0, 25.0, 50.0, 75.0, 100.0)
    assert run_oracle(*arguments) == printed  # every game replays from its seed
