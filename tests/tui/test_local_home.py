"""Two `selfish play` with one home at once. The second says why at once (it
used to hang on "Setting up your game…", its server failing on a game id the first had taken),
and the first plays on; once the first has stopped, the home is free again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from selfish_tui.app import LocalPlan, SelfishApp
from selfish_tui.local import EmbeddedServer
from selfish_tui.paths import local_db_path

from .pilot import table_shown, wait_for


def selfish_play(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`selfish play` as a person runs it, with ``home`` as XDG_DATA_HOME."""
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "selfish_tui.cli", "play", "--seed", "5", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )


async def test_a_second_local_game_on_the_same_home_says_why_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    first = EmbeddedServer(local_db_path(), bot_delay=0.0)  # what the first `selfish play` runs
    port = first.start()
    try:
        second = selfish_play(tmp_path)
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr == (
            f"selfish: another Selfish (process {os.getpid()}) is already using "
            f"{local_db_path()}: quit it first, or give this one a home of its own "
            "(XDG_DATA_HOME=DIR)\n"
        )
        # The first game goes on untouched.
        app = SelfishApp("127.0.0.1", port, "You", plan=LocalPlan(seed=5))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_shown(app))
    finally:
        first.stop()
    # The first has quit: its home takes the next one (the lock went with it).
    again = EmbeddedServer(local_db_path(), bot_delay=0.0)
    again.start()
    again.stop()


def test_two_homes_play_at_the_same_time(tmp_path: Path) -> None:
    """Each home its own database: two servers at once, neither in the other's way."""
    one = EmbeddedServer(tmp_path / "a" / "local.sqlite3")
    two = EmbeddedServer(tmp_path / "b" / "local.sqlite3")
    try:
        assert one.start() != two.start()
    finally:
        one.stop()
        two.stop()
