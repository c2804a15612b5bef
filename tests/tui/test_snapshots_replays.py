"""The replay viewer and the screens of finished games at 80x24, in English and Chinese, with five
seats of the longest names (wide Chinese ones among them). Look at the pictures as PNGs
(`rsvg-convert`) before updating them with `--snapshot-update`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from selfish_tui import i18n
from selfish_tui.replay import open_replay
from selfish_tui.replay_app import ReplayApp
from selfish_tui.screens.leaderboard import LeaderboardScreen
from selfish_tui.screens.profile import ProfileScreen
from selfish_tui.screens.replays import ReplaysScreen
from server.engine import Game

from .fixtures import LONG_NAMES, feed_game, find_game, offline_app
from .records import record_of, replay_message
from .test_snapshots import Compare

SIZE = (80, 24)
NOW = 1795860000.5 + 7200  # two hours after the games ended


@pytest.fixture(params=["en", "zh"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    yield str(request.param)
    i18n.set_language("en")


@pytest.fixture(scope="module")
def game() -> Game:
    return find_game("shipwrecked", None, names=LONG_NAMES)


@pytest.fixture(autouse=True)
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ages ("2 h") and dates as of one moment, in one time zone."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setattr("selfish_tui.screens.replays.time.time", lambda: NOW)


def viewer(game: Game, keys: tuple[str, ...] = ()) -> tuple[ReplayApp, Any]:
    app = ReplayApp(open_replay(record_of(game)), seat=0, title="#12")

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return app, run_before


def test_viewer_at_the_start(snap_compare: Compare, language: str, game: Game) -> None:
    app, before = viewer(game)
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_viewer_all_revealed(snap_compare: Compare, language: str, game: Game) -> None:
    app, before = viewer(game, ("right_square_bracket",) * 3 + ("right", "a"))
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_viewer_at_the_end(snap_compare: Compare, language: str, game: Game) -> None:
    app, before = viewer(game, ("end",))
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_viewer_turn_number(snap_compare: Compare, language: str, game: Game) -> None:
    app, before = viewer(game, ("g", "4"))
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_game_over_with_every_hand(snap_compare: Compare, language: str, game: Game) -> None:
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        feed_game(app, game, 0)
        await pilot.pause()
        app.feed(replay_message(game, 1))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def summaries(game: Game) -> list[dict[str, Any]]:
    message = replay_message(game, 12)
    keep = ("room", "edition", "variants", "seats", "winner", "turns", "ended")
    return [
        {**{k: message[k] for k in keep}, "game": number, "public": True, "rated": True, "seat": 0}
        for number in (12, 11, 9)
    ]


def test_replays_list(snap_compare: Compare, language: str, game: Game) -> None:
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.push_screen(ReplaysScreen())
        await pilot.pause()
        app.feed({"type": "replays", "games": summaries(game), "next": 9})
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_profile(snap_compare: Compare, language: str) -> None:
    app = offline_app()
    record = {
        "games": 14,
        "wins": 5,
        "no_winner": 1,
        "streak": 2,
        "best_streak": 3,
        "last_played": 1795860000.5,
        "rated_games": 12,
    }

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.push_screen(ProfileScreen("p1", LONG_NAMES[1]))
        await pilot.pause()
        rating = {"rating": 1040, "mu": 26.0, "sigma": 6.1, "provisional": True}
        settled = {"rating": 1187, "mu": 29.7, "sigma": 2.0, "provisional": False}
        app.feed(
            {
                "type": "profile",
                "player": "p1",
                "name": LONG_NAMES[1],
                "bot": False,
                "editions": [
                    {"edition": "space", **record, "rating": settled},
                    {"edition": "shipwrecked", **record, "rating": rating},
                ],
            }
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_leaderboard(snap_compare: Compare, language: str) -> None:
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app.push_screen(LeaderboardScreen())
        await pilot.pause()
        entries = [
            {
                "rank": rank,
                "player": f"p{rank}",
                "name": name,
                "games": 40 - rank,
                "wins": 20 - rank,
                "last_played": 1795860000.5,
                "rating": {
                    "rating": 1300 - 20 * rank,
                    "mu": 30.0,
                    "sigma": 2.0,
                    "provisional": False,
                },
            }
            for rank, name in enumerate(LONG_NAMES, start=1)
        ]
        app.feed({"type": "leaderboard", "edition": "space", "entries": entries, "next": "x"})
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_watch_again_from_the_game_over(snap_compare: Compare, language: str, game: Game) -> None:
    """The viewer inside the connected app, whose own keys (quit, help, language) share the
    footer."""
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        feed_game(app, game, 0)
        await pilot.pause()
        app.feed(replay_message(game, 1))
        await pilot.pause()
        await pilot.press("w", "right_square_bracket", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
