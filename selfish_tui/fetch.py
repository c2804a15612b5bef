"""One finished game's record fetched from a server, without the app: what `selfish replay GAME
--server` and `selfish export GAME --server` do before they show or write it.

A short connection through the client library (protocol/client.py): ``hello`` with the stored
token (a private game is given to its own players only), ``get_replay``, and the reply.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from protocol.client import ClientConnection, Error, RemoteProtocolError, Replay, Welcome
from protocol.messages import GetReplay
from protocol.server_messages import ReplayMessage
from selfish_tui.client import decode_clean
from selfish_tui.i18n import N_, _
from selfish_tui.keyed_text import error_message

#: Seconds the whole exchange may take before the server is said not to answer.
TIMEOUT = 15.0

PLAIN = {
    "no_such_game": N_(
        "there is no finished game with that number that you may see (a private game is "
        "shown to its own players only)"
    ),
}


class FetchError(Exception):
    """The record could not be fetched: one sentence for a person."""


@dataclass
class Fetched:
    """A ``replay`` reply, and who we were on that server."""

    message: ReplayMessage
    player: str | None
    token: str | None


async def fetch_replay(host: str, port: int, name: str, token: str | None, game: int) -> Fetched:
    """Ask ``host:port`` for game ``game``'s record, as the player ``token`` names (or a new
    identity). Raises :class:`FetchError`."""
    where = host if host.startswith("/") else f"{host}:{port}"
    try:
        return await asyncio.wait_for(_exchange(host, port, name, token, game), TIMEOUT)
    except TimeoutError:
        raise FetchError(_("{address} does not answer").format(address=where)) from None
    except OSError as exc:
        raise FetchError(
            _("cannot reach {address}: {error}").format(
                address=where, error=(exc.strerror or str(exc)).lower()
            )
        ) from None
    except RemoteProtocolError as exc:
        raise FetchError(_("garbled data from the server ({error})").format(error=exc)) from None


async def _exchange(host: str, port: int, name: str, token: str | None, game: int) -> Fetched:
    if host.startswith("/"):
        reader, writer = await asyncio.open_unix_connection(host)
    else:
        reader, writer = await asyncio.open_connection(host, port)
    conn = ClientConnection(token, decode=decode_clean)
    try:
        hello = conn.hello(name)
        writer.write(conn.data_to_send())
        asked = False
        player: str | None = None
        while True:
            data = await reader.read(65536)
            if not data:
                raise FetchError(_("the server closed the connection"))
            for event in conn.receive_data(data):
                if isinstance(event, Welcome):
                    player = event.player
                    conn.send(GetReplay(game=game))
                    writer.write(conn.data_to_send())
                    asked = True
                elif isinstance(event, Replay):
                    return Fetched(event.message, player, conn.token)
                elif isinstance(event, Error) and (asked or event.request is hello):
                    plain = PLAIN.get(event.code)
                    raise FetchError(
                        _(plain) if plain else error_message(event.code, event.message.args)
                    )
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
