"""The client's language at work: `--lang`, switching mid-game (F2 and the command palette),
and a mixed table where a Chinese and an English player each read their own language."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator

import pytest
from textual.command import CommandPalette

from selfish_tui import cli, i18n
from selfish_tui.app import SelfishApp
from selfish_tui.screens.help import HelpScreen, rules_for
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.status import StatusLine
from server.engine.cards import CATALOGUE

from .fixtures import ROOM, feed_game, find_game, offline_app
from .pilot import current_room, play_to_end, table_shown, wait_for
from .test_hostile import screen_text
from .test_snapshots import deciding

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_NAMES = sorted(
    {entry["name"] for cards in CATALOGUE.values() for entry in cards.values()}, key=len
)[::-1]
# Card names that are also everyday words of an English sentence ("Lost" in "Bot 1 lost").
COMMON = {"Food", "Oxygen", "Lost", "Dive", "Shield", "Tether"}


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def english_card_names(text: str) -> list[str]:
    return [name for name in ENGLISH_NAMES if name not in COMMON and name in text]


@pytest.mark.parametrize(
    ("argv", "environ", "language"),
    [
        (["play"], {"LANG": "zh_CN.UTF-8"}, "zh"),
        (["play", "--lang", "en"], {"LANG": "zh_CN.UTF-8"}, "en"),
        (["connect", "h", "--lang=zh"], {"LANG": "C"}, "zh"),
        (["play"], {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
    ],
)
def test_the_command_line_chooses_the_language(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], environ: dict[str, str], language: str
) -> None:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environ.items():
        monkeypatch.setenv(variable, value)
    chosen: list[str] = []
    monkeypatch.setattr(cli, "play", lambda args: chosen.append(i18n.current_language()) or 0)
    monkeypatch.setattr(cli, "connect", lambda args: chosen.append(i18n.current_language()) or 0)
    assert cli.main(argv) == 0
    assert chosen == [language]


def test_help_of_the_command_line_is_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["play", "--lang", "zh", "--help"])
    out = capsys.readouterr().out
    assert "与电脑对战" in out or "继续上一局未完成的本地游戏" in out
    assert "界面语言" in out


def test_bad_language_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["play", "--lang", "fr"])
    assert "--lang" in capsys.readouterr().err


async def test_f2_switches_the_language_mid_game_and_back_keeping_the_game() -> None:
    """F2 draws the table again in the other language: the same screen as a client started in
    that language, the room's view and log untouched; F2 again gives the English back."""
    game = find_game("space", deciding("actions", "space", min_turn=10))

    async def table_text(language: str, keys: tuple[str, ...] = ()) -> tuple[str, SelfishApp]:
        i18n.set_language(language)
        app = offline_app()
        async with app.run_test(size=(80, 24)) as pilot:
            feed_game(app, game, 0)
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            room = app.rooms[ROOM]
            view, log = room.raw_view, list(room.log)
            for key in keys:
                await pilot.press(key)
                await wait_for(pilot, lambda: table_shown(app))
                await pilot.pause()
            # The game is kept as the server sent it (only the bots' names are said anew).
            assert room.raw_view is view and room.log == log
            # The footer's keys are drawn a refresh after the rest.
            await wait_for(pilot, lambda: screen_text(app).splitlines()[-1].strip() != "")
            return screen_text(app), app

    english, _ = await table_text("en")
    chinese, _ = await table_text("zh")
    switched, _ = await table_text("en", ("f2",))
    assert CJK.search(chinese) and not CJK.search(english.replace("中文", ""))
    assert switched == chinese
    assert i18n.current_language() == "zh"
    back, _ = await table_text("en", ("f2", "f2"))
    assert back == english


async def test_the_command_palette_switches_the_language() -> None:
    i18n.set_language("en")
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Language", "enter")
        await wait_for(pilot, lambda: i18n.current_language() == "zh")
        await wait_for(pilot, lambda: "自私——" in screen_text(app))


async def test_help_shows_the_chinese_rules() -> None:
    i18n.set_language("zh")
    game = find_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=3))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await wait_for(pilot, lambda: "自私——帮助（遇难版）" in screen_text(app))  # noqa: RUF001
    text = rules_for("shipwrecked")
    assert "## 通用规则" in text and "## 遇难版" in text
    assert "## 太空版" not in text  # the other edition's section is left out
    assert "## 变体" not in text and "## 变体" in rules_for("shipwrecked", variants=["V1"])


async def test_a_mixed_table_each_player_reads_their_own_language(server_port: int) -> None:
    """Two apps at one table of an in-process server, one in Chinese and one in English, play
    a game to the end; each one's log, prompt and status are in its own language."""
    code: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    seen: dict[str, dict[str, str]] = {}

    async def player(language: str, name: str) -> None:
        i18n.own_language(language)  # this task and the app's: the other keeps its own
        goto = None if language == "zh" else ("player", await code)
        app = SelfishApp("127.0.0.1", server_port, name, goto=goto)
        async with app.run_test(size=(80, 24)) as pilot:
            if language == "zh":
                await wait_for(pilot, lambda: app.player_id is not None)
                app.request(
                    {
                        "type": "create_room",
                        "edition": "shipwrecked",
                        "seats": 2,
                        "bots": 0,
                        "public": False,
                        "timer": 0,
                        "autostart": True,
                        "seed": 7,
                    }
                )
                await wait_for(pilot, lambda: app.current is not None)
                code.set_result(app.current or "")
            await wait_for(pilot, lambda: table_shown(app), timeout=60)
            table = app.screen
            prompt, status = table.query_one(PromptPanel), table.query_one(StatusLine)
            seen[language] = {"prompt": "", "status": ""}
            rng = random.Random(language)

            def note() -> None:
                seen[language]["prompt"] += str(prompt.query_one("#prompt-question").render())
                seen[language]["status"] += str(status.render())

            table.set_interval(0.05, note)
            await play_to_end(pilot, app, rng, timeout=240)
            note()
            seen[language]["log"] = "\n".join(table.query_one(GameLog).lines_text)
            room = current_room(app)
            assert room is not None and room.view is not None and room.view.public.over
            assert i18n.current_language() == language

    await asyncio.gather(player("zh", "安"), player("en", "Bob"))
    zh, en = seen["zh"], seen["en"]
    for part in ("log", "prompt", "status"):
        assert CJK.search(zh[part]), part
        assert not english_card_names(zh[part]), (part, english_card_names(zh[part]))
    assert "回合" in zh["log"] and "Turn" not in zh["log"]
    # The English player's screen is English; only the other player's name is Chinese.
    for part in ("log", "prompt", "status"):
        assert not CJK.search(en[part].replace("安", "")), part
    assert "Turn" in en["log"]
