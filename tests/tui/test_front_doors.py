"""The quit dialog says how to come back through the player's own front door
(never a command that cannot work there), and a keyless SSH player sees their resume code
from the moment they sit down."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from rich.console import Console
from textual.widgets import Static

from selfish_tui import i18n
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.front_door import FrontDoor, from_environment
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.waiting_room import WaitingRoomScreen

from .fixtures import ROOM, feed_game, find_game, offline_local_app
from .pilot import table_shown, wait_for
from .test_snapshots import deciding

COMMAND = "ssh -t -p 2222 play.example.org resume k7m2-x9qp-4hwd-r3tf"


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


DOORS = {
    "tcp": (
        FrontDoor("tcp", address="vps.example.org:7777"),
        "come back with `selfish connect vps.example.org:7777`.",
        "用 `selfish connect vps.example.org:7777` 回来",
    ),
    "ssh without a key": (
        FrontDoor("ssh", resume_command=COMMAND),
        f"come back with `{COMMAND}`",
        f"用 `{COMMAND}` 回来",
    ),
    "ssh with a key": (
        FrontDoor("ssh"),
        "come back by logging in again with the same SSH key.",
        "用同一把 SSH 密钥再次登录",
    ),
    "ssh with a key, its login known": (
        FrontDoor("ssh", login_command="ssh -p 2222 play.example.org"),
        "logging in again with the same SSH key: `ssh -p 2222 play.example.org`.",
        "用同一把 SSH 密钥再次登录就能回来：`ssh -p 2222 play.example.org`",  # noqa: RUF001
    ),
    "browser": (
        FrontDoor("web"),
        "come back by opening this page again in this browser.",
        "在这个浏览器里再次打开这个页面",
    ),
}


async def quit_question(door: FrontDoor) -> str:
    app = SelfishApp(RemoteLobby(front_door=door), name="Ann")
    app.player_id = "p0"
    game = find_game("space", deciding("actions", "space", min_turn=2))
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        return app.screen.question


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_quit_dialog_names_the_way_back_of_the_front_door(
    door: str, language: str
) -> None:
    i18n.set_language(language)
    front, english, chinese = DOORS[door]
    question = await quit_question(front)
    assert (english if language == "en" else chinese) in question
    if front.kind != "tcp":
        assert "selfish connect" not in question  # it cannot work for this front door


@pytest.mark.parametrize(
    ("language", "way_back"),
    [
        ("en", "It is saved: `selfish play --resume` continues it."),
        ("zh", "游戏已保存：`selfish play --resume` 可以继续。"),  # noqa: RUF001
    ],
)
async def test_the_quit_dialog_of_a_local_game_names_its_resume(
    language: str, way_back: str
) -> None:
    i18n.set_language(language)
    app = offline_local_app()
    game = find_game("space", deciding("actions", "space", min_turn=2))
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.press("q")  # the same as ctrl+q: a local game has no lobby
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        assert way_back in app.screen.question and "selfish connect" not in app.screen.question


def test_the_environment_names_the_front_door() -> None:
    assert from_environment("h:1", {}) == FrontDoor("tcp", address="h:1")
    ssh = from_environment(
        "/x.sock", {"SELFISH_FRONT_DOOR": "ssh", "SELFISH_RESUME_COMMAND": COMMAND}
    )
    assert ssh.resume_code == "k7m2-x9qp-4hwd-r3tf" and ssh.resume_command == COMMAND
    assert from_environment("x", {"SELFISH_FRONT_DOOR": "web"}).kind == "web"


async def test_a_keyless_ssh_player_sees_the_resume_code_once_seated() -> None:
    app = SelfishApp(RemoteLobby(front_door=FrontDoor("ssh", resume_command=COMMAND)), name="Ann")
    app.player_id = "p0"
    game = find_game("space", deciding("actions", "space", min_turn=2))
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        log = app.screen.query_one("#log")
        assert str(log.border_subtitle) == "resume code k7m2-x9qp-4hwd-r3tf"
        # ... and whole, unclipped, in the 40 columns the log has at 80x24
        assert log.size.width >= len(str(log.border_subtitle)) + 4


async def test_the_waiting_room_gives_the_whole_resume_command() -> None:
    app = SelfishApp(RemoteLobby(front_door=FrontDoor("ssh", resume_command=COMMAND)), name="Ann")
    app.player_id = "p0"
    async with app.run_test(size=(80, 24)) as pilot:
        app.feed(
            {
                "type": "joined",
                "room": ROOM,
                "role": "player",
                "seat": 0,
                "edition": "space",
            }
        )
        app.feed(
            {
                "type": "room",
                "room": ROOM,
                "status": "waiting",
                "edition": "space",
                "size": 2,
                "public": False,
                "timer": 0,
                "left_grace": 60,
                "idle_grace": 180,
                "autostart": False,
                "variants": [],
                "game": None,
                "spectators": [],
                "host": "p0",
                "seats": [
                    {
                        "seat": 0,
                        "player": "p0",
                        "name": "Ann",
                        "kind": "human",
                        "level": None,
                        "bot_number": None,
                        "connected": True,
                        "away": False,
                        "left": False,
                    },
                    None,
                ],
            }
        )
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
        await pilot.pause()
        box = app.screen.query_one("#seats", Static)
        console = Console(width=box.content_size.width, record=True, file=io.StringIO())
        console.print(box.content)
        assert COMMAND in " ".join(console.export_text().split())
