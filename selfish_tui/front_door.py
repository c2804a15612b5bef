"""How the player reached this client (their front door), and so how they come back to a
seat after quitting: what the quit dialog and the waiting room tell them.

The SSH gateway and `selfish web` start the client with ``SELFISH_FRONT_DOOR`` in its
environment (``ssh`` or ``web``); the gateway adds the exact command that brings the player
back: for a player without a key ``SELFISH_RESUME_COMMAND`` (``ssh -t -p 2222 host resume
CODE``), for one with a key ``SELFISH_LOGIN_COMMAND`` (``ssh -p 2222 host``). The resume
command travels in the environment, which only the server's user can read, not on the command
line, which every local user can.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from selfish_tui.i18n import _

DOOR_VARIABLE = "SELFISH_FRONT_DOOR"
RESUME_VARIABLE = "SELFISH_RESUME_COMMAND"
LOGIN_VARIABLE = "SELFISH_LOGIN_COMMAND"
KINDS = ("local", "tcp", "ssh", "web")


@dataclass(frozen=True)
class FrontDoor:
    """``kind`` is local (`selfish play`), tcp (`selfish connect HOST:PORT`), ssh or web."""

    kind: str = "tcp"
    address: str = ""  # tcp: the server's address as the player typed it
    resume_command: str = ""  # ssh without a key: the command that brings the player back
    login_command: str = ""  # ssh with a key: how they log in again (ssh -p 2222 host)

    @property
    def resume_code(self) -> str:
        """The resume code in ``resume_command`` (its last word), or ''."""
        words = self.resume_command.split()
        return words[-1] if len(words) >= 2 and words[-2] == "resume" else ""

    def come_back(self) -> str:
        """How the player gets their seat back after quitting, as a sentence's end."""
        if self.kind == "ssh":
            if self.resume_command:
                return _(
                    "come back with `{command}` (keep that code to yourself: it is your seat)"
                ).format(command=self.resume_command)
            if self.login_command:
                return _("come back by logging in again with the same SSH key: `{command}`").format(
                    command=self.login_command
                )
            return _("come back by logging in again with the same SSH key")
        if self.kind == "web":
            return _("come back by opening this page again in this browser")
        if self.address:
            return _("come back with `selfish connect {address}`").format(address=self.address)
        return _("come back with `selfish connect` and the same server")


def from_environment(address: str, environ: Mapping[str, str] | None = None) -> FrontDoor:
    """The front door the environment names (none: a client started by hand on ``address``)."""
    env = os.environ if environ is None else environ
    kind = env.get(DOOR_VARIABLE, "")
    if kind == "ssh":
        return FrontDoor(
            "ssh",
            resume_command=env.get(RESUME_VARIABLE, "").strip(),
            login_command=env.get(LOGIN_VARIABLE, "").strip(),
        )
    if kind == "web":
        return FrontDoor("web")
    return FrontDoor("tcp", address=address)
