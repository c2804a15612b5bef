"""`selfish web` at the HTTP and websocket level (aiohttp as the browser): an identity per
browser kept across reloads, page limits with a readable refusal, the Origin check, and a page
that reflects no Host header, loads nothing from elsewhere and lists no directory ."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from server.config import ServerConfig
from server.net.session import Session
from server.net.tcp import RunningServer, start_server
from tests.gateway.test_web import free_port

FAST = {"port": 0, "host": "127.0.0.1", "bot_delay": 0.0, "rate_per_second": 10_000.0}


class Web:
    """A game server in this process and `selfish web --server` in a child process."""

    def __init__(self, running: RunningServer, url: str, identities: Path) -> None:
        self.running = running
        self.url = url
        self.origin = url.rstrip("/")
        self.identities = identities  # the browsers' token files

    async def wait_tokens_kept(self, count: int, timeout: float = 60.0) -> None:
        """Until ``count`` browsers' clients have written their tokens: a page closed before
        its client read the welcome leaves no token to come back with."""
        end = time.monotonic() + timeout
        while sum(1 for f in self.identities.glob("*.json") if f.stat().st_size) < count:
            if time.monotonic() > end:
                raise AssertionError(f"{count} token files expected in {self.identities}")
            await asyncio.sleep(0.05)

    def players(self) -> dict[str, str]:
        """Connected player id -> name."""
        return {
            s.player.id: s.player.name
            for s in self.running.sessions
            if isinstance(s, Session) and s.player is not None
        }

    async def wait_players(self, count: int, timeout: float = 60.0) -> dict[str, str]:
        end = time.monotonic() + timeout
        while len(self.players()) != count:
            if time.monotonic() > end:
                raise AssertionError(f"{count} players expected, have {self.players()}")
            await asyncio.sleep(0.1)
        return self.players()


@pytest_asyncio.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    config = ServerConfig(**{**FAST, "db": str(tmp_path / "server.sqlite3")})
    running = await start_server(config)
    port = free_port()
    game = running.port
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "selfish_tui.cli", "web", "--host", "127.0.0.1"),
            *("--port", str(port), "--server", f"127.0.0.1:{game}"),
            *("--max-pages", "2", "--max-pages-per-address", "1"),
            *("--origin", "https://play.example.org"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                await asyncio.to_thread(urllib.request.urlopen, url, timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                await asyncio.sleep(0.2)
        yield Web(running, url, tmp_path / "data" / "selfish" / "web-identities")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        # Its clients are gone with it: let the server see them go before it stops.
        deadline = time.monotonic() + 10
        while running.sessions and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await running.stop()


def browser(source: str = "127.0.0.1") -> aiohttp.ClientSession:
    """A 'browser': its own cookie jar, from its own loopback address."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.CookieJar(unsafe=True))


async def open_page(
    client: aiohttp.ClientSession, web: Web, path: str = "/ws", **headers: Any
) -> aiohttp.ClientWebSocketResponse:
    headers.setdefault("Origin", web.origin)
    return await client.ws_connect(web.origin + path + "?width=80&height=24", headers=headers)


async def until_free(client: aiohttp.ClientSession, web: Web, timeout: float = 20.0) -> None:
    """Wait until a closed page's process has ended and its slot is free again."""
    end = time.monotonic() + timeout
    while True:
        async with client.get(web.url) as page:
            if page.status == 200:
                return
        if time.monotonic() > end:
            raise AssertionError("the page's slot was never given back")
        await asyncio.sleep(0.1)


async def test_a_reload_keeps_the_player(web: Web) -> None:
    async with browser() as client:
        async with client.get(web.url) as page:
            assert page.status == 200
            assert "selfish_player" in {c.key for c in client.cookie_jar}
            # unreadable by scripts; sent on a ?join= link followed from elsewhere
            cookie = page.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
        ws = await open_page(client, web)
        (first,) = (await web.wait_players(1)).items()
        assert first[1].startswith("Guest ")
        await web.wait_tokens_kept(1)
        await ws.close()
        await web.wait_players(0)
        await until_free(client, web)
        async with client.get(web.url) as page:  # the reload: the cookie is kept, not replaced
            assert page.status == 200 and "selfish_player" not in page.cookies
        ws = await open_page(client, web)
        assert (await web.wait_players(1)) == dict([first])
        await ws.close()
        await web.wait_players(0)
        await until_free(client, web)
    async with browser() as other:  # another browser is another player
        ws = await open_page(other, web)
        (second,) = (await web.wait_players(1)).items()
        assert second[0] != first[0]
        await ws.close()


async def test_pages_are_capped_in_total_and_per_address(web: Web) -> None:
    async with browser() as one, browser("127.0.0.2") as two, browser("127.0.0.3") as three:
        first = await open_page(one, web)
        await web.wait_players(1)
        async with one.get(web.url) as page:  # the same address again: a readable refusal
            assert page.status == 503
            assert "pages open" in await page.text()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_page(one, web)
        assert refused.value.status == 503
        second = await open_page(two, web)
        await web.wait_players(2)
        async with three.get(web.url) as page:
            assert page.status == 503
            assert "The server is full" in await page.text()
        await first.close()
        await web.wait_players(1)
        await until_free(three, web)
        third = await open_page(three, web)  # a page closed: room for another
        await web.wait_players(2)
        await second.close()
        await third.close()


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example", None]
)
async def test_the_websocket_is_only_for_the_pages_own_origin(web: Web, origin: str | None) -> None:
    async with browser() as client:
        headers = {"Origin": origin} if origin is not None else {}
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(web.origin + "/ws", headers=headers)
        assert refused.value.status == 403
        assert not web.players()
        # a configured origin (a TLS proxy's) is let in
        ws = await open_page(client, web, Origin="https://play.example.org")
        await web.wait_players(1)
        await ws.close()


async def test_the_page_reflects_no_host_loads_nothing_from_elsewhere_lists_nothing(
    web: Web,
) -> None:
    async with browser() as client:
        async with client.get(web.url, headers={"Host": "evil.example:666"}) as page:
            text = await page.text()
        assert "evil.example" not in text
        assert not re.findall(r"(?:src|href)=\"(?:https?:)?//", text)
        assert "googleapis" not in text and "fonts.g" not in text
        assert re.search(r"url\(\"/static/fonts/RobotoMono-VariableFont_wght.ttf\"\)", text)
        async with client.get(web.origin + "/static/fonts/RobotoMono-VariableFont_wght.ttf") as f:
            assert f.status == 200 and len(await f.read()) > 10_000
        for listing in ("/static/", "/static/fonts/", "/static/js/"):
            async with client.get(web.origin + listing) as reply:
                assert reply.status in (403, 404)
                assert "textual.js" not in await reply.text()


async def test_a_bad_join_code_gets_a_readable_page(web: Web) -> None:
    async with browser() as client:
        async with client.get(web.url + "?join=<b>x</b>") as page:
            assert page.status == 400
            body = await page.text()
        assert "is not a room code" in body and "<b>x" not in body
