"""The client's one clock, for countdowns. A module function so tests can freeze it."""

from __future__ import annotations

import time


def now() -> float:
    """Monotonic seconds."""
    return time.monotonic()
