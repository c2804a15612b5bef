"""80x24 holds everywhere: text is shortened only after a whole word, with an
ellipsis or a count of what is left out, measured in cells; nothing runs past the screen.

The pictures are tests/tui/test_snapshots_80x24.py; these tests assert the rules behind them for
many long inputs, so that a change which cuts inside a word fails here whatever the pictures.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text

from protocol.game_types import Card, Location
from protocol.view_types import Pending
from selfish_tui import i18n
from selfish_tui.i18n import ELLIPSIS, word_cut
from selfish_tui.keyed_text import card_name, card_short, card_text
from selfish_tui.model import short_name
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.toosmall import TooSmallScreen
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.status import StatusLine
from selfish_tui.widgets.strips import StripsBoard
from server.engine.cards import CATALOGUE

from .fixtures import LONG_NAMES, feed_hostile, hostile_game, offline_app
from .pilot import table_shown, wait_for
from .test_snapshots import deciding

WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
SEPARATORS = " ,;:.·—–-/()（）、，；：。"  # noqa: RUF001


def at_word_end(kept: str, source: str) -> bool:
    """Whether ``kept`` (a shortened ``source``, its ellipsis removed) ends between words."""
    if not source.startswith(kept):
        return False
    rest = source[len(kept) :]
    if not rest or not kept:
        return True
    before, after = kept[-1], rest[0]
    return (
        after in SEPARATORS
        or before in SEPARATORS
        or bool(WIDE.match(before))
        or bool(WIDE.match(after))
    )


def assert_cut_after_a_word(shown: str, source: str) -> None:
    """``shown`` is ``source`` whole, or its start up to a word's end and an ellipsis (the
    separators before the ellipsis may be dropped)."""
    if shown == source:
        return
    assert shown.endswith(ELLIPSIS), f"{shown!r} hides part of {source!r} without a sign"
    kept = shown.removesuffix(ELLIPSIS)
    assert source.startswith(kept), f"{shown!r} is not the start of {source!r}"
    rest = source[len(kept) :].lstrip(SEPARATORS.replace(")", "").replace("）", ""))  # noqa: RUF001
    trimmed = source[: len(source) - len(rest)]
    assert at_word_end(kept, source) or at_word_end(trimmed, source), (
        f"{shown!r} cuts {source!r} inside a word"
    )


# --- the cut itself ------------------------------------------------------------------------------

LONG_TEXTS = [
    *(str(card["text"]) for edition in CATALOGUE.values() for card in edition.values()),
    *LONG_NAMES,
    "Take one card from Maximilian Bartholomew X's hand.",
    "Connection lost — retrying in 2s",
    "使用行动卡、找零，或者继续。",  # noqa: RUF001
    "将一名对手向后移动一格（不能对起始行，即第0行的对手使用）。",  # noqa: RUF001
]


@pytest.mark.parametrize("width", [6, 9, 12, 17, 23, 30])
@pytest.mark.parametrize("text", LONG_TEXTS)
def test_no_long_text_is_cut_inside_a_word(text: str, width: int) -> None:
    shown = word_cut(text, width)
    assert cell_len(shown) <= width
    first_word = re.split(r"[ ,;:.]", text)[0]
    if cell_len(first_word) + 1 > width and not WIDE.search(first_word):
        return  # a single word wider than the room: cut inside it, ellipsis and all
    assert_cut_after_a_word(shown, text)


words = st.lists(
    st.text(alphabet="abcdefgh欧阳娜", min_size=1, max_size=12), min_size=1, max_size=8
)


@given(words, st.integers(min_value=2, max_value=40))
def test_a_cut_fits_and_ends_after_a_word_or_says_so(parts: list[str], width: int) -> None:
    text = " ".join(parts)
    shown = word_cut(text, width)
    assert cell_len(shown) <= width
    if shown != text:
        assert shown.endswith(ELLIPSIS)
        kept = shown.removesuffix(ELLIPSIS)
        assert text.startswith(kept)
        if cell_len(parts[0]) < width - 1:  # the first word fits: the cut is after a word
            assert at_word_end(kept, text)


@pytest.mark.parametrize("width", [6, 8, 9])
@pytest.mark.parametrize("key", sorted(CATALOGUE["space"]) + sorted(CATALOGUE["shipwrecked"]))
def test_board_names_are_whole_words_or_end_in_an_ellipsis(key: str, width: int) -> None:
    """No "Radiatn": a cell shows the card's name, a word of it, or a cut with an ellipsis."""
    full, short = card_name(key), card_short(key)
    shown = short_name(Location(0, key, False), width)
    assert cell_len(shown) <= width
    if shown.endswith(ELLIPSIS):
        return
    assert shown in (full, short) or shown in full.replace("'", "").split()
    assert all(word.isalpha() for word in shown.split()), shown


# --- the table at 80x24 ----------------------------------------------------------------------


def screen_lines(app: Any) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
async def test_the_hostile_table_fits_80x24(edition: str, language: str) -> None:
    """Five seats, 24-character names, 13 or more cards: every line 80 cells, each card line
    cut after a word, the hand's hidden lines counted, the board's header in whole words."""
    i18n.set_language(language)
    try:
        game = hostile_game(edition, deciding("actions", edition, min_turn=1))
        app = offline_app()
        async with app.run_test(size=(80, 24)) as pilot:
            feed_hostile(app, game)
            await wait_for(pilot, lambda: table_shown(app))
            await pilot.pause()
            assert all(cell_len(line) == 80 for line in screen_lines(app))
            hand = app.screen.query_one(HandPanel)
            # Every card is on a line (copies counted), or counted below the edge.
            lines = sum(1 for _ in hand.rows)
            assert sum(len(copies) for copies in hand.rows) == len(hand.cards) >= 12
            below = lines - hand.scrollable_content_region.height
            if below > 0:
                assert "↓" in str(hand.border_subtitle)
            texts = {
                key: card_text(key)
                for edition_cards in CATALOGUE.values()
                for key, card in edition_cards.items()
                if card.get("text")
            }
            for index, copies in enumerate(hand.rows):
                line = hand.get_option_at_index(index).prompt.plain  # type: ignore[union-attr]
                if " — " in line:
                    shown = line.split(" — ", 1)[1]
                    assert_cut_after_a_word(shown, texts[copies[0].key])
            board = app.screen.query_one(StripsBoard)
            header = board.render().plain.splitlines()[1]
            assert not re.search(r"\d+c\b", header)  # no "9c": "9 cards", or the state alone
    finally:
        i18n.set_language("en")


async def test_the_victims_hand_fits_its_lines_with_a_count_of_the_rest() -> None:
    """Hack Suit on a hand of many kinds: identical cards counted, "+N more" for the rest,
    never more than the lines the panel keeps for it."""
    from server.engine.cards import GAME_DECKS, Edition

    game = hostile_game("space", deciding("take", "space"))
    kinds = {card.key: card for card in GAME_DECKS[Edition.SPACE]}
    reveal = [
        {
            "id": 100 + n,
            "key": key,
            "kind": card.type.kind.value,
            "value": card.value,
            "dir": None,
        }
        for n, (key, card) in enumerate(sorted(kinds.items()))
    ] * 2
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_hostile(app, game)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        view = app.rooms["TEST"].view
        assert view is not None and view.own is not None and view.own.decision is not None
        decision = replace(view.own.decision, reveal=tuple(Card.from_wire(c) for c in reveal))
        view = replace(view, own=replace(view.own, decision=decision))
        prompt._key = None
        prompt.update_view(view)
        await pilot.pause()
        shown = prompt.query_one("#prompt-reveal").render().plain  # type: ignore[attr-defined]
        assert "×2" in shown and "more" in shown  # noqa: RUF001
        width = prompt.query_one("#prompt-reveal").content_size.width
        assert len(Text(shown).wrap(app.console, width)) <= 3
        assert app.screen.query_one("#prompt-reveal").size.height <= 3


async def test_the_status_line_keeps_the_connection_note_inside_80_columns() -> None:
    game = hostile_game("space", deciding("actions", "space", min_turn=1))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_hostile(app, game)
        await wait_for(pilot, lambda: table_shown(app))
        status = app.screen.query_one(StatusLine)
        status.set_connection_note("Connection lost — retrying in 2s")
        await pilot.pause()
        line = status.summary()
        assert line.cell_len <= status.content_size.width
        assert line.plain.startswith(" Connection lost — retrying in 2s ")
        assert "your turn" in line.plain  # the part that matters most stays


async def test_the_too_small_notice_stays_over_a_dialog_pushed_later() -> None:
    """Found in tmux: the unfinished-game question, asked on a small terminal, was drawn cut
    off over the notice. A dialog pushed while small goes under it; once the window grows the
    dialog shows whole, and closing it does not bring an old notice back."""
    app = offline_app()
    async with app.run_test(size=(79, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        dialog = ConfirmScreen("Quit?")
        app.push_screen(dialog)
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.lobby, timeout=5)


async def test_a_long_question_ends_after_a_word_inside_its_lines() -> None:
    """Waiting for five players of 48-cell names: the question keeps to its four lines and
    says with an ellipsis that it goes on, instead of losing its end at the panel's edge."""
    game = hostile_game("space", deciding("actions", "space", min_turn=1))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_hostile(app, game)
        await wait_for(pilot, lambda: table_shown(app))
        prompt = app.screen.query_one(PromptPanel)
        view = app.rooms["TEST"].view
        assert view is not None and view.own is not None
        pending = tuple(Pending(s, "actions", False) for s in range(5))
        names = (LONG_NAMES[1], LONG_NAMES[4]) * 2 + (LONG_NAMES[1],)
        view = replace(
            view,
            public=replace(view.public, pending=pending, names=names),
            own=replace(view.own, decision=None, legal=()),
        )
        prompt.update_view(view)
        await pilot.pause()
        question = prompt.query_one("#prompt-question")
        shown = question.render().plain  # type: ignore[attr-defined]
        assert shown.endswith(ELLIPSIS)
        assert len(Text(shown).wrap(app.console, question.content_size.width)) <= 4
