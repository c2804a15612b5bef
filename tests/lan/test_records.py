"""protocol/lan.py: the TXT record both sides share, and what a found service may be."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.lan import (
    SERVICE_TYPE,
    Announcement,
    LanServer,
    choose_interfaces,
    instance_name,
    matching,
    parse_service,
    parse_txt,
    pick_address,
)
from selfish_tui.discovery import looks_like_address

KEY = "Ann." + SERVICE_TYPE


def as_bytes(txt: dict[str, str]) -> dict[bytes, bytes | None]:
    """A TXT record as python-zeroconf hands it over."""
    return {k.encode(): v.encode() for k, v in txt.items()}


def test_a_record_reads_back_as_it_was_built() -> None:
    announcement = Announcement("Zoë's table", players=3, open_rooms=2)
    assert parse_txt(as_bytes(announcement.txt())) == announcement
    assert parse_txt(announcement.txt()) == announcement


def good() -> dict[str, str]:
    return Announcement("Ann", 1, 1).txt()


@pytest.mark.parametrize(
    "change",
    [
        {"txtvers": "2"},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 41},
        {"name": "evil\x1b[2J"},
        {"name": "[bold]fine[/]\x07"},
        {"players": "-1"},
        {"players": "three"},
        {"players": "\uff11\uff12"},  # fullwidth digits: isdigit() says yes, we say no
        {"players": "1234567"},
        {"rooms": ""},
        {"protocol": "1.0"},
    ],
)
def test_malformed_fields_reject_the_record(change: dict[str, str]) -> None:
    assert parse_txt({**good(), **change}) is None


@pytest.mark.parametrize("missing", ["txtvers", "name", "protocol", "players", "rooms"])
def test_a_missing_field_rejects_the_record(missing: str) -> None:
    txt = good()
    del txt[missing]
    assert parse_txt(txt) is None


def test_undecodable_or_valueless_fields_reject_the_record() -> None:
    raw = as_bytes(good())
    assert parse_txt({**raw, b"name": b"\xff\xfe"}) is None
    assert parse_txt({**raw, b"players": None}) is None
    # Keys that are not ours are ignored, whatever they hold.
    assert parse_txt({**raw, b"extra": b"\xff", b"\xff": b"x", b"flag": None}) is not None


@given(st.dictionaries(st.binary(max_size=12), st.none() | st.binary(max_size=50), max_size=8))
def test_any_record_parses_or_is_rejected_without_error(record: dict[bytes, bytes | None]) -> None:
    result = parse_txt(record)
    assert result is None or result.name.isprintable()


def test_a_service_needs_a_port_an_address_and_our_type() -> None:
    txt = as_bytes(good())
    server = parse_service(KEY, ["127.0.0.1"], 7777, txt)
    assert server == LanServer(KEY, "Ann", "127.0.0.1", 7777, 1, 1, 2)
    assert server.address == "127.0.0.1:7777" and server.compatible
    assert parse_service(KEY, ["127.0.0.1"], None, txt) is None
    assert parse_service(KEY, ["127.0.0.1"], 0, txt) is None
    assert parse_service(KEY, ["127.0.0.1"], 70000, txt) is None
    assert parse_service(KEY, [], 7777, txt) is None
    assert parse_service(KEY, ["not-an-ip", "0.0.0.0", "224.0.0.251"], 7777, txt) is None
    assert parse_service("Ann._other._tcp.local.", ["127.0.0.1"], 7777, txt) is None


def test_another_protocol_is_listed_but_not_compatible() -> None:
    txt = {**good(), "protocol": "3"}
    server = parse_service(KEY, ["::1"], 7777, txt)
    assert server is not None and not server.compatible and server.address == "[::1]:7777"


def test_the_address_on_our_network_is_preferred() -> None:
    local = [ipaddress.ip_network("10.1.0.0/16")]
    addresses = ["fe80::1", "2001:db8::5", "172.17.0.1", "10.1.2.3"]
    assert pick_address(addresses, local) == "10.1.2.3"
    assert pick_address(addresses) == "172.17.0.1"
    assert pick_address(["fe80::1", "2001:db8::5"]) == "2001:db8::5"
    assert pick_address(["fe80::1"]) is None  # link-local needs a scope nobody can type


def test_instance_names_are_one_dns_label() -> None:
    assert instance_name("Ann's game") == "Ann's game"
    assert instance_name("v1.2 party") == "v1 2 party"
    long = instance_name("é" * 40)
    assert len(long.encode()) <= 63 and set(long) == {"é"}
    assert instance_name("...") == "Selfish"


def test_interfaces_come_from_flags_then_the_variable() -> None:
    assert choose_interfaces([], None) is None
    assert choose_interfaces([], " , ") is None
    assert choose_interfaces([], "127.0.0.1, ::1") == ["127.0.0.1", "::1"]
    assert choose_interfaces(["127.0.0.1"], "10.0.0.1") == ["127.0.0.1"]
    assert choose_interfaces(["127.0.0.1", "127.0.0.1"], None) == ["127.0.0.1"]
    for bad in (["eth0"], ["0.0.0.0"], ["224.0.0.251"]):
        with pytest.raises(ValueError):
            choose_interfaces(bad, None)


def test_servers_are_matched_by_name_ignoring_case() -> None:
    ann = LanServer(KEY, "Ann", "127.0.0.1", 1, 0, 0, 2)
    bob = LanServer("Bob." + SERVICE_TYPE, "Bob", "127.0.0.1", 2, 0, 0, 2)
    assert matching([ann, bob], " ann ") == [ann]
    assert matching([ann, bob], "Carol") == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("192.168.1.20", True),
        ("192.168.1.20:7777", True),
        ("[::1]:7777", True),
        ("::1", True),
        ("games.example.org", True),
        ("localhost", True),
        ("ann:7777", True),
        ("Ann", False),
        ("Ann's game", False),
    ],
)
def test_connect_tells_addresses_from_server_names(text: str, address: bool) -> None:
    assert looks_like_address(text) is address
