"""The sans-IO client connection: ids, replies, order, states, and both kinds of error."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.client import (
    Bye,
    ClientConnection,
    ConnectionClosed,
    ConnState,
    Error,
    Event,
    Events,
    GameOver,
    Joined,
    LocalProtocolError,
    Ok,
    RemoteProtocolError,
    RoomUpdate,
    State,
    Timer,
    Welcome,
)
from protocol.codec import MessageDecoder, encode
from protocol.framing import frame
from protocol.messages import Act, Chat, Hello, JoinRoom, ListRooms, Ping, Sync
from protocol.server_messages import RoomMessage, read_server
from server.engine import Game

GAME = Game("space", ["Ann", "Bob"], 9)
VIEW: dict[str, Any] = GAME.view(GAME.active)
OTHER_VIEW: dict[str, Any] = GAME.view(1 - GAME.active)
ROOM: dict[str, Any] = RoomMessage(
    room="ABCD",
    edition="space",
    size=2,
    public=True,
    timer=0,
    left_grace=60,
    idle_grace=180,
    autostart=False,
    variants=(),
    host=None,
    status="waiting",
    game=None,
    seats=(None, None),
    spectators=(),
).to_wire()


def sent(conn: ClientConnection) -> list[dict[str, Any]]:
    """The messages ``conn`` queued, decoded as the server would."""
    return MessageDecoder().feed(conn.data_to_send())


def feed(conn: ClientConnection, data: bytes) -> list[Event]:
    """Every event ``data`` completes."""
    return list(conn.receive_data(data))


def welcomed(token: str | None = None) -> ClientConnection:
    conn = ClientConnection(token=token)
    conn.hello("Ann")
    conn.data_to_send()
    feed(conn, encode(welcome("t1")))
    return conn


def welcome(token: str, rid: int | None = 1) -> dict[str, Any]:
    """A welcome of player p1 with ``token``, answering request ``rid``."""
    message: dict[str, Any] = {
        "type": "welcome",
        "protocol": 2,
        "player": "p1",
        "token": token,
        "server": "s",
    }
    if rid is not None:
        message["id"] = rid
    return message


def error(code: str, rid: int | None = None) -> dict[str, Any]:
    """An error with ``code``, answering request ``rid``."""
    message: dict[str, Any] = {"type": "error", "code": code, "message": "", "args": {}}
    if rid is not None:
        message["id"] = rid
    return message


def test_hello_is_sent_with_an_id_and_the_welcome_answers_it() -> None:
    conn = ClientConnection()
    assert conn.state is ConnState.IDLE
    conn.hello("Ann")
    assert sent(conn) == [{"type": "hello", "protocol": 2, "name": "Ann", "id": 1}]
    assert conn.state is ConnState.HELLO_SENT
    (event,) = feed(conn, encode(welcome("t1")))
    assert isinstance(event, Welcome) and isinstance(event.request, Hello)
    assert (event.player, event.token, event.resumed) == ("p1", "t1", False)
    assert (conn.state, conn.player, conn.token) == (ConnState.READY, "p1", "t1")


def test_a_token_is_sent_and_a_welcome_then_says_resumed() -> None:
    conn = ClientConnection(token="old")
    conn.hello("Ann")
    assert sent(conn)[0]["token"] == "old"
    (event,) = feed(conn, encode(welcome("old")))
    assert isinstance(event, Welcome) and event.resumed


def test_a_refused_token_is_forgotten_and_hello_may_be_sent_again() -> None:
    conn = ClientConnection(token="old")
    conn.hello("Ann")
    (event,) = feed(conn, encode(error("bad_token", 1)))
    assert isinstance(event, Error) and event.code == "bad_token"
    assert isinstance(event.request, Hello) and not event.closing
    assert conn.state is ConnState.IDLE and conn.token is None
    conn.data_to_send()
    conn.hello("Ann")
    assert "token" not in sent(conn)[0]


def test_requests_before_the_welcome_are_local_errors_except_ping() -> None:
    conn = ClientConnection()
    with pytest.raises(LocalProtocolError):
        conn.send(ListRooms())
    conn.send(Ping())
    conn.hello("Ann")
    with pytest.raises(LocalProtocolError):
        conn.hello("Ann")
    with pytest.raises(LocalProtocolError):
        conn.send(Sync(room="ABCD"))
    assert [m["type"] for m in sent(conn)] == ["ping", "hello"]


def test_each_reply_carries_the_request_it_answers() -> None:
    conn = welcomed()
    chat = conn.send(Chat(room="ABCD", text="hi"))
    join = conn.send(JoinRoom(room="WXYZ"))
    assert [m["id"] for m in sent(conn)] == [chat.id, join.id] == [2, 3]
    assert set(conn.pending) == {2, 3}
    events = feed(
        conn,
        encode(
            {
                "type": "joined",
                "room": "WXYZ",
                "role": "player",
                "seat": 1,
                "edition": "space",
                "id": 3,
            }
        )
        + encode(error("rate_limited", 2)),
    )
    assert isinstance(events[0], Joined) and events[0].request == join
    assert isinstance(events[1], Error) and events[1].request == chat
    assert conn.pending == {}


def test_broadcasts_answer_no_request_and_a_state_before_the_ok_is_not_the_acts() -> None:
    conn = welcomed()
    conn.send(Act(room="ABCD", version=4, choice=0))
    assert conn.awaiting(Act)
    other = feed(conn, encode({"type": "state", "room": "ABCD", "version": 5, "view": OTHER_VIEW}))
    assert isinstance(other[0], State) and other[0].request is None
    assert conn.awaiting(Act)  # another seat's pick: our act is not answered yet
    ok, events, state = feed(
        conn,
        encode({"type": "ok", "id": 2})
        + encode({"type": "events", "room": "ABCD", "history": False, "events": []})
        + encode({"type": "state", "room": "ABCD", "version": 6, "view": VIEW}),
    )
    assert isinstance(ok, Ok) and isinstance(ok.request, Act)
    assert isinstance(events, Events) and not events.history
    assert isinstance(state, State) and state.version == 6 and state.view.to_wire() == VIEW
    assert state.view.legal[0].to_wire() == VIEW["legal"][0]
    assert not conn.awaiting(Act)


SESSION = [
    welcome("t1"),
    {"type": "joined", "room": "ABCD", "role": "player", "seat": 0, "edition": "space", "id": 2},
    ROOM,
    {
        "type": "events",
        "room": "ABCD",
        "history": True,
        "events": [{"kind": "setup", "key": "setup", "seat": 0, "args": {"player": 0}}],
    },
    {"type": "state", "room": "ABCD", "version": 1, "view": VIEW},
    {"type": "timer", "room": "ABCD", "version": 1, "timers": [], "grace": []},
    {"type": "chat", "room": "ABCD", "player": "p2", "name": "Bob", "seat": 1, "text": "hi"},
    {
        "type": "game_over",
        "room": "ABCD",
        "game": 3,
        "winner": None,
        "winner_name": None,
        "turns": 9,
        "ratings": [],
    },
    {"type": "bye", "reason": "shutdown"},
]


def test_input_fed_one_byte_at_a_time_gives_the_same_events() -> None:
    data = b"".join(encode(m) for m in SESSION)
    conn = ClientConnection()
    conn.hello("Ann")
    whole = feed(conn, data[: len(encode(SESSION[0]))])
    conn.send(JoinRoom(room="ABCD"))
    whole += feed(conn, data[len(encode(SESSION[0])) :])
    conn = ClientConnection()
    conn.hello("Ann")
    one: list[Event] = []
    for index in range(len(data)):
        if index == len(encode(SESSION[0])):
            conn.send(JoinRoom(room="ABCD"))
        one += feed(conn, data[index : index + 1])
    assert one == whole
    assert [type(e).__name__ for e in one] == [
        "Welcome",
        "Joined",
        "RoomUpdate",
        "Events",
        "State",
        "Timer",
        "ChatLine",
        "GameOver",
        "Bye",
    ]
    assert isinstance(one[-2], GameOver) and one[-2].winner is None
    assert isinstance(one[-1], Bye) and conn.closed


def test_nothing_after_bye_counts_and_sending_then_is_a_local_error() -> None:
    conn = welcomed()
    events = feed(
        conn,
        encode({"type": "bye", "reason": "replaced"}) + encode(ROOM),
    )
    assert [type(e) for e in events] == [Bye]
    with pytest.raises(LocalProtocolError):
        conn.send(Ping())
    with pytest.raises(LocalProtocolError):
        feed(conn, b"\x00")


def test_a_closing_error_closes() -> None:
    conn = welcomed()
    (event,) = feed(conn, encode(error("idle_timeout")))
    assert isinstance(event, Error) and event.closing and event.request is None
    assert conn.closed


def test_the_end_of_the_stream_is_an_event() -> None:
    conn = welcomed()
    assert [type(e) for e in feed(conn, b"")] == [ConnectionClosed]
    assert conn.closed and feed(conn, b"") == []


@pytest.mark.parametrize(
    "message",
    [
        {"type": "nonsense"},
        {"kind": "ok"},
        {"type": "ok", "id": 99},  # answers nothing we sent
        {"type": "ok"},  # a reply without its id
        {"type": "ok", "id": True},
        {"type": "state", "room": "ABCD", "version": 1.0, "view": VIEW},
        {"type": "state", "room": "ABCD", "version": True, "view": VIEW},
        {"type": "state", "room": "ABCD", "version": 1, "view": {}},
        {**ROOM, "seats": [None]},  # a room of two seats listing one
        {"type": "room", "seats": []},
        welcome("t", 2),  # answers a ping
        {"type": "events", "room": "ABCD", "history": False, "events": [{"kind": "setup"}]},
    ],
)
def test_a_server_breaking_the_protocol_is_a_remote_error(message: dict[str, Any]) -> None:
    conn = welcomed()
    conn.send(Ping())
    with pytest.raises(RemoteProtocolError):
        feed(conn, encode(message))
    assert conn.closed


def test_a_bad_frame_is_a_remote_error() -> None:
    conn = welcomed()
    with pytest.raises(RemoteProtocolError):
        feed(conn, b"\x00\x00\x00\x01\xc1")  # 0xc1: never used by msgpack
    assert conn.closed
    conn = ClientConnection(max_frame=10)
    with pytest.raises(RemoteProtocolError):
        feed(conn, b"\x00\x00\x01\x00")


def test_a_replied_request_leaves_pending_and_its_id_cannot_be_answered_twice() -> None:
    conn = welcomed()
    conn.send(Ping())
    feed(conn, encode({"type": "pong", "id": 2}))
    with pytest.raises(RemoteProtocolError):
        feed(conn, encode({"type": "pong", "id": 2}))


def test_room_update_holds_the_typed_message() -> None:
    conn = welcomed()
    (event,) = feed(conn, encode({**ROOM, "extra": 1}))  # a key it does not know is ignored
    assert isinstance(event, RoomUpdate) and event.message == read_server(ROOM)
    assert event.message.seats == (None, None)


def test_send_raw_keeps_the_message_and_matches_its_reply() -> None:
    conn = ClientConnection()
    raw = conn.send_raw({"type": "ping", "id": 41})
    conn.send_raw({"type": "ping", "id": "x"})  # not an int: the reply carries no id
    assert sent(conn) == [{"type": "ping", "id": 41}, {"type": "ping", "id": "x"}]
    first, second = feed(
        conn,
        encode({"type": "pong", "id": 41}) + encode(error("bad_request")),
    )
    assert first.request == raw and second.request is None
    assert conn.send(Ping()).id == 42  # numbering goes on past the raw ids


def test_after_send_bytes_unknown_replies_pass_as_broadcasts() -> None:
    conn = welcomed()
    conn.send_bytes(encode({"type": "ping", "id": 7}))
    assert conn.data_to_send() == encode({"type": "ping", "id": 7})
    (event,) = feed(conn, encode({"type": "pong", "id": 7}))
    assert event.request is None and not conn.closed


def test_what_the_connection_says_is_true_as_of_each_event() -> None:
    # The ok and the state after it arrive in one read: while the caller handles the state
    # before the ok, its act is still awaited; when it handles the one after, no longer.
    conn = welcomed()
    conn.send(Act(room="ABCD", version=4, choice=0))
    seen = []
    for event in conn.receive_data(
        encode({"type": "state", "room": "ABCD", "version": 5, "view": OTHER_VIEW})
        + encode({"type": "ok", "id": 2})
        + encode({"type": "state", "room": "ABCD", "version": 6, "view": VIEW})
    ):
        seen.append((type(event).__name__, conn.awaiting(Act)))
    assert seen == [("State", True), ("Ok", False), ("State", False)]


def test_events_not_taken_wait_for_the_next_call() -> None:
    conn = welcomed()
    conn.receive_data(encode(ROOM))
    assert [type(e) for e in conn.receive_data(b"")] == [RoomUpdate, ConnectionClosed]


def test_good_frames_before_a_bad_one_still_count() -> None:
    conn = welcomed()
    events = conn.receive_data(encode(ROOM) + b"\x00\x00\x00\x01\xc1")
    assert isinstance(next(events), RoomUpdate)
    with pytest.raises(RemoteProtocolError):
        next(events)
    assert conn.closed


def test_a_timer_carries_the_takeover_countdowns() -> None:
    conn = welcomed()
    grace = [{"seat": 1, "reason": "left", "seconds": 44.5}]
    timer = {"type": "timer", "room": "ABCD", "version": 3, "timers": [], "grace": grace}
    (event,) = feed(conn, encode(timer))
    assert isinstance(event, Timer) and [g.to_wire() for g in event.grace] == grace
    del timer["grace"]  # every v2 server sends it
    with pytest.raises(RemoteProtocolError):
        feed(conn, encode(timer))


def test_a_welcome_nested_900_deep_is_a_remote_error_not_a_hang() -> None:
    """A malicious server (or one a spoofed LAN announcement points to): the client bounds
    decoding as the server does, and the connection ends with a clear error."""
    conn = ClientConnection()
    conn.hello("Ann")
    body = b"\x85\xa4type\xa7welcome\xa2id\x01\xa6player\xa1p\xa5token\xa1t\xa6server"
    body += b"\x91" * 900 + b"\x90"
    with pytest.raises(RemoteProtocolError, match="nested deeper than 16"):
        feed(conn, frame(body))
    assert conn.closed
