"""LAN discovery, sans-IO: the DNS-SD service a Selfish server announces and how to read it.

A server on the local network announces the service type :data:`SERVICE_TYPE` over mDNS with a
TXT record built by :meth:`Announcement.txt`::

    txtvers=1  name=Ann  protocol=1  players=3  rooms=1

``name`` is the server's name (what ``selfish connect NAME`` looks for), ``protocol`` the wire
protocol it speaks, ``players`` how many players are connected and ``rooms`` how many public
rooms wait for players. The announcing and browsing themselves (python-zeroconf) live in
``server/announce.py`` and ``selfish_tui/discovery.py``; this module only builds, validates and
chooses, so both sides agree on one definition and the validation can be tested without sockets.

Everything read from the network is hostile: :func:`parse_txt` and :func:`parse_service` return
``None`` for any record that is not exactly what a Selfish server sends (another program using the
same type, a truncated or garbled record), never raise.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from protocol.messages import PROTOCOL_VERSION

#: The DNS-SD service type (python-zeroconf spells it fully qualified, with ``.local.``).
SERVICE_TYPE = "_selfish._tcp.local."
#: The environment variable naming the interfaces to announce and browse on (comma-separated).
INTERFACES_VARIABLE = "SELFISH_LAN_INTERFACE"
TXT_VERSION = "1"
MAX_SERVER_NAME = 40
# A DNS label (the service instance name) is at most 63 bytes.
MAX_INSTANCE_BYTES = 63
# Counts above this are not believable from a LAN server (and keep the columns narrow).
MAX_COUNT = 999_999
TXT_KEYS = ("txtvers", "name", "protocol", "players", "rooms")


def check_server_name(text: str) -> str:
    """The cleaned server name, or ValueError: 1-40 printable characters, not only spaces."""
    cleaned = text.strip()
    if not 1 <= len(cleaned) <= MAX_SERVER_NAME or not cleaned.isprintable():
        raise ValueError(f"a server name is 1-{MAX_SERVER_NAME} printable characters")
    return cleaned


@dataclass(frozen=True)
class Announcement:
    """What a server says about itself in its TXT record."""

    name: str
    players: int = 0
    open_rooms: int = 0
    protocol: int = PROTOCOL_VERSION

    def txt(self) -> dict[str, str]:
        """The TXT record's key/value pairs."""
        return {
            "txtvers": TXT_VERSION,
            "name": self.name,
            "protocol": str(self.protocol),
            "players": str(min(self.players, MAX_COUNT)),
            "rooms": str(min(self.open_rooms, MAX_COUNT)),
        }


def instance_name(server_name: str) -> str:
    """The DNS-SD instance label for a server name: dots (label separators) become spaces, and
    it is cut to 63 bytes of UTF-8 without splitting a character."""
    label = server_name.replace(".", " ").strip() or "Selfish"
    data = label.encode("utf-8")[:MAX_INSTANCE_BYTES]
    return data.decode("utf-8", errors="ignore").strip() or "Selfish"


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def _count(value: str | None) -> int | None:
    # str.isdigit accepts other scripts' digits and superscripts; only ASCII 0-9 is a number here.
    if value is None or not 1 <= len(value) <= 6 or not all("0" <= ch <= "9" for ch in value):
        return None
    return int(value)


def parse_txt(
    properties: Mapping[bytes, bytes | None] | Mapping[str, str | None],
) -> Announcement | None:
    """The announcement in a TXT record, or None unless every field is well formed."""
    fields: dict[str, str] = {}
    for key, value in properties.items():
        name, text = _text(key), _text(value)
        if name is None or text is None:
            if name in TXT_KEYS:
                return None  # a field we need without a usable value
            continue  # other keys (later versions may add some) are not ours to judge
        fields[name.lower()] = text
    if fields.get("txtvers") != TXT_VERSION:
        return None
    try:
        name = check_server_name(fields.get("name", ""))
    except ValueError:
        return None
    protocol = _count(fields.get("protocol"))
    players = _count(fields.get("players"))
    rooms = _count(fields.get("rooms"))
    if protocol is None or players is None or rooms is None:
        return None
    return Announcement(name, players, rooms, protocol)


@dataclass(frozen=True)
class LanServer:
    """A Selfish server found on the LAN."""

    key: str  # the DNS-SD service name: unique on the network
    name: str
    host: str
    port: int
    players: int
    open_rooms: int
    protocol: int

    @property
    def address(self) -> str:
        """``host:port`` as `selfish connect` takes it (IPv6 in brackets)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def compatible(self) -> bool:
        """Whether this client can talk to it."""
        return self.protocol == PROTOCOL_VERSION


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def pick_address(addresses: Iterable[str], local: Sequence[Network] = ()) -> str | None:
    """The address to connect to among those a server announces: one on a network this machine
    is on (``local``) first, then any IPv4, then any IPv6 but link-local (which needs a scope);
    None if none is a valid address."""
    parsed: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for text in addresses:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue
        if not (address.is_unspecified or address.is_multicast):
            parsed.append(address)

    def rank(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> int:
        if any(address.version == net.version and address in net for net in local):
            return 0
        if address.version == 4:
            return 1
        return 3 if address.is_link_local else 2

    usable = [a for a in parsed if rank(a) < 3]
    return str(min(usable, key=rank)) if usable else None


def parse_service(
    key: str,
    addresses: Iterable[str],
    port: object,
    properties: Mapping[bytes, bytes | None] | Mapping[str, str | None],
    local: Sequence[Network] = (),
) -> LanServer | None:
    """A found service as a :class:`LanServer`, or None if anything about it is malformed."""
    announcement = parse_txt(properties)
    if announcement is None or not isinstance(port, int) or not 0 < port < 65536:
        return None
    host = pick_address(addresses, local)
    if host is None or not key.endswith("." + SERVICE_TYPE):
        return None
    return LanServer(
        key,
        announcement.name,
        host,
        port,
        announcement.players,
        announcement.open_rooms,
        announcement.protocol,
    )


def choose_interfaces(flags: Sequence[str], environment: str | None) -> list[str] | None:
    """The interface addresses to announce and browse on: ``--lan-interface`` flags if given,
    else the comma-separated :data:`INTERFACES_VARIABLE`, else None (every interface).
    Raises ValueError naming the first entry that is not an interface address."""
    entries = list(flags) or [e for e in (environment or "").split(",") if e.strip()]
    if not entries:
        return None
    chosen: list[str] = []
    for entry in entries:
        text = entry.strip()
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            raise ValueError(f"{text!r} is not an IP address of an interface") from None
        if address.is_unspecified or address.is_multicast:
            raise ValueError(f"{text!r} is not the address of one interface")
        if str(address) not in chosen:
            chosen.append(str(address))
    return chosen


def matching(servers: Iterable[LanServer], wanted: str) -> list[LanServer]:
    """The servers called ``wanted`` (case and surrounding spaces ignored)."""
    target = wanted.strip().casefold()
    return [s for s in servers if s.name.casefold() == target]
