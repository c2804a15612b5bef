"""Review together: a finished game stepped through by a room's members at once (PROTOCOL.md §4
``review_join`` .. ``review_follow``, §5 ``review``). One member leads and steps; the others
follow, may break away to step alone, and rejoin at the leader's step; the lead can be handed on.

:class:`SharedReview` is the client's side of one room's review: what the latest ``review``
said, read for our own identity, and the requests our keys send (through ``send``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from protocol.records import ReviewMember
from protocol.server_messages import ReviewMessage
from selfish_tui.i18n import _


class SharedReview:
    """The review of ``room``, as player ``me`` takes part in it."""

    def __init__(self, room: str, me: str | None, send: Callable[[dict[str, Any]], Any]) -> None:
        self.room = room
        self.me = me
        self.send = send
        self.step = 0
        self.steps = 0
        self.leader: str | None = None
        self.members: list[ReviewMember] = []
        self.open = True
        self.game: int | None = None

    def update(self, message: ReviewMessage) -> None:
        """Take a ``review`` message (read and cleaned by the client library: members' names
        are hostile)."""
        self.step = message.step
        self.steps = message.steps
        self.leader = message.leader
        self.members = list(message.members)
        self.open = message.open
        self.game = message.game

    @property
    def leading(self) -> bool:
        """Whether we lead the review."""
        return self.me is not None and self.leader == self.me

    @property
    def following(self) -> bool:
        """Whether we follow the leader's steps (the leader follows itself)."""
        if self.leading:
            return True
        mine = next((m for m in self.members if m.player == self.me), None)
        return bool(mine and mine.following)

    def leader_name(self) -> str:
        """The leader's name as the members list gives it."""
        found = next((m for m in self.members if m.player == self.leader), None)
        return found.name if found else "?"

    def moved(self, index: int) -> None:
        """We showed frame ``index``: as leader, everyone follows; as a follower, we break
        away (and step on alone)."""
        if not self.open:
            return
        if self.leading:
            self.step = index
            self.send({"type": "review_step", "room": self.room, "step": index})
        elif self.following and index != self.step:
            self._set_following(False)
            self.send({"type": "review_follow", "room": self.room, "follow": False})

    def _set_following(self, follow: bool) -> None:
        self.members = [
            dataclasses.replace(m, following=follow) if m.player == self.me else m
            for m in self.members
        ]

    def rejoin(self) -> None:
        """Follow the leader again (the server's next ``review`` brings its step)."""
        if self.open and not self.leading:
            self._set_following(True)
            self.send({"type": "review_follow", "room": self.room, "follow": True})

    def next_member(self) -> ReviewMember | None:
        """The member after us in join order (the one the lead goes to), if any."""
        others = [m for m in self.members if m.player != self.me]
        if not others:
            return None
        order = [m.player for m in self.members]
        mine = order.index(self.me) if self.me in order else -1
        later = [m for m in self.members[mine + 1 :] if m in others]
        return (later or others)[0]

    def hand_on(self) -> str | None:
        """Give the lead to the next member; their name, or None when nobody else is here."""
        member = self.next_member()
        if not self.leading or member is None:
            return None
        self.send({"type": "review_lead", "room": self.room, "player": member.player})
        return member.name

    def leave(self) -> None:
        """Leave the review (closing the viewer)."""
        if self.open:
            self.open = False
            self.send({"type": "review_leave", "room": self.room})

    def status(self) -> str:
        """A few words for the viewer's status line."""
        if not self.open:
            return _("review over")
        if self.leading:
            return _("you lead the review")
        if self.following:
            return _("following {name}").format(name=self.leader_name())
        return _("on your own (f follows {name})").format(name=self.leader_name())
