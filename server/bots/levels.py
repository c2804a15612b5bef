"""Bots: they choose among a seat's legal choices using only that seat's view.

``random`` picks uniformly; ``basic`` plays rules of thumb (``server.bots.basic``); ``expert``
searches (``server.bots.expert``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from server.bots.basic import choose_basic
from server.bots.budget import DEFAULT_BUDGET, Budget
from server.bots.expert import choose_expert
from server.bots.ismcts import choose_ismcts
from server.bots.seen import seen_from_view

BOT_LEVELS = ("random", "basic", "expert")
#: The levels that search (and take a budget, and want to know the table they sit at).
THINKING = frozenset({"expert"})
#: The expert's searches: the flat one (``server.bots.expert``, the one rooms seat) and the
#: tree search (``server.bots.ismcts``), which bench/bots.py's ``--search`` can seat instead.
SEARCHES = {"flat": choose_expert, "ismcts": choose_ismcts}

View = dict[str, Any]
Choice = dict[str, Any]


def choose(
    level: str,
    view: View,
    rng: random.Random,
    budget: Budget | None = None,
    table: Sequence[str | None] | None = None,
    search: str = "flat",
) -> Choice:
    """The bot's choice: one of ``view["legal"]`` (never empty when asked). ``budget`` bounds
    the ``expert``'s search (its default budget when None); ``table`` is every seat's level as
    the room knows it (None for a person), which the ``expert`` models its opponents by;
    ``search`` is the expert's (:data:`SEARCHES`)."""
    legal: list[Choice] = view["legal"]
    if level == "random" or len(legal) == 1:
        return rng.choice(legal)
    if level == "expert":
        return SEARCHES[search](view, rng, budget or DEFAULT_BUDGET, table)
    if level != "basic":
        raise ValueError(f"unknown bot level {level!r}")
    return choose_basic(seen_from_view(view), rng)
