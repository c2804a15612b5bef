"""The network client (selfish_tui.client) on the protocol library: replies matched to their
requests, the reply-before-broadcast order, a forgotten token, a server that breaks the protocol.

A scripted server on loopback plays the server's side, so each test decides exactly which frame
arrives when.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.cells import cell_len

from protocol.codec import MessageDecoder, encode, pack
from protocol.framing import frame
from selfish_tui import client as client_module
from selfish_tui import i18n
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.messages import ConnectionLost
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.status import StatusLine

from .fixtures import ROOM, feed_game, find_game, offline_app, room_message, typed
from .pilot import press_choice, table_shown, wait_for
from .test_snapshots import deciding


class ScriptedServer:
    """A fake server: records what clients send (pings are answered), sends what a test says."""

    def __init__(self) -> None:
        self.requests: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.connections = 0
        self._writer: asyncio.StreamWriter | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writer = writer
        decoder = MessageDecoder()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                for message in decoder.feed(data):
                    if message["type"] == "ping":
                        self.send({"type": "pong", "id": message["id"]})
                    else:
                        await self.requests.put(message)
        writer.close()

    def send(self, *messages: dict[str, Any]) -> None:
        """Send ``messages`` to the latest connection, in this order."""
        assert self._writer is not None
        for message in messages:
            self._writer.write(encode(message))

    async def next(self, kind: str) -> dict[str, Any]:
        """The next request of ``kind`` (others before it are skipped)."""
        while True:
            message = await asyncio.wait_for(self.requests.get(), 20)
            if message["type"] == kind:
                return message


@contextlib.asynccontextmanager
async def scripted_server() -> AsyncIterator[tuple[ScriptedServer, int]]:
    script = ScriptedServer()
    server = await asyncio.start_server(script._handle, "127.0.0.1", 0)
    try:
        yield script, int(server.sockets[0].getsockname()[1])
    finally:
        server.close()


def welcome(hello: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "welcome",
        "id": hello["id"],
        "protocol": 2,
        "player": "p0",
        "token": "tok",
        "server": "S",
    }


async def test_a_broadcast_before_our_acts_reply_does_not_offer_the_answered_choices_again() -> (
    None
):
    """The server replies to an act before it broadcasts what the act changed, so a ``timer``
    that comes first still describes the decision we answered: the prompt stays "Sent"."""
    game = find_game("space", deciding("actions", "space", min_turn=2))
    version = len(game.decisions) + 1
    timer = [{"seat": 0, "seconds": 30.0, "away": False}]
    async with scripted_server() as (server, port):
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            server.send(welcome(await server.next("hello")))
            server.send(
                {
                    "type": "joined",
                    "room": ROOM,
                    "role": "player",
                    "seat": 0,
                    "edition": "space",
                },
                room_message(game),
                {"type": "state", "room": ROOM, "version": version, "view": game.view(0)},
            )
            await wait_for(pilot, lambda: table_shown(app))
            prompt = app.screen.query_one(PromptPanel)
            await wait_for(pilot, lambda: bool(prompt.choices))
            await press_choice(pilot, prompt, 0)
            act = await server.next("act")
            assert act["version"] == version and act["choice"] == 0  # the index of the choice
            room = app.rooms[ROOM]
            server.send(
                {"type": "timer", "room": ROOM, "version": version, "timers": timer, "grace": []}
            )
            await wait_for(pilot, lambda: bool(room.timers))
            assert prompt.choices == [] and "Sent" in prompt._question
            # The reply, then what the act changed.
            game.choose(0, act["choice"])
            server.send(
                {"type": "ok", "id": act["id"]},
                {"type": "state", "room": ROOM, "version": version + 1, "view": game.view(0)},
            )
            await wait_for(pilot, lambda: room.version == version + 1)
            assert prompt.choices == list(typed(game.view(0)).legal)


async def test_an_unknown_token_is_a_new_player_on_the_same_connection(server_port: int) -> None:
    """A server with a new database does not know our token: the client says hello again,
    without it, and carries on as a new player (no reconnect)."""
    tokens: list[str] = []
    app = SelfishApp(
        RemoteLobby(Login("127.0.0.1", server_port, "forgotten", tokens.append)), name="Newcomer"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.player_id is not None)
        assert tokens and tokens[-1] != "forgotten"
        assert app.client is not None and app.client.connected and app.client.token == tokens[-1]
        assert "Connected to" in app.lobby.status_text and not app._lost_notified


async def test_a_server_that_breaks_the_protocol_is_left_and_tried_again() -> None:
    """A welcome that answers no request (it lacks the hello's id) is a broken server: the
    client says so and connects again, as after any loss."""
    async with scripted_server() as (server, port):
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann", backoff=(30.0,))
        async with app.run_test(size=(80, 24)) as pilot:
            hello = await server.next("hello")
            server.send({**welcome(hello), "id": None})
            await wait_for(pilot, lambda: "garbled data from the server" in app.lobby.status_text)
            assert "r tries again" in app.lobby.status_text and app.player_id is None
            await pilot.press("r")  # it waits for the player: never in yet
            server.send(welcome(await server.next("hello")))  # the second connection
            await wait_for(pilot, lambda: app.player_id == "p0")
            assert server.connections == 2


async def test_a_welcome_nested_900_deep_is_garbled_data_not_a_hang() -> None:
    """A malicious server's welcome nested 900 deep: the client says the data is garbled (as
    for any broken server) and tries again later, instead of recursing without end."""
    async with scripted_server() as (server, port):
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann", backoff=(30.0,))
        async with app.run_test(size=(80, 24)) as pilot:
            hello = await server.next("hello")
            body = b"\x85\xa4type\xa7welcome\xa2id" + pack(hello["id"])
            body += b"\xa6player\xa2p0\xa5token\xa3tok\xa6server" + b"\x91" * 900 + b"\x90"
            assert server._writer is not None
            server._writer.write(frame(body))
            await wait_for(pilot, lambda: "garbled data from the server" in app.lobby.status_text)
            assert "nested deeper" in app.lobby.status_text
            assert app.player_id is None


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_offline_note_leaves_the_status_line_within_80_columns(language: str) -> None:
    """ "Connection lost — retrying in 2s" pushed the turn and "you decide"
    off an 80-column status line; the note is short, the reason goes to a toast."""
    i18n.set_language(language)
    try:
        game = find_game("space", deciding("actions", "space", min_turn=3))
        app = offline_app()
        async with app.run_test(size=(80, 24)) as pilot:
            feed_game(app, game, 0)
            await wait_for(pilot, lambda: table_shown(app))
            status = app.screen.query_one(StatusLine)
            whole = status.summary().plain
            app.on_connection_lost(ConnectionLost("connection lost: connection reset by peer", 2.0))
            await pilot.pause()
            line = status.summary().plain
            assert line.endswith(whole) and cell_len(line) <= status.size.width
            assert i18n._("Offline: retry in {seconds}s").format(seconds=2) in line
    finally:
        i18n.set_language("en")


async def test_a_listener_that_never_welcomes_is_said_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real TCP to something that accepts and never answers the hello (not a Selfish server, or
    one that hangs): said after the welcome's time runs out, then r tries again."""
    monkeypatch.setattr(client_module, "WELCOME_TIMEOUT", 0.5)
    async with scripted_server() as (server, port):
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await server.next("hello")  # and no answer
            said = f"127.0.0.1:{port} does not answer as a Selfish server"
            await wait_for(pilot, lambda: said in app.lobby.status_text, timeout=10)
            assert "r tries again" in app.lobby.status_text
            await pilot.press("r")
            server.send(welcome(await server.next("hello")))  # this time it answers
            await wait_for(pilot, lambda: app.player_id == "p0")
