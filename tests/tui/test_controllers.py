"""Each way of playing drives the app through its controller, against a real server over TCP:
a local game plays and q asks before quitting; a server's lobby connects, seats us, and leaving
goes back to it; a hosted server says how others join and asks before stopping its games; the
LAN search lists servers and joins the chosen one, whose address the quit dialog then names."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from protocol.lan import SERVICE_TYPE, LanServer
from protocol.messages import PROTOCOL_VERSION
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.hosting import Hosting, HostPlan
from selfish_tui.controllers.lan_search import LanSearch
from selfish_tui.controllers.local_game import LocalGame, LocalPlan
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.discovery import ServerFinder, ServersChanged
from selfish_tui.front_door import FrontDoor
from selfish_tui.paths import identity_key
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.servers import ServersScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.screens.waiting_room import WaitingRoomScreen

from .pilot import current_room, play_to_end, table_shown, wait_for
from .test_play import RawPlayer, create_room


def lobby_status(app: SelfishApp) -> str:
    return str(app.lobby.query_one("#lobby-status", Static).render())


async def question(pilot: object, app: SelfishApp) -> str:
    """The confirmation on screen, once it is there."""
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))  # type: ignore[arg-type]
    assert isinstance(app.screen, ConfirmScreen)
    return app.screen.question


async def test_a_local_game_plays_and_q_asks_before_quitting(server_port: int) -> None:
    game = LocalGame(LocalPlan(edition="space", bots=2, seed=11), Login("127.0.0.1", server_port))
    app = SelfishApp(game, name="Solo")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: table_shown(app))
        room = current_room(app)
        assert room is not None and room.in_progress()
        assert app.lobby.query_one("#lobby-box").border_title == "Selfish — local game"
        started = room.version
        assert await play_to_end(pilot, app, random.Random(3), max_decisions=4) == 4
        await wait_for(pilot, lambda: room.version > started)
        await pilot.press("q")  # no lobby to go back to: q quits, asking first
        assert "`selfish play --resume` continues it" in await question(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("q", "y")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


async def test_a_lobby_seats_us_over_tcp_and_leaving_goes_back_to_it(server_port: int) -> None:
    app = SelfishApp(RemoteLobby(Login("127.0.0.1", server_port)), name="Lobbyist")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
        assert lobby_status(app) == "Connected to selfish-server as Lobbyist."  # its own name
        room = await create_room(pilot, app)  # defaults: Space, 4 seats, 2 bots
        await pilot.press("a")  # the last seat: a bot; then start
        await wait_for(pilot, lambda: room.info is not None and None not in room.info.seats)
        await pilot.press("s")
        await wait_for(pilot, lambda: table_shown(app))
        # Quitting now: the seat waits, and the way back is this server's address.
        await pilot.press("ctrl+q")
        said = await question(pilot, app)
        assert f"come back with `selfish connect 127.0.0.1:{server_port}`" in said
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("q")  # leave, asking first: back to the lobby, the room forgotten
        assert "A bot plays your seat" in await question(pilot, app)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is app.lobby)
        assert room.code not in app.rooms and app.current is None
        await pilot.press("ctrl+q")  # no game of ours runs: no question
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


async def test_connect_guest_is_a_guest_of_the_server_and_keeps_nothing(
    server_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`selfish connect HOST --guest` says hello as a guest: the server makes it a player with
    no record (a guest's id), and no token is read or written on this machine."""
    from selfish_tui import app as app_module
    from selfish_tui import cli, commands

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    lobbies: list[tuple[RemoteLobby, str]] = []

    class Captured:
        def __init__(self, lobby: RemoteLobby, name: str, **kw: object) -> None:
            lobbies.append((lobby, name))

        def run(self) -> None:
            pass

    monkeypatch.setattr(app_module, "SelfishApp", Captured)
    address = f"127.0.0.1:{server_port}"
    assert commands.connect(cli.build_parser().parse_args(["connect", address, "--guest"])) == 0
    monkeypatch.undo()
    ((lobby, name),) = lobbies
    assert lobby.login is not None and lobby.login.guest and lobby.login.token is None
    app = SelfishApp(lobby, name=name)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
        assert app.player_id is not None and app.player_id.startswith("g")
        assert name.startswith("Guest ")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)
    assert not list(tmp_path.rglob("*")), "no token kept"


async def test_joining_straight_into_a_room_shows_its_waiting_room(server_port: int) -> None:
    host = RawPlayer(server_port)
    code = await host.start(edition="space", seats=3, bots=1, public=False)
    lobby = RemoteLobby(Login("127.0.0.1", server_port), goto=("player", code))
    app = SelfishApp(lobby, name="Guest")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
            assert app.current == code and lobby.goto is None
            room = current_room(app)
            assert room is not None and room.role == "player" and not room.is_host
    finally:
        await host.stop()


async def test_the_host_says_how_others_join_and_asks_while_games_run(server_port: int) -> None:
    games = [2]
    plan = HostPlan("Ann's table", ["192.0.2.7:7777"], running_games=lambda: games[0])
    app = SelfishApp(Hosting(plan, Login("127.0.0.1", server_port)), name="Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
        assert lobby_status(app) == (
            """Your server "Ann's table" is on the LAN: others run `selfish connect` """
            "(or type 192.0.2.7:7777)."
        )
        await pilot.press("ctrl+q")
        assert "2 games are running on your server" in await question(pilot, app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.lobby)
        games[0] = 0
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


@pytest.fixture
def no_browsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server list's finder finds nothing: the test posts what it would."""

    async def idle(self: ServerFinder) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(ServerFinder, "run", idle)


async def test_the_lan_search_lists_servers_and_joins_the_chosen_one(
    server_port: int, no_browsing: None
) -> None:
    saved: dict[str, str] = {}
    search = LanSearch(["127.0.0.1"], save_token=saved.__setitem__)
    app = SelfishApp(search, name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        here = LanServer(
            "here." + SERVICE_TYPE, "Here", "127.0.0.1", server_port, 0, 0, PROTOCOL_VERSION
        )
        app.screen.post_message(ServersChanged([here]))
        table = app.screen.query_one("#servers", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.player_id is not None)
        assert app.screen is app.lobby
        assert search.front_door == FrontDoor("tcp", address=f"127.0.0.1:{server_port}")
        assert list(saved) == [identity_key(f"127.0.0.1:{server_port}", "Cat")]
