"""Keys land only on what the player saw, choices keep their keys, every
choice has a key, and the table names exactly whom the server waits for."""

from __future__ import annotations

from typing import Any

import pytest

from selfish_tui import clock
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.widgets import prompt as prompt_module
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.menu import leaves
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.status import StatusLine
from selfish_tui.widgets.strips import StripsBoard
from server.engine import Game

from .fixtures import ROOM, feed_game, find_game, offline_app
from .pilot import Clock, keys_for, table_shown, wait_for
from .test_snapshots import deciding


@pytest.fixture
def manual_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    now = Clock()
    monkeypatch.setattr(clock, "now", now)
    monkeypatch.setattr(prompt_module, "SETTLE", 0.3)
    monkeypatch.setattr(prompt_module, "MARKED", 60.0)  # the mark outlasts a slow machine
    return now


def recording_app() -> tuple[Any, list[dict[str, Any]]]:
    app = offline_app()
    sent: list[dict[str, Any]] = []
    app.act = lambda room, choice: sent.append(choice) or True  # type: ignore[method-assign]
    return app, sent


def with_legal(game: Game, legal: list[dict[str, Any]], kind: str = "actions") -> dict[str, Any]:
    view = dict(game.view(0))
    view["legal"] = legal
    view["decision"] = {"kind": kind, "prompt": "Choose:", "reveal": []}
    return view


async def test_a_new_prompt_ignores_choice_keys_for_a_moment(manual_clock: Clock) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        assert "new" in str(prompt.border_title) and prompt.has_class("fresh")
        await pilot.press("e")  # too soon: a key meant for whatever was there before
        assert sent == []
        manual_clock.t += 0.31
        await pilot.press("e")
        assert sent == [{"do": "done", "label": "End actions (go on to stay or move)"}]


async def test_others_choosing_at_the_same_time_leaves_our_prompt_settled(
    manual_clock: Clock,
) -> None:
    # A decision everybody makes at once (Hurricane, shark picks): the others' "has chosen"
    # changes whom the server waits for, not our choices. The prompt stays as it was, and the
    # key pressed meanwhile is taken (it used to be marked new again and swallow the key).
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        view = dict(game.view(0))
        view["pending"] = [{"seat": 0, "done": False}, {"seat": 1, "done": False}]
        app.feed({"type": "state", "room": ROOM, "version": 50, "view": view})
        await pilot.pause()
        manual_clock.t += 1
        prompt = app.screen.query_one(PromptPanel)
        assert prompt.settled()
        view = dict(view, pending=[{"seat": 0, "done": False}, {"seat": 1, "done": True}])
        app.feed({"type": "state", "room": ROOM, "version": 51, "view": view})
        await pilot.pause()
        assert prompt.settled()
        await pilot.press("e")
        assert sent == [{"do": "done", "label": "End actions (go on to stay or move)"}]


async def test_a_dialogs_keys_never_reach_the_prompt(manual_clock: Clock) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        manual_clock.t += 1
        await pilot.pause()
        table = app.screen
        await pilot.press("q")  # "Leave this game?"
        assert isinstance(app.screen, ConfirmScreen)
        # Behind the dialog the decision changes (a reaction timed out, say).
        change = [{"do": "accept", "label": "Do not block"}]
        app.feed(
            {
                "type": "state",
                "room": ROOM,
                "version": 50,
                "view": with_legal(game, change, "react"),
            }
        )
        manual_clock.t += 5
        await pilot.press("a")  # the dialog does not take it, and it does not pass through
        assert isinstance(app.screen, ConfirmScreen) and sent == []
        await pilot.press("n", "a")  # closing the dialog, then at once the key meant for it
        assert app.screen is table and sent == []
        manual_clock.t += 0.31
        await pilot.press("a")
        assert sent == change


async def test_stay_and_move_have_fixed_keys_whatever_else_is_offered() -> None:
    def many_stays(game: Game) -> bool:
        # two ways at least to stay by discarding (stay and move besides): a group of them
        return deciding("stay_or_move", "space")(game) and len(game.legal(0)) > 3

    # Staying by discarding two action cards exists only with the variant V1 (RULES S3).
    game = find_game("space", many_stays, variants=("V1",))
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        keys = {entry.key: entry for entry in prompt.entries}
        assert keys["s"].choice == {"do": "stay", "label": keys["s"].label}
        assert keys["m"].choice is not None and keys["m"].choice["do"] == "move"
        # Staying by discarding: one entry per card on that card's key; inside it, the other
        # card's key finishes the pair.
        ring = app.rooms[ROOM].keys
        for key, entry in keys.items():
            if key not in ("s", "m"):
                assert entry.group and entry.identity == ("card", _card_of(ring, key))
        assert sorted(map(repr, leaves(prompt.entries))) == sorted(map(repr, prompt.choices))
        pair = next(c for c in prompt.choices if c.get("discard"))
        first, second = (ring.card_key(card) for card in pair["discard"])
        await pilot.press(second, first)  # either order
        assert sent == [pair]
        app.screen.restore_prompt()  # type: ignore[attr-defined]
        await pilot.press("m")
        assert sent[-1]["do"] == "move"


def _card_of(ring: Any, key: str) -> int:
    return next(card for card, its in ring.cards.items() if its == key)


async def test_more_than_nine_choices_card_first_then_target() -> None:
    def crowded(game: Game) -> bool:
        return deciding("actions", "space")(game) and len(game.legal(0)) > 9

    game = find_game("space", crowded)
    legal = game.view(0)["legal"]
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        # Every choice is on a key: at most 9 numbered entries plus the fixed letters.
        assert all(entry.key for entry in prompt.entries)
        assert all(keys_for(prompt, choice) for choice in legal)
        assert sorted(map(repr, leaves(prompt.entries))) == sorted(map(repr, legal))
        targeted = next(c for c in legal if "target" in c)
        keys = keys_for(prompt, targeted)
        assert keys is not None and len(keys) == 2
        await pilot.press(keys[0])  # the card: its targets open, with their row and hand
        assert prompt.group is not None and "row" in prompt.group.group[0].label
        await pilot.press("escape")  # back to the cards
        assert prompt.group is None
        await pilot.press(*keys)
        assert sent == [targeted]
        # "End actions" is always e.
        app.screen.restore_prompt()  # type: ignore[attr-defined]
        await pilot.press("e")
        assert sent[-1]["do"] == "done"


async def test_waiting_names_exactly_the_pending_seats_and_nobody_after_the_end() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    async with app.run_test(size=(120, 30)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        view = dict(game.view(0))
        view["active"], view["legal"], view["decision"] = 1, [], None
        # Bot 1's turn, but the server waits for Bot 2 (a reaction) and Bot 3 is done.
        view["pending"] = [
            {"seat": 2, "kind": "react", "done": False},
            {"seat": 3, "kind": "react", "done": True},
        ]
        app.feed({"type": "state", "room": ROOM, "version": 60, "view": view})
        await pilot.pause()
        question = str(table.query_one("#prompt-question").render())
        status = str(table.query_one(StatusLine).render())
        assert "Waiting for Bot 2…" in question and "Bot 1" not in question
        assert "waiting for Bot 2 to react" in status
        header = str(table.query_one(StripsBoard).render()).split("\n")[0]
        col = {p["seat"]: p["col"] for p in view["players"]}
        assert header.count("▶") == 1
        parts = header.split("▶")[0]
        assert parts.rstrip().endswith(str(col[2] + 1))
        # Another state where only the pending list changes is redrawn too.
        view = {**view, "pending": [{"seat": 3, "kind": "react", "done": False}]}
        app.feed({"type": "state", "room": ROOM, "version": 61, "view": view})
        await pilot.pause()
        assert "Waiting for Bot 3…" in str(table.query_one("#prompt-question").render())
        over = {**view, "over": True, "winner": 1, "pending": []}
        app.feed({"type": "state", "room": ROOM, "version": 62, "view": over})
        await wait_for(pilot, lambda: app.rooms[ROOM].result_shown)
        header = str(table.query_one(StripsBoard).render()).split("\n")[0]
        assert "▶" not in header
        assert "game over" in str(table.query_one(StatusLine).render())


async def test_the_shark_pick_says_pick_and_starts_on_a_card_that_is_not_food() -> None:
    """The shark pick says "Pick", starts on a card that is not food, and shows each compass
    card with its arrow and letter."""
    game = find_game("shipwrecked", deciding("pick", "shipwrecked"))
    view = game.view(0)
    kinds = {card["id"]: card["kind"] for card in view["hand"]}
    assert any(kinds[c["card"]] != "resource" for c in view["legal"])
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        assert all(entry.label.startswith("Pick ") for entry in prompt.entries)
        highlighted = prompt.highlighted_entry()
        assert highlighted is not None and highlighted.choice is not None
        assert kinds[highlighted.choice["card"]] != "resource"
        # One compass notation: the arrow and the log's letter, as in the hand.
        assert any(
            "←W" in e.label or "→E" in e.label or "↑N" in e.label or "↓S" in e.label
            for e in prompt.entries
        )


async def test_a_table_being_taken_down_ignores_what_was_on_its_way() -> None:
    """A rematch, a language switch or the app's exit removes a table's widgets before the
    messages already queued for it (a key, a highlight, a card's focus) are handled."""
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app, sent = recording_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        table = app.screen
        assert isinstance(table, TableScreen)
        options = table.query_one(PromptPanel).options
        await table.query_one("#bottom").remove()
        await table.query_one("#detail").remove()
        table.action_choose("e")
        table.action_back()
        table.post_message(options.OptionHighlighted(options, options.get_option_at_index(0), 0))
        table.on_hand_panel_card_focused(HandPanel.CardFocused("a card"))
        await pilot.pause()
        assert sent == []
