"""The TCP front end: the listener that assembles store, lobby and outbox (``tcp``), one client
connection through the sans-IO decoder (``session``) and the per-tick group commit and output
batching (``outbox``). It may import ``server.lobby``, ``server.rooms``, ``server.store``,
``server.limits``, ``server.config`` and ``protocol``; only ``server.gateway`` and the top-level
``cli`` and ``announce`` import it.
"""
