"""Textual messages posted by the network worker (selfish_tui.client) to the app.

The worker never touches widgets: it only turns frames and connection changes into these
messages, and the app (on its own event loop turn) updates the screens.
"""

from __future__ import annotations

from textual.message import Message

from protocol import server_messages
from protocol.messages import Request


class Connecting(Message):
    """A connection attempt has started (``attempt`` counts from 1 since the last success)."""

    def __init__(self, address: str, attempt: int) -> None:
        self.address = address
        self.attempt = attempt
        super().__init__()


class Welcomed(Message):
    """The server accepted our hello; ``resumed`` is True when an old token was honoured."""

    def __init__(self, player: str, token: str, server: str, resumed: bool) -> None:
        self.player = player
        self.token = token
        self.server = server
        self.resumed = resumed
        super().__init__()


class ConnectionLost(Message):
    """The connection dropped; the worker retries in ``retry_in`` seconds (None: it does not
    retry by itself). ``held``: no connection ever got in, so the worker waits for the player
    to ask again (r) instead of giving up."""

    def __init__(self, reason: str, retry_in: float | None, held: bool = False) -> None:
        self.reason = reason
        self.retry_in = retry_in
        self.held = held
        super().__init__()


class ServerMessage(Message):
    """Any other message from the server, typed (``payload``: protocol.server_messages, its
    ``TYPE`` says which); ``request`` is the request it is the direct reply to (None for a
    broadcast)."""

    def __init__(self, payload: server_messages.ServerMessage, request: Request | None = None):
        self.payload = payload
        self.request = request
        super().__init__()

    @property
    def type(self) -> str:
        """The message's wire ``type``."""
        return self.payload.TYPE
