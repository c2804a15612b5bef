"""The SSH gateway: ``selfish-server --ssh-port P`` serves the Textual client to SSH sessions.

* :mod:`server.gateway.server` — the asyncssh server: authentication, identity, limits.
* :mod:`server.gateway.terminal` — one session: a PTY and the bytes pumped through it.
* :mod:`server.gateway.spawner` — starts the client's fork server (``python -m
  selfish_tui.forkserver``, a program: the gateway never imports the client) and asks it for
  one client per session.
* :mod:`server.gateway.link` — the Unix socket through which those clients reach the game.

It may import ``server.net``, ``server.limits``, ``server.config`` and ``protocol``. Importing
this package imports nothing heavy: the SSH server loads asyncssh when it starts.
"""
