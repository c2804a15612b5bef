"""bench/space_harm.py runs end to end and says what it measured.

Its figures are for people to read (docs/bots.md), never asserted. Checked here: that each rule
makes the expert's search weigh a card that only harms where the rule says and nowhere else, and
that the harness plays the games it was asked for under each rule, prints both tables' shares and
replays from its seed.
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from types import ModuleType

import pytest

import server.bots.expert as expert
from tests.bench_script import ROOT, run_bench
from tests.engine.scenario import build, card_id


def run_harm(*arguments: str) -> str:
    run = run_bench("space_harm.py", *arguments)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_each_rule_plays_both_tables_and_replays_from_its_seed() -> None:
    arguments = ("--rules", "never,calm-near", "--games", "4", "--table-games", "2")
    printed = run_harm(*arguments, "--rollouts", "4", "--jobs", "1")
    assert "space, 4 rollouts per expert decision, seeds from 5000" in printed
    for rule in ("never", "calm-near"):
        line = re.search(
            rf"{rule} +expert vs 3 basic: wins (\d+\.\d)% .* of 4;  "
            rf"4 x expert: no winner (\d+\.\d)% .* of 2",
            printed,
        )
        assert line is not None, printed
        assert float(line.group(1)) in (0.0, 25.0, 50.0, 75.0, 100.0)
        assert float(line.group(2)) in (0.0, 50.0, 100.0)
    assert run_harm(*arguments, "--rollouts", "4", "--jobs", "2") == printed


def test_an_unknown_rule_is_refused() -> None:
    run = run_bench("space_harm.py", "--rules", "always")
    assert run.returncode == 2
    assert "unknown rule 'always'" in run.stderr


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("space_harm", ROOT / "bench" / "space_harm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["space_harm"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("rule", "cid_row", "weighed"),
    [("never", 5, False), ("any", 1, True), ("near", 1, False), ("near", 4, True)],
)
def test_a_rule_decides_whether_the_search_weighs_a_laser_blast(
    rule: str, cid_row: int, weighed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Registered so that the test puts back the expert that weigh_harm changes.
    monkeypatch.setattr(expert, "shortlist", expert.shortlist)
    monkeypatch.setattr(expert, "HARM_FROM", expert.HARM_FROM)
    load_harness().weigh_harm(rule)
    game = build(
        "space",
        3,
        hands={0: ["laser_blast", "tractor_beam", "oxygen", "oxygen"], 1: ["oxygen"]},
        rows={2: cid_row},
        draw=["oxygen"],
    )
    found = [plan.choice for plan in expert.plans(game.view(0), random.Random(0))]
    blast = card_id(game, 0, "laser_blast")
    assert any(choice.get("card") == blast for choice in found) is weighed
    assert any(choice.get("card") == card_id(game, 0, "tractor_beam") for choice in found)
