"""PROTOCOL.md §5's examples have the shape of the frames a real server sends (over TCP)."""

from __future__ import annotations

from typing import Any

from server.net.tcp import RunningServer
from tests.protocol.test_protocol_doc import examples, section
from tests.server.conftest import ClientFactory, ServerFactory, drive

Message = dict[str, Any]
# The lists whose items are maps of a documented shape, by message type.
NESTED = {
    "rooms": "rooms",
    "room": "seats",
    "events": "events",
    "timer": "timers",
    "replays": "games",
    "profile": "editions",
    "review": "members",
}
# Sent only by a node of a cluster (tests/cluster/test_nodes.py checks its example).
CLUSTER_ONLY = {"moved"}


def shape(message: Message) -> dict[str, Any]:
    """The keys of ``message`` (without the request id) with the keys of its first listed map."""
    out: dict[str, Any] = {key: None for key in message if key != "id"}
    inner = NESTED.get(message["type"])
    items = [m for m in message.get(inner, []) if isinstance(m, dict)] if inner else []
    if items:
        out[inner] = sorted(items[0])  # type: ignore[index]
    return out


async def test_documented_server_frames_match_real_ones(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server: RunningServer = await make_server(timer_scale=0.004)
    ann = await connect(server.port, "Ann")
    joined = await ann.request(
        {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "timer": 30}
    )
    code = joined["room"]
    cid = await connect(server.port, "Cid")
    await cid.request({"type": "join_room", "room": code, "as": "spectator"})
    await ann.request({"type": "list_rooms"})
    await ann.request({"type": "ping"})
    await ann.request({"type": "chat", "room": code, "text": "good luck, everyone"})
    await ann.request({"type": "start", "room": code})
    await ann.request({"type": "act", "room": code, "version": -1, "choice": {"do": "x"}})
    over = await drive(ann, code)
    await ann.request({"type": "list_replays"})
    await ann.request({"type": "get_replay", "game": over["game"]})
    await ann.request({"type": "get_profile"})
    await ann.request({"type": "get_leaderboard", "edition": "space"})
    await ann.request({"type": "review_join", "room": code})
    again = await connect(server.port)
    await again.hello("Ann", token=ann.token)
    await ann.expect("bye")
    real: dict[str, Message] = {}
    for message in ann.seen:
        # the fullest of each type: a room with a seat in it, events with lines, ...
        kind = message["type"]
        if kind not in real or len(str(shape(message))) > len(str(shape(real[kind]))):
            real[kind] = message
    documented = [m for m in examples(section(5)) if m["type"] not in CLUSTER_ONLY]
    assert {m["type"] for m in documented} - set(real) == set()
    for example in documented:
        assert shape(example) == shape(real[example["type"]]), example["type"]
