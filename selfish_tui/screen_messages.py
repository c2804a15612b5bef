"""Textual messages the screens post up to the app: what the player asked for.

Screens never import the app: they post these, and the app (selfish_tui/app.py) sends the
requests and moves between screens. What a screen needs to know comes down to it: its room's
state and the app's controller (selfish_tui/controllers/).
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class ServerRequest(Message):
    """Send ``request`` to the server (join, create, watch, add a bot, start ...)."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request
        super().__init__()


class ChoiceMade(Message):
    """The player picked ``choice`` (one of the legal choices, verbatim) in the decision of
    ``version`` of room ``room``: the version the prompt showed, not a newer one that may
    arrive before the app sends it. The table has cleared its prompt; the app puts the
    choices back if the act cannot go out."""

    def __init__(self, room: str, version: int, choice: dict[str, Any]) -> None:
        self.room = room
        self.version = version
        self.choice = choice
        super().__init__()


class ChatSaid(Message):
    """A chat line for room ``room``."""

    def __init__(self, room: str, text: str) -> None:
        self.room = room
        self.text = text
        super().__init__()


class LeaveRoom(Message):
    """Leave room ``room``: back to the lobby, or, without one, quit."""

    def __init__(self, room: str) -> None:
        self.room = room
        super().__init__()


class RefreshLobby(Message):
    """The lobby's r: reconnect at once while not connected, else ask for the room list."""


class ResultWanted(Message):
    """Open the game-over dialog of room ``room`` again."""

    def __init__(self, room: str) -> None:
        self.room = room
        super().__init__()


class DecisionDue(Message):
    """A decision of ours has just appeared (the bell rings if the player turned it on)."""


class BellToggled(Message):
    """Turn the bell for 'your turn' on or off."""


class TableSettled(Message):
    """The table has been up a moment: time to render the help in the background."""


class ReplayWanted(Message):
    """Open the viewer over finished game ``game`` (its record is fetched first)."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__()


class PlayersWanted(Message):
    """The players of a room or a finished game, to open one's profile: (name, player id or
    None, bot level or None) per seat."""

    def __init__(self, seats: list[tuple[str, str | None, str | None]]) -> None:
        self.seats = seats
        super().__init__()
