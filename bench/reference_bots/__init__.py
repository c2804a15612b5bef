"""The ``reference`` level: the bots of issue 15 (``basic`` and ``expert`` as they were when
issue 30 began), frozen here as a fixed yardstick for bench/bots.py's "expert vs reference"
pairing. Used by benchmarks only; no room can seat it. Not to be edited: a change would move
the yardstick."""

from __future__ import annotations

import random
from typing import Any

from bench.reference_bots.expert import DEFAULT_BUDGET, choose_expert


def choose_reference(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The reference expert's choice, at its own default budget's rollouts (128, no clock)."""
    legal: list[dict[str, Any]] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    return choose_expert(view, rng, type(DEFAULT_BUDGET)(DEFAULT_BUDGET.rollouts))
