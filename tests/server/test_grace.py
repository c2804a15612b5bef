"""A table never stalls: a seat whose player is disconnected, or connected and idle,
is played by its bot after a grace shown to every member as a countdown (the ``timer``
message's ``grace``: seat, reason, seconds), timer or no timer; the player gets the seat back
on return. On the harness's fake clock: nothing sleeps, a grace ends to the second."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.messages import IDLE_GRACE, LEFT_GRACE
from server.rooms.room import Room
from server.store.store import Store
from tests.server.harness import FakeConnection, Harness

Message = dict[str, Any]


def table(
    h: Harness, **options: Any
) -> tuple[tuple[FakeConnection, Any], tuple[FakeConnection, Any], Room]:
    """Ann (seat 0) and Bob (seat 1), started, no turn timer unless ``options`` say so."""
    ann_conn, ann = h.client("Ann")
    create = {"type": "create_room", "edition": "space", "seats": 2, "seed": 5, **options}
    code = h.request(ann_conn, ann, create)["room"]
    bob_conn, bob = h.client("Bob")
    h.request(bob_conn, bob, {"type": "join_room", "room": code})
    h.request(ann_conn, ann, {"type": "start", "room": code})
    return (ann_conn, ann), (bob_conn, bob), h.lobby.rooms[code]


def grace(conn: FakeConnection) -> list[Message]:
    """The countdowns of the last ``timer`` message ``conn`` got."""
    timers = conn.of_type("timer")
    return list(timers[-1]["grace"]) if timers else []


def keys(conn: FakeConnection, kind: str = "away") -> list[str]:
    return [e["key"] for m in conn.of_type("events") for e in m["events"] if e["kind"] == kind]


def deciding(room: Room, seat: int) -> bool:
    return room.game is not None and not room.game.over and bool(room.game.legal(seat))


def act(h: Harness, client: tuple[FakeConnection, Any], room: Room, seat: int) -> None:
    conn, player = client
    message = {"type": "act", "room": room.code, "version": room.version, "choice": 0}
    assert h.request(conn, player, message)["type"] != "error"


def until_decides(h: Harness, room: Room, seat: int, ann: tuple[FakeConnection, Any]) -> None:
    """Ann plays her decisions (bots theirs) until ``seat`` must decide."""
    for _ in range(200):
        if deciding(room, seat):
            return
        if deciding(room, 0):
            act(h, ann, room, 0)
        else:
            h.clock.advance(h.config.away_delay)
    raise AssertionError(f"seat {seat} never got a decision")


def token(conn: FakeConnection) -> str:
    return str(conn.of_type("welcome")[0]["token"])


def test_a_dropped_player_is_counted_down_then_played_by_a_bot_then_back() -> None:
    h = Harness()
    ann, (bob_conn, bob), room = table(h)
    spectator, watcher = h.client("Cid")
    h.request(spectator, watcher, {"type": "join_room", "room": room.code, "as": "spectator"})
    h.disconnect(bob_conn, bob)
    # Everyone still here is told: Bob's seat, why, and when its bot takes over.
    for conn in (ann[0], spectator):
        assert grace(conn) == [{"seat": 1, "reason": "left", "seconds": float(LEFT_GRACE)}]
    h.clock.advance(LEFT_GRACE - 0.1)
    seat = room.table[1]
    assert seat is not None and not seat.away and keys(ann[0]) == []
    h.clock.advance(0.1)
    assert seat.away and keys(ann[0]) == ["away.gone"]
    assert ann[0].of_type("room")[-1]["seats"][1]["away"] is True
    assert grace(ann[0]) == []  # the countdown is over
    # Bob's decisions are his bot's now, after the short away delay.
    until_decides(h, room, 1, ann)
    h.clock.advance(h.config.away_delay)
    assert keys(ann[0], "bot")
    # Bob comes back: the seat is his again, and everyone reads it.
    again = h.connect()
    h.hello(again, "Bob", token=token(bob_conn))
    assert not seat.away
    assert keys(ann[0])[-1] == "away.back"
    assert ann[0].of_type("room")[-1]["seats"][1]["away"] is False
    until_decides(h, room, 1, ann)
    version = room.version
    h.clock.advance(h.config.away_delay * 10)
    assert room.version == version  # no bot decides for him now
    act(h, (again, bob), room, 1)


def test_a_player_back_within_the_grace_keeps_the_seat() -> None:
    h = Harness()
    ann, (bob_conn, bob), room = table(h)
    h.disconnect(bob_conn, bob)
    h.clock.advance(LEFT_GRACE / 2)
    h.hello(h.connect(), "Bob", token=token(bob_conn))
    assert grace(ann[0]) == []  # told at once that the countdown stopped
    h.clock.advance(LEFT_GRACE)
    seat = room.table[1]
    assert seat is not None and not seat.away and "away.gone" not in keys(ann[0])


def test_nobody_left_to_wait_means_no_countdown() -> None:
    # Ann alone with a bot drops: no one waits for her, her seat is not handed over.
    h = Harness()
    conn, ann = h.client("Ann")
    create = {"type": "create_room", "edition": "space", "seats": 2, "bots": 1, "seed": 5}
    code = h.request(conn, ann, {**create, "autostart": True})["room"]
    room = h.lobby.rooms[code]
    h.disconnect(conn, ann)
    h.clock.advance(LEFT_GRACE * 10)
    seat = room.table[0]
    assert seat is not None and not seat.away and room.absences.since == {}


def test_the_countdown_stops_when_everyone_else_is_gone_too() -> None:
    h = Harness()
    (ann_conn, ann), (bob_conn, bob), room = table(h)
    h.disconnect(bob_conn, bob)
    assert room.absences.since == {1: h.clock.now}
    h.disconnect(ann_conn, ann)
    assert room.absences.since == {}
    h.clock.advance(LEFT_GRACE * 2)
    h.hello(h.connect(), "Ann", token=token(ann_conn))  # Ann is back: Bob's starts afresh
    assert room.absences.since == {1: h.clock.now}


def test_after_a_restart_the_grace_counts_from_the_first_return(tmp_path: Any) -> None:
    path = str(tmp_path / "g.sqlite3")
    h = Harness(Store(path))
    (ann_conn, _ann), _bob, room = table(h, left_grace=20, idle_grace=40)
    h.lobby.shutdown()
    h.store.close()
    again = Harness(Store(path))
    restored = again.lobby.rooms[room.code]
    assert (restored.left_grace, restored.idle_grace) == (20, 40)
    again.clock.advance(600)  # nobody is back: nobody waits, no seat changes hands
    assert not any(seat.away for seat in restored.table)
    back = again.connect()
    again.hello(back, "Ann", token=token(ann_conn))
    assert grace(back) == [{"seat": 1, "reason": "left", "seconds": 20.0}]


def test_an_idle_player_is_counted_down_then_played_by_a_bot_then_back() -> None:
    h = Harness()
    ann, bob, room = table(h)
    until_decides(h, room, 1, ann)
    opened = h.clock.now
    assert grace(ann[0]) == []  # a countdown at every decision would be noise
    h.clock.advance(IDLE_GRACE - h.config.idle_notice - 0.1)
    assert grace(ann[0]) == []
    h.clock.advance(0.1)  # its last minute: now everyone sees it
    expected = [{"seat": 1, "reason": "idle", "seconds": h.config.idle_notice}]
    assert grace(ann[0]) == expected and grace(bob[0]) == expected
    h.clock.advance(opened + IDLE_GRACE - h.clock.now - 0.1)
    seat = room.table[1]
    assert seat is not None and not seat.away
    h.clock.advance(0.1)
    assert seat.away and keys(ann[0]) == ["away.idle"]
    assert keys(ann[0], "bot")  # its bot made the decision
    assert keys(bob[0], "bot")[-1] == "bot"
    # Away, Bob's next decisions are his bot's; he acts again and has his seat back.
    until_decides(h, room, 1, ann)
    act(h, bob, room, 1)
    assert not seat.away and keys(ann[0])[-1] == "away.back"


def test_the_idle_grace_applies_with_a_turn_timer_too_when_shorter() -> None:
    h = Harness()
    ann, _bob, room = table(h, timer=120, idle_grace=40)
    until_decides(h, room, 1, ann)
    h.clock.advance(40)
    assert keys(ann[0]) == ["away.idle"] and keys(ann[0], "timeout") == []


def test_the_turn_timer_comes_first_when_shorter() -> None:
    h = Harness()
    ann, _bob, room = table(h, timer=30)
    until_decides(h, room, 1, ann)
    assert grace(ann[0]) == []  # the turn timer is shown as ever, in "timers"
    h.clock.advance(30)
    assert keys(ann[0], "timeout") == ["timeout"] and keys(ann[0]) == []


def test_room_options_change_the_graces() -> None:
    h = Harness()
    ann, (bob_conn, bob), room = table(h, left_grace=15, idle_grace=30)
    shown = ann[0].of_type("room")[-1]
    assert (shown["left_grace"], shown["idle_grace"]) == (15, 30)
    until_decides(h, room, 1, ann)
    # An idle grace shorter than the notice is shown whole, from the decision's start.
    assert grace(ann[0]) == [{"seat": 1, "reason": "idle", "seconds": 30.0}]
    h.disconnect(bob_conn, bob)
    assert grace(ann[0]) == [{"seat": 1, "reason": "left", "seconds": 15.0}]
    h.clock.advance(15)
    assert keys(ann[0]) == ["away.gone"]


def test_default_graces_are_those_of_a_table_of_friends() -> None:
    h = Harness()
    ann, _bob, _room = table(h)
    shown = ann[0].of_type("room")[-1]
    assert (shown["left_grace"], shown["idle_grace"]) == (60, 180)


@pytest.mark.parametrize(
    ("options", "code", "message"),
    [
        ({"left_grace": 5}, "bad_option", "'left_grace' must be 10 to 600 seconds"),
        ({"left_grace": 601}, "bad_option", "'left_grace' must be 10 to 600 seconds"),
        ({"idle_grace": 29}, "bad_option", "'idle_grace' must be 30 to 1800 seconds"),
        ({"idle_grace": 0}, "bad_option", "'idle_grace' must be 30 to 1800 seconds"),
        ({"idle_grace": "60"}, "bad_request", "'idle_grace' must be an integer"),
        ({"left_grace": True}, "bad_request", "'left_grace' must be an integer"),
        ({"left_grace": 30.5}, "bad_request", "'left_grace' must be an integer"),
    ],
)
def test_bad_grace_options_get_a_clear_error(options: Message, code: str, message: str) -> None:
    h = Harness()
    conn, ann = h.client("Ann")
    create = {"type": "create_room", "edition": "space", "seats": 2, **options}
    error = h.request(conn, ann, create)
    assert (error["type"], error["code"], error["message"]) == ("error", code, message)
    assert h.lobby.rooms == {}  # nothing was created


def test_a_game_whose_humans_all_stopped_acting_ends_without_a_timer() -> None:
    # Connected players who never act cannot keep a game (and its room) forever.
    h = Harness()
    (ann_conn, _ann), _bob, room = table(h, idle_grace=30)
    for _ in range(10_000):
        if room.game is not None and room.game.over:
            break
        h.clock.advance(30)
    assert room.game is not None and room.game.over
    assert ann_conn.of_type("game_over")
    assert all(seat.away for seat in room.table)  # both went away idle, their bots finished


def test_reconnecting_is_not_deciding_for_the_timeouts_in_a_row() -> None:
    # A client cycling its connection must not dodge the away mark of two timeouts in a row.
    h = Harness()
    ann, (bob_conn, bob), room = table(h, timer=30)
    until_decides(h, room, 1, ann)
    h.clock.advance(30)
    seat = room.table[1]
    assert seat is not None and seat.timeouts == 1
    h.disconnect(bob_conn, bob)
    h.hello(h.connect(), "Bob", token=token(bob_conn))
    until_decides(h, room, 1, ann)
    h.clock.advance(30)
    assert seat.away and keys(ann[0])[-1] == "away.idle"
