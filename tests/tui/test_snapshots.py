"""Snapshot tests (pytest-textual-snapshot) at 80x24 and 120x40.

Every screen is fed a seeded engine game (fixed names, fixed seeds, bots choosing with seeded
randomness), so the pictures only change when the client's drawing does. Update them with
`pytest tests/tui --snapshot-update` after checking the new pictures by eye.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from server.engine import Game

from .fixtures import feed_game, find_game, offline_app

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]

Compare = Callable[..., bool]


def deciding(
    kind: str,
    edition: str,
    *,
    min_turn: int = 0,
    sharks: int | None = None,
    legal: int | None = None,
) -> Callable[[Game], bool]:
    """A stop condition: seat 0 must make a decision of ``kind``."""

    def stop(game: Game) -> bool:
        decision = game.decision
        if decision is None or decision.kind != kind or 0 not in game.pending_seats():
            return False
        if game.turn < min_turn:
            return False
        if sharks is not None and len(game.view(None)["sharks"]) != sharks:
            return False
        return legal is None or len(game.legal(0)) == legal

    return stop


def fed(
    game: Game, timers: dict[int, float] | None = None, keys: tuple[str, ...] = ()
) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A run_before that feeds the game to the app, then presses ``keys``."""

    async def run_before(pilot: Pilot[None]) -> None:
        feed_game(pilot.app, game, 0, timers)  # type: ignore[arg-type]
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


#: Two rooms of the lobby snapshots (the Chinese ones show them too).
WAITING_ROOM: dict[str, Any] = {
    "room": "QZKX",
    "edition": "space",
    "size": 4,
    "filled": 3,
    "humans": 1,
    "bots": 2,
    "status": "waiting",
    "timer": 60,
    "variants": [],
    "host": "Ann",
    "spectators": 0,
}
PLAYING_ROOM: dict[str, Any] = {
    "room": "MBTR",
    "edition": "shipwrecked",
    "size": 5,
    "filled": 5,
    "humans": 2,
    "bots": 3,
    "status": "playing",
    "timer": 0,
    "variants": [],
    "host": "Bob",
    "spectators": 1,
}


@pytest.mark.parametrize("size", SIZES)
def test_lobby(snap_compare: Compare, size: tuple[int, int]) -> None:
    app = offline_app()
    rooms: list[dict[str, Any]] = [
        WAITING_ROOM,
        PLAYING_ROOM,
        {
            "room": "WELP",
            "edition": "space",
            "size": 2,
            "filled": 1,
            "humans": 1,
            "bots": 0,
            "status": "waiting",
            "timer": 30,
            "variants": [],
            "host": "Cid",
            "spectators": 0,
        },
    ]

    async def run_before(pilot: Pilot[None]) -> None:
        app.lobby.set_status("Connected to selfish-server 0.1.0 as Ann.")
        app.feed({"type": "rooms", "rooms": rooms})
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_space_mid_game(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=10))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_shipwrecked_mid_game_two_sharks(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=8, sharks=2))
    assert len(game.view(0)["sharks"]) == 2
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_target_prompt(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("swap", "space"))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_reaction_prompt(snap_compare: Compare, size: tuple[int, int], frozen_clock: None) -> None:
    game = find_game("shipwrecked", deciding("react", "shipwrecked", legal=2))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game, {0: 30.0}))


@pytest.mark.parametrize("size", SIZES)
def test_hack_suit_hand_view(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("take", "space"))
    assert game.view(0)["decision"]["reveal"]
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    assert snap_compare(
        offline_app(), terminal_size=size, run_before=fed(game, keys=("question_mark",))
    )


@pytest.mark.parametrize("size", SIZES)
def test_game_over(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("shipwrecked", None)
    assert game.over
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize(
    "size", [pytest.param((79, 24), id="79x24"), pytest.param((60, 18), id="60x18")]
)
def test_terminal_too_small(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))
