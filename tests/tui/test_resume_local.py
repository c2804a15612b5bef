"""`selfish play` asks before it closes an unfinished saved game."""

from __future__ import annotations

from textual.widgets import Static

from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.local_game import LocalGame, LocalPlan
from selfish_tui.screens.resume import ResumeScreen

from .pilot import current_room, table_shown, wait_for


class Player:
    """`selfish play` run after run by one player: the token is kept between runs."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.token: str | None = None

    def app(self, **plan: object) -> SelfishApp:
        def keep(token: str) -> None:
            self.token = token

        return SelfishApp(
            LocalGame(LocalPlan(**plan), Login("127.0.0.1", self.port, self.token, keep)),
            name="Resumer",
        )

    async def start_game(self) -> str:
        """A first run: a new game at once (nothing to ask about); quit while it runs."""
        app = self.app(seed=3)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_shown(app))
            room = current_room(app)
            assert room is not None and room.in_progress()
            return room.code


async def asked(pilot: object, app: SelfishApp) -> ResumeScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen))  # type: ignore[arg-type]
    await wait_for(pilot, lambda: bool(app.screen.query("#resume-question")))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ResumeScreen)
    return screen


async def test_an_unfinished_game_is_resumed_replaced_or_kept_as_the_player_answers(
    server_port: int,
) -> None:
    player = Player(server_port)
    code = await player.start_game()

    # r: resume. The question names the game and what a new one would cost.
    app = player.app(edition="shipwrecked")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await asked(pilot, app)
        text = str(screen.query_one("#resume-question", Static).render())
        assert "unfinished game: Space Edition, turn" in text and "Resumer" in text
        assert "new Shipwrecked Edition game" in text and "closes the unfinished one" in text
        assert not any(
            r.view and r.view.public.edition == "shipwrecked" for r in app.rooms.values()
        )
        await pilot.press("r")
        await wait_for(pilot, lambda: table_shown(app))
        assert app.current == code and app.rooms[code].edition == "space"

    # c (or Esc): nothing is closed and nothing is started; the app quits.
    app = player.app()
    async with app.run_test(size=(80, 24)) as pilot:
        await asked(pilot, app)
        await pilot.press("c")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)
    assert set(app.rooms) == {code}

    # n: the new game, and the unfinished one is closed (a later run has nothing to ask).
    app = player.app(edition="shipwrecked")
    async with app.run_test(size=(80, 24)) as pilot:
        await asked(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: table_shown(app))
        room = current_room(app)
        assert room is not None and room.code != code and room.edition == "shipwrecked"
        new_code = room.code

    app = player.app(resume=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: table_shown(app))
        assert app.current == new_code and code not in app.rooms
