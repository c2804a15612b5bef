"""PROTOCOL.md §6 names every key the engine's view actually sends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.engine import Game

DOC = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
def test_documented_view_keys(edition: str) -> None:
    section = DOC[DOC.index("## 6. ") : DOC.index("## 7. ")]
    documented = set(re.findall(r'"([a-z_]+)"', section))
    game = Game(edition, ["Ann", "Bob", "Cid"], 5)
    for seat in (0, None):
        view = game.view(seat)
        assert set(view) <= documented
        for player in view["players"]:
            assert set(player) <= documented
        for card in view["hand"] or []:
            assert set(card) <= documented
        for choice in view["legal"]:
            assert set(choice) <= documented | {"fatal", "label"}
