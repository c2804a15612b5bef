"""The key under which per-address limits count a client: its IP address, or for IPv6 its
network (one host is handed a whole /64 and can pick any address in it)."""

from __future__ import annotations

import ipaddress


def address_group(ip: str, ipv6_prefix: int = 64) -> str:
    """``ip`` itself for IPv4 (and IPv4-mapped IPv6); for IPv6 its ``/ipv6_prefix`` network,
    as ``2001:db8:1:2::/64``. Anything that is not an IP address (a Unix socket's peer, an
    already grouped key) is returned as it is."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return ip
