"""One room and its game: the :class:`~server.rooms.room.Room`, its seats and spectators, what
it sends them (``outgoing``, ``wire``, ``room_list``, ``presence``), its clocks (``scheduler``,
``clock``, ``grace``), the bots that step in (``autoplay``), its status table, when it closes
(``vacancy``, ``idle_rooms``), how it is rebuilt from the store (``restore``), and the shared
review of its finished game (``review``). It may import
``server.engine``, ``server.bots``, ``server.store``, ``server.config`` and ``protocol``; it
knows nothing of the lobby or of connections beyond the small protocols it declares.
"""
