"""The ``reference`` level: a copy of the ``basic`` and ``expert`` bots, frozen here as a fixed
yardstick for bench/bots.py's "expert vs reference" pairing. Used by benchmarks only; no room
can seat it. Not to be edited: a change would move the yardstick."""

from __future__ import annotations

import random
from typing import Any

from bench.reference_bots.expert import DEFAULT_BUDGET, Budget, choose_expert

#: Its budget without the clock (128 rollouts), for runs that replay from their seed.
ROLLOUTS_ONLY = Budget(DEFAULT_BUDGET.rollouts)


def choose_reference(
    view: dict[str, Any], rng: random.Random, clock: bool = True
) -> dict[str, Any]:
    """The reference expert's choice at its own default budget (128 rollouts or 0.3 s), or
    without its clock."""
    return choose_expert(view, rng, DEFAULT_BUDGET if clock else ROLLOUTS_ONLY)
