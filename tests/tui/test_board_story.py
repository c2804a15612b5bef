"""The reaction says what the card does to you and what blocking costs;
the board's columns are numbered as the log says them, and your character is marked as you
wherever it stands, its hand size above the strip it stands on."""

from __future__ import annotations

from textual.widgets import OptionList, Static

from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.strips import StripsBoard
from server.engine import Game

from .fixtures import feed_game, find_game, offline_app
from .pilot import table_shown, wait_for
from .test_snapshots import deciding


async def test_the_reaction_says_what_the_card_does_and_what_blocking_costs() -> None:
    game = find_game("space", deciding("react", "space", legal=2))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: table_shown(app))
        table = app.screen
        prompt = table.query_one(PromptPanel)
        options = table.query_one("#prompt-options", OptionList)
        detail = table.query_one("#detail", Static)
        labels = [entry.label for entry in prompt.entries]
        block, accept = (
            labels.index(next(x for x in labels if x.startswith(w))) for w in ("Block", "Do not")
        )
        options.highlighted = accept
        await pilot.pause()
        card = game.view(0)["decision"]["prompt"].split(" plays ")[1].split(" on you")[0]
        said = str(detail.render())
        assert said.startswith("Accept: ") and card in said  # the incoming card and its effect
        options.highlighted = block
        await pilot.pause()
        assert str(detail.render()) == "Block: your card and theirs are both discarded."


def swapped(game: Game) -> bool:
    """Seat 0 stands on another seat's strip (after a swap) and it is not over."""
    view = game.view(0)
    me = next(p for p in view["players"] if p["seat"] == 0)
    return not game.over and me["alive"] and me["col"] != 0


async def test_your_character_is_marked_wherever_it_stands_with_its_hand_size() -> None:
    game = find_game("space", swapped)
    view = game.view(0)
    me = next(p for p in view["players"] if p["seat"] == 0)
    board = StripsBoard()
    lines = board._draw(view, 60).plain.split("\n")
    width = (60 - 2) // view["seats"]  # LABEL_WIDTH 2: the columns' width
    column = slice(2 + me["col"] * width, 2 + (me["col"] + 1) * width)
    # The header over the strip it stands on: that column's number, its name, its hand size.
    assert lines[0][column].startswith(f"{me['col'] + 1}") and me["name"] in lines[0][column]
    assert str(me["hand_count"]) in lines[1][column]
    row = lines[2 + (view["rows"] - 1 - me["row"])]
    assert f"◉{me['name']}"[:5] in row[column]
    # Nobody else is drawn as you, and you are nowhere else.
    assert sum(line.count("◉") for line in lines) == 1


async def test_the_log_names_columns_as_the_board_numbers_them() -> None:
    game = find_game("shipwrecked", lambda g: any(e.key == "shark" for e in g.log))
    event = next(e for e in game.log if e.key == "shark")
    col, row = event.args["cell"]
    text = event.for_seat(0) or ""
    assert f"column {col + 1}, row {row}" in text
    board = StripsBoard()
    header = board._draw(game.view(0), 60).plain.split("\n")[0]
    width = (60 - 2) // game.view(0)["seats"]
    assert header[2 + col * width :].startswith(f"{col + 1}")
