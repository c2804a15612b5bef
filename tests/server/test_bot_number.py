"""A server bot's seat carries the N of its name "Bot N" (``bot_number``), so that clients say
the name in their own language without reading it; a human named like a bot carries none."""

from __future__ import annotations

from server.rooms.seats import Seat, Seats


def test_a_seated_bot_has_its_number_and_a_human_named_like_a_bot_has_none() -> None:
    seats = Seats(3)
    human = seats.seat_human(0, "Bot 1", "p1")  # a human may choose that name
    bot = seats.seat_bot(1, "basic")
    assert bot.name == "Bot 2" and bot.bot_number == 2  # "Bot 1" was taken by the human
    assert human.bot_number is None
    wire = seats.wire(lambda player: True)
    assert [entry and entry.bot_number for entry in wire] == [None, 2, None]


def test_the_number_survives_the_store_and_a_leaver_s_bot_has_none() -> None:
    seats = Seats(2)
    bot = seats.seat_bot(0, "expert")
    again = Seat.from_record(0, bot.to_record())
    assert again.bot_number == 1 and again.name == "Bot 1"
    human = seats.seat_human(1, "Ann", "p1")
    human.to_bot()  # left: a bot plays on under her name
    assert human.info(True).bot_number is None
    # A record stored before the number was: no number, the name as it was.
    old = {"kind": "bot", "name": "Bot 1", "player": None, "level": "basic", "left": False}
    assert Seat.from_record(0, old).bot_number is None
