"""Focused checks of what the table shows, on seeded engine positions (no server)."""

from __future__ import annotations

from dataclasses import replace

from protocol.game_types import Card, Choice
from selfish_tui.keyed_text import card_name
from selfish_tui.model import playable_cards
from selfish_tui.screens.table import TableScreen
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.strips import StripsBoard

from .fixtures import feed_game, find_game, offline_app, typed
from .pilot import keys_for, wait_for
from .test_snapshots import deciding


async def reaction_prompt(legal: int) -> tuple[str, str, str, int, tuple[int, int]]:
    """Title, question, highlighted label, choice count and size of a reaction prompt."""
    game = find_game("shipwrecked", deciding("react", "shipwrecked", legal=legal))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0, {0: 20.0})
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        question = str(prompt.query_one("#prompt-question").render())
        index = prompt.options.highlighted
        assert index is not None
        label = prompt.shown[index].label
        return (
            prompt.title,
            question.split("\n")[0],
            label,
            len(prompt.choices),
            (prompt.size.width, prompt.size.height),
        )


async def test_reaction_prompt_looks_the_same_with_or_without_a_block(frozen_clock: None) -> None:
    """RULES C13: same title, countdown, default (do not block) and panel either way."""
    can = await reaction_prompt(2)
    cannot = await reaction_prompt(1)
    assert can[3] == 2 and cannot[3] == 1
    assert can[0] == cannot[0] == "Reaction"
    assert can[1] == cannot[1] == "20s left"
    assert can[2] == cannot[2] == "Do not block"
    assert can[4] == cannot[4]


async def test_hack_suit_prompt_shows_the_victims_hand() -> None:
    game = find_game("space", deciding("take", "space"))
    revealed = game.view(0)["decision"]["reveal"]
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        text = str(app.screen.query_one("#prompt-reveal").render())
        for card in revealed:
            assert card_name(card["key"]) in text
        assert all(c.do == "take" for c in app.screen.query_one(PromptPanel).choices)


async def test_board_hand_and_number_keys() -> None:
    game = find_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=8, sharks=2))
    app = offline_app()
    sent: list[Choice] = []
    app.act = lambda room, choice: sent.append(choice) or True  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        board = str(table.query_one(StripsBoard).render())
        assert board.count("▲") == 2 and "RAFT" in board
        for player in game.view(0)["players"]:
            assert player["name"][:6] in board
        hand = table.query_one(HandPanel)
        assert len(hand.cards) == len(game.view(0)["hand"])
        assert hand.border_subtitle.startswith(f"food {game.view(0)['resources']}")
        legal = list(typed(game.view(0)).legal)
        # under load the first pause can come before the table has drawn its prompt
        await wait_for(pilot, lambda: table.query_one(PromptPanel).choices == legal)
        keys = keys_for(table.query_one(PromptPanel), legal[0])
        assert keys is not None
        await pilot.press(*keys)
        assert sent == [legal[0]]
        # The prompt waits for the next state instead of letting the same choice go twice.
        await pilot.press(*keys)
        assert len(sent) == 1


async def test_spectator_view_hides_the_hand() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=4))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, None)
        await pilot.pause()
        hand = app.screen.query_one(HandPanel)
        assert hand.spectating and not hand.cards
        assert app.screen.query_one(PromptPanel).choices == []


def test_every_copy_of_a_playable_card_is_marked() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    view = typed(game.view(0))
    assert view.own is not None
    hand = (
        Card(1, "rocket_booster", "action", 0, None),
        Card(2, "rocket_booster", "action", 0, None),
        Card(3, "shield", "action", 0, None),
    )
    legal = (Choice("play", card=1), Choice("done"))
    view = replace(view, own=replace(view.own, hand=hand, legal=legal))
    assert playable_cards(view) == {1, 2}


def _underlined(text: object) -> set[str]:
    """The pieces of a rendered Text that are underlined."""
    from rich.text import Text

    assert isinstance(text, Text)
    return {
        text.plain[span.start : span.end].strip()
        for span in text.spans
        if "underline" in str(span.style)
    }


async def test_the_last_move_and_changed_hand_sizes_are_underlined() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    async with app.run_test(size=(100, 30)) as pilot:
        board = StripsBoard()
        await app.screen.mount(board)
        before = typed(game.view(None))
        board.update_view(before)
        assert _underlined(board.render()) == set()  # nothing to compare with yet
        players = list(before.public.players)
        # A steal: the board stays as it was.
        thief = players[0] = replace(players[0], hand_count=players[0].hand_count + 1)
        victim = players[1] = replace(players[1], hand_count=players[1].hand_count - 1)
        after = replace(before, public=replace(before.public, players=tuple(players)))
        board.update_view(after)
        marked = _underlined(board.render())
        counts = sorted(m for m in marked if m[:1].isdigit())  # "3 cards", or "3…" when narrow
        assert len(counts) == 2
        assert {c.split()[0].rstrip("…") for c in counts} == {
            str(thief.hand_count),
            str(victim.hand_count),
        }
        assert not any("@" in m for m in marked)  # no cell changed
        # A move: its cells are underlined, no hand size is.
        players[2] = replace(players[2], row=players[2].row + 1)
        moved = replace(after, public=replace(after.public, players=tuple(players)))
        board.update_view(moved)
        marked = _underlined(board.render())
        name = players[2].name
        assert any(m.startswith("@" + name[:2]) for m in marked)  # the cell it moved to
        assert "·" in marked  # and the one it left
        assert not any(m[:1].isdigit() for m in marked)  # no hand size changed this time
        await pilot.pause()
