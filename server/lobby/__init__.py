"""The lobby: players and their identities (``players``), the :class:`~server.lobby.lobby.Lobby`
that holds every room and connection, and the handler of each request (``handlers``; those
about finished games, records, ratings and review in ``finished_games``). It may import
``server.cluster``, ``server.rooms``, ``server.store``, ``server.limits``, the top-level
``server.config``, ``server.errorlog`` and ``server.memory``, and ``protocol``; it talks to
connections only through :class:`~server.lobby.players.Connection`, so it never imports
``server.net``.
"""
