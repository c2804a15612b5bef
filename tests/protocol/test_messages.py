"""Request validation: every request parses, and every validation error code is produced."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import MessageDecoder, encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_TYPES,
    Act,
    AddBot,
    Back,
    Chat,
    CreateRoom,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    Hello,
    JoinRoom,
    LeaveRoom,
    ListReplays,
    ListRooms,
    Ping,
    PlayDeal,
    Rematch,
    RemoveBot,
    Request,
    ReviewFollow,
    ReviewJoin,
    ReviewLead,
    ReviewLeave,
    ReviewStep,
    Start,
    Sync,
    parse_client,
)
from protocol.names import check_chat
from protocol.server_messages import ErrorMessage

EXAMPLES: list[Request] = [
    Hello(name="Ann", id=1),
    Hello(name="Bob", token="tok"),
    Ping(),
    ListRooms(id=2),
    CreateRoom(edition="space", seats=4, timer=60, bots=2, bot_level="random", autostart=True),
    CreateRoom(edition="shipwrecked", seats=2, public=False, seed=7),
    JoinRoom(room="QZKX"),
    JoinRoom(room="QZKX", as_="spectator"),
    LeaveRoom(room="QZKX"),
    AddBot(room="QZKX", level="random"),
    RemoveBot(room="QZKX", seat=3),
    Start(room="QZKX"),
    Act(room="QZKX", version=17, choice=3),
    Chat(room="QZKX", text="hi"),
    Rematch(room="QZKX"),
    Back(room="QZKX"),
    Sync(room="QZKX"),
    Hello(name="Guest 417", guest=True),
    ListReplays(),
    ListReplays(before=61, limit=20, player="p7f3a9c21"),
    ListReplays(public=True),
    GetReplay(game=12),
    GetProfile(),
    GetProfile(player="bot:expert"),
    GetLeaderboard(edition="space", after="1041.5:12:p7f3a9c21", limit=20),
    PlayDeal(game=12, public=False, bots=2, bot_level="expert"),
    ReviewJoin(room="QZKX"),
    ReviewLeave(room="QZKX"),
    ReviewStep(room="QZKX", step=14),
    ReviewLead(room="QZKX", player="p0c4e1b7d"),
    ReviewFollow(room="QZKX", follow=False),
]


@pytest.mark.parametrize("request_", EXAMPLES, ids=lambda r: r.TYPE)
def test_every_request_round_trips_over_the_wire(request_: Request) -> None:
    wire = MessageDecoder().feed(encode(request_.to_wire()))[0]
    assert parse_client(wire) == request_


def test_examples_cover_every_client_type() -> None:
    assert {r.TYPE for r in EXAMPLES} == CLIENT_TYPES


def test_join_as_is_spelled_as_on_the_wire() -> None:
    assert JoinRoom(room="ABCD", as_="spectator").to_wire()["as"] == "spectator"


def test_lower_case_room_codes_are_accepted() -> None:
    assert parse_client({"type": "start", "room": "qzkx"}) == Start(room="QZKX")


BAD: list[tuple[dict[str, Any], ErrorCode]] = [
    ({"name": "x"}, ErrorCode.BAD_REQUEST),  # no type
    ({"type": 5}, ErrorCode.BAD_REQUEST),
    ({"type": "ping", "id": "7"}, ErrorCode.BAD_REQUEST),
    ({"type": "ping", "id": True}, ErrorCode.BAD_REQUEST),
    ({"type": "launch_missiles"}, ErrorCode.UNKNOWN_TYPE),
    ({"type": "hello", "protocol": 1, "name": "Ann"}, ErrorCode.UNSUPPORTED_PROTOCOL),
    ({"type": "hello", "protocol": 2.0, "name": "Ann"}, ErrorCode.UNSUPPORTED_PROTOCOL),
    ({"type": "hello", "protocol": True, "name": "Ann"}, ErrorCode.UNSUPPORTED_PROTOCOL),
    ({"type": "hello", "name": "Ann"}, ErrorCode.UNSUPPORTED_PROTOCOL),
    ({"type": "hello", "protocol": 1, "name": 42}, ErrorCode.UNSUPPORTED_PROTOCOL),
    ({"type": "hello", "protocol": 2}, ErrorCode.BAD_REQUEST),
    ({"type": "hello", "protocol": 2, "name": ""}, ErrorCode.BAD_NAME),
    ({"type": "hello", "protocol": 2, "name": "   "}, ErrorCode.BAD_NAME),
    ({"type": "hello", "protocol": 2, "name": "x" * 25}, ErrorCode.BAD_NAME),
    ({"type": "hello", "protocol": 2, "name": "a\x07b"}, ErrorCode.BAD_NAME),
    ({"type": "hello", "protocol": 2, "name": 42}, ErrorCode.BAD_REQUEST),
    ({"type": "hello", "protocol": 2, "name": "A", "token": 1}, ErrorCode.BAD_REQUEST),
    ({"type": "create_room", "edition": "moon", "seats": 3}, ErrorCode.BAD_OPTION),
    ({"type": "create_room", "edition": "space", "seats": 6}, ErrorCode.BAD_OPTION),
    ({"type": "create_room", "edition": "space", "seats": "4"}, ErrorCode.BAD_REQUEST),
    ({"type": "create_room", "edition": "space", "seats": 3, "timer": 45}, ErrorCode.BAD_OPTION),
    ({"type": "create_room", "edition": "space", "seats": 3, "bots": 3}, ErrorCode.BAD_OPTION),
    ({"type": "create_room", "edition": "space", "seats": 3, "public": 1}, ErrorCode.BAD_REQUEST),
    ({"type": "create_room", "edition": "space", "seats": 3, "seed": "s"}, ErrorCode.BAD_REQUEST),
    ({"type": "create_room", "edition": "space", "seats": 3, "seed": -1}, ErrorCode.BAD_OPTION),
    ({"type": "create_room", "edition": "space", "seats": 3, "seed": 2**63}, ErrorCode.BAD_OPTION),
    (
        {"type": "create_room", "edition": "space", "seats": 3, "bot_level": "god"},
        ErrorCode.BAD_OPTION,
    ),
    ({"type": "join_room", "room": "TOOLONG"}, ErrorCode.NO_SUCH_ROOM),
    ({"type": "join_room", "room": "AB1D"}, ErrorCode.NO_SUCH_ROOM),
    ({"type": "join_room", "room": "ABCD", "as": "referee"}, ErrorCode.BAD_OPTION),
    ({"type": "join_room"}, ErrorCode.BAD_REQUEST),
    ({"type": "add_bot", "room": "ABCD", "level": "smart"}, ErrorCode.BAD_OPTION),
    ({"type": "remove_bot", "room": "ABCD"}, ErrorCode.BAD_REQUEST),
    ({"type": "act", "room": "ABCD", "version": 1}, ErrorCode.BAD_REQUEST),
    ({"type": "act", "room": "ABCD", "version": "1", "choice": 0}, ErrorCode.BAD_REQUEST),
    ({"type": "act", "room": "ABCD", "version": 1, "choice": [1]}, ErrorCode.BAD_REQUEST),
    (
        {"type": "act", "room": "ABCD", "version": 1, "choice": {"do": "move"}},
        ErrorCode.BAD_REQUEST,
    ),
    ({"type": "act", "room": "ABCD", "version": 1, "choice": -1}, ErrorCode.BAD_REQUEST),
    ({"type": "act", "room": "ABCD", "version": 1, "choice": 1.0}, ErrorCode.BAD_REQUEST),
    ({"type": "act", "room": "ABCD", "version": 1, "choice": True}, ErrorCode.BAD_REQUEST),
    ({"type": "chat", "room": "ABCD", "text": None}, ErrorCode.BAD_REQUEST),
    ({"type": "get_replay", "game": "12"}, ErrorCode.BAD_REQUEST),
]


@pytest.mark.parametrize(("msg", "code"), BAD, ids=[f"{i}-{c}" for i, (_, c) in enumerate(BAD)])
def test_bad_requests_get_stable_codes(msg: dict[str, Any], code: ErrorCode) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client(msg)
    assert info.value.code == code
    wire = ErrorMessage.of(info.value, 9).to_wire()
    assert wire == {
        "type": "error",
        "code": str(code),
        "message": info.value.message,
        "args": info.value.error_args,
        "id": 9,
    }


def test_name_is_trimmed() -> None:
    assert parse_client({"type": "hello", "protocol": 2, "name": " Ann "}) == Hello(name="Ann")


@pytest.mark.parametrize("text", ["", "  \n ", "x" * 301, "bell\x07"])
def test_bad_chat(text: str) -> None:
    with pytest.raises(ProtocolError) as info:
        check_chat(text)
    assert info.value.code == ErrorCode.BAD_CHAT


def test_chat_newlines_become_spaces() -> None:
    assert check_chat("a\nb\tc") == "a b c"
    assert check_chat("y" * 300) == "y" * 300


def test_an_old_clients_hello_is_told_which_protocol_the_server_speaks() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client({"type": "hello", "protocol": 1, "name": "Ann"})
    assert info.value.code == ErrorCode.UNSUPPORTED_PROTOCOL
    assert info.value.error_args == {"version": 2}


def test_a_bad_field_names_itself_in_the_errors_args() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client({"type": "create_room", "edition": "space", "seats": 3, "timer": 45})
    assert info.value.error_args == {"field": "timer"}
    with pytest.raises(ProtocolError) as info:
        parse_client({"type": "create_room", "edition": "space", "seats": 3, "bots": 3})
    assert info.value.error_args == {"field": "bots", "low": 0, "high": 2}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([*sorted(CLIENT_TYPES), "nope", 3, None]),
    st.dictionaries(
        st.sampled_from(
            [
                "id",
                "room",
                "name",
                "protocol",
                "edition",
                "seats",
                "timer",
                "bots",
                "version",
                "choice",
                "text",
                "seat",
                "level",
                "as",
                "game",
                "token",
                "seed",
                "public",
                "autostart",
                "bot_level",
            ]
        ),
        json_values,
        max_size=6,
    ),
)
def test_parse_client_never_fails_unexpectedly(kind: object, fields: dict[str, Any]) -> None:
    try:
        request = parse_client({**fields, "type": kind})
    except ProtocolError as exc:
        assert exc.code in ErrorCode
    else:
        assert kind == request.TYPE


def test_hello_protocol_must_be_the_integer_two_and_is_checked_first() -> None:
    for version in ("2", 2.0, True, None, 1, 3):
        with pytest.raises(ProtocolError) as info:
            parse_client({"type": "hello", "name": 7, "protocol": version})
        assert info.value.code == ErrorCode.UNSUPPORTED_PROTOCOL, version
    with pytest.raises(ProtocolError) as info:
        parse_client({"type": "hello", "name": "Ann"})
    assert info.value.code == ErrorCode.UNSUPPORTED_PROTOCOL
    with pytest.raises(ProtocolError) as info:
        parse_client({"type": "hello", "name": 7, "protocol": 2})
    assert info.value.code == ErrorCode.BAD_REQUEST
