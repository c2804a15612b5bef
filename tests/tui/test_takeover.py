"""The countdown before a bot takes a missing player's seat: the server sends keys
and values (``timer.grace``: seat, reason, seconds), the table's status line says the sentence
in the client's language, counts it down live, for players and spectators alike, within 80
columns, and draws a hostile name as the literal text it is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from protocol.errors import MalformedMessage
from selfish_tui import clock, i18n
from selfish_tui.app import SelfishApp
from selfish_tui.widgets.status import StatusLine
from server.engine import Game

from .fixtures import ROOM, feed_game, find_game, offline_app
from .pilot import Clock, table_shown, wait_for
from .test_hostile import screen_text

BOB = "[b]Bob[/b]"  # markup-like: it must stay literal


@pytest.fixture
def manual_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    now = Clock()
    monkeypatch.setattr(clock, "now", now)
    return now


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def duel() -> Game:
    return find_game("space", lambda g: g.turn >= 2, names=["Ann", BOB])


def timer(game: Game, *grace: dict[str, Any]) -> dict[str, Any]:
    version = len(game.decisions) + 1
    return {"type": "timer", "room": ROOM, "version": version, "timers": [], "grace": list(grace)}


def status_row(app: SelfishApp) -> str:
    return str(app.screen.query_one(StatusLine).summary().plain)


async def show(app: SelfishApp, pilot: Any, game: Game, seat: int | None) -> None:
    feed_game(app, game, seat)
    await wait_for(pilot, lambda: table_shown(app))
    await pilot.pause()


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        (
            "en",
            f"{BOB} left — a bot plays for {BOB} in 0:45",
            f"{BOB} left — a bot plays for {BOB} in 0:35",
        ),
        ("zh", f"{BOB}已断线——0:45后由电脑替{BOB}代打", f"{BOB}已断线——0:35后由电脑替{BOB}代打"),
    ],
)
@pytest.mark.parametrize("seat", [0, None], ids=["player", "spectator"])
async def test_the_countdown_of_a_dropped_player_is_shown_and_counts_down(
    manual_clock: Clock, language: str, before: str, after: str, seat: int | None
) -> None:
    i18n.set_language(language)
    game = duel()
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show(app, pilot, game, seat)
        assert before not in screen_text(app)
        app.feed(timer(game, {"seat": 1, "reason": "left", "seconds": 45.0}))
        await pilot.pause()
        assert before in status_row(app)
        assert before in screen_text(app)  # whole, within 80 columns
        manual_clock.t += 10
        await wait_for(pilot, lambda: after in screen_text(app))  # the line ticks by itself
        app.feed(timer(game))  # the player is back: the countdown goes
        await pilot.pause()
        assert "0:3" not in status_row(app) and BOB not in status_row(app)


@pytest.mark.parametrize(
    ("seat", "wanted"),
    [
        (0, f"{BOB} is idle — a bot plays for {BOB} in 1:00"),
        (1, "You are idle — a bot plays for you in 1:00"),  # said to the idle one as "you"
    ],
)
async def test_an_idle_countdown_names_the_player_and_warns_the_idle_one(
    manual_clock: Clock, seat: int, wanted: str
) -> None:
    game = duel()
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show(app, pilot, game, seat)
        app.feed(timer(game, {"seat": 1, "reason": "idle", "seconds": 60.0}))
        await pilot.pause()
        assert wanted in screen_text(app)


async def test_a_long_name_is_cut_so_that_the_countdown_stays_in_80_columns(
    manual_clock: Clock,
) -> None:
    wide = "\uff42" * 24  # 48 cells
    game = find_game("space", lambda g: g.turn >= 2, names=["Ann", wide])
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show(app, pilot, game, None)
        grace = [
            {"seat": 1, "reason": "left", "seconds": 125.0},
            {"seat": 0, "reason": "idle", "seconds": 30.0},
        ]
        app.feed(timer(game, *grace))
        await pilot.pause()
        row = status_row(app)
        # The soonest first, the other one counted.
        assert row.startswith(" Ann is idle — a bot plays for Ann in 0:30  +1")
        app.feed(timer(game, grace[0]))
        await pilot.pause()
        assert "in 2:05" in screen_text(app)
        assert "\uff42" * 7 + "…" in screen_text(app)


async def test_a_stale_or_malformed_countdown_is_not_shown(manual_clock: Clock) -> None:
    game = duel()
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show(app, pilot, game, 0)
        for bad in (
            {"seat": "1", "reason": "left", "seconds": 9.0},
            {"seat": 1, "reason": "[b]x", "seconds": 9.0},
            {"seat": 1, "reason": "left", "seconds": True},
            "nonsense",
        ):
            # Refused as the network worker refuses it: the protocol's reader says no.
            with pytest.raises(MalformedMessage):
                app.feed(timer(game, bad))
        await pilot.pause()
        assert "a bot plays" not in status_row(app)
        old = timer(game, {"seat": 1, "reason": "left", "seconds": 9.0})
        old["version"] -= 1  # for a decision already gone
        app.feed(old)
        await pilot.pause()
        assert "a bot plays" not in status_row(app)
