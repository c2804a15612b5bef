"""Selfish server: the pure rules engine (``server.engine``) and the asyncio shell around it.

The packages, lowest first; each may import only those before it (and ``protocol``): ``engine`` (the
rules), ``bots``, ``limits`` (rate limits, address groups), ``store`` (the database), ``rooms`` (one
game and its members), ``cluster`` (room leases and the other nodes, on PostgreSQL), ``lobby``
(players and requests), ``net`` (the TCP front end), ``gateway``
(SSH). The top-level modules are the whole server: ``config`` (which any package may import),
``errorlog`` and ``memory`` (the lobby's), and ``cli``, ``admin`` and ``announce`` (which none
imports). This package module imports nothing heavy, so ``import server.engine`` never loads asyncio
code.
"""
