"""server.rooms.wire: state frames built from a shared part are the messages the room used to
encode."""

from __future__ import annotations

import random

import msgpack

from protocol.codec import normalize
from protocol.server_messages import ChatMessage
from server.engine import Game
from server.rooms.wire import StateFrames, encode


def test_state_frames_decode_to_the_full_views_through_whole_games() -> None:
    for edition in ("space", "shipwrecked"):
        for seed in range(3):
            game = Game(edition, ["a", "b", "c", "d"], seed)
            rng = random.Random(seed)
            version = 0
            while True:
                frames = StateFrames(game, "ABCD", version)
                for seat in (None, 0, 1, 2, 3):
                    data = frames.frame(seat)
                    assert int.from_bytes(data[:4], "big") == len(data) - 4
                    message = msgpack.unpackb(data[4:], raw=False)
                    assert message == {
                        "type": "state",
                        "room": "ABCD",
                        "version": version,
                        "view": normalize(game.view(seat)),
                    }
                    assert list(message["view"]) == list(game.view(seat))  # same order
                if game.over:
                    break
                seat = game.pending_seats()[0]
                game.apply(seat, rng.choice(game.legal(seat)))
                version += 1


def test_views_split_into_public_and_seat_parts() -> None:
    game = Game("space", ["a", "b", "c"], 7)
    assert game.view(None) == game.public_view()
    for seat in range(3):
        assert game.view(seat) == {**game.public_view(), **game.seat_view(seat)}


def test_encode_matches_protocol_encode() -> None:
    from protocol.codec import encode as protocol_encode

    message = ChatMessage(room="ABCD", player="p1", name="Ann é", seat=1, text="hé")
    assert encode(message) == protocol_encode(message.to_wire())
