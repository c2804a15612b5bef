"""One test (at least) per Shipwrecked card: the action cards of W5 and the ocean cards of W6.

Scenarios come from stacked decks (``tests/engine/scenario.py``): seat c starts in column c,
``draw[0]`` is the first player's phase-1 card, ``locations[0]`` the first ocean card drawn.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.engine import Edition, Game
from server.engine.cards import GAME_DECKS
from tests.engine.scenario import build, card_id, mentions, plain, play, said

SW = "shipwrecked"
DECK = GAME_DECKS[Edition.SHIPWRECKED]


def state(game: Game) -> Any:
    return game.rules.state


def pos(game: Game, seat: int) -> tuple[int, int]:
    return tuple(state(game).pos(seat))  # type: ignore[return-value]


def sharks(game: Game) -> list[tuple[int, int]]:
    return [tuple(cell) for cell in state(game).sharks]  # type: ignore[misc]


def cards(game: Game, seat: int) -> list[tuple[str, str | None]]:
    """A seat's hand as sorted (key, direction)."""
    return sorted((c.key, c.dir) for c in state(game).hands[seat])


def board(game: Game) -> dict[tuple[int, int], str]:
    return {cell: loc.key for cell, loc in state(game).board.items()}


def kinds(game: Game, *wanted: str) -> list[str]:
    """The keys of logged events of these kinds, in order."""
    return [e.key for e in game.log if e.kind in wanted]


def index_of(game: Game, kind: str, **args: Any) -> int:
    """Position in the log of the first event of ``kind`` with these (plain) args."""
    for i, event in enumerate(game.log):
        shown = {name: plain(value) for name, value in event.args.items()}
        if event.kind == kind and all(shown.get(k) == v for k, v in args.items()):
            return i
    raise AssertionError(f"no {kind} event with {args!r}")


def play_card(game: Game, key: str, target: int | None = None) -> None:
    choice: dict[str, Any] = {"do": "play", "card": card_id(game, game.active, key)}
    if target is not None:
        choice["target"] = target
    play(game, choice)


def option_cards(options: list[dict[str, Any]]) -> set[tuple[str, str | None]]:
    return {(DECK[o["card"]].key, DECK[o["card"]].dir) for o in options}


def move(game: Game) -> None:
    play(game, "done", "move")


# ----------------------------------------------------------------------------- W5 action cards
def test_W5_pirate_looks_at_the_whole_hand_and_takes_a_chosen_card() -> None:
    game = build(
        SW,
        3,
        hands={
            0: ["pirate", ("food", "N")],
            1: [("food2", "E"), ("rogue_wave", "N"), ("food", "S")],
        },
        draw=["lost"],
    )
    # Cid holds nothing: he is no Pirate target (C12).
    targets = {
        o.get("target")
        for o in game.legal(0)
        if o["do"] == "play" and DECK[o["card"]].key == "pirate"
    }
    assert targets == {1}
    play_card(game, "pirate", 1)
    play(game, "accept")
    assert game.decision is not None and game.decision.kind == "take"
    view = game.view(0)
    assert sorted((c["key"], c["dir"]) for c in view["decision"]["reveal"]) == cards(game, 1)
    assert option_cards(game.legal(0)) == set(cards(game, 1))
    assert game.view(1)["decision"] is None and game.view(2)["decision"] is None
    play(game, {"do": "take", "card": card_id(game, 1, "rogue_wave")})
    assert ("rogue_wave", "N") in cards(game, 0)
    assert cards(game, 1) == [("food", "S"), ("food2", "E")]
    # Only Ann sees Bob's hand and the card; Cid only learns that a card was taken.
    hand = ["food2:E", "rogue_wave:N", "food:S"]
    assert ("look", {"looker": 0, "victim": 1, "cards": hand}) in said(game, 0)
    assert ("look", {"looker": 0, "victim": 1}) in said(game, 2)
    assert not mentions(game, 2, "rogue_wave:N")
    assert ("take", {"looker": 0, "victim": 1, "card": "rogue_wave:N"}) in said(game, 1)


def test_W5_ride_the_wave_moves_forward_then_the_target_back() -> None:
    game = build(
        SW,
        3,
        hands={0: ["ride_the_wave", ("food", "N")], 1: [("food", "E")]},
        draw=["lost"],
        rows={0: 1, 1: 3},
        board={
            (0, 0): "calm_waters",
            (1, 0): "calm_waters",
            (1, 1): "calm_waters",
            (1, 2): ("ocean_debris", False),
        },
        locations=[("calm_waters", False)],
    )
    # The card is played without a target: it is chosen after the forward move (C12).
    options = [
        o for o in game.legal(0) if o["do"] == "play" and DECK[o["card"]].key == "ride_the_wave"
    ]
    assert [o.get("target") for o in options] == [None]
    play_card(game, "ride_the_wave")
    # Cid on row 0 cannot be the target: Bob, the only one, is chosen without asking.
    assert game.decision is not None and game.decision.kind == "react"
    play(game, "accept")
    assert pos(game, 0) == (0, 2) and pos(game, 1) == (1, 2)
    assert board(game).get((0, 1)) == "calm_waters"
    assert (1, 2) not in board(game)  # the Ocean Debris Bob moved back onto is discarded
    assert [loc.key for loc in state(game).loc_discard] == ["ocean_debris"]
    assert index_of(game, "location", player=0) < index_of(game, "back", player=1)
    assert cards(game, 1) == [("food", "E")]  # the discarded card did nothing


def test_W5_ride_the_wave_without_a_target_moves_forward_alone() -> None:
    game = build(
        SW,
        3,
        hands={0: ["ride_the_wave", ("food", "N")], 1: [("food", "E")]},
        draw=["lost"],
        locations=[("calm_waters", False)],
    )
    options = [
        o for o in game.legal(0) if o["do"] == "play" and DECK[o["card"]].key == "ride_the_wave"
    ]
    assert [o.get("target") for o in options] == [None]
    play_card(game, "ride_the_wave")
    assert pos(game, 0) == (0, 1) and game.pending_seats() == [0]
    assert game.decision is not None and game.decision.kind == "actions"


def test_W5_lost_discards_one_card_at_random_from_an_opponent() -> None:
    before_hand = [("pirate", "N"), ("food", "E"), ("food2", "S")]
    game = build(SW, 3, hands={0: ["lost", ("food", "N")], 1: before_hand}, draw=["dive"])
    play_card(game, "lost", 1)
    play(game, "accept")
    after = cards(game, 1)
    assert len(after) == 2
    top = state(game).discard[-1]
    gone = (top.key, top.dir)
    assert gone in before_hand and sorted([*after, gone]) == sorted(before_hand)
    # the lost card is public
    assert ("discard.lost", {"player": 1, "card": plain(top)}) in said(game, 2)


def test_W5_lost_needs_a_target_holding_a_card() -> None:
    game = build(SW, 3, hands={0: ["lost", ("food", "N")]}, draw=["dive"])
    assert not [o for o in game.legal(0) if o["do"] == "play" and DECK[o["card"]].key == "lost"]


def test_W5_freestyle_sprint_moves_forward_free_and_draws_an_ocean_card() -> None:
    game = build(
        SW,
        3,
        hands={0: ["freestyle_sprint", ("food", "N")]},
        draw=["lost", "pirate"],
        rows={0: 2},
        board={(0, 0): "calm_waters", (0, 1): "calm_waters"},
        locations=[("ocean_debris", False)],
    )
    option = [
        o for o in game.legal(0) if o["do"] == "play" and DECK[o["card"]].key == "freestyle_sprint"
    ]
    assert option == [{"do": "play", "card": card_id(game, 0, "freestyle_sprint")}]
    play_card(game, "freestyle_sprint")
    assert pos(game, 0) == (0, 3) and board(game)[(0, 2)] == "ocean_debris"
    assert cards(game, 0) == [("food", "N"), ("lost", "N"), ("pirate", "N")]  # no food paid
    assert game.decision is not None and game.decision.kind == "actions"


def test_W5_dive_blocks_a_game_card_played_on_you() -> None:
    game = build(
        SW,
        3,
        hands={0: ["rogue_wave", ("food", "N")], 1: ["dive", ("food", "E")]},
        draw=["lost"],
        rows={1: 2},
        board={(1, 0): "calm_waters", (1, 1): "calm_waters"},
    )
    # Dive is a reaction only: Bob could not play it in his phase 2; Ann can't play it either.
    play_card(game, "rogue_wave", 1)
    assert game.pending_seats() == [1]
    assert {o["do"] for o in game.legal(1)} == {"accept", "block"}
    play(game, {"do": "block", "card": card_id(game, 1, "dive")})
    assert pos(game, 1) == (1, 2) and cards(game, 1) == [("food", "E")]
    assert [c.key for c in state(game).discard[-2:]] == ["rogue_wave", "dive"]


def test_W5_dive_against_ride_the_wave_keeps_the_forward_move() -> None:
    game = build(
        SW,
        3,
        hands={0: ["ride_the_wave", ("food", "N")], 1: ["dive", ("food", "E")]},
        draw=["lost"],
        rows={1: 2},
        board={(1, 0): "calm_waters", (1, 1): "calm_waters"},
        locations=[("calm_waters", False)],
    )
    play_card(game, "ride_the_wave")
    play(game, {"do": "block", "card": card_id(game, 1, "dive")})
    assert pos(game, 0) == (0, 1) and pos(game, 1) == (1, 2)


def test_W5_dive_never_blocks_ocean_cards_and_is_no_phase_two_play() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), "dive", ("food", "E")]},
        draw=["lost"],
        locations=[("sea_monster", False)],
    )
    assert not [o for o in game.legal(0) if o["do"] == "play" and DECK[o["card"]].key == "dive"]
    move(game)  # pays the double; Sea Monster takes the single, no reaction is offered
    assert not kinds(game, "react")
    assert cards(game, 0) == [("dive", "N"), ("lost", "N")]


def test_W5_rogue_wave_moves_an_opponent_back() -> None:
    game = build(
        SW,
        3,
        hands={0: ["rogue_wave", ("food", "N")], 1: [("food", "E")]},
        draw=["lost"],
        rows={1: 2},
        board={(1, 0): "calm_waters", (1, 1): "sea_monster"},
    )
    targets = {
        o.get("target")
        for o in game.legal(0)
        if o["do"] == "play" and DECK[o["card"]].key == "rogue_wave"
    }
    assert targets == {1}  # Cid stands on row 0
    play_card(game, "rogue_wave", 1)
    play(game, "accept")
    assert pos(game, 1) == (1, 1)
    assert board(game) == {(1, 0): "calm_waters"}  # the Sea Monster is discarded, not resolved
    assert cards(game, 1) == [("food", "E")]


def test_W5_message_in_a_bottle_steals_two_food_chosen_by_the_victim() -> None:
    game = build(
        SW,
        3,
        hands={
            0: ["message_in_a_bottle", ("food", "W")],
            1: [("food", "N"), ("food", "E"), ("food2", "S"), "pirate"],
        },
        draw=["lost"],
    )
    play_card(game, "message_in_a_bottle", 1)
    play(game, "accept")
    # Bob chooses: the double, or the two singles.
    assert game.pending_seats() == [1] and game.decision is not None
    assert game.decision.kind == "give"
    ways = sorted(sorted((DECK[i].key, DECK[i].dir) for i in o["cards"]) for o in game.legal(1))
    assert ways == [[("food", "E"), ("food", "N")], [("food2", "S")]]
    play(game, next(o for o in game.legal(1) if len(o["cards"]) == 2), seat=1)
    assert cards(game, 1) == [("food2", "S"), ("pirate", "N")]
    assert ("food", "N") in cards(game, 0) and ("food", "E") in cards(game, 0)
    # Cid sees that food changed hands, not which cards nor how much (C4).
    assert not mentions(game, 2, "food:N") and not mentions(game, 2, "food:E")
    assert ("steal", {"thief": 0, "victim": 1, "resource": "food"}) in said(game, 2)


def test_W5_message_in_a_bottle_victim_with_less_gives_all() -> None:
    game = build(
        SW,
        3,
        hands={0: ["message_in_a_bottle", ("food", "W")], 1: [("food", "N"), "pirate"]},
        draw=["lost"],
    )
    play_card(game, "message_in_a_bottle", 1)
    play(game, "accept")
    assert cards(game, 1) == [("pirate", "N")] and state(game).alive[1]  # W3: not dead
    assert ("food", "N") in cards(game, 0)


# ----------------------------------------------------------------------------- W6 ocean cards
def test_W6_calm_waters_does_nothing() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "S")]},
        draw=["lost", "pirate"],
        locations=[("calm_waters", False)],
    )
    move(game)
    assert cards(game, 0) == [("food", "E"), ("lost", "N")]
    assert board(game) == {(0, 0): "calm_waters"} and sharks(game) == []
    assert game.active == 1 and cards(game, 1) == [("food", "S"), ("pirate", "N")]


def test_W6_sea_monster_discards_one_food_of_the_drawers_choice() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "N"), ("food", "E")]},
        draw=["lost"],
        locations=[("sea_monster", False)],
    )
    play(game, "done", "move")
    play(game, {"do": "pay", "cards": [card_id(game, 0, "food2")]})
    assert game.decision is not None and game.decision.kind == "pay"
    assert option_cards([{"card": o["cards"][0]} for o in game.legal(0)]) == {
        ("food", "N"),
        ("food", "E"),
    }
    play(game, {"do": "pay", "cards": [card_id(game, 0, "food", "N")]})
    assert cards(game, 0) == [("food", "E"), ("lost", "N")]


def test_W6_sea_monster_kills_a_drawer_without_food() -> None:
    game = build(
        SW, 3, hands={0: [("food2", "N")]}, draw=["lost"], locations=[("sea_monster", False)]
    )
    move(game)
    assert not state(game).alive[0] and state(game).hands[0] == []
    assert not game.over and game.active == 1


def test_W6_ocean_debris_draws_one_game_card() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")]},
        draw=["lost", "pirate", "dive"],
        locations=[("ocean_debris", False)],
    )
    move(game)
    assert cards(game, 0) == [("lost", "N"), ("pirate", "N")]


def test_W6_davy_jones_locker_draws_two_game_cards() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")]},
        draw=["lost", "pirate", "dive", "rogue_wave"],
        locations=[("davy_jones_locker", True)],
    )
    move(game)
    assert cards(game, 0) == [("dive", "N"), ("lost", "N"), ("pirate", "N")]
    assert sharks(game) == [(0, 0)]  # both copies bear an icon: the first shark appears


def test_W6_shark_bait_moves_a_shark_next_to_another_living_castaway() -> None:
    # Ann (drawer) at (0,1); Bob at (1,0); Cid at (2,5), beside the raft; Dee dead at (3,3).
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={2: 5, 3: 3},
        dead=[3],
        locations=["shark_bait"],
        sharks=[(3, 5), (0, 4)],
    )
    move(game)
    assert game.decision is not None and game.decision.kind == "shark_bait"
    got = {(o["shark"], tuple(o["cell"])) for o in game.legal(0)}
    cells = {
        (1, 1),
        (2, 0),
        (0, 0),  # next to Bob ((1,-1) is off the board)
        (2, 4),
        (1, 5),
        (3, 5),
    }  # next to Cid ((2,6) is the raft, not water)
    assert got == {(shark, cell) for shark in (0, 1) for cell in cells}
    play(game, {"do": "shark", "shark": 1, "cell": [2, 4]})
    assert sharks(game) == [(3, 5), (2, 4)]
    assert not kinds(game, "bite")


def test_W6_shark_bait_without_a_shark_does_nothing() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        locations=["shark_bait"],
    )
    move(game)
    assert sharks(game) == [] and game.active == 1


def test_W6_freeloader_tie_is_chosen_by_the_drawer_then_the_drawer_draws() -> None:
    # Bob and Cid tie at row 0 (Dee's corpse does not count); Ann picks Cid, who moves and
    # resolves his card; then Ann draws 1. The icon then places the first shark.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost", "pirate", "dive"],
        dead=[3],
        locations=[("freeloader", True), ("ocean_debris", False)],
    )
    move(game)
    assert game.decision is not None and game.decision.kind == "freeloader"
    assert sorted(o["target"] for o in game.legal(0)) == [1, 2]
    play(game, {"do": "advance", "target": 2})
    assert pos(game, 2) == (2, 1) and pos(game, 1) == (1, 0) and pos(game, 3) == (3, 0)
    assert board(game) == {(0, 0): "freeloader", (2, 0): "ocean_debris"}
    assert ("pirate", "N") in cards(game, 2)  # Cid's Ocean Debris drew first
    assert len(cards(game, 0)) == 2  # Ann: Lost + her Freeloader draw
    assert ("dive", "N") in cards(game, 0)
    assert index_of(game, "draw", player=2) < index_of(game, "draw", player=0, card="dive:N")
    assert sharks(game) == [(0, 0)]
    assert index_of(game, "location", location="ocean_debris") < index_of(game, "shark")


def test_W6_freeloader_may_move_the_drawer_again() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost", "pirate"],
        rows={1: 2, 2: 3},
        locations=[("freeloader", False), ("calm_waters", False)],
    )
    move(game)
    assert pos(game, 0) == (0, 2)
    assert board(game) == {(0, 0): "freeloader", (0, 1): "calm_waters"}
    assert cards(game, 0) == [("lost", "N"), ("pirate", "N")]


def test_W6_whirlpool_swaps_with_anyone_not_on_the_raft() -> None:
    # Bob alive at row 2; Cid's corpse at row 3; Dee's corpse on the raft (row 6).
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        rows={1: 2, 2: 3, 3: 6},
        dead=[2, 3],
        locations=["whirlpool"],
    )
    move(game)
    assert game.decision is not None and game.decision.kind == "swap"
    assert sorted(o["target"] for o in game.legal(0)) == [1, 2]
    play(game, {"do": "swap", "target": 2})
    assert pos(game, 0) == (2, 3) and pos(game, 2) == (0, 1)
    assert board(game) == {(0, 0): "whirlpool"}  # location cards stay on their cells
    assert not game.over and game.active == 1


def test_W6_hurricane_discards_at_once_then_everyone_draws_two_from_the_drawer() -> None:
    # Bob draws Hurricane. Ann and Bob hold cards and discard one each, secretly and together;
    # Cid (empty hand) is not asked; Dee is dead. Draws: Bob, Cid, Ann, two cards each.
    game = build(
        SW,
        4,
        first=1,
        hands={0: [("food", "N"), ("pirate", "E")], 1: [("food2", "N"), ("food", "E")]},
        dead=[3],
        draw=[
            "lost",
            ("rogue_wave", "N"),
            ("rogue_wave", "E"),
            ("dive", "N"),
            ("dive", "E"),
            ("freestyle_sprint", "N"),
            ("freestyle_sprint", "E"),
            ("pirate", "N"),
        ],
        locations=[("hurricane", False)],
    )
    move(game)  # Bob pays the double; holds Food →E, Lost ↑N
    assert game.decision is not None and game.decision.kind == "hurricane"
    assert game.pending_seats() == [0, 1]
    assert option_cards([{"card": o["cards"][0]} for o in game.legal(0)]) == {
        ("food", "N"),
        ("pirate", "E"),
    }
    play(game, {"do": "discard", "cards": [card_id(game, 1, "lost")]}, seat=1)
    assert not kinds(game, "discard")  # nothing is discarded until everyone has chosen
    assert ("lost", "N") in cards(game, 1)
    play(game, {"do": "discard", "cards": [card_id(game, 0, "pirate")]}, seat=0)
    assert cards(game, 1) == [("food", "E"), ("rogue_wave", "E"), ("rogue_wave", "N")]
    # (Cid's turn has begun: he also holds his phase-1 draw, the Pirate)
    assert cards(game, 2) == [("dive", "E"), ("dive", "N"), ("pirate", "N")]
    assert cards(game, 0) == [("food", "N"), ("freestyle_sprint", "E"), ("freestyle_sprint", "N")]
    assert cards(game, 3) == []
    assert {c.key for c in state(game).discard[-2:]} == {"lost", "pirate"}


def test_W6_hurricane_shark_icon_moves_after_the_draws() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")]},
        draw=["lost", ("food", "W"), ("food", "S")],
        locations=[("hurricane", True)],
        sharks=[(2, 4)],
    )
    move(game)
    play(game, {"do": "discard", "cards": [card_id(game, 0, "lost")]}, seat=0)
    # Bob and Cid drew 2 each now too, so all three pick.
    assert game.decision is not None and game.decision.kind == "pick"
    assert game.pending_seats() == [0, 1, 2]
    assert option_cards(game.legal(0)) == {("food", "E"), ("food", "W"), ("food", "S")}


def test_W6_island_call_moves_back_and_is_discarded() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")]},
        draw=["lost"],
        rows={0: 2},
        board={(0, 0): "calm_waters", (0, 1): "sea_monster"},
        locations=["island_call"],
    )
    move(game)
    assert pos(game, 0) == (0, 2)
    assert board(game) == {(0, 0): "calm_waters", (0, 1): "sea_monster"}
    assert [loc.key for loc in state(game).loc_discard] == ["island_call"]
    assert cards(game, 0) == [("lost", "N")]  # nothing else triggered


def test_W6_raft_drift_brings_the_raft_closer_and_pushes_sharks_back() -> None:
    # Dee's corpse stands on row 6 with a card on row 5: the card stays where it is.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        rows={3: 6},
        dead=[3],
        board={(3, 5): "calm_waters"},
        locations=["raft_drift"],
        sharks=[(1, 5), (2, 3)],
    )
    move(game)
    assert state(game).goal_row == 5 and game.view(None)["goal_row"] == 5
    assert sharks(game) == [(1, 4), (2, 3)]
    assert board(game)[(3, 5)] == "calm_waters"
    assert not game.over and game.active == 1
    # water now ends at row 4
    assert not state(game).is_water((1, 5))


def test_W6_raft_drift_never_goes_below_row_1() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        goal_row=1,
        locations=["raft_drift"],
        sharks=[(1, 0)],
    )
    move(game)
    assert state(game).goal_row == 1 and sharks(game) == [(1, 0)]
    assert game.over and game.winner == 0  # Ann stands on the raft


def test_W6_counter_current_moves_forward_free() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")]},
        draw=["lost", "pirate"],
        locations=["counter_current", ("ocean_debris", False)],
    )
    move(game)
    assert pos(game, 0) == (0, 2)
    assert board(game) == {(0, 0): "counter_current", (0, 1): "ocean_debris"}
    assert cards(game, 0) == [("food", "E"), ("lost", "N"), ("pirate", "N")]  # no food paid


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ([], []),
        ([(2, 4)], [(2, 4), (0, 2)]),
        ([(2, 4), (1, 3)], [(2, 4), (1, 3)]),
    ],
)
def test_W6_feeding_frenzy_adds_the_second_shark_only_beside_exactly_one(
    before: list[tuple[int, int]], after: list[tuple[int, int]]
) -> None:
    # Ann moves from row 2 to row 3: the Feeding Frenzy lies on (0, 2).
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        rows={0: 2},
        board={(0, 0): "calm_waters", (0, 1): "calm_waters"},
        locations=["feeding_frenzy"],
        sharks=before,
    )
    move(game)
    assert sharks(game) == after
    assert not kinds(game, "pick", "reveal", "bite") and game.active == 1
