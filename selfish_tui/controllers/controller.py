"""The interface every way of playing implements, and what it may ask of the app.

The app (selfish_tui/app.py) keeps the rooms, the connection and the screens; where the ways of
playing differ it asks its :class:`Controller`, and the screens ask the same object (it is
passed to them) instead of the app's flags.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from selfish_tui.front_door import FrontDoor
from selfish_tui.i18n import _
from selfish_tui.state import RoomState


@dataclass(frozen=True)
class Login:
    """A server to connect to, the token we hold there (None: a new player) and where a new
    token the server hands out is kept (None: nowhere); ``guest``: a new player with no
    identity to keep (``hello`` with ``guest``: no record, no rating)."""

    host: str
    port: int
    token: str | None = None
    keep_token: Callable[[str], None] | None = None
    guest: bool = False
    # The server's other addresses (a cluster's other nodes): tried in turn when one is lost.
    others: tuple[tuple[str, int], ...] = ()

    @property
    def address(self) -> str:
        """``host:port``, as a player types it."""
        return f"{self.host}:{self.port}"


class Shell(Protocol):
    """What a controller may ask of the app it drives (:class:`selfish_tui.app.SelfishApp`)."""

    rooms: dict[str, RoomState]
    current: str | None
    player_name: str
    player_id: str | None

    def request(self, message: dict[str, Any]) -> int | None:
        """Send a request to the server (None: it did not go out)."""
        ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast, in plain text."""
        ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """Open a screen (a dialog's answer goes to the callback)."""
        ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        """Quit the client."""
        ...

    def show_lobby(self) -> None:
        """Close every screen above the lobby."""
        ...

    def show_room(self, room: RoomState) -> None:
        """Show a room's table, or its waiting room before the game."""
        ...

    def set_lobby_status(self, text: str) -> None:
        """The lobby's status line."""
        ...

    def open_connection(self, login: Login) -> None:
        """Connect (and keep reconnecting) to a server."""
        ...

    def close_connection(self) -> None:
        """Stop the connection and its retries."""
        ...


class Controller(ABC):
    """One way of playing. Attached to its app before the app starts (:meth:`attach`)."""

    #: Whether there is a lobby of rooms to go back to; without one (a local game) q quits,
    #: and the lobby screen only says how the game is being set up.
    has_lobby: bool = True

    def __init__(self) -> None:
        self._shell: Shell | None = None

    def attach(self, shell: Shell) -> None:
        """Give the controller the app it drives."""
        self._shell = shell

    @property
    def shell(self) -> Shell:
        """The app this controller drives."""
        assert self._shell is not None, "attach() comes first"
        return self._shell

    @property
    @abstractmethod
    def front_door(self) -> FrontDoor:
        """How the player reached us, so how they come back to a seat after quitting."""

    @abstractmethod
    def start(self) -> None:
        """Once the app is up: connect, or first show what there is to connect to."""

    @abstractmethod
    def keep_token(self, token: str) -> None:
        """Keep the token the server welcomed us with, for the next time."""

    def connecting_to(self, address: str) -> str:
        """What the lobby says we are connecting to."""
        return address

    def welcome_status(self, server: str) -> str:
        """The lobby's status line once the server has welcomed us."""
        return _("Connected to {where} as {name}.").format(
            where=server, name=self.shell.player_name
        )

    def shows_joined_rooms(self) -> bool:
        """Whether a room the server says we are in becomes the one on screen (False while a
        local game is still being set up: the resumed rooms wait for the plan)."""
        return True

    @abstractmethod
    def rooms_handed_back(self, rejoined: set[str]) -> None:
        """The server has sent every room we are in (``rejoined``, after a connection or a
        reconnection): set up, show or forget rooms."""

    def saw_state(self, room: RoomState) -> None:
        """The room on screen has a new state."""
        return None

    def connection_failed(self, reason: str) -> bool:
        """A connection that never got in has failed; True if the controller took care of it
        (otherwise the app says so and offers to retry)."""
        return False

    def can_rematch(self, room: RoomState) -> bool:
        """Whether we may ask for a rematch (the host of a finished game, seated in it)."""
        return room.is_host and room.role == "player"

    def quit_question(self, room: RoomState | None) -> str | None:
        """What the quit dialog asks while ``room`` (the one on screen) is open; None quits
        without asking."""
        if room is None or not room.in_progress():
            return None
        return _(
            "Quit while the game is running? Your seat waits for you (or its bot "
            "plays when the timer runs out); {come_back}."
        ).format(come_back=self.front_door.come_back())

    def left_room(self) -> None:
        """We left the room on screen: back to the lobby and its room list."""
        self.shell.show_lobby()
        self.shell.request({"type": "list_rooms"})

    def game_asked_for(self) -> tuple[str | None, list[str]]:
        """The edition and variants the help explains while no room is open."""
        return None, []

    def language_switched(self) -> None:
        """Every screen was built anew in the other language: open again what the controller
        had open (a lesson, the server list)."""
        return None
