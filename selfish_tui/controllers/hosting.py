"""`selfish host`: the lobby of the server this client runs for the LAN."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from selfish_tui.controllers.controller import Login
from selfish_tui.controllers.remote_lobby import RemoteLobby
from selfish_tui.i18n import _, ngettext
from selfish_tui.state import RoomState


@dataclass
class HostPlan:
    """What `selfish host` tells the app about the server it runs for the LAN."""

    name: str  # the name it is announced under
    addresses: list[str]  # "host:port" for those who type
    problem: str | None = None  # why it is not announced, if it is not
    running_games: Callable[[], int] = field(default=lambda: 0)

    def note(self) -> str:
        """The lobby's line telling the host how others join."""
        where = _(" or ").join(self.addresses)
        if self.problem is not None:
            return _(
                "Your server is not announced on the LAN ({problem}): others type {where}."
            ).format(problem=self.problem, where=where)
        return _(
            "Your server {name} is on the LAN: others run `selfish connect` (or type {where})."
        ).format(name=repr(self.name), where=where)


class Hosting(RemoteLobby):
    """The lobby of our own LAN server, reached on loopback (``login``): the lobby says how
    others join, and quitting, which stops the server, asks first while any game runs."""

    def __init__(self, plan: HostPlan, login: Login | None = None) -> None:
        super().__init__(login)
        self.plan = plan

    def welcome_status(self, server: str) -> str:
        return self.plan.note()

    def quit_question(self, room: RoomState | None) -> str | None:
        games = self.plan.running_games()
        if not games:
            return super().quit_question(room)
        return ngettext(
            "{count} game is running on your server: quitting stops it for everyone. "
            "Games are saved; `selfish host` again resumes them.",
            "{count} games are running on your server: quitting stops them for everyone. "
            "Games are saved; `selfish host` again resumes them.",
            games,
        ).format(count=games)
