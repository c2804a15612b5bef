"""The replay viewer: opening a finished game, and stepping through it one decision at a time.

Runs the viewer headless (Textual's Pilot) over a five-seat Space game of about 150 decisions
(seeded; the first whose record is at least ``--decisions`` long), as `selfish replay FILE`
shows it. Times, in milliseconds:

- opening: from the file's text to the first frame of the viewer on the terminal (reading and
  checking the file, the engine re-playing it against its digest, the screen composed);
- stepping: each → from the start to the end, from the key to the next frame handed to the
  terminal (``App._display``), each panel that changed redrawn: p50, p99 and the slowest. The
  keys come as a held key repeats them (30 a second), so each finds Textual's frame clock idle
  and is drawn at once, as a person sees it; the same keys back to back (each sent as soon as
  the last is drawn) also wait for the clock's next frame (up to 1/60 s), printed beside;
- beside them, in the same run, the same frame from another seat's view (v): every panel
  redrawn without a step;
- and stepping from everything revealed (every hand, the draw pile).

Each figure is on the clock and in this process's CPU time (which a shared, loaded machine
does not inflate). Goals (docs/client.md): a step at most 30 ms, an opening at most 300 ms.
Prints figures only.

    python bench/replay_viewer.py [--decisions 150] [--size 80x24]
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

from selfish_tui.replay import open_replay, read_file
from selfish_tui.replay_app import ReplayApp
from selfish_tui.screens.replay import ReplayScreen
from server.engine import Game
from tests.tui.fixtures import drive
from tests.tui.records import file_text

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]

#: Seconds between the keys of a held key (a terminal's key repeat, about 30 a second).
REPEAT = 1 / 30


def long_game(decisions: int) -> Game:
    """The first seeded five-seat Space game (random play) with at least ``decisions``."""
    for seed in range(1, 2000):
        game = drive(Game("space", NAMES, seed=seed), lambda g: False, seed=seed)
        if len(game.decisions) >= decisions:
            return game
    raise SystemExit(f"no game of {decisions} decisions in the first 2000 seeds")


async def until_painted(
    app: Any, key: str, character: str | None, pace: float = REPEAT
) -> tuple[float, float]:
    """Milliseconds from posting ``key`` to the next frame handed to the terminal: on the
    clock (which includes the wait for Textual's next frame, at most 1/60 s), and of this
    process's CPU (the work alone: the wait is idle, and a shared, loaded machine does not
    inflate it). ``pace``: seconds after the last key that this one comes (0: at once)."""
    await asyncio.sleep(pace)
    painted: list[tuple[float, float]] = []
    done = asyncio.Event()
    display = app._display

    def timed(screen: Any, renderable: Any) -> None:
        if renderable is not None and not painted:
            painted.append((time.perf_counter(), time.process_time()))
            done.set()
        display(screen, renderable)

    app._display = timed
    start, cpu = time.perf_counter(), time.process_time()
    await app._post_message(events.Key(key, character))
    await done.wait()
    app._display = display
    return (painted[0][0] - start) * 1000, (painted[0][1] - cpu) * 1000


async def measure(text: str, size: tuple[int, int]) -> dict[str, Any]:
    """Open the file's game and step it through; the figures."""
    start, cpu = time.perf_counter(), time.process_time()
    replay = open_replay(read_file(text))
    app = ReplayApp(replay, seat=0)
    out: dict[str, Any] = {"decisions": replay.last}
    async with app.run_test(size=size) as pilot:
        painted: list[float] = []
        display = app._display

        def first(screen: Any, renderable: Any) -> None:
            if isinstance(screen, ReplayScreen) and renderable is not None and not painted:
                painted.append((time.perf_counter(), time.process_time()))
            display(screen, renderable)

        app._display = first
        while not painted:
            await asyncio.sleep(0)
        app._display = display
        out["open"] = ((painted[0][0] - start) * 1000, (painted[0][1] - cpu) * 1000)
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        steps = []
        while screen.index < replay.last:
            steps.append(await until_painted(app, "right", None))
        out["steps"] = steps
        await pilot.press("home")
        await pilot.pause(0.2)
        rushed = []
        while screen.index < replay.last:
            rushed.append(await until_painted(app, "right", None, pace=0))
        out["rushed"] = rushed
        # The baseline: the same screen drawn again on a key that changes no data (the
        # language switch back and forth would rebuild it; v shows the next seat's view).
        idle = []
        for _ in range(20):
            idle.append(await until_painted(app, "v", "v"))
        out["idle"] = idle
        await pilot.press("home", "a")
        await pilot.pause(0.2)
        revealed = []
        while screen.index < replay.last:
            revealed.append(await until_painted(app, "right", None))
        out["revealed"] = revealed
    return out


def line(label: str, values: list[tuple[float, float]]) -> str:
    """p50 / p99 / max of the clock's milliseconds, then the CPU's."""

    def figures(numbers: list[float]) -> str:
        ordered = sorted(numbers)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return f"p50 {statistics.median(numbers):5.1f}, p99 {p99:5.1f}, max {max(numbers):5.1f}"

    wall = figures([w for w, _ in values])
    cpu = figures([c for _, c in values])
    return f"{label}: {wall} ms (CPU {cpu} ms) over {len(values)}"


def main() -> None:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=150)
    parser.add_argument("--size", default="80x24")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    game = long_game(args.decisions)
    text = file_text(game)
    figures = asyncio.run(measure(text, (width, height)))
    print(
        f"game: space, 5 seats, {figures['decisions']} decisions, {game.turn} turns, "
        f"file {len(text.encode()) // 1024} KiB ({args.size})"
    )
    wall, cpu = figures["open"]
    print(f"opening the file to its first frame : {wall:6.1f} ms (CPU {cpu:6.1f} ms), goal 300")
    print(line("a decision forward, a seat's view  ", figures["steps"]) + ", goal 30")
    print(line("the same, keys back to back        ", figures["rushed"]))
    print(line("a decision forward, all revealed   ", figures["revealed"]))
    print(line("baseline: the next seat's view (v) ", figures["idle"]))


if __name__ == "__main__":
    main()
