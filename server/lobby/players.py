"""Identities, and the connections they speak through.

A :class:`Player` survives reconnects (by token) and, through the store, restarts; its
connection comes and goes. The lobby talks to connections through the small
:class:`Connection` protocol (``server.net.session.Session`` implements it over TCP, the tests'
harness in memory).
"""

from __future__ import annotations

import concurrent.futures
import secrets
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from protocol.server_messages import ServerMessage

T = TypeVar("T")


class Connection(Protocol):
    """What the lobby needs from a client connection."""

    peer: str
    address: str  # what per-address limits count: its IP address, IPv6 by network (addresses)

    def send(self, message: ServerMessage) -> None:
        """Queue a message to the client."""

    def send_frame(self, data: bytes) -> None:
        """Queue an already encoded frame (see protocol.codec.encode) to the client."""

    def send_parts(self, parts: tuple[bytes, ...]) -> None:
        """Queue already encoded frames, given in pieces that are written as they are."""

    def close_after(self, message: ServerMessage) -> None:
        """Send ``message`` and then close the connection."""

    def cut(self) -> None:
        """Close the connection at once, dropping what is queued for it (what a transaction
        that could not commit produced must never reach the client)."""

    def after(self, done: concurrent.futures.Future[T], then: Callable[[T], None]) -> None:
        """Finish the request being handled once ``done`` (a round trip in another thread) is
        done: ``then`` runs on the event loop with its result, answering the request as the
        handler would have (a ProtocolError it raises is the request's answer); what the
        client sent meanwhile waits until then, so its requests keep their order."""


@dataclass
class Player:
    """An identity: survives reconnects (by token) and, through the store, restarts."""

    id: str
    token: str  # token_hash() of its token: the token itself is known only to the client
    name: str
    connection: Connection | None = None
    rooms: list[str] = field(default_factory=list)  # codes, in join order


def new_player_id(taken: Container[str], guest: bool = False) -> str:
    """A fresh player id (``p`` and 8 hex digits; ``g`` for a guest, who has no record: see
    server.store.ratings.is_guest) that is not in ``taken``."""
    while True:
        pid = ("g" if guest else "p") + secrets.token_hex(4)
        if pid not in taken:
            return pid
