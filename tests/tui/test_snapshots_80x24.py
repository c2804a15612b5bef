"""Every screen, dialog and prompt at 80x24, in English and in Chinese, at the hostile table:
five seats, names of 24 characters (wide Chinese ones of 48 cells among them), seat 0 holding
13 or more cards (tests/tui/fixtures.py ``hostile_game``).

Nothing may be cut in the middle of a word or hidden without a sign that there is more (an
ellipsis after a whole word, "+N more", "↓ N more"). Look at the pictures as PNGs
(`rsvg-convert`, fonts-noto-cjk; docs/i18n.md) before updating them with `--snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot

from protocol.server_messages import RoomMessage
from selfish_tui import i18n
from selfish_tui.app import SelfishApp
from selfish_tui.discovery import ServerFinder, ServersChanged
from selfish_tui.messages import ConnectionLost
from selfish_tui.screens.resume import ResumeScreen
from selfish_tui.screens.servers import ServersScreen
from selfish_tui.state import RoomState
from server.engine import Game

from .fixtures import LONG_NAMES, ROOM, feed_hostile, hostile_game, hostile_room, offline_app, typed
from .test_snapshots import Compare, deciding

LANGUAGES = [pytest.param("en", id="en"), pytest.param("zh", id="zh")]
SIZE = (80, 24)

Before = Callable[[Pilot[None]], Awaitable[None]]


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    """The whole test in one language; English again afterwards (the language is the
    process's)."""
    i18n.set_language(request.param)
    yield str(request.param)
    i18n.set_language("en")


def at(game: Game, keys: tuple[str, ...] = ()) -> Before:
    """A run_before that seats the app at the hostile game, then presses ``keys``."""

    async def run_before(pilot: Pilot[None]) -> None:
        feed_hostile(pilot.app, game)  # type: ignore[arg-type]
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


# --- before the game ---------------------------------------------------------------------------

ROOMS: list[dict[str, Any]] = [
    {
        "room": "QZKX",
        "edition": "shipwrecked",
        "size": 5,
        "filled": 5,
        "humans": 4,
        "bots": 1,
        "status": "playing",
        "timer": 120,
        "host": LONG_NAMES[0],
        "spectators": 12,
        "variants": ["V1"],
    },
    {
        "room": "MBTR",
        "edition": "space",
        "size": 5,
        "filled": 2,
        "humans": 2,
        "bots": 0,
        "status": "waiting",
        "timer": 0,
        "variants": [],
        "host": LONG_NAMES[1],
        "spectators": 0,
    },
]


def test_lobby(snap_compare: Compare, language: str) -> None:
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        where = "selfish-server 0.1.0 (" + "a-very-long-host-name." * 3 + "example)"
        status = i18n._("Connected to {where} as {name}.")
        app.lobby.set_status(status.format(where=where, name=LONG_NAMES[1]))
        app.feed({"type": "rooms", "rooms": ROOMS})
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_new_room_dialog(snap_compare: Compare, language: str) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=run_before)


def test_join_dialog(snap_compare: Compare, language: str) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("j")
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=run_before)


def test_waiting_room(snap_compare: Compare, language: str) -> None:
    app = offline_app()
    game = Game("shipwrecked", LONG_NAMES, seed=1)

    async def run_before(pilot: Pilot[None]) -> None:
        app.feed(
            {"type": "joined", "room": ROOM, "role": "player", "seat": 0, "edition": "shipwrecked"}
        )
        info = hostile_room(game, "waiting")
        info["timer"] = 120
        info["variants"] = ["V1"]
        info["spectators"] = [
            {"name": name, "player": f"s{n}"} for n, name in enumerate(LONG_NAMES[:2])
        ]
        app.feed(info)
        chat = "Hello everyone, this is a long message that has to wrap over several lines."
        app.feed(
            {
                "type": "chat",
                "room": ROOM,
                "player": "p9",
                "seat": 1,
                "name": LONG_NAMES[1],
                "text": chat,
            }
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_servers_on_the_lan(
    snap_compare: Compare, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from protocol.lan import SERVICE_TYPE, LanServer

    async def no_search(self: ServerFinder) -> None:
        return None

    monkeypatch.setattr(ServerFinder, "run", no_search)
    servers = [
        LanServer(
            "a." + SERVICE_TYPE,
            "Maximilian's server in the attic",
            "192.168.100.200",
            7777,
            12,
            3,
            2,
        ),
        LanServer(
            "b." + SERVICE_TYPE,
            "欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜",
            "10.0.0.2",
            17777,
            0,
            0,
            2,
        ),
        LanServer("c." + SERVICE_TYPE, "An old one", "10.0.0.3", 7777, 1, 1, 1),
    ]
    app = SelfishApp(name="Ann")

    async def run_before(pilot: Pilot[None]) -> None:
        screen = ServersScreen(None)
        app.push_screen(screen)
        await pilot.pause()
        screen.post_message(ServersChanged(servers))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def unfinished_room() -> RoomState:
    room = RoomState("OLDG", edition="shipwrecked")
    game = Game("shipwrecked", LONG_NAMES, seed=1)
    room.info = RoomMessage.read(hostile_room(game), None)  # type: ignore[assignment]
    view = typed(game.view(0))
    room.set_view(replace(view, public=replace(view.public, turn=37)))
    return room


def test_unfinished_game_dialog(snap_compare: Compare, language: str) -> None:
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        app.push_screen(ResumeScreen(unfinished_room(), "space"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_too_small_notice_stays_over_a_dialog(snap_compare: Compare, language: str) -> None:
    """The unfinished-game question asked on a 79-column terminal: the notice, not the dialog
    drawn cut off."""
    app = offline_app()

    async def run_before(pilot: Pilot[None]) -> None:
        app.push_screen(ResumeScreen(unfinished_room(), "space"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(79, 24), run_before=run_before)


# --- the table -----------------------------------------------------------------------------------


def test_space_table(snap_compare: Compare, language: str) -> None:
    game = hostile_game("space", deciding("actions", "space", min_turn=1))
    assert len(game.view(0)["hand"]) >= 12
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_shipwrecked_table(snap_compare: Compare, language: str) -> None:
    game = hostile_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=1))
    assert len(game.view(0)["hand"]) >= 12
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_stay_or_move_prompt(snap_compare: Compare, language: str) -> None:
    game = hostile_game("shipwrecked", deciding("stay_or_move", "shipwrecked", min_turn=2))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_a_cards_targets(snap_compare: Compare, language: str) -> None:
    """A card with several targets opened (its submenu): the targets' long names."""
    game = hostile_game("space", deciding("actions", "space", min_turn=1))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game, ("2",)))


def test_swap_prompt(snap_compare: Compare, language: str) -> None:
    game = hostile_game("space", deciding("swap", "space"))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_reaction_prompt(snap_compare: Compare, language: str, frozen_clock: None) -> None:
    game = hostile_game("shipwrecked", deciding("react", "shipwrecked"))

    async def run_before(pilot: Pilot[None]) -> None:
        await at(game)(pilot)
        pilot.app.feed(  # type: ignore[attr-defined]
            {
                "type": "timer",
                "room": ROOM,
                "version": len(game.decisions) + 1,
                "timers": [{"seat": 0, "seconds": 30.0, "away": False}],
                "grace": [],
            }
        )
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=run_before)


def test_hack_suit_hand_view(snap_compare: Compare, language: str) -> None:
    """The victim's hand: identical cards counted, "+N more" for what does not fit."""
    game = hostile_game("space", deciding("take", "space"))
    assert game.view(0)["decision"]["reveal"]
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_shark_pick(snap_compare: Compare, language: str) -> None:
    """The pick and the compass legend under it; the detail line explains the pick."""
    game = hostile_game("shipwrecked", deciding("pick", "shipwrecked"))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_leave_confirmation(snap_compare: Compare, language: str) -> None:
    game = hostile_game("space", deciding("actions", "space", min_turn=1))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game, ("q",)))


def test_connection_lost(snap_compare: Compare, language: str) -> None:
    """The status line keeps the note and drops whole parts, never past 80 columns."""
    game = hostile_game("space", deciding("actions", "space", min_turn=1))

    async def run_before(pilot: Pilot[None]) -> None:
        await at(game)(pilot)
        reason = "cannot reach 127.0.0.1:7777: connection refused"
        pilot.app.post_message(ConnectionLost(reason, 2.0))
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=run_before)


def test_spectator(snap_compare: Compare, language: str) -> None:
    """A spectator's table: no hand, and the log says where their chat goes."""
    from .fixtures import feed_game

    game = hostile_game("space", deciding("actions", "space", min_turn=2))

    async def run_before(pilot: Pilot[None]) -> None:
        feed_game(pilot.app, game, None)  # type: ignore[arg-type]
        pilot.app.feed(hostile_room(game))  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=run_before)


def test_game_over(snap_compare: Compare, language: str) -> None:
    game = hostile_game("shipwrecked", None)
    assert game.over
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game))


def test_help(snap_compare: Compare, language: str) -> None:
    game = hostile_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=1))
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=at(game, ("question_mark",)))
