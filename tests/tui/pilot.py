"""Playing the client by key presses, as a person would, for the Pilot tests."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from textual.pilot import Pilot

from protocol.game_types import Choice
from selfish_tui.app import SelfishApp
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.state import RoomState
from selfish_tui.widgets.prompt import PromptPanel

# How much a simple player likes each kind of choice: moving on keeps games short.
WEIGHTS = {"move": 8, "done": 3, "stay": 2, "play": 2, "accept": 2, "block": 2}


class Clock:
    """A clock the test moves by hand (``clock.t``): patched over ``selfish_tui.clock.now``."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def pick(legal: Sequence[Choice], rng: random.Random) -> int:
    """Index of the choice to make: weighted, and never a fatal one if anything else exists."""
    indices = [i for i, c in enumerate(legal) if not c.fatal] or list(range(len(legal)))
    weights = [WEIGHTS.get(legal[i].do, 1) for i in indices]
    return rng.choices(indices, weights)[0]


def keys_for(prompt: PromptPanel, choice: Choice) -> list[str] | None:
    """The keys shown on screen that make ``choice``: an entry's key, then a target's."""
    for entry in prompt.entries:
        if entry.choice == choice:
            return [entry.key] if entry.key else None
        for child in entry.group:
            if child.choice == choice:
                return [entry.key, child.key] if entry.key and child.key else None
    return None


async def press_choice(pilot: Pilot[None], prompt: PromptPanel, index: int) -> None:
    """Make the legal choice ``index`` with the keys the prompt shows for it (arrows and Enter
    for one beyond the number keys), once the prompt takes keys."""
    await wait_for(pilot, prompt.settled, timeout=5)
    choice = prompt.choices[index]
    keys = keys_for(prompt, choice)
    if keys is not None:
        await pilot.press(*keys)
        return
    for position, entry in enumerate(prompt.entries):
        inside = [c.choice for c in entry.group]
        if entry.choice == choice or choice in inside:
            await pilot.press("p", "home", *["down"] * position, "enter")
            if choice in inside:
                await pilot.press("home", *["down"] * inside.index(choice), "enter")
            return
    raise AssertionError(f"{choice} is not in the prompt")


async def wait_for(pilot: Pilot[None], condition: Any, timeout: float = 20.0) -> None:
    """Let the app run until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition}")
        await pilot.pause(0.01)


def table_shown(app: SelfishApp) -> bool:
    """The table is on screen and drawn: a table just pushed is not composed yet."""
    return isinstance(app.screen, TableScreen) and app.screen._ready


def current_room(app: SelfishApp) -> RoomState | None:
    """The room the app shows."""
    return app.rooms.get(app.current or "")


async def play_to_end(
    pilot: Pilot[None],
    app: SelfishApp,
    rng: random.Random,
    timeout: float = 60.0,
    max_decisions: int | None = None,
) -> int:
    """Answer every prompt by key presses until the game-over dialog shows; returns how many
    decisions were made (stops early after ``max_decisions``)."""
    deadline = time.monotonic() + timeout
    made = 0
    while not isinstance(app.screen, GameOverScreen):
        if time.monotonic() > deadline:
            raise AssertionError(f"the game did not end in time ({made} decisions made)")
        if max_decisions is not None and made >= max_decisions:
            return made
        screen = app.screen
        if isinstance(screen, ConfirmScreen):
            await pilot.press("y")
            continue
        room = current_room(app)
        # A table just pushed may not be composed yet, and one being replaced (rematch, a new
        # screen for the room) may have lost its widgets already: read a prompt only from the
        # current table that has one, else wait for the app to get there.
        prompts = screen.query(PromptPanel) if isinstance(screen, TableScreen) else None
        if prompts and screen._ready and room is not None and room.view:
            prompt = prompts.first()
            legal = list(room.view.legal)
            if legal and prompt.choices == legal:
                await press_choice(pilot, prompt, pick(legal, rng))
                made += 1
                continue
        await pilot.pause(0.01)
    return made
