"""The tutorial (`selfish play --tutorial`): its game played to the end by key presses in both
languages, each lesson at the moment it first matters and once; the first run's offer."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.view_types import View
from selfish_tui import cli, i18n, paths, tutorial
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.local_game import LocalGame, LocalPlan
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.lesson import LessonScreen, TutorialOfferScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.widgets.prompt import PromptPanel

from .fixtures import find_game, typed
from .pilot import current_room, pick, press_choice, table_shown, wait_for


def deciding(view: View) -> str | None:
    """The kind of our own open decision (written apart from the tutorial's own reading)."""
    if not view.legal or view.own is None or view.own.decision is None:
        return None
    return view.own.decision.kind


# When each lesson matters, as a player would say it (independent of selfish_tui.tutorial).
MOMENTS: dict[str, Callable[[View], bool]] = {
    "welcome": lambda view: True,
    "draw": lambda view: (
        view.own is not None
        and view.public.active == view.own.seat
        and deciding(view) in ("actions", "stay_or_move")
    ),
    "actions": lambda view: deciding(view) == "actions",
    "stay_or_move": lambda view: deciding(view) == "stay_or_move",
    "reaction": lambda view: deciding(view) == "react",
    "compass": lambda view: bool(view.public.sharks) or deciding(view) in ("pay", "pick"),
    "shark_pick": lambda view: deciding(view) == "pick",
}
LESSONS = {
    "space": ["welcome", "draw", "actions", "stay_or_move", "reaction"],
    "shipwrecked": [
        "welcome",
        "draw",
        "actions",
        "stay_or_move",
        "reaction",
        "compass",
        "shark_pick",
    ],
}
# A word each lesson's Chinese text holds (terms of the original rules).
CHINESE = {
    "welcome": "航路",
    "draw": "抽",
    "actions": "行动卡",
    "stay_or_move": "停留",
    "reaction": "阻挡",
    "compass": "指南针",
    "shark_pick": "鲨鱼",
}


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
async def test_the_tutorial_teaches_each_lesson_once_when_it_first_matters(
    server_port: int, edition: str, language: str
) -> None:
    i18n.set_language(language)
    game = LocalGame(LocalPlan(edition=edition, tutorial=True), Login("127.0.0.1", server_port))
    app = SelfishApp(game, name="You")
    views: list[View] = []  # every view of our room, in order
    due_at: dict[str, int] = {}  # lesson -> index of the view that opened it
    shown: list[tuple[str, int, str]] = []  # (lesson, views seen by then, its text)

    async with app.run_test(size=(80, 24)) as pilot:
        teach = game.teach

        def spy(room: Any) -> None:
            before = len(game.tutor.shown) if game.tutor else 0
            views.append(room.view)
            teach(room)
            for key in (game.tutor.shown if game.tutor else [])[before:]:
                due_at[key] = len(views) - 1

        game.teach = spy  # type: ignore[method-assign]
        await wait_for(pilot, lambda: table_shown(app) or isinstance(app.screen, LessonScreen))
        rng = random.Random(0)  # the newcomer bench/tutorial_seed.py calls "presser 0"
        last: LessonScreen | None = None
        while not isinstance(app.screen, GameOverScreen):
            screen = app.screen
            if isinstance(screen, LessonScreen):
                if screen is not last:
                    last = screen
                    text = str(screen.query_one("#lesson-text").render())
                    shown.append((screen.lesson.key, len(views), text))
                    room = current_room(app)
                    assert room is not None and room.view is not None
                    if screen.lesson.key not in ("welcome", "compass"):
                        # The game waits for us: the moment is still on the table.
                        assert MOMENTS[screen.lesson.key](room.view), screen.lesson.key
                    await pilot.press("enter")
                await pilot.pause(0.01)
                continue
            if isinstance(screen, ConfirmScreen):
                await pilot.press("y")
                continue
            room = current_room(app)
            prompts = screen.query(PromptPanel) if isinstance(screen, TableScreen) else None
            if prompts and screen._ready and room is not None and room.view:
                legal = list(room.view.legal)
                prompt = prompts.first()
                if legal and prompt.choices == legal:
                    await press_choice(pilot, prompt, pick(legal, rng))
                    continue
            await pilot.pause(0.01)
        room = current_room(app)
        assert room is not None and room.view is not None and room.view.public.over
        assert room.view.public.seats == tutorial.BOTS + 1

    keys = [key for key, _seen, _text in shown]
    assert sorted(keys) == sorted(LESSONS[edition])  # every lesson, each once
    assert sorted(due_at) == sorted(LESSONS[edition])
    for key, _seen, text in shown:
        first = next(i for i, view in enumerate(views) if MOMENTS[key](view))
        assert due_at[key] == first, f"{key}: opened at view {due_at[key]}, first due at {first}"
        if language == "zh":
            assert CHINESE[key] in text, (key, text)
        else:
            english = next(lesson for lesson in tutorial.LESSONS if lesson.key == key)
            assert text == english.texts[edition]
    # Lessons due at one moment come in teaching order.
    assert keys.index("draw") < keys.index("actions") < keys.index("stay_or_move")


async def test_lessons_due_together_open_one_after_another() -> None:
    """Welcome, draw and actions are due at our first decision: three dialogs, in order, the
    next only once the one before is closed."""
    game = LocalGame(LocalPlan(edition="space", tutorial=True))
    app = SelfishApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        game.tutor = tutorial.Tutor("space")
        room = tutorial_room(app)
        game.teach(room)
        await pilot.pause()
        opened = []
        while isinstance(app.screen, LessonScreen):
            opened.append(app.screen.lesson.key)
            await pilot.press("enter")
            await pilot.pause()
        assert opened == ["welcome", "draw", "actions"]
        game.teach(room)  # the same moment again: nothing more
        await pilot.pause()
        assert not isinstance(app.screen, LessonScreen)


def tutorial_room(app: SelfishApp) -> Any:
    from selfish_tui.state import RoomState

    room = RoomState("TUTO")
    game = find_game("space", lambda g: g.active == 0 and g.legal(0) != [])
    room.view = typed(game.view(0))
    app.rooms[room.code] = room
    app.current = room.code
    return room


async def test_resuming_an_unfinished_tutorial_keeps_teaching() -> None:
    game = LocalGame(LocalPlan(edition="space", tutorial=True))
    app = SelfishApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        room = tutorial_room(app)
        room.edition = "space"
        game.resume(room)
        await pilot.pause()
        assert game.tutor is not None
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.key == "welcome"


async def test_f2_shows_the_open_lesson_in_the_other_language() -> None:
    game = LocalGame(LocalPlan(edition="space", tutorial=True))
    app = SelfishApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        game.tutor = tutorial.Tutor("space")
        game.teach(tutorial_room(app))
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.key == "welcome"
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.lesson.key == "welcome"
        assert "宇航员" in str(app.screen.query_one("#lesson-text").render())


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path / "selfish"


@pytest.mark.parametrize(("key", "accepted"), [("t", True), ("n", False)])
async def test_the_first_run_offers_the_tutorial_once_and_remembers(
    server_port: int, data_home: Path, key: str, accepted: bool
) -> None:
    assert paths.first_run()
    plan = LocalPlan(edition="shipwrecked", offer_tutorial=paths.first_run())
    login = Login("127.0.0.1", server_port)
    game = LocalGame(plan, login, on_tutorial_answer=paths.remember_tutorial_answer)
    app = SelfishApp(game, name="New")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialOfferScreen))
        await pilot.press(key)
        await wait_for(pilot, lambda: table_shown(app) or isinstance(app.screen, LessonScreen))
        assert (game.tutor is not None) is accepted
        assert isinstance(app.screen, LessonScreen) is accepted
        room = current_room(app)
        assert room is not None
        await wait_for(pilot, lambda: room.view is not None)
        assert room.view is not None and room.view.public.seats == (3 if accepted else 4)
    assert not paths.first_run()  # asked once: the answer is kept
    assert (
        '"accepted": ' + ("true" if accepted else "false")
        in (data_home / "tutorial.json").read_text()
    )
    # The next `selfish play` asks nothing: no offer, the plan's own game.
    game = LocalGame(LocalPlan(offer_tutorial=paths.first_run()), login)
    again = SelfishApp(game, name="New")
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: table_shown(again))
        assert game.tutor is None


def test_a_player_with_local_games_is_not_offered_the_tutorial(data_home: Path) -> None:
    assert paths.first_run()
    data_home.mkdir(parents=True)
    paths.local_db_path().touch()  # games played before the tutorial existed
    assert not paths.first_run()


def test_tutorial_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = cli.build_parser().parse_args(["play", "--tutorial", "--edition", "shipwrecked"])
    assert args.tutorial and args.edition == "shipwrecked"
    for extra in (["--seed", "4"], ["--bots", "3"], ["--level", "basic"], ["--resume"]):
        assert cli.main(["play", "--tutorial", *extra]) == 2
        err = capsys.readouterr().err
        assert "--tutorial" in err and extra[0] in err
