"""A room with no host, and a spectator's chat."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from selfish_tui.screens.table import TableScreen

from .fixtures import feed_game, find_game, lobby_room, offline_app
from .pilot import table_shown, wait_for


async def test_a_room_without_host_says_so_in_the_lobby() -> None:
    """With no seated human left the room has no host (``host: null``): not "None"."""
    app = offline_app()
    async with app.run_test(size=(100, 24)) as pilot:
        room = lobby_room(filled=4, humans=2, bots=2, status="playing", host=None, spectators=1)
        app.feed({"type": "rooms", "rooms": [room]})
        await pilot.pause()
        table = app.lobby.query_one("#rooms", DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert "None" not in row and "—" in row


async def test_a_spectators_chat_says_players_read_it_after_the_game() -> None:
    game = find_game("space", lambda g: g.turn >= 3)
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, None)
        await wait_for(pilot, lambda: table_shown(app))
        await pilot.press("c")
        chat = app.screen.query_one("#chat", Input)
        assert chat.display and "after the game" in chat.placeholder
    player = offline_app()
    async with player.run_test(size=(80, 24)) as pilot:
        feed_game(player, game, 0)
        await wait_for(
            pilot, lambda: isinstance(player.screen, TableScreen) and player.screen._ready
        )
        await pilot.press("c")
        chat = player.screen.query_one("#chat", Input)
        assert chat.display and "after the game" not in chat.placeholder
