"""The SSH gateway: ``selfish-server --ssh-port P`` serves the Textual client to SSH sessions.

* :mod:`server.gateway.server` — the asyncssh server: authentication, identity, limits.
* :mod:`server.gateway.terminal` — one session: a PTY and the bytes pumped through it.
* :mod:`server.gateway.forkserver` / :mod:`server.gateway.spawner` — a process that has imported
  Textual and the client forks one client per session.
* :mod:`server.gateway.link` — the Unix socket through which those clients reach the game.

Importing this package imports nothing heavy: the SSH server loads asyncssh when it starts.
"""
