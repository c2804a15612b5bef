"""Bots and the programs built on them: bot levels, engine self-play, ``selfish simulate`` and
the headless protocol client ``selfish bot``. Bots see only their seat's view."""
