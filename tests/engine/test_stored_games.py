"""Games recorded by an earlier engine, whose wire still carried English (their seeds and
decisions, as the store keeps them), replay to their recorded final state: the rules are the
same whatever the wire carries."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from server.engine import replay

STORED = json.loads((Path(__file__).parent / "data" / "stored_games.json").read_text())


@pytest.mark.parametrize("stored", STORED, ids=lambda g: f"{g['edition']}-{g['seed']}")
def test_a_stored_game_replays_to_its_recorded_final_state(stored: dict[str, Any]) -> None:
    decisions = [(seat, choice) for seat, choice in stored["decisions"]]
    game = replay(stored["edition"], stored["names"], stored["seed"], decisions, stored["variants"])
    snapshot = game.snapshot()
    assert (game.over, game.winner, game.turn) == (True, stored["winner"], stored["turn"])
    digest = hashlib.sha256(json.dumps(snapshot, sort_keys=True).encode()).hexdigest()
    assert digest == stored["snapshot_sha256"]
