"""Structured events: a kind, a sentence key and args, rendered to English outside the rules,
redacted on the wire for each reader (RULES C4)."""

from __future__ import annotations

import random
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest

from server.engine import Edition, Game
from server.engine.actions import DecisionKind
from server.engine.english import EVENT_TEXTS, PROMPTS
from tests.engine.scenario import build, card_id, play

PROTOCOL = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()


def random_games(edition: Edition, count: int) -> list[Game]:
    games = []
    for seed in range(count):
        game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], seed)
        rng = random.Random(seed)
        while not game.over and game.turn < 300:
            seat = game.pending_seats()[0]
            game.apply(seat, rng.choice(game.legal(seat)))
        games.append(game)
    return games


@pytest.mark.parametrize("edition", list(Edition))
def test_C4_every_event_renders_and_its_wire_form_is_redacted_per_reader(
    edition: Edition,
) -> None:
    seen: set[str] = set()
    for game in random_games(edition, 12):
        for event in game.log:
            seen.add(event.key)
            assert event.key in EVENT_TEXTS and event.text
            for reader in (None, 0, 1, 2, 3):
                wire = event.as_dict(reader)
                assert wire is not None and wire["text"] == event.for_seat(reader)
                assert wire["kind"] == event.kind and wire["key"] == event.key
                msgpack.packb(wire)  # wire-safe
                args = wire["args"]
                assert isinstance(args, dict)
                if event.sees_all(reader):
                    assert set(args) == set(event.args)
                else:
                    assert not set(event.secret) & set(args)
    assert {"turn", "draw", "move", "location", "pay", "stay"} <= seen


def test_C4_a_drawn_card_is_in_the_drawers_args_only() -> None:
    game = build(hands={0: ["oxygen"]}, draw=["laser_blast"])
    draw = next(event for event in game.log if event.key == "draw")
    mine = draw.as_dict(0)
    theirs = draw.as_dict(1)
    assert mine is not None and theirs is not None
    assert mine["args"] == {
        "player": 0,
        "card": {"id": card_id(game, 0, "laser_blast"), "key": "laser_blast", "dir": None},
    }
    assert theirs["args"] == {"player": 0} and theirs["text"] == "Ann draws a card."


def test_C12_target_event_names_card_and_seats() -> None:
    game = build(
        rows={1: 2},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["blank_space"],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "tether")})
    aimed = next(event for event in game.log if event.key == "target")
    wire = aimed.as_dict(None)
    assert wire is not None and wire["kind"] == "target"
    assert wire["args"]["player"] == 0 and wire["args"]["target"] == 1
    assert wire["args"]["card"]["key"] == "tether"
    assert game.decision is not None and game.decision.prompt == "Ann plays Tether on you."


def test_every_event_key_and_prompt_is_documented() -> None:
    events = PROTOCOL[PROTOCOL.index("### events") : PROTOCOL.index("### timer")]
    for key in EVENT_TEXTS:
        assert f"| `{key}` |" in events, key
    kinds_line = PROTOCOL[PROTOCOL.index("Decision kinds:") :].split("`")[1].split()
    assert set(kinds_line) == {kind.value for kind in DecisionKind}
    assert set(PROMPTS) == {kind.value for kind in DecisionKind} | {"give"}  # give: C8's pay
