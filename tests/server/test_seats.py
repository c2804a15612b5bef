"""``Seats.of`` finds the seat a player holds by a lookup, and says None whenever the player no
longer holds it: the seat freed, left, taken over by a bot, or given to someone else."""

from __future__ import annotations

from server.rooms.seats import Seats


def test_a_seated_player_is_found_and_a_stranger_is_not() -> None:
    seats = Seats(3)
    ann = seats.seat_human(0, "Ann", "p1")
    bob = seats.seat_human(2, "Bob", "p2")
    assert seats.of("p1") is ann and seats.of("p2") is bob
    assert seats.of("p3") is None


def test_a_freed_seat_is_nobody_s_and_a_new_player_in_it_is_found() -> None:
    seats = Seats(2)
    seats.seat_human(0, "Ann", "p1")
    seats.free_seat(0)
    assert seats.of("p1") is None
    cid = seats.seat_human(0, "Cid", "p3")
    assert seats.of("p3") is cid and seats.of("p1") is None
    ann = seats.seat_human(1, "Ann", "p1")  # she comes back to another seat
    assert seats.of("p1") is ann


def test_a_left_seat_is_not_held_until_its_player_rejoins_and_a_bot_s_never_again() -> None:
    seats = Seats(2)
    ann = seats.seat_human(0, "Ann", "p1")
    ann.leave()
    assert seats.of("p1") is None and seats.left_by("p1") is ann
    ann.rejoin()
    assert seats.of("p1") is ann
    ann.leave()
    ann.to_bot()
    assert seats.of("p1") is None


def test_seats_restored_from_their_records_are_found() -> None:
    seats = Seats(3)
    seats.seat_human(0, "Ann", "p1")
    seats.seat_bot(1, "basic")
    bob = seats.seat_human(2, "Bob", "p2")
    bob.leave()
    again = Seats.from_records(seats.records())
    assert again.of("p1") is again[0]
    assert again.of("p2") is None and again.left_by("p2") is again[2]
