"""The address a client's per-address limits count: its IP address, or for IPv6 its network.

One customer of a hosting provider gets a whole IPv6 /64 (2^64 addresses): limits kept per
address would give them as many quotas as they care to use. So an IPv6 address counts as its
network of ``ipv6_prefix`` bits (default /64, ``ServerConfig.ipv6_prefix``); an IPv4 address,
and an IPv4 address mapped into IPv6 (``::ffff:192.0.2.1``), count as themselves.
"""

from __future__ import annotations

import ipaddress


def address_group(ip: str, ipv6_prefix: int = 64) -> str:
    """The key the per-address limits count ``ip`` under: ``ip`` itself for IPv4, the
    network (``2001:db8::/64``) for IPv6; anything that is no IP address (a Unix socket's
    peer) as it is."""
    try:
        address = ipaddress.ip_address(ip.split("%", 1)[0])  # without a zone ("fe80::1%eth0")
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        prefix = min(max(ipv6_prefix, 0), 128)
        return str(ipaddress.IPv6Network((address, prefix), strict=False))
    return str(address)
