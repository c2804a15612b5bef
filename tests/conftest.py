"""Fixtures for the whole suite: LAN discovery (mDNS multicast) stays on loopback.

On the machines where this project is built and tested, multicast must not leave the machine.
The variable is set at import, before any test runs, so every process the suite starts inherits
it; and every python-zeroconf instance any test creates (ours or not) is checked: one started
without SELFISH_LAN_INTERFACE, or on an interface other than loopback, fails its test.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ["SELFISH_LAN_INTERFACE"] = "127.0.0.1"


def _loopback_only(addresses: Any) -> bool:
    if not isinstance(addresses, list | tuple) or not addresses:
        return False  # InterfaceChoice.All / Default: every interface
    try:
        return all(ipaddress.ip_address(str(a)).is_loopback for a in addresses)
    except ValueError:
        return False


class LanGuard:
    """Records every attempt to start mDNS off loopback (see :func:`lan_on_loopback`)."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def check(self, interfaces: Any) -> None:
        """Refuse (and record) a zeroconf instance that could multicast beyond loopback."""
        variable = os.environ.get("SELFISH_LAN_INTERFACE")
        if variable is None:
            problem = "LAN discovery started without SELFISH_LAN_INTERFACE"
        elif not _loopback_only([a.strip() for a in variable.split(",")]):
            problem = f"SELFISH_LAN_INTERFACE={variable!r} is not loopback only"
        elif not _loopback_only(interfaces):
            problem = f"zeroconf started on {interfaces!r}, not loopback only"
        else:
            return
        self.violations.append(problem)
        pytest.fail(problem)

    def install(self) -> None:
        """Check every python-zeroconf instance made from now on (none if it is missing)."""
        try:
            import zeroconf
        except ImportError:  # nothing can multicast
            return
        original = zeroconf.Zeroconf.__init__
        default = zeroconf.InterfaceChoice.All

        def guarded(zc: Any, interfaces: Any = default, **kwargs: Any) -> None:
            self.check(interfaces)
            original(zc, interfaces=interfaces, **kwargs)

        zeroconf.Zeroconf.__init__ = guarded  # type: ignore[method-assign]


# Installed at import, not per test, so fixtures of any scope are checked too.
LAN_GUARD = LanGuard()
LAN_GUARD.install()


@pytest.fixture(autouse=True)
def lan_on_loopback() -> Iterator[LanGuard]:
    """Fails the test if it started mDNS off loopback, even where the failure raised inside a
    thread or a worker was swallowed there."""
    before = len(LAN_GUARD.violations)
    yield LAN_GUARD
    assert LAN_GUARD.violations[before:] == []


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A PostgreSQL server for the session (see tests/postgres.py; skips, or fails under CI,
    where there is none)."""
    from tests.postgres import postgres_server

    yield from postgres_server()


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database of the test's own."""
    from tests.postgres import fresh_database

    yield from fresh_database(postgres_server_url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A database the store serves, once per engine: a SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    return url
