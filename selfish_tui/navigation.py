"""Which screen is showing: the lobby at the bottom, a room's table or waiting room over it,
dialogs over those, and the too-small notice on top of everything on a small terminal."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen

from selfish_tui.controllers.controller import Controller
from selfish_tui.screens.lobby import LobbyScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.screens.toosmall import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from selfish_tui.screens.waiting_room import WaitingRoomScreen
from selfish_tui.state import RoomState


class Navigation(App[None]):
    """The screen stack of the client, over its lobby; ``controller`` is the way of playing
    the screens are told about."""

    def __init__(self, controller: Controller) -> None:
        super().__init__()
        self.controller = controller
        self.lobby = LobbyScreen(controller)

    def _screen_of(self, kind: type[Screen[Any]]) -> Any:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, kind):
                return screen
        return None

    def _table(self) -> TableScreen | None:
        table = self._screen_of(TableScreen)
        return table if isinstance(table, TableScreen) else None

    def _pop_to_lobby(self) -> None:
        while len(self.screen_stack) > 1 and self.screen_stack[-1] is not self.lobby:
            self.pop_screen()

    def show_lobby(self) -> None:
        """Close every screen above the lobby."""
        self._pop_to_lobby()
        self._check_size(self.size.width, self.size.height)

    def show_room(self, room: RoomState) -> None:
        """Show the table (a game exists) or the waiting room (not started yet)."""
        table = self._table()
        if room.view is not None:
            if table is not None and table.room is room:
                table.show_view()
                return
            self._pop_to_lobby()
            self.push_screen(TableScreen(room, self.controller))
        else:
            waiting = self._screen_of(WaitingRoomScreen)
            if waiting is not None and waiting.room is room:
                return
            self._pop_to_lobby()
            self.push_screen(WaitingRoomScreen(room, self.controller))
        self._check_size(self.size.width, self.size.height)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """Push a screen; on a terminal below 80x24 the too-small notice stays on top of it,
        so a dialog (the unfinished-game question, a confirmation) is never drawn cut off."""
        result = super().push_screen(screen, *args, **kwargs)
        if not isinstance(screen, TooSmallScreen):
            self._check_size(self.size.width, self.size.height)
        return result

    def _check_size(self, width: int, height: int) -> None:
        top = self.screen_stack[-1] if self.screen_stack else None
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small and not isinstance(top, TooSmallScreen):
            self.push_screen(TooSmallScreen(width, height))
        elif small and isinstance(top, TooSmallScreen):
            top.set_size(width, height)
        elif not small and isinstance(top, TooSmallScreen):
            self.pop_screen()
