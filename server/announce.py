"""Announcing a running server on the LAN (DNS-SD over mDNS, with python-zeroconf).

Used by ``selfish-server --announce`` and by ``selfish host`` (through selfish_tui/local.py)::

    announcer = Announcer(running, "Ann", interfaces=["127.0.0.1"])
    await announcer.start()     # registered; announcer.addresses are what others can type
    ...
    await announcer.stop()      # says goodbye, so browsers drop the server at once

While it runs, the TXT record (protocol/lan.py) follows the lobby: the number of connected
players and of public rooms waiting for players, checked every second and re-announced only when
they change.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket

import ifaddr
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from protocol.lan import SERVICE_TYPE, Announcement, instance_name
from server.net.tcp import RunningServer
from server.rooms.room import Status

log = logging.getLogger("selfish.server")

UPDATE_EVERY = 1.0  # seconds between looks at the lobby's counts


def ip_version(interfaces: list[str] | None) -> IPVersion:
    """IPv4 unless IPv6 interfaces are named: LAN parties are IPv4, and IPv6 link-local
    addresses would need a scope the client cannot type."""
    if not interfaces:
        return IPVersion.V4Only
    versions = {ipaddress.ip_address(a).version for a in interfaces}
    if versions == {6}:
        return IPVersion.V6Only
    return IPVersion.All if 6 in versions else IPVersion.V4Only


def machine_addresses() -> list[str]:
    """This machine's IPv4 addresses, those others can reach first (loopback last)."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str) and ip.ip not in found:
                found.append(ip.ip)
    return sorted(found, key=lambda a: ipaddress.ip_address(a).is_loopback)


def reachable_addresses(bind_host: str, interfaces: list[str] | None) -> list[str]:
    """The addresses a server bound to ``bind_host`` is reachable at on the chosen interfaces:
    what it announces and what ``selfish host`` shows to those who type an address."""
    if bind_host not in ("", "0.0.0.0", "::"):
        return [bind_host]
    if interfaces:
        return list(interfaces)
    found = machine_addresses()
    outside = [a for a in found if not ipaddress.ip_address(a).is_loopback]
    return outside or found or ["127.0.0.1"]


def counts(running: RunningServer) -> tuple[int, int]:
    """(connected players, public rooms waiting for players) of a running server."""
    lobby = running.lobby
    players = sum(1 for p in lobby.players.values() if p.connection is not None)
    rooms = sum(
        1
        for r in lobby.rooms.values()
        if r.public and r.status == Status.WAITING and r.table.filled() < r.size
    )
    return players, rooms


def _host_label() -> str:
    """A DNS host label of our own (``selfish-<hostname>``): not the machine's own name, which
    another mDNS responder (Avahi) on it may already answer for."""
    label = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().lower()).strip("-")
    return f"selfish-{label or 'host'}"[:50]


class Announcer:
    """Announces one running server under a name, on the chosen interfaces (None: every one)."""

    def __init__(
        self, running: RunningServer, name: str, interfaces: list[str] | None = None
    ) -> None:
        self.running = running
        self.name = name
        self.interfaces = interfaces
        self.addresses = reachable_addresses(running.config.host, interfaces)
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._counts = (0, 0)
        self._task: asyncio.Task[None] | None = None

    def _service(self, service_name: str, players: int, rooms: int) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            service_name,
            addresses=[ipaddress.ip_address(a).packed for a in self.addresses],
            port=self.running.port,
            properties=Announcement(self.name, players, rooms).txt(),
            server=f"{_host_label()}-{self.running.port}.local.",
        )

    async def start(self) -> None:
        """Register the service (raises OSError or a zeroconf error if that is impossible)."""
        self._counts = counts(self.running)
        wanted = f"{instance_name(self.name)}.{SERVICE_TYPE}"
        info = self._service(wanted, *self._counts)
        if self.interfaces:
            zeroconf = AsyncZeroconf(
                interfaces=self.interfaces, ip_version=ip_version(self.interfaces)
            )
        else:
            zeroconf = AsyncZeroconf(ip_version=ip_version(None))
        try:
            # Another server under the same name gets " (2)" and so on rather than a refusal.
            # The outer await probes for the name; the inner one sends the announcements.
            await (await zeroconf.async_register_service(info, allow_name_change=True))
        except BaseException:
            await zeroconf.async_close()
            raise
        self._zeroconf, self._info = zeroconf, info
        self._task = asyncio.create_task(self._follow())
        log.info(
            "announced on the LAN as %r (%s) at %s",
            self.name,
            ", ".join(self.interfaces or ["every interface"]),
            ", ".join(f"{a}:{self.running.port}" for a in self.addresses),
        )

    async def _follow(self) -> None:
        """Re-announce when the counts in the TXT record change."""
        while True:
            await asyncio.sleep(UPDATE_EVERY)
            now = counts(self.running)
            if now == self._counts or self._zeroconf is None or self._info is None:
                continue
            self._counts = now
            self._info = self._service(self._info.name, *now)
            try:
                await (await self._zeroconf.async_update_service(self._info))
            except Exception as exc:  # a network hiccup must not stop the server
                log.warning("could not update the LAN announcement: %s", exc)

    async def stop(self) -> None:
        """Withdraw the announcement and close the mDNS sockets."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is None:
            return
        with contextlib.suppress(Exception):
            if self._info is not None:
                # The outer await removes it; the inner one waits for the goodbye packets,
                # which closing at once would cancel (browsers would then keep it for minutes).
                await (await zeroconf.async_unregister_service(self._info))
        await zeroconf.async_close()
