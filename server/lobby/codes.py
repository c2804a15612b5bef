"""Room codes, and what opening a room asks of a cluster: its rate, its creator's room quota
and the code's lease, in one round trip to the database."""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import PRIVATE_ROOM_CODE_LENGTH, ROOM_CODE_LENGTH
from server.config import ServerConfig

if TYPE_CHECKING:  # psycopg is imported only by a cluster's node
    from server.cluster.leases import Leases


def random_code(public: bool) -> str:
    """A random room code: a private room's is long enough that it cannot be guessed, so
    knowing it is what lets one in."""
    length = ROOM_CODE_LENGTH if public else PRIVATE_ROOM_CODE_LENGTH
    return "".join(secrets.choice(string.ascii_uppercase) for _ in range(length))


def claim(
    config: ServerConfig,
    rooms: Container[str],
    opened_here: int,
    leases: Leases | None,
    group: str,
    public: bool,
    new_code: Callable[[bool, str], str],
) -> str:
    """The code of a room ``group`` creates, within the rooms rate of the cluster's bucket and
    ``max_rooms_per_address`` (``opened_here`` on a server alone, on every node of a cluster):
    ProtocolError if not. With ``leases`` (a cluster) the bucket, the count and the code's lease
    (noting its creator) take one round trip, which the event loop waits for; a code another
    room holds is replaced by ``new_code``'s. The caller opens the room, or lets the lease go."""
    limit = config.max_rooms_per_address
    allowed, opened, code = True, opened_here, ""
    if leases is not None:
        code = random_code(public)
        while code in rooms:
            code = random_code(public)
        rate, burst = config.rooms_per_second, config.rooms_burst
        allowed, opened, taken = leases.claim(code, group, rate, burst)
        if taken and (not allowed or opened >= limit):
            leases.release(code)
        if not taken:
            code = ""
    if not allowed:
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "you are creating rooms too fast; wait a little"
        )
    if opened >= limit:
        raise ProtocolError(
            ErrorCode.TOO_MANY_ROOMS,
            f"{opened} open rooms were created from your address (limit {limit})",
            {"limit": limit},
        )
    return code or new_code(public, group)
