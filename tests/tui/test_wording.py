"""What the client says: only what is possible, one meaning per key and
glyph, the spectator told where their chat goes, swaps and the shark pick explained, Chinese
help without stray breaks, server bots named in the client's language.

The Private checkbox's glyph and the game-over box's q are in test_table_story.py
(test_the_private_checkbox_says_its_state_in_words, test_the_game_over_dialog_shows_its_own_keys_
in_the_footer).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.widgets._footer import FooterKey

from selfish_tui import cli, i18n, wrapping
from selfish_tui.app import LocalPlan, SelfishApp
from selfish_tui.help_format import wrap_cells
from selfish_tui.model import compass_legend
from selfish_tui.screens.help import help_markdown, join_wide_breaks
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.prompt import PromptPanel, actions_question
from selfish_tui.widgets.strips import StripsBoard
from server.engine import Game

from .fixtures import ROOM, feed_game, find_game, offline_app, room_message
from .pilot import table_shown, wait_for
from .test_snapshots import deciding


@contextlib.contextmanager
def language(code: str) -> Iterator[None]:
    i18n.set_language(code)
    try:
        yield
    finally:
        i18n.set_language("en")


# --- say only what is possible ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("kinds", "question"),
    [
        ({"play", "change", "done"}, "Play an action card, make change, or go on."),
        ({"play", "done"}, "Play an action card, or go on."),
        ({"change", "done"}, "Make change, or go on."),
        ({"done"}, "Nothing to play or change now: go on."),
    ],
)
def test_the_actions_prompt_names_only_what_the_choices_allow(
    kinds: set[str], question: str
) -> None:
    assert actions_question([{"do": kind} for kind in sorted(kinds)]) == question


async def test_with_only_going_on_the_prompt_does_not_offer_cards_or_change() -> None:
    game = find_game(
        "space",
        lambda g: (
            deciding("actions", "space", min_turn=2)(g)
            and {c["do"] for c in g.legal(0)} == {"done"}
        ),
    )
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        prompt = app.screen.query_one(PromptPanel)
        assert "make change" not in prompt._question and "action card" not in prompt._question
        assert "go on" in prompt._question


# --- one key, one meaning ------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["en", "zh"])
async def test_the_local_tables_footer_says_quit_once(code: str) -> None:
    """In `selfish play` q and ctrl+q both quit: the footer says so once ("^q Quit"), not
    "q Quit ^q Quit" ("q 退出 ^q 退出")."""
    with language(code):
        app = SelfishApp(name="Ann", plan=LocalPlan())
        app.player_id = "p0"
        app._plan_done = True
        async with app.run_test(size=(80, 24)) as pilot:
            feed_game(app, find_game("space", deciding("actions", "space", min_turn=2)), 0)
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            keys = [(k.key_display, k.description) for k in app.screen.query(FooterKey)]
            quits = [key for key, description in keys if description == i18n._("Quit")]
            assert quits == ["^q"]


# --- the spectator's chat -----------------------------------------------------------------------


async def test_a_spectator_is_told_once_in_the_chat_area_where_their_words_go() -> None:
    game = find_game("space", lambda g: g.turn >= 3)
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, None)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.pause()

        def told() -> int:
            return sum(
                "only after the game" in line for line in app.screen.query_one(GameLog).lines_text
            )

        assert told() == 1
        # A replay of the log (a reconnect) and the other language keep it, once.
        feed_game(app, game, None)
        await pilot.press("f2", "f2")
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.pause()
        assert told() == 1
    player = offline_app()
    async with player.run_test(size=(80, 24)) as pilot:
        feed_game(player, game, 0)
        await wait_for(pilot, lambda: table_shown(player))
        lines = player.screen.query_one(GameLog).lines_text
        assert not any("only after the game" in line for line in lines)


# --- swaps ---------------------------------------------------------------------------------------


def test_the_seats_a_swap_moved_are_marked_in_the_header() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    board = StripsBoard()
    before = game.view(None)
    board.update_view(before)
    after = {**before, "players": [dict(p) for p in before["players"]]}
    a, b = after["players"][1], after["players"][3]
    (a["col"], a["row"]), (b["col"], b["row"]) = (b["col"], b["row"]), (a["col"], a["row"])
    board.update_view(after)
    header = board._draw(after, 60).plain.splitlines()[0]
    assert header.count("⇄") == 2
    # Gone with the next change on the board.
    moved = {**after, "players": [dict(p) for p in after["players"]]}
    moved["players"][0]["row"] += 1
    board.update_view(moved)
    assert "⇄" not in board._draw(moved, 60).plain


# --- the shark pick and the compass ----------------------------------------------------------


@pytest.mark.parametrize("code", ["en", "zh"])
async def test_the_shark_pick_explains_itself_and_the_arrows(code: str) -> None:
    with language(code):
        game = find_game("shipwrecked", deciding("pick", "shipwrecked"))
        app = offline_app()
        async with app.run_test(size=(80, 24)) as pilot:
            feed_game(app, game, 0)
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            prompt = app.screen.query_one(PromptPanel)
            question = prompt.query_one("#prompt-question").render().plain  # type: ignore[attr-defined]
            assert compass_legend() in question  # "↑N raft ↓S beach …" under the question
            assert i18n.pgettext("compass legend", "raft") in question  # 救援艇 in Chinese
            assert all(entry.note for entry in prompt.entries)  # the detail line explains
            assert app.screen.query_one("#detail").render().plain == prompt.entries[0].note  # type: ignore[attr-defined]
            hand = app.screen.query_one(HandPanel)
            card = next(c for c in hand.cards if c.get("dir"))
            meaning = {"N": "raft", "S": "beach", "E": "right", "W": "left"}[card["dir"]]
            described = hand.describe(card)
            assert (meaning in described) if code == "en" else ("鲨鱼" in described)


# --- Chinese help ----------------------------------------------------------------------------


def test_line_breaks_beside_chinese_are_joined_and_the_rest_kept() -> None:
    assert join_wide_breaks("甲乙\n丙丁") == "甲乙丙丁"
    assert join_wide_breaks("用\n  **↑ ↓** 和") == "用 **↑ ↓** 和"  # emphasis still read
    assert join_wide_breaks("甲\n- 乙\n## 丙\n\n丁") == "甲\n- 乙\n## 丙\n\n丁"
    assert join_wide_breaks("one\ntwo") == "one\ntwo"  # Markdown reads it as a space


def test_the_chinese_help_has_no_break_read_as_a_space() -> None:
    with language("zh"):
        text = help_markdown("shipwrecked")
    # A wide character at a line's end followed by one at the next line's start was a space
    # in the help ("是目标 所在的行").
    assert not re.search(r"[\u4e00-\u9fff，。；：]\n[ \t]*[\u4e00-\u9fff]", text)  # noqa: RUF001


def chinese_help(*argv: str) -> str:
    out = io.StringIO()
    with language("zh"), contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.build_parser().parse_args([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("argv", [(), ("play",), ("connect",), ("host",)])
def test_the_chinese_command_line_help_fits_and_speaks_chinese(
    argv: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = chinese_help(*argv)
    assert all(cell_len(line) <= 80 for line in text.splitlines()), text
    for english in ("usage:", "options:", "positional arguments", "show this help"):
        assert english not in text
    assert "用法：" in text and "选项：" in text  # noqa: RUF001
    # One kind of colon after a heading: the Chinese one.
    assert not re.search(r"^\S[^:\n]*[\u4e00-\u9fff]:$", text, re.MULTILINE)


LEVEL_HELP = "电脑的水平（默认 basic：和新玩家势均力敌；expert 会搜索，下手很狠）"  # noqa: RUF001
CLOSING = "，。；：）"  # noqa: RUF001


def test_wrapping_in_cells_breaks_between_chinese_characters_not_before_a_closing_mark() -> None:
    lines = wrap_cells(LEVEL_HELP, 20)
    assert all(cell_len(line) <= 20 for line in lines)
    assert not any(line[0] in CLOSING for line in lines)
    assert "".join(lines).replace(" ", "") == LEVEL_HELP.replace(" ", "")


# --- server bots in the client's language ----------------------------------------------------


def names_room(game: Game, bots: dict[int, int]) -> dict[str, Any]:
    info = room_message(game, 0)
    for entry in info["seats"]:
        entry["bot_number"] = bots.get(entry["seat"])
        entry["kind"] = "bot" if entry["seat"] in bots else "human"
    return info


async def test_a_server_bot_is_named_in_chinese_and_a_human_named_bot_is_not() -> None:
    """The name is said from the seat's ``bot_number``, never from its text: the human who
    chose the name "Bot 2" keeps it."""
    names = ["Ann", "Bot 1", "Bot 2", "Cid"]
    game = find_game("space", deciding("actions", "space", min_turn=2), names=names)
    with language("zh"):
        app = offline_app()
        async with app.run_test(size=(100, 30)) as pilot:
            feed_game(app, game, 0)
            app.feed(names_room(game, {1: 1}))  # seat 2 is a human named "Bot 2"
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            room = app.rooms[ROOM]
            assert room.names() == ["Ann", "电脑 1", "Bot 2", "Cid"]
            board = app.screen.query_one(StripsBoard).render().plain
            assert "电脑 1" in board and "Bot 2" in board and "Bot 1" not in board
            log = "\n".join(app.screen.query_one(GameLog).lines_text)
            assert "Bot 1" not in log
            # Back in English: the server's own name again.
            await pilot.press("f2")
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            assert app.rooms[ROOM].names() == names


@given(st.text(alphabet="ab cd\n-.,", max_size=60))
def test_text_without_wide_characters_is_split_as_rich_splits_it(text: str) -> None:
    assert list(wrapping.words(text)) == list(wrapping._original(text))


def test_rich_text_breaks_between_chinese_characters_and_keeps_closing_marks() -> None:
    from rich.console import Console
    from rich.text import Text

    wrapping.install()
    sentence = "司马相如司马相如司马相如司马相如抽到平静的海域（鲨鱼图标）。下一句，在这里。"  # noqa: RUF001
    lines = [line.plain for line in Text(sentence).wrap(Console(width=40), 30)]
    assert "".join(lines) == sentence
    assert all(cell_len(line) <= 30 for line in lines)
    assert cell_len(lines[0]) >= 28  # filled, not broken where the sentence had a space
    assert not any(line[0] in CLOSING for line in lines)


def test_a_card_and_its_text_are_joined_by_the_languages_colon() -> None:
    """Found on the detail line: "宇航服破洞: 一名对手…" mixed ":" into Chinese."""
    from selfish_tui.model import Catalogue, catalogue_text_for_choice
    from server.engine.cards import CATALOGUE

    catalogue = Catalogue()
    catalogue.update({"space": CATALOGUE["space"]})
    card = {"id": 7, "key": "hole_in_suit", "name": "Hole in Suit", "kind": "action"}
    view = {"hand": [card], "decision": {}}
    with language("zh"):
        text = catalogue_text_for_choice({"do": "play", "card": 7}, view, catalogue)
    assert "：" in text and ":" not in text  # noqa: RUF001
    assert catalogue_text_for_choice({"do": "play", "card": 7}, view, catalogue).startswith(
        "Hole in Suit: "
    )


def test_the_compass_legend_takes_two_lines_when_one_does_not_fit() -> None:
    line = compass_legend()
    assert line == "↑N raft ↓S beach →E right ←W left"
    assert compass_legend(cell_len(line)) == line
    assert compass_legend(20) == "↑N raft ↓S beach\n→E right ←W left"
    with language("zh"):
        assert compass_legend() == "↑北 救援艇 ↓南 海滩 →东 右 ←西 左"
