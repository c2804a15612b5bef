"""The server's memory across restarts: the database connection (``database``, SQLite or
PostgreSQL), its tables (``schema``), the :class:`~server.store.store.Store` every decision is
committed to, the rows read back (``records``), what is kept for how long (``retention``), a
room's event log (``history``), players' identity tokens (``tokens``), and players' records
and ratings (``standings``, by the pure rules of ``ratings``). It may import
``server.engine``, ``server.config`` and ``protocol``, never rooms, lobby or the network.
"""
