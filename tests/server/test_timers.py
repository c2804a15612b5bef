"""Turn timers on the in-memory harness: a late seat's bot decides, two timeouts in a row mark the
seat away, acting or ``back`` ends it. The room's clock is the harness's fake one: nothing
sleeps, and a deadline is met to the second."""

from __future__ import annotations

from typing import Any

from protocol.messages import IDLE_GRACE
from server.rooms.room import Room
from tests.server.harness import FakeConnection, Harness

Message = dict[str, Any]


def duel(h: Harness, timer: int = 30) -> tuple[FakeConnection, Any, Room]:
    """Ann against one basic bot, started, on ``h``'s clock."""
    conn, ann = h.client("Ann")
    joined = h.request(
        conn,
        ann,
        {
            "type": "create_room",
            "edition": "space",
            "seats": 2,
            "bots": 1,
            "timer": timer,
            "autostart": True,
            "seed": 11,
        },
    )
    h.clock.advance(0)  # the bot's own decisions, due at once
    return conn, ann, h.lobby.rooms[joined["room"]]


def events(conn: FakeConnection, kind: str) -> list[Message]:
    return [e for m in conn.of_type("events") for e in m["events"] if e["kind"] == kind]


def my_turn(room: Room) -> bool:
    return room.game is not None and not room.game.over and bool(room.game.legal(0))


def wait_for_my_turn(h: Harness, room: Room) -> None:
    """Let the bot play until Ann (seat 0) must decide."""
    for _ in range(100):
        if my_turn(room):
            return
        h.clock.advance(0)
    raise AssertionError("Ann never got a decision")


def act(h: Harness, conn: FakeConnection, ann: Any, room: Room) -> Message:
    return h.request(
        conn, ann, {"type": "act", "room": room.code, "version": room.version, "choice": 0}
    )


def test_timeout_then_away_then_back() -> None:
    h = Harness()
    conn, ann, room = duel(h)
    wait_for_my_turn(h, room)
    timer = conn.of_type("timer")[-1]
    assert timer["timers"] == [{"seat": 0, "seconds": 30.0, "away": False}]
    h.clock.advance(29.9)
    assert not events(conn, "timeout")  # not a moment early
    h.clock.advance(0.1)
    (mine,) = events(conn, "timeout")
    assert mine["seat"] == 0 and mine["args"]["player"] == 0
    assert mine["args"]["choice"]["do"]  # her own seat reads which choice her bot made
    assert room.table[0] is not None and not room.table[0].away
    # The second timeout in a row marks her away; the room says so.
    wait_for_my_turn(h, room)
    h.clock.advance(30)
    assert [e["key"] for e in events(conn, "away")] == ["away.idle"]
    assert conn.of_type("room")[-1]["seats"][0]["away"] is True
    # While away, her bot plays after away_delay ("bot" events), with no room timer.
    wait_for_my_turn(h, room)
    assert conn.of_type("timer")[-1]["timers"][0]["away"] is True
    h.clock.advance(h.config.away_delay)
    assert events(conn, "bot") and "choice" in events(conn, "bot")[0]["args"]
    # ... until she says she is back.
    assert h.request(conn, ann, {"type": "back", "room": room.code})["type"] == "room"
    assert conn.of_type("room")[-1]["seats"][0]["away"] is False
    assert events(conn, "away")[-1]["key"] == "away.back"


def test_an_act_resets_the_count_of_timeouts_in_a_row() -> None:
    # away_after is 2: timeout, act, timeout is not two in a row.
    h = Harness()
    conn, ann, room = duel(h)
    wait_for_my_turn(h, room)
    h.clock.advance(30)
    assert len(events(conn, "timeout")) == 1
    wait_for_my_turn(h, room)
    assert act(h, conn, ann, room)["type"] in ("state", "timer", "events")
    wait_for_my_turn(h, room)
    h.clock.advance(30)
    assert len(events(conn, "timeout")) == 2
    seat = room.table[0]
    assert seat is not None and not seat.away and seat.timeouts == 1
    assert not events(conn, "away")


def test_back_resets_the_count_of_timeouts_in_a_row() -> None:
    h = Harness()
    conn, ann, room = duel(h)
    wait_for_my_turn(h, room)
    h.clock.advance(30)
    assert h.request(conn, ann, {"type": "back", "room": room.code})["type"] == "ok"
    wait_for_my_turn(h, room)
    h.clock.advance(30)
    seat = room.table[0]
    assert seat is not None and not seat.away


def test_without_a_timer_a_person_is_waited_for_the_idle_grace() -> None:
    # What comes after it is tests/server/test_grace.py's.
    h = Harness()
    conn, ann, room = duel(h, timer=0)
    wait_for_my_turn(h, room)
    version = room.version
    h.clock.advance(IDLE_GRACE - 0.1)
    assert room.version == version and not events(conn, "timeout")
    assert room.clock.deadlines() == {0: h.clock.now + 0.1}  # only the idle grace's
    assert act(h, conn, ann, room)["type"] != "error"


def test_spectator_cannot_be_away() -> None:
    h = Harness()
    _conn, _ann, room = duel(h, timer=0)
    bob_conn, bob = h.client("Bob")
    h.request(bob_conn, bob, {"type": "join_room", "room": room.code, "as": "spectator"})
    assert h.request(bob_conn, bob, {"type": "back", "room": room.code})["code"] == "not_seated"
    act = {"type": "act", "room": room.code, "version": 0, "choice": 0}
    assert h.request(bob_conn, bob, act)["code"] == "not_seated"


def _lines(messages: list[Message]) -> list[tuple[object, object]]:
    return [(e["kind"], e["args"]) for m in messages if m["type"] == "events" for e in m["events"]]


def test_history_holds_the_rooms_own_events_as_they_were_seen_live(tmp_path: Any) -> None:
    from server.store.store import Store

    path = str(tmp_path / "selfish.sqlite3")
    h = Harness(Store(path))
    conn, ann, room = duel(h)
    for wait in (30, 30, h.config.away_delay):  # timeout, timeout (away), the away seat's bot
        wait_for_my_turn(h, room)
        h.clock.advance(wait)
    assert room.game is not None and not room.game.over
    assert {"timeout", "away", "bot"} <= {kind for kind, _ in _lines(conn.inbox)}
    # Everything sent live so far; the history sent on sync must repeat it, in order.
    live = _lines(conn.inbox)
    h.request(conn, ann, {"type": "sync", "room": room.code})
    history = [m for m in conn.of_type("events") if m["history"]][-1]
    assert _lines([history])[: len(live)] == live
    # After a restart on the same database the room's own lines are still in the history.
    said = len(room.game.log) if room.game else 0
    h.lobby.shutdown()
    h.store.commit()
    h.store.close()
    again = Harness(Store(path))
    back = again.connect()
    again.hello(back, "Ann", token=_token(conn))
    history = [m for m in back.of_type("events") if m["history"]][-1]
    assert {"timeout", "away", "bot"} <= {kind for kind, _ in _lines([history])}
    assert len(_lines([history])) >= said


def _token(conn: FakeConnection) -> str:
    return str(conn.of_type("welcome")[0]["token"])
