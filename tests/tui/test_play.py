"""Pilot tests: whole games against an in-process server with bots, played by key presses."""

from __future__ import annotations

import asyncio
import random

import pytest
from textual.pilot import Pilot

from selfish_tui.app import LocalPlan, SelfishApp
from selfish_tui.local import EmbeddedServer
from selfish_tui.messages import ConnectionLost
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.help import HelpScreen
from selfish_tui.screens.lobby import CreateRoomScreen, WaitingRoomScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.state import RoomState
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.status import StatusLine
from tests.server.conftest import Client

from .pilot import current_room, play_to_end, table_shown, wait_for


@pytest.mark.parametrize(
    ("edition", "bots", "seed"),
    [
        ("space", 3, 11),
        ("shipwrecked", 4, 12),
        ("shipwrecked", 1, 5),
    ],
)
async def test_local_game_to_the_end(server_port: int, edition: str, bots: int, seed: int) -> None:
    app = SelfishApp(
        "127.0.0.1", server_port, "You", plan=LocalPlan(edition=edition, bots=bots, seed=seed)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: table_shown(app))
        made = await play_to_end(pilot, app, random.Random(seed))
        room = current_room(app)
        assert room is not None and room.view is not None
        assert room.view.public.over and room.view.public.edition == edition
        assert room.game_over is not None and room.game_over.turns >= 1
        assert made >= 1
        text = str(app.screen.query_one("#gameover-text").render())
        assert ("win" in text) and "You (you)" in text  # "You win!" or "<name> wins"
        # Rematch: the host presses r and a fresh game of the same table begins.
        await pilot.press("r")
        await wait_for(pilot, lambda: room.view is not None and not room.view.public.over)
        assert isinstance(app.screen, TableScreen)


async def create_room(pilot: Pilot[None], app: SelfishApp, *keys: str) -> RoomState:
    """From the lobby: n, then ``keys`` in the new-room dialog, then Create; the waiting room."""
    await wait_for(pilot, lambda: app.player_id is not None)
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateRoomScreen))
    await pilot.press(*keys)
    await pilot.click("#create")
    await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
    room = current_room(app)
    assert room is not None
    return room


async def test_lobby_create_room_add_bot_start_and_play(server_port: int) -> None:
    app = SelfishApp("127.0.0.1", server_port, "Host")
    async with app.run_test(size=(100, 30)) as pilot:
        # Defaults: Space, 4 seats, 2 bots. Make it 3 seats and 1 bot with keys, then create.
        room = await create_room(
            pilot, app, "tab", "enter", "up", "enter", "tab", "enter", "up", "enter"
        )
        assert room.is_host
        await wait_for(pilot, lambda: len(room.info.seats if room.info else ()) == 3)
        assert sum(1 for s in room.info.seats if s is None) == 1
        await pilot.press("a")
        await wait_for(pilot, lambda: all(room.info.seats if room.info else [None]))
        await pilot.press("c", *"glhf", "enter")
        await wait_for(pilot, lambda: any(e.kind == "chat" for e in room.log))
        await pilot.press("s")
        await wait_for(pilot, lambda: table_shown(app))
        await play_to_end(pilot, app, random.Random(3))
        assert room.view is not None and room.view.public.over
        # Leaving (q, as on the table) returns to the lobby, which lists rooms again.
        await pilot.press("q")
        await wait_for(pilot, lambda: app.screen is app.lobby)


async def test_the_waiting_room_keys_add_bots_of_each_level(server_port: int) -> None:
    app = SelfishApp("127.0.0.1", server_port, "Host")
    async with app.run_test(size=(100, 30)) as pilot:
        room = await create_room(pilot, app, "tab", "enter", "down", "enter")  # 5 seats, 2 bots
        await wait_for(pilot, lambda: len(room.info.seats if room.info else ()) == 5)
        await pilot.press("A", "e")
        await wait_for(pilot, lambda: all(room.info.seats if room.info else [None]))
        levels = [s.level for s in room.info.seats if s is not None and s.kind == "bot"]
        assert levels == ["basic", "basic", "random", "expert"]


async def test_q_leaves_a_running_game_for_the_lobby_after_asking(server_port: int) -> None:
    app = SelfishApp("127.0.0.1", server_port, "Quitter")
    async with app.run_test(size=(100, 30)) as pilot:
        room = await create_room(pilot, app)  # defaults: Space, 4 seats, 2 bots
        await pilot.press("a")
        await wait_for(pilot, lambda: all(room.info.seats if room.info else [None]))
        await pilot.press("s")
        await wait_for(pilot, lambda: table_shown(app))
        await wait_for(pilot, lambda: room.view is not None)
        table = app.screen
        await pilot.press("q")  # our game runs: asks first, and "n" keeps playing
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is table and room.code in app.rooms
        await pilot.press("q", "y")
        await wait_for(pilot, lambda: app.screen is app.lobby)
        assert room.code not in app.rooms and app.current is None
        assert app.is_running  # connected to a server, leaving a room is not quitting


async def test_keys_help_chat_and_board_cursor(server_port: int) -> None:
    app = SelfishApp(
        "127.0.0.1", server_port, "You", plan=LocalPlan(edition="space", bots=2, seed=21)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: table_shown(app))
        table = app.screen
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is table
        await pilot.press("c", *"hi all", "enter")
        await wait_for(
            pilot,
            lambda: any("You: hi all" in line for line in table.query_one(GameLog).lines_text),
        )
        await pilot.press("t", "up", "right")
        await pilot.pause()
        detail = str(table.query_one("#detail").render())
        assert "Column 2, row 1" in detail
        await pilot.press("ctrl+q")  # a game is running: asks first
        await pilot.press("n")
        assert app.screen is table
        await pilot.press("ctrl+q", "y")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


async def test_reconnects_and_resumes_with_token(tmp_path: object) -> None:
    db = str(tmp_path) + "/games.sqlite3"  # type: ignore[operator]
    first = EmbeddedServer(db, bot_delay=0.0)
    port = first.start()
    app = SelfishApp(
        "127.0.0.1",
        port,
        "You",
        plan=LocalPlan(edition="shipwrecked", bots=2, seed=8),
        backoff=(0.1, 0.2),
    )
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_shown(app))
            await play_to_end(pilot, app, random.Random(1), max_decisions=3)
            room = current_room(app)
            assert room is not None
            code = room.code
            first.stop()
            await wait_for(
                pilot,
                lambda: (
                    "Offline: retry in" in str(app.screen.query_one(StatusLine).summary())
                    if isinstance(app.screen, TableScreen)
                    else False
                ),
            )
            # The server comes back on the same port with the same database.
            second = EmbeddedServer(db, bot_delay=0.0, port=port)
            second.start()
            try:
                await wait_for(pilot, lambda: app.client is not None and app.client.connected)
                await wait_for(
                    pilot,
                    lambda: "Offline" not in str(app.screen.query_one(StatusLine).summary()),
                )
                assert app.current == code and current_room(app) is room
                await play_to_end(pilot, app, random.Random(2))
                assert isinstance(app.screen, GameOverScreen)
            finally:
                second.stop()
    finally:
        first.stop()


class RawPlayer:
    """A bare protocol client (no Textual: the tests' client on the one protocol library) that
    hosts a room and plays simply: move if it can."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.room = ""
        self.task: asyncio.Task[None] | None = None

    async def start(self, **room: object) -> str:
        self.client = await Client.connect(self.port)
        await self.client.hello("Host")
        joined = await self.client.request({"type": "create_room", **room})
        assert joined["type"] == "joined", joined
        self.room = str(joined["room"])
        self.task = asyncio.create_task(self._play())
        return self.room

    async def _play(self) -> None:
        while True:
            message = await self.client.recv(timeout=60)
            view = message.get("view")
            if message["type"] == "state" and isinstance(view, dict) and view["legal"]:
                await asyncio.sleep(0.02)  # slow enough for the spectator to see play
                legal = view["legal"]
                best = next(
                    (
                        c
                        for do in ("move", "done", "accept")
                        for c in legal
                        if c["do"] == do and not c.get("fatal")
                    ),
                    legal[0],
                )
                self.client.send(
                    {
                        "type": "act",
                        "room": self.room,
                        "version": message["version"],
                        "choice": legal.index(best),
                    }
                )

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
        await self.client.close()


async def test_watch_a_room_by_code_as_spectator(server_port: int) -> None:
    host = RawPlayer(server_port)
    code = await host.start(edition="shipwrecked", seats=3, bots=2, public=False, autostart=True)
    app = SelfishApp("127.0.0.1", server_port, "Watcher")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.player_id is not None)
            await pilot.press("j", *code.lower())
            await pilot.click("#spectator")
            # The table opens (the game may already be over, with the result on top).
            await wait_for(pilot, lambda: any(isinstance(s, TableScreen) for s in app.screen_stack))
            room = current_room(app)
            assert room is not None and room.role == "spectator" and room.seat is None
            await wait_for(
                pilot, lambda: room.view is not None and room.view.public.over, timeout=30
            )
            assert room.view is not None and room.view.own is None
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            text = str(app.screen.query_one("#gameover-text").render())
            assert "(you)" not in text and "wins" in text
    finally:
        await host.stop()


async def test_what_the_network_posts_during_shutdown_is_dropped(server_port: int) -> None:
    """A reply that crosses the exit (the lobby's ``rooms``, a lost connection) arrives when
    Textual has already removed the screens' widgets: it must be dropped, not crash the exit."""
    app = SelfishApp("127.0.0.1", server_port, "Leaver")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
    assert not app.is_running and not app.lobby.query("#rooms")
    app.feed({"type": "rooms", "rooms": []})
    app.on_connection_lost(ConnectionLost("gone", 1.0))


async def test_the_new_room_dialog_sets_when_bots_step_in(server_port: int) -> None:
    app = SelfishApp("127.0.0.1", server_port, "Host")
    async with app.run_test(size=(80, 24)) as pilot:
        # Edition, seats, bots, level, timer: five tabs to "Bots step in"; the next preset.
        room = await create_room(pilot, app, *["tab"] * 5, "enter", "down", "enter")
        await wait_for(pilot, lambda: room.info is not None and room.info.left_grace == 30)
        assert (room.info.left_grace, room.info.idle_grace) == (30, 60)
