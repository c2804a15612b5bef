"""Shipwrecked Edition rules W1-W7 (and Shipwrecked parts of common rules), from stacked decks.

Conventions of these scenarios: seat c starts in column c; ``build`` puts the first turn with
seat ``first`` (0 unless said); ``draw[0]`` is the card the first player draws in phase 1;
``locations[0]`` is the first ocean card drawn. A location spec ``(key, True)`` is a copy with a
shark icon, ``(key, False)`` one without. Sharks are (column, row) cells.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from server.engine import Edition, Event, Game
from server.engine.cards import GAME_DECKS, LOCATION_DECKS
from tests.engine.scenario import Said, build, card_id, hand, mentions, plain, play, said

SW = "shipwrecked"
DECK = GAME_DECKS[Edition.SHIPWRECKED]


# ----------------------------------------------------------------------------- helpers
def state(game: Game) -> Any:
    return game.rules.state


def sharks(game: Game) -> list[tuple[int, int]]:
    return [tuple(cell) for cell in state(game).sharks]  # type: ignore[misc]


def food(game: Game, seat: int) -> int:
    return int(state(game).units(seat))


def foods(game: Game, seat: int) -> list[tuple[str, str | None]]:
    """A seat's resource cards as sorted (key, direction)."""
    return sorted((c.key, c.dir) for c in state(game).hands[seat] if c.value)


def board(game: Game) -> dict[tuple[int, int], str]:
    return {cell: loc.key for cell, loc in state(game).board.items()}


def pos(game: Game, seat: int) -> tuple[int, int]:
    return tuple(state(game).pos(seat))  # type: ignore[return-value]


def kinds(game: Game, *wanted: str) -> list[Said]:
    """(key, args) of logged events of these kinds, in order (as in ``said``)."""
    return [(e.key, whole(e)) for e in game.log if e.kind in wanted]


def whole(event: Event) -> dict[str, Any]:
    """Every arg of ``event``, made plain."""
    return {name: plain(value) for name, value in event.args.items()}


def who(game: Game, kind: str) -> list[str]:
    """The names of the players events of ``kind`` are about, in order."""
    return [game.names[args["player"]] for _, args in kinds(game, kind)]


def index_of(game: Game, kind: str, **args: Any) -> int:
    """Position in the log of the first event of ``kind`` with these (plain) args."""
    for i, event in enumerate(game.log):
        shown = whole(event)
        if event.kind == kind and all(shown.get(k) == v for k, v in args.items()):
            return i
    raise AssertionError(f"no {kind} event with {args!r}")


def pick(game: Game, seat: int, key: str, direction: str | None = None) -> None:
    """A seat's shark-movement pick."""
    play(game, {"do": "pick", "card": card_id(game, seat, key, direction)}, seat=seat)


def pay_with(game: Game, seat: int, *cards: tuple[str, str]) -> None:
    """Choose the ``pay`` option made of exactly these (key, direction) cards."""
    wanted = sorted(cards)
    for option in game.legal(seat):
        if option["do"] == "pay":
            got = sorted((DECK[i].key, DECK[i].dir or "") for i in option["cards"])
            if got == wanted:
                play(game, option, seat=seat)
                return
    raise AssertionError(f"no payment {wanted} among {game.legal(seat)}")


def move(game: Game) -> None:
    """The active player ends phase 2 and moves (phase 3)."""
    play(game, "done", "move")


# ----------------------------------------------------------------------------- W1, W2
def test_W1_game_cards_counts_and_directions_in_turn() -> None:
    counts = Counter(card.key for card in DECK)
    assert counts == {
        "food": 38,
        "food2": 10,
        "pirate": 5,
        "ride_the_wave": 5,
        "lost": 5,
        "freestyle_sprint": 4,
        "dive": 4,
        "rogue_wave": 4,
        "message_in_a_bottle": 3,
    }
    assert len(DECK) == 78
    assert sum(card.value for card in DECK if card.key == "food") == 38
    assert {card.value for card in DECK if card.key == "food2"} == {2}
    for key in counts:
        dirs = [card.dir for card in DECK if card.key == key]
        assert dirs == [("N", "E", "S", "W")[i % 4] for i in range(len(dirs))], key
    # e.g. the three Messages in a Bottle point N, E, S; food singles get 10 N, 10 E, 9 S, 9 W
    assert Counter(c.dir for c in DECK if c.key == "food") == {"N": 10, "E": 10, "S": 9, "W": 9}


def test_W2_ocean_deck_counts_and_twenty_shark_icons() -> None:
    deck = LOCATION_DECKS[Edition.SHIPWRECKED]
    assert len(deck) == 41
    assert Counter(loc.key for loc in deck) == {
        "calm_waters": 10,
        "sea_monster": 6,
        "ocean_debris": 5,
        "shark_bait": 4,
        "freeloader": 3,
        "whirlpool": 3,
        "hurricane": 3,
        "island_call": 2,
        "davy_jones_locker": 2,
        "raft_drift": 1,
        "counter_current": 1,
        "feeding_frenzy": 1,
    }
    icons = Counter(loc.key for loc in deck if loc.shark)
    assert icons == {
        "calm_waters": 7,
        "sea_monster": 4,
        "ocean_debris": 3,
        "hurricane": 2,
        "davy_jones_locker": 2,
        "freeloader": 2,
    }
    assert sum(icons.values()) == 20


def test_W2_no_shark_in_play_at_the_start_of_a_game() -> None:
    game = Game(Edition.SHIPWRECKED, ["A", "B", "C"], seed=3)
    assert state(game).sharks == [] and game.view(None)["sharks"] == []
    assert game.view(None)["goal_row"] == 6


# ----------------------------------------------------------------------------- W3
def test_W3_holding_no_food_is_not_death() -> None:
    # Ann's Message in a Bottle takes Bob's only food; Bob lives on with none.
    game = build(
        SW,
        3,
        hands={
            0: ["message_in_a_bottle", ("food2", "N")],
            1: [("food", "E"), "pirate"],
            2: [("food", "S")],
        },
        draw=["lost", ("food", "W")],
    )
    play(
        game, {"do": "play", "card": card_id(game, 0, "message_in_a_bottle"), "target": 1}, "accept"
    )
    assert food(game, 1) == 0 and state(game).alive[1]
    play(game, "done", "stay")  # Ann stays, paying with Bob's single
    assert game.active == 1 and state(game).alive[1]  # Bob takes his turn, holding no food
    assert hand(game, 1) == ["food", "pirate"]  # he drew the single


def test_W3_staying_without_food_kills() -> None:
    game = build(
        SW, 3, hands={0: ["pirate"], 1: [("food", "N")], 2: [("food", "E")]}, draw=["lost"]
    )
    play(game, "done")
    stay = [c for c in game.view(0)["legal"] if c["do"] == "stay"]
    assert stay[0].get("fatal") is True  # C18 marks it
    play(game, "stay")
    assert not state(game).alive[0] and state(game).hands[0] == []
    assert not game.over and game.active == 1


def test_W3_staying_with_food_pays_and_lives() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food", "N"), "pirate"], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
    )
    play(game, "done")
    assert "fatal" not in next(c for c in game.view(0)["legal"] if c["do"] == "stay")
    play(game, "stay")
    assert state(game).alive[0] and hand(game, 0) == ["lost", "pirate"]


def test_W3_bitten_castaway_with_food_pays_one_and_lives() -> None:
    # Bob is moved back by Rogue Wave into a shark's cell: he discards 1 food and survives.
    game = build(
        SW,
        3,
        hands={0: ["rogue_wave", ("food", "N")], 1: [("food2", "E"), "lost"], 2: [("food", "S")]},
        draw=["pirate"],
        rows={1: 3},
        sharks=[(1, 2)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "rogue_wave"), "target": 1}, "accept")
    assert pos(game, 1) == (1, 2) and state(game).alive[1]
    # paid with the double; change (a single) came back from the piles
    assert sorted(hand(game, 1)) == ["food", "lost"]
    assert sharks(game) == [(1, 2)]  # the shark stays


# ----------------------------------------------------------------------------- W4 (a)
def test_W4_last_castaway_alive_wins_at_once() -> None:
    # Cid is already dead; Ann stays with no food and dies: Bob wins at once, mid Ann's turn.
    game = build(SW, 3, hands={0: ["pirate"], 1: [("food", "N")]}, draw=["lost"], dead=[2])
    play(game, "done", "stay")
    assert game.over and game.winner == 1
    assert game.pending_seats() == []
    assert ("win.last", {"player": 1}) in said(game)


def test_W4_last_castaway_alive_wins_before_the_shark_icon_resolves() -> None:
    # Sea Monster with a shark icon eats Ann's last chance: Bob wins at once, so the icon's
    # shark movement (which would ask Bob to pick) never happens.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        dead=[2],
        locations=[("sea_monster", True)],
        sharks=[(2, 4)],
    )
    move(game)
    assert game.over and game.winner == 1
    assert sharks(game) == [(2, 4)] and not kinds(game, "pick", "reveal")


def test_W4_no_castaway_left_nobody_wins() -> None:
    # Two seats. Ann enters a shark's cell (pays her last food), draws Whirlpool and must swap
    # with Bob, who stands on a shark too: both are bitten by one swap, both hold no food, both
    # die together, so nobody wins (had Ann died first, Bob would have won).
    game = build(
        SW,
        2,
        hands={0: [("food2", "N"), ("food", "E")], 1: ["pirate"]},
        draw=["lost"],
        rows={1: 3},
        locations=["whirlpool"],
        sharks=[(0, 1), (1, 3)],
    )
    move(game)
    assert game.over and game.winner is None
    assert state(game).alive == [False, False]
    assert ("win.nobody", {}) in said(game)


def test_W4_last_survivor_wins_mid_shark_movement_and_later_picks_stay_unrevealed() -> None:
    # Cid is dead. Ann's N makes the shark eat Bob: Ann wins at once (C17: the win cancels the
    # rest), so Bob's pick is never revealed.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food", "W")]},
        draw=["lost"],
        rows={1: 2},
        dead=[2],
        locations=[("calm_waters", True)],
        sharks=[(1, 1)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "W")
    assert game.over and game.winner == 0
    assert who(game, "reveal") == ["Ann"]


# ----------------------------------------------------------------------------- W4 (b)
def test_W4_raft_check_after_location_card_wins() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5},
        locations=[("calm_waters", False)],
    )
    move(game)
    assert game.over and game.winner == 0 and pos(game, 0) == (0, 6)


def test_W4_raft_check_after_action_card_wins_in_phase_two() -> None:
    game = build(
        SW,
        3,
        hands={0: ["freestyle_sprint", ("food", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5},
        locations=[("calm_waters", False)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "freestyle_sprint")})
    assert game.over and game.winner == 0
    assert state(game).phase == "over"


def test_W4_raft_check_waits_until_the_location_card_has_resolved() -> None:
    # Ann steps onto the raft row but draws Island Call, which takes her back: no win.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5},
        locations=["island_call"],
    )
    move(game)
    assert not game.over and pos(game, 0) == (0, 5) and game.active == 1


def test_W4_raft_check_active_player_wins_if_among_them() -> None:
    # Ann already stands on row 5; Bob (active) moves to row 5 and draws Raft Drift: the raft
    # is now at row 5 and both are on it. Bob, the active player, wins (not Ann, seat 0).
    game = build(
        SW,
        3,
        first=1,
        hands={0: [("food", "N")], 1: [("food2", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5, 1: 4},
        locations=["raft_drift"],
    )
    move(game)
    assert state(game).goal_row == 5
    assert game.over and game.winner == 1


def test_W4_raft_check_first_after_active_player_in_seat_order() -> None:
    # Bob (active) draws Raft Drift at row 3; Ann and Cid stand on row 5, now the raft.
    # Cid comes first in seat order after Bob, so Cid wins, not Ann.
    game = build(
        SW,
        3,
        first=1,
        hands={0: [("food", "N")], 1: [("food2", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5, 1: 2, 2: 5},
        locations=["raft_drift"],
    )
    move(game)
    assert game.over and game.winner == 2


def test_W4_raft_check_wraps_round_the_table() -> None:
    # Cid (seat 2) is active; Ann (seat 0) and Bob (seat 1) are on the drifted raft: Ann wins.
    game = build(
        SW,
        3,
        first=2,
        hands={0: [("food", "N")], 1: [("food", "N")], 2: [("food2", "N")]},
        draw=["lost"],
        rows={0: 5, 1: 5, 2: 1},
        locations=["raft_drift"],
    )
    move(game)
    assert game.over and game.winner == 0


def test_W4_corpses_on_the_raft_do_not_count() -> None:
    # Dee's corpse lies on row 5; the raft drifts to row 5: nobody wins, the game goes on.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={3: 5},
        dead=[3],
        locations=["raft_drift"],
    )
    move(game)
    assert state(game).goal_row == 5
    assert not game.over and game.active == 1


def test_W6_whirlpool_drawn_on_reaching_the_raft_does_not_swap_and_the_drawer_wins() -> None:
    # Ann steps onto the raft row and draws Whirlpool: "players on the raft are excluded", so
    # she does not swap with Bob or Cid; the raft check makes her win.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={0: 5, 1: 1, 2: 2},
        locations=["whirlpool"],
    )
    move(game)
    assert game.over and game.winner == 0
    assert pos(game, 0) == (0, 6) and pos(game, 1) == (1, 1) and pos(game, 2) == (2, 2)
    assert not kinds(game, "swap")


# ----------------------------------------------------------------------------- W6 (rules)
def test_W6_text_resolves_before_shark_icon() -> None:
    # Ocean Debris with a shark icon: Ann draws first, and may then pick the drawn card.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")]},
        draw=["lost", ("food", "W")],
        locations=[("ocean_debris", True)],
        sharks=[(2, 4)],
    )
    move(game)
    assert game.pending_seats() == [0]  # only Ann holds cards
    picks = {DECK[c["card"]].key + DECK[c["card"]].dir for c in game.legal(0)}
    assert picks == {"lostN", "foodW"}  # the Ocean Debris card is among them
    pick(game, 0, "food", "W")
    assert sharks(game) == [(1, 4)]
    assert index_of(game, "draw", card="food:W") < index_of(game, "reveal")


# ----------------------------------------------------------------------------- W7
def test_W7_first_shark_is_placed_on_the_card_cell_and_does_not_move() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        locations=[("calm_waters", True)],
    )
    move(game)
    assert sharks(game) == [(0, 0)]
    assert game.view(None)["sharks"] == [[0, 0]]
    # Nobody was asked to pick: the next decision is Bob's turn.
    assert game.active == 1 and game.pending_seats() == [1]
    assert not kinds(game, "pick", "reveal")
    assert hand(game, 1) != [] and food(game, 1) == 1


def test_W7_card_without_icon_brings_no_shark() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")]},
        draw=["lost"],
        locations=[("calm_waters", False)],
    )
    move(game)
    assert sharks(game) == [] and game.active == 1


def test_W7_second_icon_moves_the_first_shark() -> None:
    # Turn 1 places the shark at Ann's card; turn 2 (Bob) draws another icon: it moves.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food2", "E"), ("food", "S")]},
        draw=["lost", "pirate"],
        locations=[("calm_waters", True), ("calm_waters", True)],
    )
    move(game)
    assert sharks(game) == [(0, 0)]
    move(game)  # Bob: pays the double, holds food S and Pirate
    assert sorted(game.pending_seats()) == [0, 1]
    pick(game, 0, "lost")  # N (drawn by Ann)
    pick(game, 1, "food", "S")
    # Bob reveals first (he drew the card): S is off the water from row 0, ignored; then N.
    assert sharks(game) == [(0, 1)]
    assert pos(game, 0) == (0, 1)  # the shark entered Ann's cell: she was bitten
    assert food(game, 0) == 0 and state(game).alive[0]


def test_W7_every_living_castaway_holding_a_card_picks_at_once() -> None:
    # Four seats: Cid holds nothing and Dee is dead, so only Ann and Bob pick.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "S"), "pirate"]},
        dead=[3],
        draw=["lost", "dive"],
        locations=[("calm_waters", True)],
        sharks=[(2, 4)],
    )
    move(game)  # Ann pays the double; holds Food →E and Lost ↑N
    assert game.decision is not None and game.decision.kind == "pick"
    assert game.pending_seats() == [0, 1]
    assert {(DECK[c["card"]].key, DECK[c["card"]].dir) for c in game.legal(0)} == {
        ("food", "E"),
        ("lost", "N"),
    }
    assert {(DECK[c["card"]].key, DECK[c["card"]].dir) for c in game.legal(1)} == {
        ("food", "S"),
        ("pirate", "N"),
    }
    assert game.legal(2) == [] and game.legal(3) == []
    pick(game, 1, "food", "S")  # Bob picks first: still waiting for Ann
    assert game.pending_seats() == [0] and game.legal(1) == []
    assert game.view(2)["pending"] == [
        {"seat": 0, "kind": "pick", "done": False},
        {"seat": 1, "kind": "pick", "done": True},
    ]
    assert sharks(game) == [(2, 4)]
    pick(game, 0, "food", "E")
    # Revealed from the drawer (Ann): E then S.
    assert sharks(game) == [(3, 3)]  # (2,4) -E-> (3,4) -S-> (3,3)
    assert hand(game, 0) == ["lost"] and hand(game, 1) == ["dive", "pirate"]  # Bob drew Dive
    top = state(game).discard[-2:]
    assert [(c.key, c.dir) for c in top] == [("food", "E"), ("food", "S")]


def test_W7_reveals_go_in_seat_order_from_the_drawer() -> None:
    # Bob draws the icon. Picks: Bob E, Cid W, Ann W. From the shark at (2,3) in a 3-column
    # sea: Bob's E is off the water (ignored), Cid's W -> (1,3), Ann's W -> (0,3).
    # Seat order from Ann would give (1,3) instead.
    game = build(
        SW,
        3,
        first=1,
        hands={0: [("food", "W")], 1: [("food2", "N"), ("food", "E")], 2: [("food", "W")]},
        draw=["lost"],
        locations=[("calm_waters", True)],
        sharks=[(2, 3)],
    )
    move(game)
    pick(game, 0, "food", "W")
    pick(game, 2, "food", "W")
    pick(game, 1, "food", "E")
    assert sharks(game) == [(0, 3)]
    reveals = who(game, "reveal")
    assert reveals == ["Bob", "Cid", "Ann"]


def test_W7_reveal_order_starts_from_the_drawer_even_when_not_the_active_player() -> None:
    # Ann (active) draws Freeloader; Cid, furthest back, moves and draws the icon card.
    # Reveals go Cid, Ann, Bob: Cid's E (off water), Ann's W -> (1,4), Bob's W -> (0,4).
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "W")], 1: [("food", "W")], 2: [("food", "E")]},
        draw=["lost", "pirate"],
        rows={0: 2, 1: 1},
        locations=[("freeloader", False), ("calm_waters", True)],
        sharks=[(2, 4)],
    )
    move(game)
    assert pos(game, 2) == (2, 1)
    pick(game, 0, "food", "W")
    pick(game, 1, "food", "W")
    pick(game, 2, "food", "E")
    assert sharks(game) == [(0, 4)]
    assert who(game, "reveal") == ["Cid", "Ann", "Bob"]
    # then Freeloader ends: Ann (the drawer) draws 1 game card: the Pirate
    assert "pirate" in hand(game, 0)


def test_W7_steps_off_the_water_are_ignored_for_that_shark() -> None:
    # Water is columns 0..2, rows 0..5. Shark A (0,5), shark B (2,0).
    # Ann W: A off (stays), B -> (1,0)... Bob S: A -> (0,4), B off (stays);
    # Cid N: A -> (0,5), B -> (1,1).
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "W")], 1: [("food", "S")], 2: [("food", "N")]},
        draw=["lost"],
        rows={1: 3, 2: 3},
        locations=[("calm_waters", True)],
        sharks=[(0, 5), (2, 0)],
    )
    move(game)
    pick(game, 0, "food", "W")
    pick(game, 1, "food", "S")
    pick(game, 2, "food", "N")
    assert sharks(game) == [(0, 5), (1, 1)]
    assert all(state(game).alive) and food(game, 0) == 0  # nobody bitten (Ann paid 2 only)


def test_W7_shark_north_step_off_the_drifted_raft_edge_is_ignored() -> None:
    # With the raft at row 4, water ends at row 3: a shark on row 3 cannot swim N.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "N")]},
        draw=["lost"],
        goal_row=4,
        locations=[("calm_waters", True)],
        sharks=[(2, 3), (1, 2)],
    )
    move(game)
    pick(game, 0, "food", "N")
    assert sharks(game) == [(2, 3), (1, 3)]


def test_W7_a_bite_ends_the_movement_for_both_sharks() -> None:
    # Shark A (1,1) below Bob (1,2); shark B (2,4). Picks: Ann N, Bob S, Cid W.
    # Ann's N: A enters Bob's cell and bites (Bob chooses which food), B -> (2,5). "If any
    # shark has eaten, their movement ends": B moves no more, Bob's and Cid's picks are
    # discarded unrevealed.
    game = build(
        SW,
        3,
        hands={
            0: [("food2", "N"), ("food", "N")],
            1: [("food", "N"), ("food", "E"), ("food", "S")],
            2: [("food", "W")],
        },
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1), (2, 4)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    pick(game, 2, "food", "W")
    # Bob must pay for the bite: choose among his two remaining singles.
    assert game.pending_seats() == [1] and game.decision is not None
    assert game.decision.kind == "pay"
    assert sharks(game) == [(1, 2), (2, 5)]
    pay_with(game, 1, ("food", "E"))
    assert foods(game, 1) == [("food", "N")]  # (Bob has also drawn for his next turn)
    assert sharks(game) == [(1, 2), (2, 5)]
    assert len(kinds(game, "bite")) == 1
    assert who(game, "reveal") == ["Ann"]
    assert state(game).held == {}


def test_W7_picks_not_revealed_when_a_shark_bites_are_discarded() -> None:
    # Shark A (1,1), shark B (0,2); Bob at (1,2). Picks: Ann N, Bob S, Cid E. Ann's N: A bites
    # Bob; B -> (0,3). The movement ends: Bob's S and Cid's E go to the discard pile unrevealed,
    # after Bob has paid for the bite.
    game = build(
        SW,
        3,
        hands={
            0: [("food2", "N"), ("food", "N")],
            1: [("food", "E"), ("food", "S"), ("food", "W")],
            2: [("food", "E")],
        },
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1), (0, 2)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    pick(game, 2, "food", "E")
    pay_with(game, 1, ("food", "W"))
    assert sharks(game) == [(1, 2), (0, 3)]
    assert who(game, "bite") == ["Bob"]
    assert [(c.key, c.dir) for c in state(game).discard[-4:]] == [
        ("food", "N"),
        ("food", "W"),
        ("food", "S"),
        ("food", "E"),
    ]
    assert food(game, 1) == 1 and state(game).alive[1]


def test_W7_shark_leaving_a_castaway_cell_does_not_bite_but_coming_back_does() -> None:
    # The shark shares Bob's cell (1,2) (placed there earlier). N takes it away: no bite;
    # S brings it back into Bob's cell: bite.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food2", "S"), ("food", "S")]},
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 2)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    assert sharks(game) == [(1, 2)]
    assert who(game, "bite") == ["Bob"]
    assert index_of(game, "reveal", player=1) < index_of(game, "bite")


def test_W7_bitten_castaway_without_food_is_eaten() -> None:
    # Bob's only card is his pick, so once picks leave the hands he holds no food: eaten.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food", "S")], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    pick(game, 2, "food", "E")
    assert not state(game).alive[1]
    assert ("death.eaten", {"player": 1, "cards": []}) in said(game)
    assert not game.over and game.active == 2  # Bob is skipped


def test_W7_a_castaway_eaten_ends_the_movement_and_the_picks_left_are_discarded() -> None:
    # Ann's N makes shark A eat Bob; the movement ends there: Bob's pick ←W and Cid's ↓S are
    # discarded without moving shark B any further.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food", "W")], 2: [("food", "S")]},
        draw=["lost"],
        rows={1: 2, 2: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1), (3, 4)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "W")
    pick(game, 2, "food", "S")
    assert not state(game).alive[1]
    assert sharks(game) == [(1, 2), (3, 5)]
    reveals = who(game, "reveal")
    assert reveals == ["Ann"]
    assert [(c.key, c.dir) for c in state(game).discard[-3:]] == [
        ("food", "N"),
        ("food", "W"),
        ("food", "S"),
    ]
    assert state(game).held == {}


def test_W7_no_shark_moves_in_the_turn_the_first_shark_appeared() -> None:
    # Ann's move draws a shark-icon Freeloader. Its text first: Bob, the castaway furthest
    # back, moves forward and draws a shark-icon Calm Waters: the first shark appears on that
    # card's cell. Then the Freeloader's own icon: the sharks do not move in this turn, and
    # nobody is asked to pick.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")], 2: [("food", "S")]},
        draw=["lost", "pirate"],
        rows={0: 1, 2: 1},
        board={(0, 0): "calm_waters", (2, 0): "calm_waters"},
        locations=[("freeloader", True), ("calm_waters", True)],
    )
    move(game)
    assert pos(game, 1) == (1, 1)
    assert sharks(game) == [(1, 0)]
    assert not kinds(game, "pick", "reveal")
    assert game.active == 1 and game.decision is not None and game.decision.kind == "actions"
    assert ("shark.rest", {}) in said(game)


def test_W7_shark_entering_a_corpse_cell_neither_bites_nor_feeds() -> None:
    # Dee's corpse at (3,2); the shark swims N into it, then N again.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food", "N")]},
        draw=["lost"],
        rows={3: 2},
        dead=[3],
        locations=[("calm_waters", True)],
        sharks=[(3, 1)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "N")
    assert sharks(game) == [(3, 3)]
    assert not kinds(game, "bite")


def test_W7_two_sharks_entering_one_cell_bite_once() -> None:
    # Both sharks share (1,1) under Bob. Ann's N: both enter Bob's cell -> one bite, both fed.
    # Bob's S afterwards moves neither.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "N")], 1: [("food2", "E"), ("food", "S")]},
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1), (1, 1)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    assert len(kinds(game, "bite")) == 1
    assert sharks(game) == [(1, 2), (1, 2)]
    # Bob paid one unit: his double went, one single came back as change
    assert [key for key, _ in foods(game, 1)] == ["food"]


def test_W7_bites_of_one_step_are_paid_in_seat_order_from_the_active_player() -> None:
    # Bob (active) draws the icon and picks N: sharks enter Ann's and Cid's cells together.
    # Payments go Cid first, then Ann (seat order from Bob).
    game = build(
        SW,
        3,
        first=1,
        hands={
            0: [("food", "N"), ("food", "E"), ("lost", "N")],
            1: [("food2", "N")],
            2: [("food", "N"), ("food", "E"), ("lost", "E")],
        },
        draw=[("food", "N")],
        rows={0: 2, 2: 2},
        locations=[("calm_waters", True)],
        sharks=[(0, 1), (2, 1)],
    )
    move(game)  # Bob pays the double, holds Food ↑N
    pick(game, 1, "food", "N")
    pick(game, 0, "lost")
    pick(game, 2, "lost")
    assert game.pending_seats() == [2] and game.decision is not None
    assert game.decision.kind == "pay"
    pay_with(game, 2, ("food", "N"))
    assert game.pending_seats() == [0]
    pay_with(game, 0, ("food", "E"))
    assert who(game, "bite") == ["Cid", "Ann"]
    assert sharks(game) == [(0, 2), (2, 2)]
    assert game.active == 2
    assert foods(game, 0) == [("food", "N")] and foods(game, 2) == [("food", "E")]


def test_W7_bites_of_one_step_kill_together_so_nobody_wins() -> None:
    # Two seats: Ann's N sends both sharks into both castaways, neither holds food: both die
    # together and nobody wins (dying one by one would have made the other the winner).
    game = build(
        SW,
        2,
        hands={0: [("food2", "N")], 1: ["pirate"]},
        draw=["lost"],
        rows={0: 2, 1: 1},
        locations=[("calm_waters", True)],
        sharks=[(0, 2), (1, 0)],
    )
    move(game)  # Ann: (0,2) -> (0,3); her only card is the Lost ↑N
    pick(game, 0, "lost")
    pick(game, 1, "pirate")
    assert state(game).alive == [False, False]
    assert game.over and game.winner is None


def test_W7_castaway_entering_a_shark_cell_is_bitten_before_drawing() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")]},
        draw=["lost", "pirate"],
        locations=[("ocean_debris", False)],
        sharks=[(0, 1)],
    )
    move(game)
    assert pos(game, 0) == (0, 1) and state(game).alive[0]
    assert index_of(game, "bite", player=0) < index_of(game, "location", location="ocean_debris")
    assert hand(game, 0) == ["lost", "pirate"]  # paid 2 + bitten 1; then Ocean Debris drew 1
    assert sharks(game) == [(0, 1)]  # the shark stays
    assert len(kinds(game, "bite")) == 1


def test_W7_castaway_entering_a_cell_with_two_sharks_is_bitten_once() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E"), ("food", "S")], 1: [("food", "N")]},
        draw=["lost"],
        locations=[("calm_waters", False)],
        sharks=[(0, 1), (0, 1)],
    )
    play(game, "done", "move")
    pay_with(game, 0, ("food2", "N"))
    assert game.decision is not None and game.decision.kind == "pay"  # the bite
    pay_with(game, 0, ("food", "S"))
    assert len(kinds(game, "bite")) == 1 and hand(game, 0) == ["food", "lost"]


def test_W7_eaten_mover_draws_no_location_card() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        locations=[("ocean_debris", False)],
        sharks=[(0, 1)],
    )
    before = len(state(game).loc_draw)
    move(game)
    assert not state(game).alive[0]
    assert len(state(game).loc_draw) == before and state(game).board == {}
    assert not kinds(game, "location")
    assert game.active == 1 and not game.over


def test_W7_freeloader_mover_eaten_then_the_icon_still_resolves() -> None:
    # Ann (no food left) is furthest back: Freeloader moves her into a shark and she is eaten.
    # She draws neither an ocean card nor Freeloader's game card; the Freeloader's shark icon
    # still moves the shark, with reveals from Ann's seat on: Bob ↓S, Cid →E.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "S")], 2: [("food", "E")]},
        draw=["lost", "pirate"],
        rows={1: 3, 2: 3, 3: 3},
        locations=[("freeloader", True), ("calm_waters", False)],
        sharks=[(0, 2)],
    )
    move(game)
    assert not state(game).alive[0] and pos(game, 0) == (0, 2)
    assert board(game) == {(0, 0): "freeloader"}
    assert game.pending_seats() == [1, 2]  # Dee holds nothing, Ann is dead
    pick(game, 2, "food", "E")
    pick(game, 1, "food", "S")
    assert who(game, "reveal") == ["Bob", "Cid"]
    assert sharks(game) == [(1, 1)]  # (0,2) -S-> (0,1) -E-> (1,1)
    assert game.active == 1 and hand(game, 1) == ["pirate"]  # the Pirate was not drawn by Ann


def test_W7_counter_current_into_a_shark_bites_before_the_next_card() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")]},
        draw=["lost"],
        locations=["counter_current", ("calm_waters", False)],
        sharks=[(0, 2)],
    )
    move(game)
    assert pos(game, 0) == (0, 2) and state(game).alive[0]
    assert index_of(game, "bite", player=0) < index_of(game, "location", location="calm_waters")
    assert hand(game, 0) == ["lost"]


def test_W7_island_call_back_into_a_shark_cell_bites() -> None:
    # The shark shares Ann's cell (0,2); she steps up, draws Island Call and comes back.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")]},
        draw=["lost"],
        rows={0: 2},
        board={(0, 0): "calm_waters", (0, 1): "calm_waters"},
        locations=["island_call"],
        sharks=[(0, 2)],
    )
    move(game)
    assert pos(game, 0) == (0, 2)
    assert who(game, "bite") == ["Ann"]
    assert hand(game, 0) == ["lost"]


def test_W7_castaway_moved_back_into_a_shark_cell_is_bitten() -> None:
    game = build(
        SW,
        3,
        hands={0: ["rogue_wave", ("food", "N")], 1: ["pirate"], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 3},
        sharks=[(1, 2)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "rogue_wave"), "target": 1}, "accept")
    assert not state(game).alive[1]  # no food: eaten
    assert who(game, "bite") == ["Bob"]


def test_W7_swap_into_a_shark_cell_bites() -> None:
    # Ann draws Whirlpool and swaps with Cid, who shares his cell with a shark.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")], 2: [("food", "S")]},
        draw=["lost"],
        rows={2: 3},
        locations=["whirlpool"],
        sharks=[(2, 3)],
    )
    move(game)
    play(game, {"do": "swap", "target": 2})
    assert pos(game, 0) == (2, 3) and pos(game, 2) == (0, 1)
    assert who(game, "bite") == ["Ann"]
    assert hand(game, 0) == ["lost"] and hand(game, 2) == ["food"]


def test_W7_bites_of_one_swap_are_paid_in_seat_order_from_the_active_player() -> None:
    # Bob (active) enters a shark's cell (bitten), draws Whirlpool and swaps with Ann, who
    # stands on a shark: both are bitten by the swap, Bob pays first, then Ann.
    game = build(
        SW,
        3,
        first=1,
        hands={
            0: [("food", "N"), ("food", "E")],
            1: [("food2", "N"), ("food2", "E")],
            2: [("food", "S")],
        },
        draw=[("food", "N")],
        rows={0: 3},
        locations=["whirlpool"],
        sharks=[(1, 1), (0, 3)],
    )
    play(game, "done", "move")
    pay_with(game, 1, ("food2", "N"))  # travel: Bob holds Food2 E, Food N afterwards
    # entering (1,1): Bob pays his single at once (the only exact way)
    play(game, {"do": "swap", "target": 0})
    assert pos(game, 1) == (0, 3) and pos(game, 0) == (1, 1)
    # Bob holds only a double: one way to pay, taken at once (change comes back); Ann chooses.
    assert game.pending_seats() == [0] and game.decision is not None
    assert game.decision.kind == "pay"
    pay_with(game, 0, ("food", "N"))
    assert who(game, "bite") == ["Bob", "Bob", "Ann"]
    assert hand(game, 0) == ["food"] and hand(game, 1) == ["food"]


def test_W7_shark_icon_resolves_even_if_the_drawer_died() -> None:
    # Sea Monster (icon): Ann holds no food and dies; the sharks still move, picked by the
    # living (not Ann), revealed in seat order from Ann: Bob, Cid, Dee.
    game = build(
        SW,
        4,
        hands={0: [("food2", "N")], 1: [("food", "E")], 2: [("food", "N")], 3: [("food", "N")]},
        draw=["lost"],
        rows={1: 2, 2: 2, 3: 2},
        locations=[("sea_monster", True)],
        sharks=[(0, 3)],
    )
    move(game)
    assert not state(game).alive[0]
    assert game.pending_seats() == [1, 2, 3]
    pick(game, 3, "food", "N")
    pick(game, 1, "food", "E")
    pick(game, 2, "food", "N")
    assert who(game, "reveal") == ["Bob", "Cid", "Dee"]
    assert sharks(game) == [(1, 5)]


def test_W7_placing_a_shark_never_bites() -> None:
    # Shark Bait: Ann lures the shark next to Bob onto Cid's cell: no bite.
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 2, 2: 2},
        locations=["shark_bait"],
        sharks=[(0, 5)],
    )
    move(game)
    play(game, {"do": "shark", "shark": 0, "cell": [2, 2]})
    assert sharks(game) == [(2, 2)]
    assert not kinds(game, "bite") and food(game, 2) == 1


def test_W7_raft_drift_pushing_a_shark_onto_a_castaway_never_bites() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 4},
        locations=["raft_drift"],
        sharks=[(1, 5)],
    )
    move(game)
    assert sharks(game) == [(1, 4)] and pos(game, 1) == (1, 4)
    assert not kinds(game, "bite") and food(game, 1) == 1


def test_W7_nobody_holding_a_card_means_the_sharks_stay() -> None:
    # Ann pays her last two cards to move; Bob and Cid hold nothing: no pick, no movement.
    game = build(
        SW,
        3,
        hands={0: [("food", "N")]},
        draw=[("food", "N")],
        locations=[("calm_waters", True)],
        sharks=[(2, 3)],
    )
    move(game)
    assert sharks(game) == [(2, 3)] and not kinds(game, "pick", "reveal")
    assert game.active == 1 and game.pending_seats() == [1]


@pytest.mark.parametrize("seats", [2, 5])
def test_W7_water_spans_every_column_of_the_table(seats: int) -> None:
    game = build(
        SW,
        seats,
        hands={0: [("food2", "N"), ("food", "E")]},
        draw=["lost"],
        locations=[("calm_waters", True)],
        sharks=[(seats - 2, 3)],
    )
    move(game)
    pick(game, 0, "food", "E")
    assert sharks(game) == [(seats - 1, 3)]


# ----------------------------------------------------------------------------- C rules
def test_C4_shark_picks_are_secret_until_revealed() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "S"), "dive"]},
        draw=["lost"],
        locations=[("calm_waters", True)],
        sharks=[(2, 4)],
    )
    move(game)
    pick(game, 1, "food", "S")
    for seat in (0, 2, None):
        assert not mentions(game, seat, "food:S"), seat
        view = game.view(seat)
        assert view["players"][1]["hand_count"] == 2
        assert all(c["dir"] != "S" for c in view["discard"])
    assert ("pick", {"player": 1}) in said(game, 0)
    pick(game, 0, "lost")
    assert ("reveal", {"player": 1, "card": "food:S", "dir": "S"}) in said(game, 2)


def test_C4_unrevealed_picks_stay_hidden_while_a_bite_is_paid() -> None:
    # Ann's N makes the shark bite Bob; while Bob chooses his payment, Cid's pick (Food W) is
    # still face down: nobody but Cid can see what it is.
    game = build(
        SW,
        3,
        hands={
            0: [("food2", "N"), ("food", "N")],
            1: [("food", "N"), ("food", "E"), ("food", "S")],
            2: [("food", "W"), "pirate"],
        },
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", True)],
        sharks=[(1, 1)],
    )
    move(game)
    pick(game, 0, "food", "N")
    pick(game, 1, "food", "S")
    pick(game, 2, "food", "W")
    assert game.pending_seats() == [1]  # the bite, mid-movement
    held = state(game).held[2]
    for seat in (0, 1, None):
        view = game.view(seat)
        assert held.id not in [c["id"] for c in view["discard"]]
        assert view["players"][2]["hand_count"] == 1 and view["players"][2]["face_down"]
        assert not mentions(game, seat, "food:W")
    assert not any(key == "reveal" and args["player"] == 2 for key, args in said(game, 2))


def test_C6_shipwrecked_payer_chooses_the_food_by_direction() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food", "N"), ("food", "N"), ("food", "E")], 1: [("food", "N")]},
        draw=["lost"],
    )
    play(game, "done", "stay")
    options = game.legal(0)
    assert game.decision is not None and game.decision.kind == "pay"
    assert sorted(DECK[o["cards"][0]].dir or "" for o in options) == ["E", "N"]
    pay_with(game, 0, ("food", "E"))
    assert [(c.key, c.dir) for c in state(game).hands[0] if c.value] == [
        ("food", "N"),
        ("food", "N"),
    ]


def test_C5_two_seat_shipwrecked_game_has_no_action_card_limit() -> None:
    game = build(
        SW,
        2,
        hands={0: ["lost", "pirate", ("food", "N")], 1: [("food", "E"), "dive", "dive"]},
        draw=["rogue_wave"],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "lost"), "target": 1}, "accept")
    played = {DECK[o["card"]].key for o in game.legal(0) if o["do"] == "play"}
    assert played == {"pirate"}  # Rogue Wave has no target: Bob is on row 0
    play(game, {"do": "play", "card": card_id(game, 0, "pirate"), "target": 1}, "accept")
    assert game.decision is not None and game.decision.kind == "take"


def test_C17_ride_the_wave_user_eaten_chooses_no_target() -> None:
    # Ann rides into a shark's cell holding no food: she is eaten and draws nothing; the dead
    # choose nothing, and the target is chosen after the move (C12): Bob stays; her turn ends.
    game = build(
        SW,
        3,
        hands={0: ["ride_the_wave"], 1: [("food", "E")], 2: [("food", "S")]},
        draw=["lost"],
        rows={1: 2},
        board={(1, 0): "calm_waters", (1, 1): "calm_waters"},
        sharks=[(0, 1)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "ride_the_wave")})
    assert not state(game).alive[0] and pos(game, 0) == (0, 1)
    assert pos(game, 1) == (1, 2) and not kinds(game, "location")
    assert game.active == 1


def _fatal(game: Game, seat: int) -> list[dict[str, Any]]:
    return [c for c in game.view(seat)["legal"] if c.get("fatal")]


def test_C18_moving_into_a_shark_with_the_last_two_food_is_marked_fatal() -> None:
    game = build(
        SW, 3, hands={0: [("food2", "N")], 1: [("food", "N")]}, draw=["lost"], sharks=[(0, 1)]
    )
    play(game, "done")
    assert _fatal(game, 0) == [{"do": "move", "fatal": True}]
    # with a third unit she survives the bite: moving is no longer certain death
    game = build(
        SW,
        3,
        hands={0: [("food2", "N"), ("food", "E")], 1: [("food", "N")]},
        draw=["lost"],
        sharks=[(0, 1)],
    )
    play(game, "done")
    assert _fatal(game, 0) == []


def test_C18_sprinting_or_riding_into_a_shark_without_food_is_marked_fatal() -> None:
    # Ann holds no food and a shark waits just above her.
    game = build(
        SW,
        3,
        hands={0: ["freestyle_sprint", "ride_the_wave"], 2: [("food", "S")]},
        draw=["lost"],
        rows={0: 2, 2: 1},
        board={(0, 0): "calm_waters", (0, 1): "calm_waters", (2, 0): "calm_waters"},
        sharks=[(0, 3)],
    )
    fatal = {(DECK[c["card"]].key, c.get("target")) for c in _fatal(game, 0) if c["do"] == "play"}
    assert fatal == {("freestyle_sprint", None), ("ride_the_wave", None)}
    assert [c["do"] for c in _fatal(game, 0)] == ["play", "play"]  # Lost on Cid is not fatal
    play(game, {"do": "play", "card": card_id(game, 0, "freestyle_sprint")})
    assert not state(game).alive[0]  # it really was


def test_C18_accepting_a_rogue_wave_onto_a_shark_without_food_is_marked_fatal() -> None:
    game = build(
        SW,
        3,
        first=1,
        hands={0: ["dive"], 1: ["rogue_wave", ("food", "N")]},
        draw=["lost"],
        rows={0: 2},
        board={(0, 0): "calm_waters", (0, 1): "calm_waters"},
        sharks=[(0, 1)],
    )
    play(game, {"do": "play", "card": card_id(game, 1, "rogue_wave"), "target": 0})
    assert _fatal(game, 0) == [{"do": "accept", "fatal": True}]  # blocking is not
    play(game, "accept")
    assert not state(game).alive[0]


def test_C18_accepting_a_ride_the_wave_onto_a_shark_without_food_is_marked_fatal() -> None:
    # Bob stands at (1,2) with no food, a shark below him at (1,1). Ann rides the wave (she
    # moves first) and then knocks Bob back: his reaction is asked after her move, so not
    # blocking certainly feeds him to the shark, as with Rogue Wave.
    game = build(
        SW,
        2,
        hands={0: ["ride_the_wave", ("food", "N")], 1: ["dive"]},
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", False)],  # what Ann finds on her cell: no shark moves
        board={(1, 0): "calm_waters", (1, 1): "calm_waters"},
        sharks=[(1, 1)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "ride_the_wave")})  # Bob: the one target
    assert pos(game, 0) == (0, 1)
    assert game.decision is not None and game.decision.kind == "react"
    assert _fatal(game, 1) == [{"do": "accept", "fatal": True}]  # blocking is not
    play(game, "accept")
    assert not state(game).alive[1]


def test_C18_accepting_a_ride_the_wave_with_food_left_is_not_marked() -> None:
    game = build(
        SW,
        2,
        hands={0: ["ride_the_wave", ("food", "N")], 1: ["dive", ("food", "E")]},
        draw=["lost"],
        rows={1: 2},
        locations=[("calm_waters", False)],  # what Ann finds on her cell: no shark moves
        board={(1, 0): "calm_waters", (1, 1): "calm_waters"},
        sharks=[(1, 1)],
    )
    play(game, {"do": "play", "card": card_id(game, 0, "ride_the_wave")})
    assert game.decision is not None and game.decision.kind == "react"
    assert _fatal(game, 1) == []


def test_C18_whirlpool_swap_onto_a_shark_without_food_is_marked_fatal() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 2, 2: 3},
        locations=["whirlpool"],
        sharks=[(2, 3)],
    )
    move(game)  # Ann pays her only food
    assert [c["target"] for c in _fatal(game, 0)] == [2]
    play(game, {"do": "swap", "target": 2})
    assert not state(game).alive[0]


def test_C18_freeloader_advancing_oneself_onto_a_shark_without_food_is_marked_fatal() -> None:
    game = build(
        SW,
        3,
        hands={0: [("food2", "N")], 1: [("food", "N")], 2: [("food", "E")]},
        draw=["lost"],
        rows={1: 1, 2: 3},
        board={(1, 0): "calm_waters"},
        locations=[("freeloader", False)],
        sharks=[(0, 2)],
    )
    move(game)  # Ann (0,1) ties with Bob (1,1) as furthest back
    assert game.decision is not None and game.decision.kind == "freeloader"
    assert _fatal(game, 0) == [{"do": "advance", "target": 0, "fatal": True}]
