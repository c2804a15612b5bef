"""server.rooms.wire: state frames built from a shared part are the messages the room used to
encode."""

from __future__ import annotations

import random

import msgpack

from protocol.codec import normalize
from protocol.server_messages import ChatMessage
from server.engine import Game
from server.rooms.wire import EventFrames, StateFrames, encode, encode_events


def _decoded(data: bytes) -> dict[str, object]:
    assert int.from_bytes(data[:4], "big") == len(data) - 4
    message: dict[str, object] = msgpack.unpackb(data[4:], raw=False)
    return message


def test_state_frames_decode_to_the_full_views_through_whole_games_and_rematches() -> None:
    for edition in ("space", "shipwrecked"):
        frames = StateFrames("ABCD")  # one room's frames, kept across versions and games
        version = 0
        for seed in range(3):
            game = Game(edition, ["a", "b", "c", "d"], seed)
            rng = random.Random(seed)
            while True:
                frames.update(game, version)
                for seat in (None, 0, 1, 2, 3):
                    message = _decoded(frames.frame(seat))
                    assert message == {
                        "type": "state",
                        "room": "ABCD",
                        "version": version,
                        "view": normalize(game.view(seat)),
                    }
                    assert list(message["view"]) == list(game.view(seat))  # type: ignore[call-overload]
                if game.over:
                    break
                seat = game.pending_seats()[0]
                game.apply(seat, rng.choice(game.legal(seat)))
                version += 1
            version += 1  # a rematch starts past the last version


def test_a_seat_s_hand_is_packed_again_only_when_its_cards_change() -> None:
    game = Game("space", ["a", "b", "c", "d"], 5)
    rng = random.Random(5)
    frames = StateFrames("ABCD")
    sent: dict[int, list[int]] = {}  # seat -> its hand when its hand part was last packed
    reused = repacked = 0
    for version in range(80):
        frames.update(game, version)
        for seat in range(4):
            hand = [card.id for card in game.rules.state.hands[seat]]
            before = frames.packed_parts
            frames.frame(seat)
            kept = sent.get(seat) == hand
            deciding = bool(game.legal(seat))  # its choices are packed once per version
            assert frames.packed_parts == before + (0 if kept else 1) + deciding
            reused += kept
            repacked += not kept
            sent[seat] = hand
        if game.over:
            break
        seat = game.pending_seats()[0]
        game.apply(seat, rng.choice(game.legal(seat)))
    assert reused > 0 and repacked > 0  # both cases were met


def test_a_deciding_seat_s_part_is_packed_once_per_version_for_all_its_connections() -> None:
    game = Game("shipwrecked", ["a", "b", "c"], 2)
    frames = StateFrames("ABCD")
    frames.update(game, 0)
    seat = game.pending_seats()[0]
    first = frames.frame(seat)
    packed = frames.packed_parts
    assert frames.frame(seat) == first and frames.packed_parts == packed  # a second connection
    frames.update(game, 0)  # the same version again: nothing is rebuilt
    assert frames.frame(seat) == first and frames.packed_parts == packed


def test_views_split_into_public_and_seat_parts() -> None:
    game = Game("space", ["a", "b", "c"], 7)
    assert game.view(None) == game.public_view()
    for seat in range(3):
        assert game.view(seat) == {**game.public_view(), **game.seat_view(seat)}


def test_encode_matches_protocol_encode() -> None:
    from protocol.codec import encode as protocol_encode

    message = ChatMessage(room="ABCD", player="p1", name="Ann é", seat=1, text="hé")
    assert encode(message) == protocol_encode(message.to_wire())


def test_event_frames_are_each_audience_s_events_through_whole_games() -> None:
    for edition in ("space", "shipwrecked"):
        game = Game(edition, ["a", "b", "c"], 11)
        rng = random.Random(11)
        private_seen = 0
        while not game.over:
            seat = game.pending_seats()[0]
            events = game.apply(seat, rng.choice(game.legal(seat)))
            said = EventFrames("ABCD", events)
            for reader in (None, 0, 1, 2):
                expected = encode_events("ABCD", events, reader) if events else b""
                assert said.frame(reader) == expected
            private_seen += bool(said.private)
        assert private_seen  # events addressed to some seats were met


def test_no_events_make_empty_frames() -> None:
    said = EventFrames("ABCD", [])
    assert said.frame(None) == said.frame(0) == b""


def test_a_view_handed_out_is_a_copy_that_a_reader_may_change() -> None:
    game = Game("space", ["a", "b"], 3)
    seat = game.pending_seats()[0]
    frames = StateFrames("ABCD")
    frames.update(game, 0)
    before = frames.frame(seat)
    view = game.view(seat)
    view["hand"][0]["kind"] = "magic"  # a reader's own business
    again = StateFrames("ABCD")
    again.update(game, 0)
    assert again.frame(seat) == before
    assert game.view(seat)["hand"][0]["kind"] != "magic"
