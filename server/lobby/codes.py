"""Room codes, and what opening a room asks of a cluster: its rate, its creator's room quota
and the code's lease, in one round trip to the database."""

from __future__ import annotations

import secrets
import string
from collections.abc import Container

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import PRIVATE_ROOM_CODE_LENGTH, ROOM_CODE_LENGTH
from server.config import ServerConfig


def random_code(public: bool) -> str:
    """A random room code: a private room's is long enough that it cannot be guessed, so
    knowing it is what lets one in."""
    length = ROOM_CODE_LENGTH if public else PRIVATE_ROOM_CODE_LENGTH
    return "".join(secrets.choice(string.ascii_uppercase) for _ in range(length))


def free_code(rooms: Container[str], public: bool) -> str:
    """A random room code that none of ``rooms`` has (a cluster's other nodes may: its lease
    says)."""
    code = random_code(public)
    while code in rooms:
        code = random_code(public)
    return code


def check(config: ServerConfig, allowed: bool, opened: int) -> None:
    """Refuse a room (ProtocolError) its creator may not open: ``allowed``, whether the rooms
    rate's bucket gave a token (of the cluster's bucket in a cluster: the server's own is
    checked before); ``opened``, the open rooms created from the same address, against
    ``max_rooms_per_address`` (on this server alone, on every node of a cluster)."""
    if not allowed:
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "you are creating rooms too fast; wait a little"
        )
    limit = config.max_rooms_per_address
    if opened >= limit:
        raise ProtocolError(
            ErrorCode.TOO_MANY_ROOMS,
            f"{opened} open rooms were created from your address (limit {limit})",
            {"limit": limit},
        )
