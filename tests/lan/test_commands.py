"""The command lines: `selfish host`, `selfish connect [NAME]`, `selfish-server --announce`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from protocol.codec import MessageDecoder, encode
from selfish_tui import cli
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.hosting import Hosting
from selfish_tui.controllers.lan_search import LanSearch
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.local import EmbeddedServer
from server import cli as server_cli
from tests.lan.conftest import LOOPBACK


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[SelfishApp]:
    """Apps the command would run (they are not run)."""
    apps: list[SelfishApp] = []
    monkeypatch.setattr(SelfishApp, "run", lambda self, **kwargs: apps.append(self))
    return apps


def test_connect_without_an_address_searches_the_chosen_interfaces(
    launched: list[SelfishApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli.main(["connect", "--name", "Cat"]) == 0
    search = launched[-1].controller
    assert isinstance(search, LanSearch)
    assert search.interfaces == LOOPBACK and search.wanted is None
    assert launched[-1].client is None
    monkeypatch.setenv("SELFISH_LAN_INTERFACE", "127.0.0.1,::1")
    assert cli.main(["connect", "Ann's game"]) == 0
    search = launched[-1].controller
    assert isinstance(search, LanSearch) and search.interfaces == ["127.0.0.1", "::1"]
    assert search.wanted == "Ann's game"
    assert cli.main(["connect", "--lan-interface", "127.0.0.2"]) == 0
    search = launched[-1].controller
    assert isinstance(search, LanSearch) and search.interfaces == ["127.0.0.2"]


def test_connect_with_an_address_connects_directly(launched: list[SelfishApp]) -> None:
    assert cli.main(["connect", "127.0.0.1:7890"]) == 0
    lobby = launched[-1].controller
    assert type(lobby) is RemoteLobby and lobby.login is not None and lobby.login.port == 7890


@pytest.mark.parametrize("command", ["connect", "host"])
def test_a_bad_interface_is_refused_before_anything_starts(
    command: str, launched: list[SelfishApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([command, "--lan-interface", "eth0"]) == 2
    assert "not an IP address" in capsys.readouterr().err and launched == []


def test_host_refuses_a_bad_server_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["host", "--lan-name", "bad\x1bname"]) == 2
    assert "server name" in capsys.readouterr().err


def test_host_runs_an_announced_server_and_its_lobby(
    launched: list[SelfishApp], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    # The host sends the server's log to a file: put the logger back as it was afterwards.
    logger = logging.getLogger("selfish")
    monkeypatch.setattr(logger, "handlers", list(logger.handlers))
    monkeypatch.setattr(logger, "propagate", logger.propagate)
    monkeypatch.setattr(logger, "level", logger.level)
    assert cli.main(["host", "--name", "Ann", "--port", "0", "--lan-name", "Ann's table"]) == 0
    hosting = launched[-1].controller
    assert isinstance(hosting, Hosting) and hosting.login is not None
    assert hosting.plan.name == "Ann's table" and hosting.plan.problem is None
    assert hosting.plan.addresses == [f"127.0.0.1:{hosting.login.port}"]  # the chosen interface
    assert (tmp_path / "selfish" / "host.sqlite3").exists()  # the host's own store
    assert (tmp_path / "selfish" / "host-server.log").read_text().count("announced on the LAN")


def test_selfish_server_announce_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    parse = server_cli.build_parser().parse_args
    assert server_cli.lan_settings(parse([])) is None
    settings = server_cli.lan_settings(parse(["--announce", "--lan-name", "Hall"]))
    assert settings == server_cli.LanSettings("Hall", LOOPBACK)
    settings = server_cli.lan_settings(
        parse(["--announce", "--lan-interface", "127.0.0.1", "--lan-interface", "::1"])
    )
    assert settings is not None and settings.interfaces == ["127.0.0.1", "::1"]
    assert settings.name  # the machine's name by default
    monkeypatch.setattr(server_cli.socket, "gethostname", lambda: "x" * 50 + ".example.org")
    settings = server_cli.lan_settings(parse(["--announce"]))
    assert settings is not None and settings.name == "x" * 40
    assert server_cli.main(["--announce", "--lan-interface", "nowhere"]) == 2


async def _start_a_game(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(encode({"type": "hello", "protocol": 2, "name": "Ann"}))
    request = {"type": "create_room", "edition": "space", "seats": 3, "bots": 2}
    writer.write(encode({**request, "autostart": True, "id": 1}))
    decoder = MessageDecoder(max_size=None)
    seen: list[dict[str, Any]] = []
    while not any(m.get("type") == "state" for m in seen):
        seen += decoder.feed(await reader.read(65536))
    writer.close()


def test_games_of_the_host_are_stored_and_resumed(tmp_path: Path) -> None:
    """Quitting `selfish host` stops its games; running it again resumes them."""
    db = tmp_path / "host.sqlite3"
    with EmbeddedServer(db, announce="Ann", lan_interfaces=LOOPBACK, bot_delay=60) as server:
        assert server.running_games() == 0
        asyncio.run(_start_a_game(server.port))
        assert server.running_games() == 1
    with EmbeddedServer(db, announce="Ann", lan_interfaces=LOOPBACK) as again:
        assert again.running_games() == 1
