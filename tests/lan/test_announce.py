"""server/announce.py without the network: which addresses a server is announced at."""

from __future__ import annotations

import ipaddress

from zeroconf import IPVersion

from server.announce import ip_version, machine_addresses, reachable_addresses


def test_a_server_bound_to_one_address_is_announced_at_it() -> None:
    assert reachable_addresses("10.0.0.5", None) == ["10.0.0.5"]
    assert reachable_addresses("127.0.0.1", ["127.0.0.1"]) == ["127.0.0.1"]


def test_a_server_on_every_interface_is_announced_at_the_chosen_ones() -> None:
    assert reachable_addresses("0.0.0.0", ["127.0.0.1"]) == ["127.0.0.1"]
    assert reachable_addresses("", ["127.0.0.1", "::1"]) == ["127.0.0.1", "::1"]


def test_without_a_choice_the_machine_s_outside_addresses_come_first() -> None:
    found = machine_addresses()
    assert "127.0.0.1" in found and found[-1] == "127.0.0.1"
    assert all(ipaddress.ip_address(a).version == 4 for a in found)
    announced = reachable_addresses("0.0.0.0", None)
    outside = [a for a in found if a != "127.0.0.1"]
    assert announced == (outside or ["127.0.0.1"])


def test_ipv6_only_when_ipv6_interfaces_are_named() -> None:
    assert ip_version(None) is IPVersion.V4Only
    assert ip_version(["127.0.0.1"]) is IPVersion.V4Only
    assert ip_version(["::1"]) is IPVersion.V6Only
    assert ip_version(["127.0.0.1", "::1"]) is IPVersion.All
