"""`selfish replay GAME --server` and `selfish export GAME --server` over real TCP, against an
in-process server: a game played to its end there, fetched, checked against its digest and
shown (or written); a private game only for its own players."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from selfish_tui import cli
from selfish_tui.paths import identity_key, save_token
from selfish_tui.replay import open_replay, read_file
from selfish_tui.replay_app import ReplayApp
from tests.server.conftest import Client, drive

NAME = "[b]Bob[/b]"


async def play_game(port: int, public: bool) -> tuple[int, str]:
    """A two-seat game (us and a bot) played to its end; its number and our token."""
    client = await Client.connect(port)
    try:
        welcome = await client.hello(NAME)
        created = await client.request(
            {
                "type": "create_room",
                "edition": "space",
                "seats": 2,
                "bots": 1,
                "public": public,
                "autostart": True,
            }
        )
        over = await drive(client, str(created["room"]), timeout=60)
        return int(over["game"]), str(welcome["token"])  # type: ignore[call-overload]
    finally:
        await client.close()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[ReplayApp]:
    """The viewers `selfish replay` would run (the viewer itself has its Pilot tests)."""
    apps: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: apps.append(self))
    return apps


def test_replay_fetches_the_game_and_opens_at_the_turn(
    server_port: int, opened: list[ReplayApp], tmp_path: Path
) -> None:
    game, token = asyncio.run(play_game(server_port, public=True))
    address = f"127.0.0.1:{server_port}"
    identity = tmp_path / "identities.json"
    save_token(identity_key(address, NAME), token, identity)
    argv = ["replay", str(game), "--server", address, "--turn", "2", "--name", NAME]
    assert cli.main([*argv, "--identity", str(identity)]) == 0
    (app,) = opened
    assert app.turn == 2
    assert app.seat == 0  # our own seat, found by our player id
    assert app.replay.record.game == game and app.replay.record.server == address
    assert app.replay.record.names[0] == NAME
    assert app.replay.winner == app.replay.record.winner


def test_a_private_game_is_fetched_for_its_players_only(
    server_port: int, opened: list[ReplayApp], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, token = asyncio.run(play_game(server_port, public=False))
    address = f"127.0.0.1:{server_port}"
    stranger = tmp_path / "stranger.json"
    argv = ["replay", str(game), "--server", address, "--name", NAME]
    assert cli.main([*argv, "--identity", str(stranger)]) == 1
    assert "no finished game" in capsys.readouterr().err
    assert not opened
    player = tmp_path / "player.json"
    save_token(identity_key(address, NAME), token, player)
    assert cli.main([*argv, "--identity", str(player)]) == 0
    assert len(opened) == 1


def test_export_writes_a_file_that_replays_offline(
    server_port: int, opened: list[ReplayApp], tmp_path: Path
) -> None:
    game, _token = asyncio.run(play_game(server_port, public=True))
    address = f"127.0.0.1:{server_port}"
    out = tmp_path / "game.json"
    argv = ["export", f"#{game}", "--server", address, "-o", str(out), "--name", NAME]
    assert cli.main([*argv, "--identity", str(tmp_path / "ids.json")]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "selfish-replay" and document["game"] == game
    assert document["server"] == address
    offline = open_replay(read_file(out.read_bytes()))
    assert offline.record.digest == document["digest"]
    assert cli.main(["replay", str(out)]) == 0  # no server needed
    assert opened[-1].replay.final == offline.final


def test_an_unreachable_server_is_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["replay", "12", "--server", "127.0.0.1:1", "--identity", str(tmp_path / "i.json")]
    assert cli.main(argv) == 1
    assert "cannot reach 127.0.0.1:1" in capsys.readouterr().err
