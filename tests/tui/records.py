"""Finished games as the server's ``replay`` reply and as export files, for the viewer's tests
(seeded engine games played to their end; the tests may import ``server``, the client not)."""

from __future__ import annotations

from typing import Any

from protocol import replay_file
from protocol.replay_file import ReplayFile
from protocol.server_messages import ReplayMessage, read_server
from selfish_tui.plain import clean_message
from selfish_tui.replay import from_reply
from server.engine import RULES_VERSION, Game, digest

from .fixtures import find_game


def replay_message(game: Game, number: int = 12, room: str = "QZKX") -> dict[str, Any]:
    """The ``replay`` reply a server sends for a finished ``game`` (seat 0 human, the rest
    bots)."""
    names = list(game.names)
    return {
        "type": "replay",
        "game": number,
        "room": room,
        "edition": game.edition.value,
        "variants": list(game.variants),
        "seats": [
            {
                "name": name,
                "kind": "human" if seat == 0 else "bot",
                "player": "p0" if seat == 0 else None,
                "level": None if seat == 0 else "basic",
                "left": False,
            }
            for seat, name in enumerate(names)
        ],
        "seed": game.seed,
        "decisions": [[seat, dict(choice)] for seat, choice in game.decisions],
        "winner": game.winner,
        "turns": game.turn,
        "started": 1795859000.0,
        "ended": 1795860000.5,
        "public": True,
        "rated": False,
        "digest": digest(game),
        "rules": RULES_VERSION,
        "ratings": [],
    }


def finished(edition: str = "space", names: list[str] | None = None) -> Game:
    """The first seeded game of ``edition`` played to its end."""
    return find_game(edition, None, names=names)


def record_of(game: Game, server: str | None = "127.0.0.1:7777") -> ReplayFile:
    """``game``'s record as the client holds it."""
    # As the client library hands it over: read, its strings cleaned.
    reply = read_server(clean_message(replay_message(game)))
    assert isinstance(reply, ReplayMessage)
    return from_reply(reply, server)


def file_text(game: Game) -> str:
    """``game`` as an export file."""
    return replay_file.write(record_of(game))
