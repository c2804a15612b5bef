"""A room's status, and which of the room's requests each status allows (a table, as h11 keeps
its transitions): a request refused by the status gets the error this table names. And which
versions an act may be sent against."""

from __future__ import annotations

from enum import StrEnum

from protocol.errors import ErrorCode, ProtocolError
from server.engine import Game


class Status(StrEnum):
    """Where a room is in its life."""

    WAITING = "waiting"  # seats are being filled
    PLAYING = "playing"  # a game runs
    OVER = "over"  # the game has ended; a rematch starts the next


class Step(StrEnum):
    """The requests whose acceptance depends on the room's status."""

    TAKE_SEAT = "take_seat"  # join as a player (one who left a running game rejoins apart)
    ADD_BOT = "add_bot"
    REMOVE_BOT = "remove_bot"
    START = "start"
    ACT = "act"
    REMATCH = "rematch"


ALLOWED: dict[Status, frozenset[Step]] = {
    Status.WAITING: frozenset({Step.TAKE_SEAT, Step.ADD_BOT, Step.REMOVE_BOT, Step.START}),
    Status.PLAYING: frozenset({Step.ACT}),
    Status.OVER: frozenset({Step.REMATCH}),
}

# What a request is told when its room's status does not allow it.
_BEGUN = (ErrorCode.GAME_STARTED, "the game in {room} has begun")
REFUSALS: dict[Step, dict[Status, tuple[ErrorCode, str]]] = {
    Step.TAKE_SEAT: {Status.PLAYING: _BEGUN, Status.OVER: _BEGUN},
    Step.START: {Status.PLAYING: _BEGUN, Status.OVER: _BEGUN},
    Step.ADD_BOT: dict.fromkeys(
        (Status.PLAYING, Status.OVER),
        (ErrorCode.GAME_STARTED, "bots can only be added before the game"),
    ),
    Step.REMOVE_BOT: dict.fromkeys(
        (Status.PLAYING, Status.OVER),
        (ErrorCode.GAME_STARTED, "bots can only be removed before the game"),
    ),
    Step.ACT: {
        Status.WAITING: (ErrorCode.NOT_STARTED, "the game has not started"),
        Status.OVER: (ErrorCode.GAME_OVER, "the game is over"),
    },
    Step.REMATCH: dict.fromkeys(
        (Status.WAITING, Status.PLAYING), (ErrorCode.NOT_OVER, "the game is not over")
    ),
}


def allows(status: Status, step: Step) -> bool:
    """Whether a room in ``status`` takes ``step``."""
    return step in ALLOWED[status]


def check(status: Status, step: Step, room: str) -> None:
    """Raise the refusal of :data:`REFUSALS` unless ``status`` allows ``step``."""
    if step not in ALLOWED[status]:
        code, message = REFUSALS[step][status]
        raise ProtocolError(code, message.format(room=room))


def check_version(game: Game, current: int, version: int) -> None:
    """Raise ``stale_version`` unless an act sent against ``version`` may still count: the
    ``current`` one, or one within the simultaneous decision still open (other seats' picks
    bump the version but change nothing a seat chooses from, so a pick raced by another seat's
    pick is still good; refusing it would make people pick twice)."""
    if version == current:
        return
    decision = game.decision
    if decision is not None and decision.simultaneous:
        picked = len(decision.options) - len(game.pending_seats())
        if current - picked <= version < current:
            return
    raise ProtocolError(
        ErrorCode.STALE_VERSION,
        f"version {version} is stale; current is {current}",
        {"current": current},
    )
