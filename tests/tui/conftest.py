"""Fixtures for the client's tests: an in-process server with instant bots, a frozen clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from selfish_tui import clock
from selfish_tui.local import EmbeddedServer
from selfish_tui.widgets import prompt


@pytest.fixture(scope="session")
def server_port() -> Iterator[int]:
    """One embedded server for the whole session (each test makes its own rooms)."""
    with EmbeddedServer(
        ":memory:", bot_delay=0.0, away_delay=0.0, rate_per_second=1000.0, rate_burst=1000
    ) as server:
        yield server.port


@pytest.fixture(autouse=True)
def quick_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    """New prompts take keys at once in tests that play whole games; the tests of the settling
    moment itself set it back (see test_keys.py)."""
    monkeypatch.setattr(prompt, "SETTLE", 0.0)
    # The "new" mark stays for the whole test, so snapshots never depend on the machine's speed.
    monkeypatch.setattr(prompt, "MARKED", 3600.0)


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop countdowns from ticking, so snapshots with a timer are stable."""
    monkeypatch.setattr(clock, "now", lambda: 1000.0)
