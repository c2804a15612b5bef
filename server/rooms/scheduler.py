"""The clock and timers the lobby's bookkeeping runs on: the event loop, or a fake in tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Handle(Protocol):
    """A timer that can be called off."""

    def cancel(self) -> None:
        """Do not run it."""


class Scheduler(Protocol):
    """What ``asyncio.AbstractEventLoop`` offers for timers (``time`` and ``call_at``)."""

    def time(self) -> float:
        """Now, in seconds, on the scheduler's own clock."""

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any) -> Handle:
        """Run ``callback(*args)`` at ``when``."""
