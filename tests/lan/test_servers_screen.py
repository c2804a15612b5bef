"""Pilot tests: `selfish connect` without an address lists the LAN's servers; Enter joins;
`selfish host` shows its address and asks before quitting while games run."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import pytest
from textual.widgets import DataTable, Input, Static

from protocol.lan import SERVICE_TYPE, LanServer
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.hosting import Hosting, HostPlan
from selfish_tui.controllers.lan_search import LanSearch
from selfish_tui.discovery import DiscoveryProblem, ServerFinder, ServersChanged
from selfish_tui.local import EmbeddedServer
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.lobby import LobbyScreen
from selfish_tui.screens.servers import ServersScreen
from tests.lan.conftest import LOOPBACK
from tests.tui.pilot import wait_for


def status(app: SelfishApp) -> str:
    return str(app.screen.query_one("#servers-status", Static).render())


def rows(app: SelfishApp, *names: str) -> list[list[str]]:
    """The list's rows (only the servers called ``names``, if given: tests running at the same
    time see each other's servers)."""
    table = app.screen.query_one("#servers", DataTable)
    found = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
    return [row for row in found if not names or row[0] in names]


@pytest.fixture
def no_browsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen's finder finds nothing: the test posts what it would."""

    async def idle(self: ServerFinder) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(ServerFinder, "run", idle)


async def test_the_list_shows_announced_servers_and_enter_joins(
    announced: Callable[..., EmbeddedServer],
) -> None:
    ann = announced("Ann")
    bob = announced("Bob")
    names = (str(ann.announce), str(bob.announce))
    saved: dict[str, str] = {}
    search = LanSearch(LOOPBACK, save_token=saved.__setitem__)
    app = SelfishApp(search, name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        await wait_for(pilot, lambda: len(rows(app, *names)) == 2, timeout=10)
        assert rows(app, *names) == [
            [names[0], f"127.0.0.1:{ann.port}", "0", "0"],
            [names[1], f"127.0.0.1:{bob.port}", "0", "0"],
        ]
        assert "servers on the LAN (updating live)" in status(app)
        below = [row[0] for row in rows(app)].index(names[1])
        await pilot.press("home", *["down"] * below, "enter")  # Bob
        await wait_for(pilot, lambda: app.player_id is not None)
        assert isinstance(app.screen, LobbyScreen)
        assert app.client is not None and app.client.port == bob.port
        # the identity is kept per server address and player name
        assert list(saved) == [f"Cat@127.0.0.1:{bob.port}"]
        # Browsing ends with the list: nothing multicasts during the game.
        await wait_for(pilot, lambda: not [w for w in app.workers if w.name == "discovery"])
        assert "Connected to" in str(app.screen.query_one("#lobby-status", Static).render())


async def test_the_list_updates_live(announced: Callable[..., EmbeddedServer]) -> None:
    app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        server = await asyncio.to_thread(announced, "Late")
        name = str(server.announce)
        await wait_for(pilot, lambda: [r[0] for r in rows(app, name)] == [name], timeout=10)
        await asyncio.to_thread(server.stop)
        await wait_for(pilot, lambda: rows(app, name) == [], timeout=10)


async def test_an_address_can_still_be_typed() -> None:
    server = EmbeddedServer(":memory:")  # not announced
    port = server.start()
    try:
        app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
            await pilot.press("a", *"nowhere:notaport", "enter")
            assert isinstance(app.screen, ServersScreen)  # a bad address keeps the screen
            app.screen.query_one("#address", Input).value = ""
            await pilot.press(*f"127.0.0.1:{port}", "enter")
            await wait_for(pilot, lambda: app.player_id is not None)
            assert app.client is not None and app.client.port == port
    finally:
        server.stop()


async def test_a_server_name_joins_it_when_found(announced: Callable[..., EmbeddedServer]) -> None:
    announced("Ann")
    bob = announced("Bob")
    wanted = str(bob.announce).upper()  # names match without regard to case
    app = SelfishApp(LanSearch(LOOPBACK, wanted=wanted), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None, timeout=10)
        assert app.client is not None and app.client.port == bob.port


async def test_an_unknown_name_offers_itself_as_an_address(no_browsing: None) -> None:
    app = SelfishApp(LanSearch(LOOPBACK, wanted="nobody"), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        screen = app.screen
        assert isinstance(screen, ServersScreen)
        screen.quiet_after = 0
        screen._wait_over()
        await pilot.pause()
        assert "No server called 'nobody'" in status(app)
        assert screen.query_one("#address", Input).value == "nobody:7777"


async def test_no_multicast_says_so_and_moves_to_the_address(no_browsing: None) -> None:
    app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        app.screen.post_message(DiscoveryProblem("[Errno 101] Network is unreachable"))
        await pilot.pause()
        assert "Cannot look for servers on the LAN" in status(app)
        assert "Network is unreachable" in status(app)
        assert app.focused is app.screen.query_one("#address", Input)


async def test_hostile_names_are_plain_text_and_other_protocols_are_refused(
    no_browsing: None,
) -> None:
    app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        odd = LanServer("x." + SERVICE_TYPE, "[b]New[/b]", "127.0.0.1", 9, 0, 0, 3)
        app.screen.post_message(ServersChanged([odd]))
        await pilot.pause()
        assert rows(app) == [["[b]New[/b] (protocol 3)", "127.0.0.1:9", "—", "—"]]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ServersScreen) and app.client is None


async def test_the_host_shows_its_address_and_asks_before_stopping_games(
    announced: Callable[..., EmbeddedServer],
) -> None:
    server = announced("Ann")
    games = [0]
    plan = HostPlan("Ann", server.addresses, running_games=lambda: games[0])
    app = SelfishApp(Hosting(plan, Login("127.0.0.1", server.port)), name="Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
        text = str(app.screen.query_one("#lobby-status", Static).render())
        assert f"127.0.0.1:{server.port}" in text and "selfish connect" in text
        games[0] = 2
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "2 games are running on your server" in str(
            app.screen.query_one("#confirm-question", Static).render()
        )
        await pilot.press("n")
        assert app.is_running
        games[0] = 0
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_an_unreachable_server_brings_the_list_back(no_browsing: None) -> None:
    """A server that vanished after it was listed: say so, and choose again."""
    app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        gone = LanServer("gone." + SERVICE_TYPE, "Gone", "127.0.0.1", port, 0, 0, 2)
        app.screen.post_message(ServersChanged([gone]))
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: any("Could not join" in str(n.message) for n in app._notifications)
        )
        await pilot.pause()
        assert isinstance(app.screen, ServersScreen) and app.client is None
        assert not [w for w in app.workers if w.name == "network" and w.is_running]


async def test_news_after_the_choice_changes_nothing(no_browsing: None) -> None:
    """The finder may report again between the choice and the list's closing (the wanted
    server updated, another found): the list is gone once, the lobby stays."""
    server = EmbeddedServer(":memory:")
    port = server.start()
    try:
        app = SelfishApp(LanSearch(LOOPBACK, wanted="Bob"), name="Cat")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
            screen = app.screen
            bob = LanServer("b." + SERVICE_TYPE, "Bob", "127.0.0.1", port, 0, 0, 2)
            screen.post_message(ServersChanged([bob]))
            ann = LanServer("a." + SERVICE_TYPE, "Ann", "127.0.0.1", port, 0, 0, 2)
            screen.post_message(ServersChanged([ann, bob]))
            await wait_for(pilot, lambda: app.player_id is not None)
            assert isinstance(app.screen, LobbyScreen) and app.screen is app.lobby
    finally:
        server.stop()


async def test_the_highlight_stays_on_its_server_when_one_appears_above(
    no_browsing: None,
) -> None:
    """The highlight was a row number, so a server listed above the
    highlighted one made Enter join a different server."""
    server = EmbeddedServer(":memory:")
    port = server.start()
    try:
        with socket.socket() as probe:  # a port nobody listens on, for the other servers
            probe.bind(("127.0.0.1", 0))
            nobody = probe.getsockname()[1]
        bea = LanServer("b." + SERVICE_TYPE, "Bea", "127.0.0.1", nobody, 0, 0, 2)
        cy = LanServer("c." + SERVICE_TYPE, "Cy", "127.0.0.1", port, 0, 0, 2)
        app = SelfishApp(LanSearch(LOOPBACK), name="Cat")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
            app.screen.post_message(ServersChanged([bea, cy]))
            await wait_for(pilot, lambda: len(rows(app)) == 2)
            await pilot.press("down")  # Cy
            al = LanServer("a." + SERVICE_TYPE, "Al", "127.0.0.1", nobody, 0, 0, 2)
            app.screen.post_message(ServersChanged([al, bea, cy]))
            await wait_for(pilot, lambda: len(rows(app)) == 3)
            assert app.screen.query_one("#servers", DataTable).cursor_row == 2
            cy_busier = LanServer("c." + SERVICE_TYPE, "Cy", "127.0.0.1", port, 3, 1, 2)
            app.screen.post_message(ServersChanged([al, cy_busier]))  # Bea left, Cy changed
            await wait_for(pilot, lambda: len(rows(app)) == 2)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.player_id is not None)
            assert app.client is not None and app.client.port == port
    finally:
        server.stop()


async def test_two_servers_of_the_wanted_name_are_both_shown_with_their_addresses(
    no_browsing: None,
) -> None:
    """`selfish connect NAME` with two servers of that name: it joins neither by chance, the
    second one answering a moment after the first included."""
    app = SelfishApp(LanSearch(LOOPBACK, wanted="Bob"), name="Cat")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServersScreen))
        screen = app.screen
        assert isinstance(screen, ServersScreen)
        first = LanServer("b1." + SERVICE_TYPE, "Bob", "127.0.0.1", 7001, 0, 0, 2)
        second = LanServer("b2." + SERVICE_TYPE, "Bob", "127.0.0.2", 7002, 0, 0, 2)
        screen.post_message(ServersChanged([first]))
        await pilot.pause(screen.settle_after / 2)
        screen.post_message(ServersChanged([first, second]))
        await pilot.pause(screen.settle_after)
        assert app.screen is screen and app.client is None
        assert rows(app) == [
            ["Bob", "127.0.0.1:7001", "0", "0"],
            ["Bob", "127.0.0.2:7002", "0", "0"],
        ]
        assert "2 servers are called 'Bob'" in status(app)
