"""Finding Selfish servers on the LAN: an asynchronous DNS-SD browser (python-zeroconf).

:class:`ServerFinder` runs as a Textual worker on the app's event loop: every network step is
awaited, so the interface never waits for the network. It posts :class:`ServersChanged` whenever
the set of servers (or their player and room counts) changes, and :class:`DiscoveryProblem` when
browsing is impossible (no network, no multicast): the screen then says so and the player types
an address instead. Records that are not a well-formed Selfish announcement (protocol/lan.py) are
left out without a word.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from textual.message import Message

from protocol.lan import SERVICE_TYPE, LanServer, Network, parse_service

# How long one service's details (address, TXT) may take to arrive.
RESOLVE_MS = 3000
# zeroconf logs what it thinks of other programs' packets; none of it is the player's concern,
# and a log line on the terminal would tear through the interface.
logging.getLogger("zeroconf").addHandler(logging.NullHandler())
logging.getLogger("zeroconf").propagate = False


class ServersChanged(Message):
    """The servers found so far, sorted by name."""

    def __init__(self, servers: list[LanServer]) -> None:
        self.servers = servers
        super().__init__()


class DiscoveryProblem(Message):
    """Browsing the LAN is impossible; ``reason`` says why, in a few words."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__()


def local_networks() -> list[Network]:
    """The networks this machine is on (to prefer a server's address on one of them)."""
    try:
        import ifaddr

        adapters = ifaddr.get_adapters()
    except Exception:  # no way to list interfaces: any address will do
        return []
    networks: list[Network] = []
    for adapter in adapters:
        for ip in adapter.ips:
            host = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                networks.append(ipaddress.ip_network(f"{host}/{ip.network_prefix}", strict=False))
    return networks


class ServerFinder:
    """Browses for ``_selfish._tcp`` on the chosen interfaces (None: every interface)."""

    def __init__(self, post: Callable[[Message], Any], interfaces: list[str] | None) -> None:
        self.post = post
        self.interfaces = interfaces
        self.servers: dict[str, LanServer] = {}
        self._resolving: set[asyncio.Task[None]] = set()
        self._networks: list[Network] = []

    async def run(self) -> None:
        """Browse until cancelled. Never raises for a network problem: it posts one."""
        try:
            from zeroconf import DNSQuestionType, IPVersion
            from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf
        except ImportError:
            self.post(DiscoveryProblem("python-zeroconf is not installed"))
            return
        self._networks = local_networks()
        versions = {ipaddress.ip_address(a).version for a in self.interfaces or []}
        version = (
            IPVersion.V6Only
            if versions == {6}
            else IPVersion.All
            if 6 in versions
            else IPVersion.V4Only
        )
        try:
            if self.interfaces:
                zeroconf = AsyncZeroconf(interfaces=self.interfaces, ip_version=version)
            else:
                zeroconf = AsyncZeroconf(ip_version=version)
        except Exception as exc:  # no interface, no multicast route, address not ours, ...
            self.post(DiscoveryProblem(_plain(exc)))
            return
        browser = None
        try:
            # Multicast answers from the first query on (QM): a unicast answer (QU, zeroconf's
            # default first question) reaches only one of the mDNS sockets of a machine that runs
            # several, such as the host's own client, and the list then waits a second longer.
            browser = AsyncServiceBrowser(
                zeroconf.zeroconf,
                [SERVICE_TYPE],
                handlers=[self._on_change],
                question_type=DNSQuestionType.QM,
            )
            await asyncio.Event().wait()  # until cancelled
        except Exception as exc:
            self.post(DiscoveryProblem(_plain(exc)))
        finally:
            for task in list(self._resolving):
                task.cancel()
            with contextlib.suppress(Exception):
                if browser is not None:
                    await browser.async_cancel()
            with contextlib.suppress(Exception):
                await zeroconf.async_close()

    def _on_change(self, zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        # Called by zeroconf on our loop: no awaiting here, the details are fetched in a task.
        if state_change.name == "Removed":
            if self.servers.pop(name, None) is not None:
                self._changed()
            return
        task = asyncio.get_running_loop().create_task(self._resolve(zeroconf, name))
        self._resolving.add(task)
        task.add_done_callback(self._resolving.discard)

    async def _resolve(self, zeroconf: Any, name: str) -> None:
        from zeroconf.asyncio import AsyncServiceInfo

        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zeroconf, RESOLVE_MS):
                return
            server = parse_service(
                name, info.parsed_addresses(), info.port, info.properties or {}, self._networks
            )
        except Exception:  # a garbled record from someone else's program
            server = None
        if server is None:
            # Malformed now: forget what it said before, so nothing stale is joined.
            if self.servers.pop(name, None) is not None:
                self._changed()
            return
        if self.servers.get(name) != server:
            self.servers[name] = server
            self._changed()

    def _changed(self) -> None:
        self.post(ServersChanged(sorted(self.servers.values(), key=lambda s: (s.name, s.key))))


def _plain(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def looks_like_address(text: str) -> bool:
    """Whether `selfish connect TEXT` names an address rather than a server on the LAN: an IP
    address, anything with a port or a dot (a DNS name), ``localhost``, or a Unix socket's path
    (starting with ``/``, as the SSH gateway's clients are given)."""
    text = text.strip()
    # IPv4 addresses have dots, IPv6 ones colons.
    return text.startswith(("[", "/")) or ":" in text or "." in text or text.lower() == "localhost"
