"""Rooms and names the server refuses: a room it closes while we are in it (nobody
started its game in time, or a full server needed its place) is left for the lobby,
and a refused name says why."""

from __future__ import annotations

from selfish_tui.screens.waiting_room import WaitingRoomScreen
from server.engine import Game

from .fixtures import ROOM, offline_app, room_message
from .pilot import wait_for


async def test_a_room_the_server_closed_is_left_for_the_lobby() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        game = Game("space", ["Ann", "Bob"], seed=1)
        app.feed({"type": "joined", "room": ROOM, "role": "player", "seat": 0, "edition": "space"})
        app.feed(room_message(game, 0, "waiting"))
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
        await pilot.pause()  # drawn, as it is the ten minutes it waits
        text = f"room {ROOM} was closed: no game was started in it for 10 minutes"
        app.feed({"type": "error", "code": "room_closed", "message": text, "room": ROOM})
        await wait_for(pilot, lambda: app.screen is app.lobby)
        assert ROOM not in app.rooms and app.current is None
        await pilot.pause()  # the toast is a message of its own
        said = (
            "The server closed that room: nobody started its game in time, or the server was full."
        )
        assert any(said in str(note.message) for note in app._notifications)


async def test_a_closed_room_we_are_not_looking_at_is_only_forgotten() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        game = Game("space", ["Ann", "Bob"], seed=1)
        app.feed({"type": "joined", "room": ROOM, "role": "player", "seat": 0, "edition": "space"})
        app.feed(room_message(game, 0, "waiting"))
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingRoomScreen))
        app.feed({"type": "error", "code": "room_closed", "message": "closed", "room": "ZZZZ"})
        await pilot.pause()
        assert isinstance(app.screen, WaitingRoomScreen) and ROOM in app.rooms


async def test_a_refused_name_is_said_from_its_code() -> None:
    """The server's own words (an operator's detail) are never shown: the client says the
    refusal from its code."""
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        why = f"your name looks like the name of seat 1 in room {ROOM}; choose another name"
        app.feed({"type": "error", "code": "bad_name", "message": why})
        await pilot.pause()
        await pilot.pause()
        (note,) = app._notifications
        assert str(note.message) == "The server refused that name"
