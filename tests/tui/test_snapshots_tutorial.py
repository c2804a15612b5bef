"""Snapshot tests of the tutorial's dialogs at 80x24, in English and Chinese: the longest lesson
(the shark pick) over a Shipwrecked table, and the first run's offer over the local lobby."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from selfish_tui import i18n
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.local_game import LocalGame, LocalPlan
from selfish_tui.tutorial import Tutor

from .fixtures import feed_game, find_game, offline_local_app
from .test_snapshots import Compare, deciding

LANGUAGES = [pytest.param("en", id="en"), pytest.param("zh", id="zh")]


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_shark_pick_lesson(snap_compare: Compare, language: str) -> None:
    i18n.set_language(language)
    game = find_game("shipwrecked", deciding("pick", "shipwrecked"))
    app = offline_local_app(LocalPlan(edition="shipwrecked", tutorial=True))
    assert isinstance(app.controller, LocalGame)
    tutor = app.controller.tutor = Tutor("shipwrecked")
    tutor.shown = [lesson.key for lesson in tutor.lessons if lesson.key != "shark_pick"]

    async def run_before(pilot: Pilot[None]) -> None:
        feed_game(pilot.app, game, 0)  # type: ignore[arg-type]
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("language", LANGUAGES)
def test_first_run_offer(snap_compare: Compare, language: str) -> None:
    i18n.set_language(language)
    game = LocalGame(LocalPlan(offer_tutorial=True))
    app = SelfishApp(game, name="Ann")

    async def run_before(pilot: Pilot[None]) -> None:
        game.start_game()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
