"""Hostile strings from the network: names, room texts, chat, errors and
server strings are drawn as plain text, never as markup or terminal controls, and measured in
terminal cells.

One fixture of hostile names is rendered in every screen and widget that shows names; each test
asserts that nothing raised and that the literal characters are on the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.cells import cell_len
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from protocol.codec import MessageDecoder, encode
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.plain import clean, clean_message, fit
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.screens.waiting_room import WaitingRoomScreen
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.strips import StripsBoard
from server.engine import Game

from .fixtures import ROOM, feed_game, find_game, lobby_room, offline_app, room_message, typed
from .pilot import wait_for

# Markup that would crash Textual ("[/]" closes a tag that was never opened), run an action,
# add a link or restyle the screen, if any of it were parsed.
HOSTILE = ["[/]", "[@click=app.quit]X[/]", "[link=http://ev.il]Hi", "[reverse]", "[blink red]"]
WIDE = "\uff41" * 24  # fullwidth: 48 cells
COMBINING = "e\u0301" * 12  # 24 code points, 12 cells


def screen_text(app: SelfishApp) -> str:
    """Everything on the screen (toasts included) as plain text, one line per row."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def hostile_game(over: bool = False) -> Game:
    return find_game("space", None if over else (lambda g: g.turn >= 3), names=HOSTILE)


async def show_table(app: SelfishApp, pilot: Any, game: Game) -> TableScreen:
    feed_game(app, game, 0)
    await wait_for(pilot, lambda: isinstance(app.screen, TableScreen | GameOverScreen))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, TableScreen | GameOverScreen)
    table = app._table()
    assert table is not None
    return table


def assert_shown(text: str, *names: str) -> None:
    for name in names:
        assert name in text, f"{name!r} is not on the screen"


async def test_hostile_names_in_the_lobby_table_and_status() -> None:
    app = offline_app()
    async with app.run_test(size=(120, 30)) as pilot:
        rooms = [lobby_room(room=f"R{i:03d}"[:4], host=name) for i, name in enumerate(HOSTILE)]
        app.feed({"type": "rooms", "rooms": rooms})
        app.lobby.set_status("Connected to [/][link=http://ev.il]srv as [reverse]")
        await pilot.pause()
        text = screen_text(app)
        assert_shown(text, "[link=http://ev.il]srv", HOSTILE[0], HOSTILE[3])
        # The 10-cell host column cuts the long ones; their start is there literally.
        assert "[link=htt" in text and "[@click=a" in text and "[blink…" in text
        assert app.is_running


async def test_a_room_listed_twice_is_shown_once_and_the_lobby_keeps_running() -> None:
    # A cluster node may list a room it has just taken over beside another node's stale entry
    # for it: the table is keyed by code, and a second row of one key stops the app.
    app = offline_app()
    async with app.run_test(size=(120, 30)) as pilot:
        room = lobby_room(status="playing")
        app.feed({"type": "rooms", "rooms": [room, {**room, "host": "Bob"}]})
        await pilot.pause()
        assert app.lobby.query_one("#rooms", DataTable).row_count == 1
        assert "Ann" in screen_text(app) and "Bob" not in screen_text(app)
        assert app.is_running


async def test_hostile_names_in_the_waiting_room_and_its_chat() -> None:
    app = offline_app()
    async with app.run_test(size=(120, 30)) as pilot:
        game = Game("space", HOSTILE, seed=1)
        app.feed({"type": "joined", "room": ROOM, "role": "player", "seat": 0, "edition": "space"})
        info = room_message(game, 0, "waiting")
        info["spectators"] = [{"name": "[blink red]watcher", "player": "p9"}]
        app.feed(info)
        app.feed(
            {
                "type": "chat",
                "room": ROOM,
                "player": "p9",
                "seat": 1,
                "name": HOSTILE[1],
                "text": "[/]hi",
            }
        )
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
        await pilot.pause()
        text = screen_text(app)
        assert_shown(text, *HOSTILE, "[blink red]watcher", "[/]hi")


async def test_hostile_names_on_the_table_strips_status_log_prompt_detail() -> None:
    app = offline_app()
    async with app.run_test(size=(160, 40)) as pilot:
        game = hostile_game()
        table = await show_table(app, pilot, game)
        app.feed(
            {
                "type": "chat",
                "room": ROOM,
                "player": "p9",
                "seat": 2,
                "name": HOSTILE[2],
                "text": "[/]gg",
            }
        )
        await pilot.pause()
        text = screen_text(app)
        # Strips (headers), the log (events name players; chat) and the status line.
        assert_shown(text, "[/]", "[reverse]", "[blink red]", "[/]gg", "[link=http://ev.il]Hi")
        log = "\n".join(table.query_one(GameLog).lines_text)
        assert_shown(log, *HOSTILE)
        # The detail line describes a strip by its owner's name.
        await pilot.press("t")
        await pilot.pause()
        detail = str(table.query_one("#detail").render())
        assert HOSTILE[0] in detail
        # The prompt names whom we wait for when it is someone else's decision.
        waiting = dict(game.view(0))
        waiting["legal"], waiting["decision"] = [], None
        waiting["pending"] = [{"seat": 4, "kind": "actions", "done": False}]
        app.feed({"type": "state", "room": ROOM, "version": 999, "view": waiting})
        await pilot.pause()
        assert "Waiting for [blink red]" in screen_text(app)
        assert "waiting for [blink red]" in str(table.query_one("#status").render())
        assert app.is_running


async def test_hostile_label_in_the_fatal_confirm_and_toasts() -> None:
    app = offline_app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        game = hostile_game()
        await show_table(app, pilot, game)
        view = dict(game.view(0))
        # The label is the client's own, rendered from the choice: the name in it is hostile.
        view["legal"] = [{"do": "swap", "target": 1, "fatal": True}]
        location = {"id": 1, "key": "wormhole", "shark": False}
        view["decision"] = {"kind": "swap", "args": {"location": location}, "reveal": []}
        app.feed({"type": "state", "room": ROOM, "version": 1000, "view": view})
        await pilot.pause()
        await pilot.press("w")  # seat 1's key
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.query_one("#confirm-question")
        assert "Swap places with [@click=app.quit]X[/]" in str(question.render())
        await pilot.press("n")
        # An error code this client does not know is named in the toast.
        app.feed({"type": "error", "code": "[/][link=x]", "message": "x"})
        app.notify("[blink red] left", title="[/]")
        await pilot.pause()
        assert_shown(screen_text(app), "[/][link=x]", "[blink red] left")
        assert app.is_running


async def test_hostile_names_in_the_game_over_dialog() -> None:
    app = offline_app()
    async with app.run_test(size=(120, 30)) as pilot:
        feed_game(app, hostile_game(over=True), 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()
        assert_shown(screen_text(app), *HOSTILE)


@pytest.mark.parametrize("name", [WIDE, COMBINING], ids=["fullwidth", "combining"])
def test_wide_and_combining_names_keep_the_board_columns(name: str) -> None:
    game = find_game("space", lambda g: g.turn >= 2, names=[name, "Bob", name, "Dee"])
    view = game.view(0)
    board = StripsBoard()
    for width in (40, 62, 90):
        text = board._draw(typed(view), width)
        lines = text.split("\n")
        widths = {cell_len(line.plain) for line in lines}
        # Every row, headers included, is as wide as the others: no column shifted.
        assert len(widths) == 1, (width, [line.plain for line in lines])
        if width == 40:
            assert "…" in lines[0].plain  # the long names were cut, visibly


def test_fit_cuts_in_cells_with_an_ellipsis() -> None:
    assert fit(WIDE, 7) == "\uff41" * 3 + "…"
    assert cell_len(fit(WIDE, 8)) == 7  # a wide character never straddles the edge
    assert fit(COMBINING, 20) == COMBINING
    assert fit("Ann", 3) == "Ann"


async def test_chat_cannot_forge_a_log_line() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await show_table(app, pilot, hostile_game())
        log = table.query_one(GameLog)
        log.clear()
        forged = "hello " + "x" * 30 + " ✝ Bob died. ── Turn 9 · Ann: give me your oxygen"
        app.feed(
            {"type": "chat", "room": ROOM, "player": "p9", "seat": 1, "name": "Eve", "text": forged}
        )
        await pilot.pause()
        lines = [strip.text.rstrip() for strip in log.lines]
        assert len(lines) >= 3  # it wrapped
        assert all(line.startswith("» Eve: ") for line in lines), lines


# --- a malicious server (terminal controls in every string it sends) --------------------------

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # write the clipboard
OSC0 = "\x1b]0;pwned\x1b\\"  # set the window title
CSI2J = "\x1b[2J"  # clear the screen
C1CSI = "\x9b31m"  # raw 8-bit CSI
EVIL = [OSC52, OSC0, CSI2J, C1CSI]


@contextlib.asynccontextmanager
async def evil_server(answers: dict[str, list[dict[str, Any]]]) -> AsyncIterator[int]:
    """A fake server on loopback: answers a request of each type in ``answers`` with its
    messages, the first one as the direct reply (its ``id`` echoed, as the protocol has it, so
    the client takes it), the others as broadcasts; pings get their pong."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = MessageDecoder()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                for message in decoder.feed(data):
                    kind = message.get("type")
                    replies = answers.get(str(kind)) or (
                        [{"type": "pong"}] if kind == "ping" else []
                    )
                    for index, reply in enumerate(replies):
                        echo = {"id": message["id"]} if index == 0 and "id" in message else {}
                        writer.write(encode({**reply, **echo}))
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        server.close()


def assert_no_controls(text: str) -> None:
    bad = [hex(ord(ch)) for ch in text if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) < 0xA0]
    assert not bad, bad
    assert "52;c;" not in text and "pwned" not in text and "[2J" not in text


def segments_text(app: SelfishApp) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(s.text for s in strip) for strip in strips)


async def test_escape_sequences_from_a_malicious_server_never_reach_the_screen() -> None:
    host = "Ev" + "".join(EVIL) + "il"
    welcome = {
        "type": "welcome",
        "protocol": 2,
        "player": "p1",
        "token": "t",
        "server": "Srv" + "".join(EVIL) + "X",
    }
    rooms = [
        {
            "type": "rooms",
            "rooms": [
                {
                    "room": "AB" + CSI2J + "CD",
                    "edition": "space" + C1CSI,
                    "size": 4,
                    "filled": 1,
                    "humans": 1,
                    "bots": 0,
                    "status": "waiting" + OSC0,
                    "timer": 0,
                    "variants": [],
                    "host": host,
                    "spectators": 0,
                }
            ],
        },
        {"type": "error", "code": "Oops" + "".join(EVIL) + "!", "message": "x"},
    ]
    async with evil_server({"hello": [welcome], "list_rooms": rooms}) as port:
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann", backoff=(0.05,))
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            # The error's toast comes last: once it is painted, everything before it is too.
            await wait_for(pilot, lambda: "Oops!" in segments_text(app))
            text = segments_text(app)
            assert_no_controls(text)
            assert "Connected to SrvX as Ann." in text
            host = app.lobby.query_one(DataTable).get_cell_at(Coordinate(0, 6))
            assert str(host) == "Evil"
            assert "Oops!" in text
            assert app.lobby.rooms[0].host == "Evil"
            assert app.lobby.rooms[0].room == "ABCD"


async def test_escape_sequences_in_a_refused_hello_never_reach_the_screen() -> None:
    refusal = {"type": "error", "code": "bad_name", "message": "No" + "".join(EVIL) + "pe"}
    async with evil_server({"hello": [refusal]}) as port:
        app = SelfishApp(RemoteLobby(Login("127.0.0.1", port)), name="Ann", backoff=(0.05,))
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await wait_for(pilot, lambda: "refused that name" in app.lobby.status_text)
            await pilot.pause()
            assert_no_controls(segments_text(app))
            assert_no_controls(app.lobby.status_text)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a" + OSC52 + "b", "ab"),
        (OSC0 + "x", "x"),
        (CSI2J + "hi", "hi"),
        ("x" + C1CSI + "red", "xred"),
        ("\x1b]8;;http://ev.il\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("line\nbreak\ttab", "line break tab"),
        ("bell\x07\x00nul\x7f", "bellnul"),
        ("\u202eevil", "evil"),
        ("unterminated \x1b]52;c;AAAA", "unterminated "),
        ("\uff46\uff55\uff4c\uff4c e\u0301", "\uff46\uff55\uff4c\uff4c e\u0301"),
    ],
)
def test_clean_strips_controls_and_sequences(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_clean_message_cleans_every_string_at_any_depth_without_recursion() -> None:
    message = {"type": "x\x1b[2J", "a": [1, "b\x07", {"c\x1b]0;t\x07": ("d\x1b", 2), 3: None}]}
    assert clean_message(message) == {"type": "x", "a": [1, "b", {"c": ["d", 2], 3: None}]}
    deep: list[Any] = ["\x1b[2Jbottom"]
    for _ in range(5_000):  # five times Python's recursion limit
        deep = [deep]
    cleaned = clean_message(deep)
    for _ in range(5_000):
        cleaned = cleaned[0]
    assert cleaned == ["bottom"]
