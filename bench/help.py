"""Help: milliseconds from the key press to the help screen's first frame.

Runs the client headless (Textual's Pilot) on a Space game fed from a seeded engine game, posts
``?`` as the terminal would and times until the compositor hands the first frame of the help
screen to the terminal (``App._display``), which is the whole of the client's part of the
delay. It prints figures only (no assertions): the first open from the table (its lines
rendered ahead, while the table was showing), later opens, the first open from the game-over
dialog, and for comparison what rendering the rules on the key press would cost.

    python bench/help.py [--opens N] [--size 80x24]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from textual import events

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from selfish_tui.screens import help as help_screen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.help import HelpScreen
from tests.tui.fixtures import feed_game, find_game, offline_app


async def time_open(app: Any, pilot: Any) -> float:
    """Milliseconds from posting ``?`` to the first frame with the help screen on it."""
    painted: list[float] = []
    display = app._display

    def timed(screen: Any, renderable: Any) -> None:
        if isinstance(screen, HelpScreen) and renderable is not None and not painted:
            painted.append(time.perf_counter())
        display(screen, renderable)

    app._display = timed
    start = time.perf_counter()
    await app._post_message(events.Key("question_mark", "?"))
    while not painted:
        await asyncio.sleep(0.001)
    app._display = display
    await pilot.press("escape")
    await pilot.pause()
    return (painted[0] - start) * 1000


async def ready(pilot: Any) -> None:
    """Let the app settle as a player looking at the table would: its help rendered ahead."""
    while not help_screen._render.cache_info().currsize:
        await pilot.pause(0.01)
    await pilot.pause(0.2)


async def table(opens: int, size: tuple[int, int]) -> list[float]:
    """Opens from the table of a game in progress; the first is the first of the session."""
    game = find_game("space", lambda g: g.turn >= 3)
    help_screen._render.cache_clear()
    app = offline_app()
    out = []
    async with app.run_test(size=size) as pilot:
        feed_game(app, game, 0)
        await ready(pilot)
        for _ in range(opens):
            out.append(await time_open(app, pilot))
    return out


async def game_over(size: tuple[int, int]) -> float:
    """The first open from the game-over dialog."""
    help_screen._render.cache_clear()
    app = offline_app()
    async with app.run_test(size=size) as pilot:
        feed_game(app, find_game("shipwrecked", None), 0)
        while not isinstance(app.screen, GameOverScreen):
            await pilot.pause()
        await ready(pilot)
        return await time_open(app, pilot)


def render_on_the_key_path(size: tuple[int, int]) -> float:
    """Milliseconds to render the Space help once (what a key press would cost if the help were
    rendered on it)."""
    markdown = help_screen.help_markdown("space")
    start = time.perf_counter()
    help_screen._render.__wrapped__(markdown, help_screen.help_width(size[0]))
    return (time.perf_counter() - start) * 1000


def main() -> None:
    """Run the measurements and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=10)
    parser.add_argument("--size", default="80x24")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    size = (width, height)
    opens = asyncio.run(table(args.opens, size))
    print(f"help from the table, first open   : {opens[0]:6.1f} ms  ({args.size})")
    rest = opens[1:] or opens
    print(
        f"help from the table, later opens  : median {statistics.median(rest):6.1f} ms, "
        f"max {max(rest):6.1f} ms over {len(rest)}"
    )
    print(f"help from the game-over dialog    : {asyncio.run(game_over(size)):6.1f} ms")
    print(f"rendering the rules (not on a key): {render_on_the_key_path(size):6.1f} ms")


if __name__ == "__main__":
    main()
