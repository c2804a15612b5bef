"""`selfish web`: the client in a browser, through textual-serve.

textual-serve answers each browser page with a terminal drawn in the page and starts one client
process per page (`selfish connect ADDRESS --guest`), speaking to it over a websocket. Every page
is a new guest player: browsers share no identity file, and one shared token would make each new
page take the previous one's seats.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from textual_serve.server import Server

DEFAULT_WEB_PORT = 8080


class WebServer(Server):
    """textual-serve's server, with page URLs built from the address the browser used.

    textual-serve writes absolute URLs (websocket, scripts) from its listening host; for a
    server listening on every interface (0.0.0.0) those would point the browser at 0.0.0.0.
    """

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        # The wrapped coroutine reads public_url without awaiting in between: no other
        # request can change it meanwhile.
        self.public_url = f"{request.scheme}://{request.host}"
        inner = Server.handle_index.__wrapped__  # type: ignore[attr-defined]
        context: dict[str, Any] = await inner(self, request)
        return context


def client_command(address: str, language: str | None = None) -> str:
    """The shell command textual-serve runs for each browser page (in ``language``, else the
    locale's)."""
    command = [sys.executable, "-m", "selfish_tui.cli", "connect", address, "--guest"]
    return shlex.join(command + (["--lang", language] if language else []))


def serve(host: str, port: int, server: str | None, language: str | None = None) -> int:
    """Serve the client on ``host:port``, connected to ``server`` (HOST:PORT) or, without one,
    to an embedded server on loopback that keeps its games in the per-user data directory."""
    embedded = None
    if server is None:
        from selfish_tui import local
        from selfish_tui.paths import data_dir

        embedded = local.EmbeddedServer(
            data_dir() / "web-server.sqlite3",
            log_file=data_dir() / "web-server.log",
            allow_seed=False,
        )
        try:
            server = f"127.0.0.1:{embedded.start()}"
        except RuntimeError as exc:
            print(f"selfish: {exc}", file=sys.stderr)
            return 1
    try:
        WebServer(client_command(server, language), host=host, port=port, title="Selfish").serve()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
