"""Every server message goes through the real codec and comes back as it was; a message that
is not exactly what the protocol says (a field missing or of another type) is refused."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import MessageDecoder, decode_server_body, encode
from protocol.errors import MalformedMessage
from protocol.framing import FrameDecoder
from protocol.game_types import Choice, Event
from protocol.server_messages import SERVER_MESSAGES, ServerMessage, read_server
from protocol.view_types import View
from server.engine import Game
from tests.protocol.strategies import MESSAGES

#: Fields a message may leave out (what their absence means is in PROTOCOL.md §5).
MAY_MISS = {("error", "args"), ("error", "room")}


def through_the_codec(message: ServerMessage) -> ServerMessage:
    """``message`` encoded, framed, split into frames again, decoded and read."""
    (body,) = FrameDecoder(None).feed(encode(message.to_wire()))
    return read_server(decode_server_body(body))


def test_every_server_type_has_a_strategy() -> None:
    assert set(MESSAGES) == set(SERVER_MESSAGES)


@pytest.mark.parametrize("kind", sorted(SERVER_MESSAGES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_server_message_round_trips_through_the_codec(kind: str, data: st.DataObject) -> None:
    message = data.draw(MESSAGES[kind])
    assert through_the_codec(message) == message


def _wrong(value: object) -> object:
    """A value of another wire type than ``value``'s."""
    return 1 if type(value) is bool else True


@pytest.mark.parametrize("kind", sorted(SERVER_MESSAGES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_field_missing_or_of_another_type_is_refused(kind: str, data: st.DataObject) -> None:
    wire = data.draw(MESSAGES[kind]).to_wire()
    fields = sorted(key for key in wire if key not in ("type", "id"))
    if not fields:
        return
    key = data.draw(st.sampled_from(fields))
    with pytest.raises(MalformedMessage):
        read_server({**wire, key: _wrong(wire[key])})
    if (kind, key) not in MAY_MISS:
        with pytest.raises(MalformedMessage):
            read_server({k: v for k, v in wire.items() if k != key})


@pytest.mark.parametrize(
    "message",
    [
        None,
        [],
        {"type": 3},
        {"type": "nonsense"},
        {"type": "ok", "id": "7"},
        {"type": "ok", "id": 1.0},
        {"type": "welcome", "protocol": 1, "player": "p", "token": "t", "server": "s"},
        {"type": "joined", "room": "A", "role": "spectator", "seat": 0, "edition": "space"},
        {"type": "joined", "room": "A", "role": "player", "seat": None, "edition": "space"},
        {"type": "joined", "room": "A", "role": "player", "seat": 0, "edition": "moon"},
        {"type": "bye", "reason": "whatever"},
        {"type": "error", "code": "x", "message": "", "args": {"a": 1.5}},
        {"type": "error", "code": "x", "message": "", "args": {1: 1}},
    ],
)
def test_malformed_messages_are_refused(message: Any) -> None:
    with pytest.raises(MalformedMessage):
        read_server(message)


def _game_view(seat: int | None) -> dict[str, Any]:
    game = Game("shipwrecked", ["Ann", "Bob", "Cid"], 3)
    return game.view(seat)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda v: v["hand"].append({**v["hand"][0], "id": -1}), "hand"),
        (lambda v: v["hand"][0].update(kind="magic"), "kind"),
        (lambda v: v["hand"][0].update(dir="NE"), "dir"),
        (lambda v: v["legal"].append({"do": "fly"}), "do"),
        (lambda v: v["legal"].append({"do": "play"}), "card"),
        (lambda v: v["legal"].append({"do": "done", "card": 3}), "card"),
        (lambda v: v["legal"].append({"do": "pick", "card": 3, "fatal": 1}), "fatal"),
        (lambda v: v["legal"].clear(), "legal"),
        (lambda v: v["decision"].update(kind="dance"), "kind"),
        (lambda v: v["decision"]["args"].update(player=0), "player"),
        (lambda v: v.update(seat=7), "seat"),
        (lambda v: v["players"][0].update(alive=1), "alive"),
        (lambda v: v["sharks"].append([1]), "sharks"),
        (lambda v: v.update(phase="lunch"), "phase"),
        (lambda v: v.pop("discard"), "discard"),
        (lambda v: v.pop("discard_top"), "discard_top"),
        (lambda v: v["discard"].append("17"), "discard"),
    ],
)
def test_a_view_that_breaks_the_protocol_is_refused(change: Any, where: str) -> None:
    view = _game_view(_game_seat())
    View.from_wire(view)  # as the engine makes it: read
    change(view)
    with pytest.raises(MalformedMessage, match=where):
        View.from_wire(view)


def _game_seat() -> int:
    game = Game("shipwrecked", ["Ann", "Bob", "Cid"], 3)
    return game.pending_seats()[0]


def test_a_spectators_view_has_no_seat_part() -> None:
    view = _game_view(None)
    assert View.from_wire(view).own is None
    view["hand"] = []
    with pytest.raises(MalformedMessage):
        View.from_wire(view)


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "draw", "key": "draw", "seat": 0, "args": {"card": None}},  # player missing
        {"kind": "move", "key": "draw", "seat": 0, "args": {"player": 0}},  # kind of another key
        {"kind": "draw", "key": "draw.all", "seat": 0, "args": {"player": 0}},
        {"kind": "draw", "key": "draw", "seat": 0, "args": {"player": 0, "text": "Ann draws"}},
        {"kind": "draw", "key": "draw", "seat": 0, "args": {"player": True}},
        {"kind": "move", "key": "move.blocked", "seat": 0, "args": {"player": 0, "goal": "moon"}},
        {"kind": "shark", "key": "shark", "seat": None, "args": {"cell": [1, 2, 3]}},
        {"kind": "bot", "key": "bot", "seat": 0, "args": {"player": 0, "choice": {"do": "x"}}},
    ],
)
def test_an_event_that_breaks_the_vocabulary_is_refused(event: dict[str, Any]) -> None:
    with pytest.raises(MalformedMessage):
        Event.from_wire(event)


def test_a_choice_reads_back_as_typed_values() -> None:
    choice = Choice.from_wire({"do": "shark", "shark": 1, "cell": [2, 3], "fatal": True})
    assert choice == Choice("shark", shark=1, cell=(2, 3), fatal=True)
    assert Choice.from_wire({"do": "stay", "discard": [4, 5]}).discard == (4, 5)


def test_a_state_from_a_real_game_goes_through_the_decoder_whole() -> None:
    game = Game("space", ["Ann", "Bob"], 9)
    wire = {"type": "state", "room": "QZKX", "version": 3, "view": game.view(game.active)}
    (decoded,) = MessageDecoder(None).feed(encode(wire))
    assert read_server(decoded).to_wire() == wire
