"""Structured events and decisions: a key and args from protocol/vocabulary.py, no words,
redacted on the wire for each reader (RULES C4)."""

from __future__ import annotations

import random

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.game_types import Decision as WireDecision
from protocol.game_types import Event as WireEvent
from protocol.vocabulary import DECISIONS, EVENTS
from server.engine import Edition, Game
from server.engine.actions import DecisionKind
from tests.engine.scenario import build, card_id, play


def random_games(edition: Edition, count: int) -> list[tuple[Game, list[tuple[str, set[str]]]]]:
    """Played random games, each with the (kind, arg names) of every decision it opened."""
    games = []
    for seed in range(count):
        game = Game(edition, ["Ann", "Bob", "Cid", "Dee"], seed)
        rng = random.Random(seed)
        asked: list[tuple[str, set[str]]] = []
        while not game.over and game.turn < 300:
            decision = game.decision
            assert decision is not None
            asked.append((decision.kind.value, set(decision.args)))
            seat = game.pending_seats()[0]
            game.apply(seat, rng.choice(game.legal(seat)))
        games.append((game, asked))
    return games


@pytest.mark.parametrize("edition", list(Edition))
def test_C4_every_event_has_its_keys_args_and_is_redacted_per_reader(edition: Edition) -> None:
    seen: set[str] = set()
    for game, _ in random_games(edition, 12):
        for event in game.log:
            seen.add(event.key)
            known = EVENTS[event.key]
            assert event.kind == known.kind
            assert set(event.args) == set(known.args), event.key
            assert set(event.secret) <= set(known.secret), event.key
            for reader in (None, 0, 1, 2, 3):
                wire = event.to_wire(reader)
                msgpack.packb(wire)  # wire-safe
                assert WireEvent.from_wire(wire).to_wire() == wire
                args = wire["args"]
                assert isinstance(args, dict)
                if event.sees_all(reader):
                    assert set(args) == set(event.args)
                else:
                    assert not set(event.secret) & set(args)
    assert {"turn", "draw", "move", "location", "pay", "stay"} <= seen


@pytest.mark.parametrize("edition", list(Edition))
def test_every_decision_has_its_kinds_args(edition: Edition) -> None:
    kinds: set[str] = set()
    for _, asked in random_games(edition, 12):
        for kind, names in asked:
            kinds.add(kind)
            assert names == set(DECISIONS[kind]), kind
    assert {"actions", "stay_or_move"} <= kinds


def test_the_engines_decision_kinds_are_the_protocols() -> None:
    assert {kind.value for kind in DecisionKind} == set(DECISIONS)


def test_C4_a_drawn_card_is_in_the_drawers_args_only() -> None:
    game = build(hands={0: ["oxygen"]}, draw=["laser_blast"])
    draw = next(event for event in game.log if event.key == "draw")
    card = {
        "id": card_id(game, 0, "laser_blast"),
        "key": "laser_blast",
        "kind": "action",
        "value": 0,
        "dir": None,
    }
    assert draw.to_wire(0)["args"] == {"player": 0, "card": card}
    assert draw.to_wire(1)["args"] == {"player": 0}


def test_C12_target_event_names_card_and_seats_and_the_reaction_asks_by_key() -> None:
    game = build(
        rows={1: 2},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["blank_space"],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "tether")})
    aimed = next(event for event in game.log if event.key == "target")
    wire = aimed.to_wire(None)
    args = wire["args"]
    assert wire["kind"] == "target" and isinstance(args, dict)
    assert args["player"] == 0 and args["target"] == 1
    assert args["card"]["key"] == "tether"
    decision = game.view(1)["decision"]
    assert decision["kind"] == "react"
    assert decision["args"]["player"] == 0 and decision["args"]["card"]["key"] == "tether"
    assert WireDecision.from_wire(decision).to_wire() == decision
