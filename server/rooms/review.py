"""Shared review: a room's members step through its finished game together.

One member leads: the step they choose is everyone's who follows. Anyone may break away (and
step alone in their own viewer) and follow again; the lead can be handed on, and passes to the
next who joined when the leader leaves. The review holds no board: each member's client
replays the game (``get_replay``) to the step it is told. It ends when the room's next game
begins or the room closes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from protocol.errors import ErrorCode, ProtocolError
from protocol.records import ReviewMember
from protocol.server_messages import ReviewMessage, ServerMessage


class Reviews(Protocol):
    """What the review functions need of the lobby: its reviews by room code, its rooms, and
    sending to a player."""

    @property
    def reviews(self) -> dict[str, SharedReview]: ...
    @property
    def rooms(self) -> Mapping[str, Any]: ...

    def send(self, player: str, message: ServerMessage) -> None:
        """Send to a player's live connection; nothing if they are away."""

    def player_name(self, player: str) -> str:
        """A player's current display name."""


class SharedReview:
    """The review of one finished game of one room."""

    def __init__(self, room: str, game: int, steps: int, leader: str) -> None:
        self.room = room
        self.game = game
        self.steps = steps
        self.step = 0
        self.leader = leader
        self.members: dict[str, bool] = {leader: True}  # player -> following, in join order

    def join(self, player: str) -> None:
        """A member enters (again), following the leader's step."""
        self.members[player] = True

    def leave(self, player: str) -> bool:
        """A member leaves; the lead passes to the next who joined. False when nobody is
        left (the review is over)."""
        self.members.pop(player, None)
        if not self.members:
            return False
        if player == self.leader:
            self.leader = next(iter(self.members))
            self.members[self.leader] = True
        return True

    def require(self, player: str) -> None:
        """``not_in_review`` unless ``player`` is a member."""
        if player not in self.members:
            raise ProtocolError(
                ErrorCode.NOT_IN_REVIEW, f"you are not in room {self.room}'s review"
            )

    def _require_leader(self, player: str) -> None:
        self.require(player)
        if player != self.leader:
            raise ProtocolError(ErrorCode.NOT_LEADER, "only the review's leader may do that")

    def step_to(self, player: str, step: int) -> None:
        """The leader shows the board after ``step`` decisions."""
        self._require_leader(player)
        if not 0 <= step <= self.steps:
            raise ProtocolError(ErrorCode.BAD_OPTION, f"'step' must be 0 to {self.steps}")
        self.step = step

    def hand_on(self, player: str, to: str) -> None:
        """The leader hands the lead to another member (who follows from now on)."""
        self._require_leader(player)
        if to not in self.members:
            raise ProtocolError(ErrorCode.BAD_OPTION, f"{to} is not in the review")
        self.leader = to
        self.members[to] = True

    def follow(self, player: str, following: bool) -> None:
        """A member follows the leader's step again, or breaks away (the leader always
        follows: their own step is the leader's)."""
        self.require(player)
        self.members[player] = following or player == self.leader

    def message(self, name: Callable[[str], str], request: int | None = None) -> ReviewMessage:
        """The ``review`` message as it is now."""
        members = tuple(
            ReviewMember(player, name(player), following)
            for player, following in self.members.items()
        )
        return ReviewMessage(
            id=request,
            room=self.room,
            game=self.game,
            step=self.step,
            steps=self.steps,
            leader=self.leader,
            members=members,
        )

    def closed(self) -> ReviewMessage:
        """The ``review`` message that says it ended."""
        return ReviewMessage(
            room=self.room,
            game=self.game,
            step=self.step,
            steps=self.steps,
            leader=self.leader,
            members=(),
            open=False,
        )


def broadcast_review(hub: Reviews, review: SharedReview) -> None:
    """Every member gets the review as it is now (members who left the room leave it)."""
    room = hub.rooms.get(review.room)
    for member in list(review.members):
        if (room is None or member not in room.members) and not review.leave(member):
            del hub.reviews[review.room]
            return
    message = review.message(hub.player_name)
    for member in review.members:
        hub.send(member, message)


def end_review(hub: Reviews, code: str) -> None:
    """The room's review is over (its next game began, or the room closed): its members are
    told."""
    review = hub.reviews.pop(code, None)
    if review is not None:
        message = review.closed()
        for member in review.members:
            hub.send(member, message)


def leave_review(hub: Reviews, code: str, player: str) -> None:
    """``player`` left the review (or the room)."""
    review = hub.reviews.get(code)
    if review is None or player not in review.members:
        return
    if review.leave(player):
        broadcast_review(hub, review)
    else:
        del hub.reviews[code]
