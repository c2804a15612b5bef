"""Nothing the server sends is a sentence: every string on the wire is a key, a code or an id,
except the free text people typed (names, chat lines) and an error's operator detail."""

from __future__ import annotations

import re
from typing import Any

from tests.server.harness import Harness

#: Keys whose strings are free text: what people typed (names), the server's name, a token.
FREE_TEXT = {"name", "names", "winner_name", "host", "server", "token"}
#: ... and by message type: a chat line, an error's English detail for operators.
FREE_IN = {"chat": {"text"}, "error": {"message"}}
#: What every other string on the wire looks like: a key, a code, an id, a room code.
WORDLESS = re.compile(r"[a-z0-9_.]+|[A-Z]{4,12}|V\d+|[NESW]|p[0-9a-f]+")


def strings(value: Any, key: str = "") -> list[tuple[str, str]]:
    """Every (key, string) in ``value``, nested maps and lists included."""
    if isinstance(value, str):
        return [(key, value)]
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in strings(v, k)]
    if isinstance(value, list):
        return [pair for item in value for pair in strings(item, key)]
    return []


def test_a_whole_game_with_timeouts_away_seats_and_spectators_sends_no_words() -> None:
    h = Harness()
    ann, ann_p = h.client("Ann")
    cid, cid_p = h.client("Cid")
    create = {
        "type": "create_room",
        "edition": "shipwrecked",
        "seats": 3,
        "bots": 2,
        "bot_level": "basic",
        "timer": 30,
        "autostart": True,
        "seed": 5,
    }
    code = h.request(ann, ann_p, create)["room"]
    h.request(cid, cid_p, {"type": "join_room", "room": code, "as": "spectator"})
    h.request(cid, cid_p, {"type": "chat", "room": code, "text": "Good luck, all of you!"})
    h.request(ann, ann_p, {"type": "list_rooms"})
    room = h.lobby.rooms[code]
    for _ in range(2_000):  # Ann never acts: her timer, then her away seat's bot, decide
        if room.game is not None and room.game.over:
            break
        h.clock.advance(30)
    assert room.game is not None and room.game.over
    h.request(ann, ann_p, {"type": "list_replays"})
    h.request(ann, ann_p, {"type": "get_replay", "game": room.game_id})
    h.request(ann, ann_p, {"type": "act", "room": code, "version": 0, "choice": 0})  # an error
    seen = {m["type"] for m in ann.inbox + cid.inbox}
    assert {"joined", "room", "state", "events", "timer", "game_over", "chat"} <= seen
    assert {"rooms", "replays", "replay", "error"} <= seen
    keys = {e["key"] for m in ann.inbox if m["type"] == "events" for e in m["events"]}
    assert {"timeout", "away.idle", "bot"} <= keys
    for message in ann.inbox + cid.inbox:
        free = FREE_TEXT | FREE_IN.get(message["type"], set())
        for key, text in strings(message):
            if key not in free:
                assert WORDLESS.fullmatch(text), (message["type"], key, text)
