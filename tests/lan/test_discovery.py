"""Announcing and finding servers for real, with python-zeroconf on loopback."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from protocol.codec import MessageDecoder, encode
from protocol.lan import SERVICE_TYPE, Announcement
from selfish_tui.discovery import ServerFinder
from selfish_tui.local import EmbeddedServer
from tests.lan.conftest import LOOPBACK, Found, unique


async def test_an_announced_server_is_found_with_its_address(
    announced: Callable[..., EmbeddedServer], finder: Found
) -> None:
    server = announced("Ann")
    name = str(server.announce)
    took = await finder.until(lambda: finder.named(name) is not None)
    found = finder.named(name)
    assert found is not None
    assert (found.host, found.port) == ("127.0.0.1", server.port)
    assert (found.players, found.open_rooms, found.compatible) == (0, 0, True)
    assert server.addresses == [f"127.0.0.1:{server.port}"]
    assert took < 5.0  # "within about two seconds"; slack for a loaded machine
    assert finder.problems == []


async def _client(port: int, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(encode({"type": "hello", "protocol": 2, "name": name}))
    decoder = MessageDecoder(max_size=None)
    while not any(m.get("type") == "welcome" for m in decoder.feed(await reader.read(65536))):
        pass
    return reader, writer


async def test_players_and_open_rooms_follow_the_lobby(
    announced: Callable[..., EmbeddedServer], finder: Found
) -> None:
    server = announced("Busy")
    name = str(server.announce)
    await finder.until(lambda: finder.named(name) is not None)
    _, writer = await _client(server.port, "Bea")
    await finder.until(lambda: getattr(finder.named(name), "players", 0) == 1)
    room = {"type": "create_room", "edition": "space", "seats": 3, "public": True}
    writer.write(encode(room))
    await finder.until(lambda: getattr(finder.named(name), "open_rooms", 0) == 1)
    writer.close()
    await finder.until(lambda: getattr(finder.named(name), "players", 1) == 0)


async def test_a_stopped_server_leaves_the_list(
    announced: Callable[..., EmbeddedServer], finder: Found
) -> None:
    server = announced("Brief")
    name = str(server.announce)
    await finder.until(lambda: finder.named(name) is not None)
    await asyncio.to_thread(server.stop)
    await finder.until(lambda: finder.named(name) is None)


async def test_malformed_announcements_are_ignored(
    announced: Callable[..., EmbeddedServer], finder: Found
) -> None:
    """Another program's records under our type, and garbled ones, never show (nor break the
    finder): the good server among them still does."""
    zeroconf = AsyncZeroconf(interfaces=LOOPBACK)
    tag = unique("")
    bad_records: list[dict[str, Any]] = [
        {"hello": "world"},  # someone else's program
        {**Announcement("Evil").txt(), "players": "lots"},
        {**Announcement("Evil").txt(), "name": "\x1b[2Jgone"},
        {**Announcement("Evil").txt(), "txtvers": "9"},
    ]
    infos = [
        AsyncServiceInfo(
            SERVICE_TYPE,
            f"Bad {i}{tag}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton("127.0.0.1")],
            port=7000 + i,
            properties=record,
            server=f"bad-{i}.local.",
        )
        for i, record in enumerate(bad_records)
    ]
    try:
        for info in infos:
            await zeroconf.async_register_service(info)
        good = str(announced("Good").announce)
        await finder.until(lambda: finder.named(good) is not None)
        await asyncio.sleep(0.5)  # the bad ones had their chance to resolve
        assert [s for s in finder.servers if tag in s.key] == []
        assert [s.name for s in finder.servers if s.name == good] == [good]
        # A server whose record turns bad disappears rather than keeping stale details.
        turncoat_name = unique("Turncoat")
        evil_name = f"{turncoat_name}.{SERVICE_TYPE}"
        turncoat = AsyncServiceInfo(
            SERVICE_TYPE,
            evil_name,
            addresses=[socket.inet_aton("127.0.0.1")],
            port=7100,
            properties=Announcement(turncoat_name).txt(),
            server="turncoat.local.",
        )
        await zeroconf.async_register_service(turncoat)
        await finder.until(lambda: finder.named(turncoat_name) is not None)
        await zeroconf.async_update_service(
            AsyncServiceInfo(
                SERVICE_TYPE,
                evil_name,
                addresses=[socket.inet_aton("127.0.0.1")],
                port=7100,
                properties={**Announcement(turncoat_name).txt(), "rooms": "many"},
                server="turncoat.local.",
            )
        )
        await finder.until(lambda: finder.named(turncoat_name) is None)
        assert finder.problems == []
    finally:
        await zeroconf.async_close()


async def test_a_network_that_cannot_browse_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import zeroconf.asyncio

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(zeroconf.asyncio, "AsyncZeroconf", no_network)
    found = Found()
    await asyncio.wait_for(ServerFinder(found.post, LOOPBACK).run(), 5)
    assert found.problems == ["[Errno 101] Network is unreachable"]


async def test_discovery_started_without_the_variable_fails_the_test(
    monkeypatch: pytest.MonkeyPatch, lan_on_loopback: Any
) -> None:
    """The suite's guard (tests/conftest.py): mDNS without SELFISH_LAN_INTERFACE is a failure,
    even when the code under test names loopback itself."""
    monkeypatch.delenv("SELFISH_LAN_INTERFACE")
    found = Found()
    with pytest.raises(pytest.fail.Exception, match="without SELFISH_LAN_INTERFACE"):
        await ServerFinder(found.post, LOOPBACK).run()
    with pytest.raises(RuntimeError, match="without SELFISH_LAN_INTERFACE"):
        EmbeddedServer(":memory:", announce="X", lan_interfaces=LOOPBACK).start()
    monkeypatch.setenv("SELFISH_LAN_INTERFACE", "127.0.0.1")
    with pytest.raises(pytest.fail.Exception, match="not loopback only"):
        await ServerFinder(found.post, None).run()  # every interface
    # This test expected its violations: take them back, so the guard's teardown passes.
    assert len(lan_on_loopback.violations) == 3
    del lan_on_loopback.violations[-3:]


def test_selfish_server_announce_is_found_and_withdrawn() -> None:
    """The standalone server: `selfish-server --announce`, as an operator runs it."""
    assert os.environ["SELFISH_LAN_INTERFACE"] == "127.0.0.1"  # inherited by the process
    name = unique("Standalone")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--announce",
            "--lan-name",
            name,
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--db",
            ":memory:",
            "--log-level",
            "WARNING",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        lines = [process.stderr.readline() for _ in range(2)]
        assert f"announced on the LAN as {name!r}" in "".join(lines), lines
        port = int(next(line for line in lines if "listening" in line).rsplit(":", 1)[1].strip())

        async def look() -> None:
            found = Found()
            task = asyncio.create_task(ServerFinder(found.post, LOOPBACK).run())
            try:
                await found.until(lambda: found.named(name) is not None)
                assert getattr(found.named(name), "port", None) == port
                process.send_signal(signal.SIGTERM)
                await found.until(lambda: found.named(name) is None)
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

        asyncio.run(look())
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
