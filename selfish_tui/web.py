"""`selfish web`: the client in a browser, through textual-serve.

textual-serve answers each browser page with a terminal drawn in the page and starts one client
process per page (`selfish connect ADDRESS`), speaking to it over a websocket. This server adds
what a public page needs:

* **Identity across reloads.** The page sets a cookie naming an identity this server keeps (a
  random secret; the server keeps the client's token in a file named after its SHA-256), so a
  reload, or the same browser tomorrow, is the same player with the same seats. Another browser
  (or one that cleared its cookies) is a new player.
* **``?join=CODE``** opens the page straight at a seat in room CODE.
* **Limits.** Pages (client processes) at once, in total and per address; past them a
  readable page says the server is full. The websocket is accepted only from the page's own
  origin (and those configured), so another site cannot open games in a visitor's browser.
* **Nothing from elsewhere, nothing reflected.** The page's URLs are relative (the Host header
  is never written into it), its font is served from here, and ``/static/`` lists nothing.
"""

from __future__ import annotations

import hashlib
import html
import logging
import re
import secrets
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

DEFAULT_WEB_PORT = 8080
DEFAULT_MAX_PAGES = 16  # each page is a client process: about 33 MiB and a third of a CPU-s
DEFAULT_MAX_PAGES_PER_ADDRESS = 4
COOKIE = "selfish_player"
COOKIE_AGE = 365 * 86_400
COOKIE_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
ROOM_CODE = re.compile(r"[A-Za-z]{4}|[A-Za-z]{12}")
TEMPLATE = Path(__file__).with_name("web_templates") / "app_index.html"
# The largest terminal a page gets: a client draws every cell (the SSH gateway's limit is the
# same, server/gateway/terminal.py).
MAX_COLUMNS, MAX_ROWS = 300, 100

log = logging.getLogger("selfish.web")

REFUSAL = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Selfish</title>
<style>body{{background:#0c181f;color:#eee;font-family:monospace;margin:4em auto;
max-width:40em;line-height:1.5}}</style></head>
<body><h1>Selfish</h1><p>{text}</p><p><a href="/" style="color:#ac5af4">Try again</a></p>
</body></html>
"""


def refusal(status: int, text: str) -> web.Response:
    """A readable page saying why (plain text, escaped)."""
    return web.Response(
        status=status, text=REFUSAL.format(text=html.escape(text)), content_type="text/html"
    )


def guest_name(identity: str) -> str:
    """The name of a browser's player: 'Guest' and three digits drawn from its identity, so a
    reload keeps it."""
    return f"Guest {int(identity[:8], 16) % 900 + 100}"


def client_command(
    address: str,
    language: str | None = None,
    identity: Path | None = None,
    name: str | None = None,
    join: str | None = None,
) -> str:
    """The shell command textual-serve runs for one browser page (in ``language``, else the
    locale's): a client keeping its token in ``identity`` (without one: a guest), named
    ``name``, going straight to a seat in room ``join``. ``exec``: one process per page, not a
    shell and its child."""
    command = [sys.executable, "-m", "selfish_tui.cli", "connect", address]
    command += [f"--identity={identity}"] if identity is not None else ["--guest"]
    if name is not None:
        command.append(f"--name={name}")
    if language:
        command += ["--lang", language]
    if join:
        command += ["--join", join]
    return "SELFISH_FRONT_DOOR=web exec " + shlex.join(command)


class WebServer(Server):
    """textual-serve's server with an identity per browser, ``?join=CODE``, page limits, an
    Origin check, a page of its own (relative URLs, a local font) and no directory listing."""

    def __init__(
        self,
        address: str,
        host: str,
        port: int,
        identities: Path,
        *,
        language: str | None = None,
        max_pages: int = DEFAULT_MAX_PAGES,
        max_pages_per_address: int = DEFAULT_MAX_PAGES_PER_ADDRESS,
        origins: tuple[str, ...] = (),
    ) -> None:
        super().__init__(client_command(address, language), host=host, port=port, title="Selfish")
        self.address = address
        self.language = language
        self.identities = identities
        self.max_pages = max_pages
        self.max_pages_per_address = max_pages_per_address
        self.origins = {origin.rstrip("/").lower() for origin in origins}
        self.pages = 0
        self.pages_per_address: Counter[str] = Counter()

    async def _make_app(self) -> web.Application:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/ws/join/{code}", self.handle_websocket, name="websocket-join"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        log.info("serving the Selfish client on http://%s:%d", self.host, self.port)

    def full(self, address: str) -> str | None:
        """Why another page from ``address`` cannot start now, or None."""
        if self.pages >= self.max_pages:
            return (
                f"The server is full: {self.pages} players are on it, as many as it takes. "
                "Try again in a few minutes."
            )
        if self.pages_per_address[address] >= self.max_pages_per_address:
            return (
                f"Your address already has {self.max_pages_per_address} pages open, as many "
                "as the server allows: close one and try again."
            )
        return None

    def identity_of(self, request: web.Request) -> str | None:
        """The hex digest of the browser's identity cookie, if it sent a well-formed one."""
        cookie = request.cookies.get(COOKIE, "")
        if not COOKIE_PATTERN.fullmatch(cookie):
            return None
        return hashlib.sha256(cookie.encode()).hexdigest()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        join = request.query.get("join")
        if join is not None and not ROOM_CODE.fullmatch(join):
            return refusal(
                400, f"{join[:40]!r} is not a room code (4 letters, a private room's 12)."
            )
        problem = self.full(str(request.remote))
        if problem is not None:
            return refusal(503, problem)
        response = web.FileResponse(TEMPLATE, headers={"Cache-Control": "no-store"})
        if self.identity_of(request) is None:
            response.set_cookie(
                COOKIE,
                secrets.token_urlsafe(32),
                max_age=COOKIE_AGE,
                path="/",
                httponly=True,
                # Lax, not Strict: a ?join= link followed from another site must still carry
                # the cookie, or the page would mint a new player over the old one.
                samesite="Lax",
                secure=request.secure,
            )
        return response

    def origin_allowed(self, request: web.Request) -> bool:
        """Whether the websocket comes from this server's own page (or a configured origin)."""
        origin = request.headers.get("Origin", "").rstrip("/").lower()
        own = f"{request.scheme}://{request.host}".lower()
        return bool(origin) and (origin == own or origin in self.origins)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:  # type: ignore[override]
        if not self.origin_allowed(request):
            log.warning(
                "%s: websocket refused: origin %r", request.remote, request.headers.get("Origin")
            )
            raise web.HTTPForbidden(text="This game's websocket is for its own page only.")
        address = str(request.remote)
        problem = self.full(address)
        if problem is not None:
            raise web.HTTPServiceUnavailable(text=problem)
        code = request.match_info.get("code")
        if code is not None and not ROOM_CODE.fullmatch(code):
            raise web.HTTPBadRequest(text="not a room code")
        digest = self.identity_of(request)
        identity = name = None
        if digest is not None:
            try:
                self.identities.mkdir(parents=True, exist_ok=True, mode=0o700)
            except OSError as exc:  # no place to keep it: this page is a guest
                log.error("cannot keep browser identities in %s: %s", self.identities, exc)
            else:
                identity = self.identities / f"{digest[:40]}.json"
                name = guest_name(digest)
        command = client_command(
            self.address, self.language, identity, name, code.upper() if code else None
        )
        self.pages += 1
        self.pages_per_address[address] += 1
        try:
            return await self._serve_page(request, command)
        finally:
            self.pages -= 1
            self.pages_per_address[address] -= 1
            if self.pages_per_address[address] <= 0:
                del self.pages_per_address[address]

    async def _serve_page(self, request: web.Request, command: str) -> web.WebSocketResponse:
        """textual-serve's websocket handler, with this page's own command and a bounded size."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _clamp(request.query.get("width", "80"), 80, MAX_COLUMNS)
        height = _clamp(request.query.get("height", "24"), 24, MAX_ROWS)
        app_service: AppService | None = None
        try:
            await websocket.prepare(request)
            app_service = AppService(
                command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await app_service.start(width, height)
            await self._process_messages(websocket, app_service)
        except Exception as error:  # a page's failure is logged, the server goes on
            log.warning("%s: page ended: %s", request.remote, error)
        finally:
            if app_service is not None:
                await app_service.stop()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: Any) -> None:
        service = _BoundedSize(app_service)
        await super()._process_messages(websocket, service)  # type: ignore[arg-type]


class _BoundedSize:
    """An app service whose terminal is never made larger than MAX_COLUMNS x MAX_ROWS."""

    def __init__(self, service: AppService) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)

    async def set_terminal_size(self, width: Any, height: Any) -> None:
        await self._service.set_terminal_size(
            _clamp(width, 80, MAX_COLUMNS), _clamp(height, 24, MAX_ROWS)
        )


def _clamp(value: Any, fallback: int, largest: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return fallback
    return min(number, largest) if number > 0 else fallback


def serve(
    host: str,
    port: int,
    server: str | None,
    language: str | None = None,
    *,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_pages_per_address: int = DEFAULT_MAX_PAGES_PER_ADDRESS,
    origins: tuple[str, ...] = (),
) -> int:
    """Serve the client on ``host:port``, connected to ``server`` (HOST:PORT) or, without one,
    to an embedded server on loopback that keeps its games in the per-user data directory."""
    from selfish_tui.paths import data_dir

    embedded = None
    if server is None:
        from selfish_tui import local

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
        WebServer(
            server,
            host,
            port,
            data_dir() / "web-identities",
            language=language,
            max_pages=max_pages,
            max_pages_per_address=max_pages_per_address,
            origins=origins,
        ).serve()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
