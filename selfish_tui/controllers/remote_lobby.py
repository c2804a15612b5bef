"""A server's lobby: `selfish connect HOST[:PORT]`, and the SSH and web front doors."""

from __future__ import annotations

from selfish_tui.controllers.controller import Controller, Login
from selfish_tui.front_door import FrontDoor
from selfish_tui.i18n import _


class RemoteLobby(Controller):
    """The lobby of the server ``login`` names (None: no connection; tests feed the app
    messages). ``goto`` (role, code) joins that room as "player" or "spectator" once
    connected, instead of showing the lobby (`selfish connect --join/--watch`, `ssh host join
    ABCD`)."""

    def __init__(
        self,
        login: Login | None = None,
        *,
        front_door: FrontDoor | None = None,
        goto: tuple[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.login = login
        self.goto = goto
        self._front_door = front_door  # None: the client was started by hand on ``login``

    @property
    def front_door(self) -> FrontDoor:
        if self._front_door is not None:
            return self._front_door
        return FrontDoor("tcp", address=self.login.address if self.login is not None else "")

    def start(self) -> None:
        if self.login is not None:
            self.shell.open_connection(self.login)

    def keep_token(self, token: str) -> None:
        if self.login is not None and self.login.keep_token is not None:
            self.login.keep_token(token)

    def rooms_handed_back(self, rejoined: set[str]) -> None:
        shell = self.shell
        # Rooms the server did not hand back after a reconnect are gone (a restarted server
        # keeps only unfinished games): forget them rather than act on a dead room.
        for code in [c for c in shell.rooms if c not in rejoined]:
            shell.rooms.pop(code)
            if code == shell.current:
                shell.current = None
                shell.notify(
                    _("Room {code} is no longer on the server.").format(code=code),
                    title=_("Connection"),
                )
                shell.show_lobby()
        if self.goto is not None:
            role, code = self.goto
            self.goto = None
            if code in shell.rooms:  # already there (we reconnected): show it
                shell.current = code
                shell.show_room(shell.rooms[code])
                return
            shell.request({"type": "join_room", "room": code, "as": role})
        if shell.current is None:
            shell.request({"type": "list_rooms"})
