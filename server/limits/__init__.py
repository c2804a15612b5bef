"""Limits on what a client may ask: token buckets (``bucket``), the buckets kept per address and
per identity (``ratelimit``), and the address group those count (``addresses``, an IPv6 client
as its /64). Pure bookkeeping, no I/O; it may import only ``server.config``. Used by the lobby,
the TCP front end (``server.net``), the SSH gateway and ``server.errorlog``.
"""
