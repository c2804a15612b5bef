"""The gateway's limits, with an injected clock."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from server.config import ServerConfig
from server.gateway.admission import Admission, Buckets
from server.gateway.server import Connection
from server.gateway.terminal import Goto, Resume, parse_command


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_connections_are_limited_per_address_and_sessions_in_total() -> None:
    admission = Admission(2, 2, 1.0, 1, 5.0)
    assert admission.admit("a") is None
    assert admission.admit("a") is None
    assert admission.admit("a") == "too many SSH sessions from your address"
    assert admission.admit("b") is None  # connections alone take no session slot
    assert admission.claim_session() is None
    assert admission.claim_session() is None
    assert admission.claim_session() == "the server has as many SSH players as it can take"
    admission.release_session()
    assert admission.claim_session() is None
    admission.release("a")
    assert admission.admit("a") is None
    admission.release("b")
    assert "b" not in admission.per_address


def test_handshakes_are_paced_per_address_and_logins_capped() -> None:
    clock = Clock()
    admission = Admission(
        10,
        10,
        1.0,
        1,
        5.0,
        clock=clock,
        max_logins=3,
        handshakes_per_second=1.0,
        handshake_burst=2,
    )
    assert admission.handshake("a") is None
    assert admission.handshake("a") is None
    assert admission.handshake("a") == "too many new connections from the address"
    assert admission.handshake("b") is None
    assert admission.handshake("c") == "too many logins in progress"  # three still logging in
    admission.logged_in()
    assert admission.handshake("c") is None
    clock.now = 1.0
    admission.logged_in()
    assert admission.handshake("a") is None  # one refilled a second later


def test_buckets_forget_full_addresses_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.gateway import admission as module

    monkeypatch.setattr(module, "MAX_TRACKED_ADDRESSES", 3)
    clock = Clock()
    buckets = Buckets(1.0, 2, clock)
    for address in "abc":
        assert buckets.allow(address)
    clock.now = 5.0
    assert buckets.allow("d")  # past the cap: the refilled ones are forgotten
    assert len(buckets._levels) == 1


def test_starts_past_the_burst_queue_at_the_rate_then_are_refused() -> None:
    clock = Clock()
    admission = Admission(100, 100, 2.0, 2, 1.0, clock=clock)
    assert admission.start_delay() == 0.0
    assert admission.start_delay() == 0.0
    assert admission.start_delay() == pytest.approx(0.5)  # one refill at 2 a second
    assert admission.start_delay() == pytest.approx(1.0)
    assert admission.start_delay() is None  # would wait 1.5 s > max_wait: refused
    clock.now = 10.0
    assert admission.start_delay() == 0.0  # refilled (never past the burst)
    assert admission.start_delay() == 0.0
    assert admission.start_delay() == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("command", "goto"),
    [
        ("", None),
        (None, None),
        ("join abcd", Goto("join", "ABCD")),
        ("  WATCH  QZKX ", Goto("watch", "QZKX")),
        ("resume k7m2-x9qp-4hwd-r3tf", Resume("k7m2-x9qp-4hwd-r3tf")),
        ("replay 12", Goto("replay", "12")),
        ("REPLAY 0012 5", Goto("replay", "12", 5)),
    ],
)
def test_commands(command: str | None, goto: Goto | None) -> None:
    assert parse_command(command) == goto


@pytest.mark.parametrize(
    "command",
    [
        "join",
        "join ABC",
        "join AB1D",
        "shell",
        "watch ABCD x",
        "replay",
        "replay x",
        "replay 1 2 3",
    ],
)
def test_bad_commands(command: str) -> None:
    with pytest.raises(ValueError):
        parse_command(command)


def test_refused_connections_kept_open_are_few_per_address() -> None:
    admission = Admission(1, 1, 1.0, 1, 5.0)
    assert admission.admit("a") is None
    assert admission.admit("a") is not None
    assert admission.refuse("a") and admission.refuse("a")
    assert not admission.refuse("a")  # dropped before key exchange
    assert admission.refuse("b")
    admission.forget_refused("a")
    assert admission.refuse("a")


class FakeSSH:
    """What Connection.connection_made reads of an asyncssh connection."""

    def __init__(self, peer: str) -> None:
        self.info = {"peername": (peer, 50000), "sockname": ("::1", 2222)}
        self.aborted = False

    def get_extra_info(self, name: str) -> Any:
        return self.info[name]

    def abort(self) -> None:
        self.aborted = True


def test_an_ipv6_network_counts_as_one_address() -> None:
    """Two addresses of one /64 share the per-address limits; another /64 does not."""
    admission = Admission(8, 1, 100.0, 100, 5.0)  # one connection per address
    gateway = SimpleNamespace(admission=admission, config=ServerConfig())
    first, second, other = (Connection(gateway) for _ in range(3))  # type: ignore[arg-type]
    first.connection_made(FakeSSH("2001:db8:1:2::10"))  # type: ignore[arg-type]
    second.connection_made(FakeSSH("2001:db8:1:2:ffff::99"))  # type: ignore[arg-type]
    other.connection_made(FakeSSH("2001:db8:1:3::10"))  # type: ignore[arg-type]
    assert first.refused is None and other.refused is None
    assert second.refused == "too many SSH sessions from your address"
    assert set(admission.per_address) == {"2001:db8:1:2::/64", "2001:db8:1:3::/64"}
