"""Common rules C1-C18 (RULES.md), checked on stacked-deck scenarios.

Most rules are checked in the Space Edition; where a common rule has Shipwrecked-specific parts
(C6 chosen payments, C8 the victim chooses) those are checked too.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from server.engine import Edition, Game, check_invariants, replay
from server.engine.cards import GAME_DECKS, LOCATION_DECKS
from tests.engine.scenario import (
    NAMES,
    build,
    card_id,
    discard_keys,
    do_play,
    hand,
    kinds,
    play,
    plays,
    pos,
    s_of,
    said,
    seen,
    units,
    unredacted,
)

# ------------------------------------------------------------------------- helpers


def played_keys(game: Game, seat: int) -> set[str]:
    """Keys of the action cards the seat may play now."""
    deck = GAME_DECKS[s_of(game).edition]
    return {deck[int(str(c["card"]))].key for c in plays(game, seat)}


def targets(game: Game, seat: int, key: str) -> set[int | None]:
    """The targets offered for playing a card of this key."""
    deck = GAME_DECKS[s_of(game).edition]
    return {c.get("target") for c in plays(game, seat) if deck[int(str(c["card"]))].key == key}


def view_card_ids(view: Any) -> set[int]:
    """Ids of every game card (not location card) anywhere in a view."""
    found: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("kind") in ("resource", "action") and "id" in node:
                found.add(node["id"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(view)
    return found


def random_game(edition: str, players: int, seed: int, steps: int = 600) -> Game:
    """A game played by uniformly random decisions (for C16)."""
    game = Game(edition, NAMES[:players], seed)
    rng = random.Random(seed * 7 + 1)
    for _ in range(steps):
        if game.over:
            break
        for seat in game.pending_seats():
            options = game.legal(seat)
            game.apply(seat, rng.choice(options))
    return game


# ------------------------------------------------------------------------- C1 components


@pytest.mark.parametrize("edition", list(Edition))
def test_C1_game_deck_has_78_cards_48_resources_30_actions(edition: Edition) -> None:
    deck = GAME_DECKS[edition]
    assert len(deck) == 78
    assert len({c.id for c in deck}) == 78
    values = Counter(c.value for c in deck if not c.is_action)
    assert values == {1: 38, 2: 10}
    assert sum(1 for c in deck if c.is_action) == 30
    assert len(LOCATION_DECKS[edition]) == (42 if edition is Edition.SPACE else 41)


@pytest.mark.parametrize("players", [1, 6])
def test_C1_only_two_to_five_players(players: int) -> None:
    with pytest.raises(ValueError):
        Game("space", [f"P{i}" for i in range(players)], 1)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_C1_one_character_per_seat(players: int) -> None:
    view = Game("space", NAMES[:players], 3).view(None)
    assert view["seats"] == players
    assert [p["seat"] for p in view["players"]] == list(range(players))
    assert all(p["alive"] for p in view["players"])


# ------------------------------------------------------------------------- C2 board


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
def test_C2_each_column_starts_with_its_seat_on_row_0(edition: str) -> None:
    view = Game(edition, NAMES[:4], 11).view(None)
    assert [(p["col"], p["row"]) for p in view["players"]] == [(c, 0) for c in range(4)]
    assert view["goal_row"] == 6 and view["rows"] == 7
    assert view["board"] == []


def test_C2_location_cards_lie_on_the_cells_left_behind() -> None:
    g = build(hands={0: ["oxygen"] * 4}, draw=["oxygen"], locations=["blank_space", "blank_space"])
    play(g, "done", "move")
    assert pos(g, 0) == (0, 1)
    board = g.view(None)["board"]
    assert [(b["col"], b["row"], b["card"]["key"]) for b in board] == [(0, 0, "blank_space")]
    assert sorted(s_of(g).cols) == [0, 1, 2]


# ------------------------------------------------------------------------- C3 setup


@pytest.mark.parametrize(
    ("edition", "players", "seed"), [("space", 2, 5), ("space", 5, 8), ("shipwrecked", 4, 13)]
)
def test_C3_setup_deals_four_singles_a_double_then_four_from_the_top(
    edition: str, players: int, seed: int
) -> None:
    ed = Edition(edition)
    # Rebuild the deal from the same seeded shuffle, following C3 literally.
    rng = random.Random(seed)
    deck = list(GAME_DECKS[ed])
    rng.shuffle(deck)
    rng.shuffle(list(LOCATION_DECKS[ed]))
    first = rng.randrange(players)
    top_first = list(reversed(deck))  # the end of the list is the top
    hands: dict[int, list[int]] = {}
    order = [(first + i) % players for i in range(players)]
    for seat in order:
        singles = [c for c in top_first if c.value == 1][:4]
        double = [c for c in top_first if c.value == 2][:1]
        hands[seat] = [c.id for c in singles + double]
        top_first = [c for c in top_first if c.id not in hands[seat]]
    for _ in range(4):
        for seat in order:
            hands[seat].append(top_first.pop(0).id)

    game = Game(edition, NAMES[:players], seed)
    s = s_of(game)
    assert s.first == first
    assert said(game)[0] == ("setup", {"player": first})
    for seat in range(players):
        dealt = [c.id for c in s.hands[seat]]
        if seat == first:
            dealt = dealt[:-1]  # the first player has already drawn in phase 1 (C5)
        assert sorted(dealt) == sorted(hands[seat])
        assert len(dealt) == 9
    assert game.active == first


def test_C3_first_player_is_random_but_fixed_by_the_seed() -> None:
    firsts = {seed: Game("space", NAMES[:4], seed).active for seed in range(30)}
    assert len(set(firsts.values())) > 1
    assert all(Game("space", NAMES[:4], seed).active == first for seed, first in firsts.items())


def test_C3_location_deck_is_shuffled() -> None:
    a = [loc.id for loc in s_of(Game("space", NAMES[:3], 1)).loc_draw]
    b = [loc.id for loc in s_of(Game("space", NAMES[:3], 2)).loc_draw]
    assert sorted(a) == sorted(b) == list(range(42))
    assert a != b and a != sorted(a)


# ------------------------------------------------------------------------- C4 hidden information


def test_C4_view_shows_own_hand_and_only_counts_of_others() -> None:
    g = build(
        hands={0: ["oxygen", "laser_blast"], 1: ["shield", "oxygen2", "oxygen"], 2: ["tether"]},
        draw=["hack_suit"],
    )
    for seat in range(3):
        view = g.view(seat)
        own = {c.id for c in s_of(g).hands[seat]}
        assert {c["id"] for c in view["hand"]} == own
        assert view["resources"] == units(g, seat)
        others = {c.id for o in range(3) if o != seat for c in s_of(g).hands[o]}
        assert not (view_card_ids(view) & others)
        assert [p["hand_count"] for p in view["players"]] == [3, 3, 1]
    # The draw pile's order is secret too: only its size is shown.
    assert not (view_card_ids(g.view(0)) & {c.id for c in s_of(g).draw})
    assert g.view(0)["draw_count"] == len(s_of(g).draw)


def test_C4_spectator_view_has_no_hand_and_no_choices() -> None:
    g = build(hands={0: ["oxygen", "laser_blast"], 1: ["shield"]}, draw=["hack_suit"])
    view = g.view(None)
    assert view["hand"] is None and view["resources"] is None
    assert view["legal"] == [] and view["decision"] is None
    assert view_card_ids(view) == set()  # nothing in hands, nothing discarded yet
    assert view["pending"] == [{"seat": 0, "kind": "actions", "done": False}]


def test_C4_a_draw_is_read_only_by_the_drawer() -> None:
    g = build(hands={0: ["oxygen"]}, draw=["laser_blast"])
    draw = next(e for e in g.log if e.kind == "draw")
    assert seen(draw, 0) == {"player": 0, "card": "laser_blast"}
    for other in (1, 2, None):
        assert seen(draw, other) == {"player": 0}


def test_C4_change_from_the_draw_pile_is_read_only_by_the_taker() -> None:
    # The single's direction steers the sharks (W3): one from the draw pile was unseen.
    g = build("shipwrecked", hands={0: [("food2", "N")]}, draw=[("lost", "E")])
    play(g, {"do": "change", "card": card_id(g, 0, "food2")})
    change = next(e for e in g.log if e.key == "change")
    singles = change.args["cards"]
    assert {c.id for c in singles} <= {c.id for c in s_of(g).hands[0]}
    assert seen(change, 0)["cards"] == [f"food:{card.dir}" for card in singles]
    for other in (1, 2, None):
        assert seen(change, other) == {"player": 0, "card": "food2:N"}


def test_C4_change_from_the_discard_pile_is_public() -> None:
    g = build(hands={0: ["oxygen2"]}, draw=["laser_blast"], discard=["oxygen", "oxygen"])
    play(g, {"do": "change", "card": card_id(g, 0, "oxygen2")})
    change = next(e for e in g.log if e.key == "change")
    assert change.to is None and seen(change, None) == seen(change, 0)
    assert seen(change, None)["cards"] == ["oxygen", "oxygen"]


def test_C4_tractor_beam_card_is_known_to_thief_and_victim_only() -> None:
    g = build(
        hands={0: ["tractor_beam", "oxygen"], 1: ["hack_suit", "oxygen", "oxygen"]}, draw=["oxygen"]
    )
    before = {c.id for c in s_of(g).hands[0]}
    do_play(g, 0, "tractor_beam", 1)
    play(g, "accept")
    stolen = [c for c in s_of(g).hands[0] if c.id not in before]
    assert len(stolen) == 1 and len(s_of(g).hands[1]) == 2
    event = [e for e in g.log if e.kind == "steal"][-1]
    assert seen(event, 0)["card"] == seen(event, 1)["card"] == stolen[0].key
    for other in (2, None):
        assert seen(event, other) == {"thief": 0, "victim": 1}
    assert stolen[0].id not in view_card_ids(g.view(2))
    assert stolen[0].id in view_card_ids(g.view(0))


def test_C4_hack_suit_hand_is_seen_by_the_looker_only() -> None:
    g = build(
        hands={0: ["hack_suit", "oxygen"], 1: ["shield", "rocket_booster", "oxygen"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "hack_suit", 1)
    play(g, "accept")
    victim = {c.id for c in s_of(g).hands[1]}
    looker_view = g.view(0)
    assert looker_view["decision"]["kind"] == "take"
    assert {c["id"] for c in looker_view["decision"]["reveal"]} == victim
    for other in (1, 2, None):
        view = g.view(other)
        assert view["decision"] is None
        if other != 1:
            assert not (view_card_ids(view) & victim)
    look = [e for e in g.log if e.kind == "look"][-1]
    assert "shield" in seen(look, 0)["cards"]
    for other in (1, 2, None):
        assert seen(look, other) == {"looker": 0, "victim": 1}
    play(g, {"do": "take", "card": card_id(g, 1, "rocket_booster")})
    take = [e for e in g.log if e.kind == "take"][-1]
    assert seen(take, 0)["card"] == "rocket_booster"
    assert seen(take, 1)["card"] == "rocket_booster"  # the giver knows what left
    assert "card" not in seen(take, 2)
    assert "card" not in seen(take, None)


def test_C4_oxygen_moved_between_hands_is_known_to_the_two_only() -> None:
    g = build(
        hands={0: ["oxygen_siphon", "oxygen"], 1: ["oxygen2", "oxygen", "oxygen"]}, draw=["oxygen"]
    )
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    steal = [e for e in g.log if e.kind == "steal"][-1]
    assert seen(steal, 0)["cards"] == ["oxygen2"]
    assert seen(steal, 1)["cards"] == ["oxygen2"]
    assert "cards" not in seen(steal, 2)
    assert seen(steal, None) == {"thief": 0, "victim": 1, "resource": "oxygen"}


# ------------------------------------------------------------------------- C5 turn


def test_C5_turn_starts_by_drawing_the_top_card() -> None:
    g = build(hands={0: ["oxygen"]}, draw=["laser_blast", "tether"])
    assert hand(g, 0) == ["laser_blast", "oxygen"]
    assert s_of(g).draw[-1].key == "tether"
    assert g.view(0)["phase"] == "actions" and g.turn == 1


def test_C5_empty_draw_pile_is_replaced_by_the_shuffled_discard() -> None:
    g = build(hands={0: ["oxygen"], 1: ["oxygen"], 2: ["oxygen"]}, empty_draw=True)
    s = s_of(g)
    assert len(hand(g, 0)) == 2
    assert s.discard == []
    assert len(s.draw) == 78 - 3 - 1
    ids = [c.id for c in s.draw]
    assert ids != sorted(ids) and ids != sorted(ids, reverse=True)  # shuffled, not turned over
    assert ("info.reshuffle", {}) in said(g)


def test_C5_nothing_is_drawn_when_both_piles_are_empty() -> None:
    everything = [c.key for c in GAME_DECKS[Edition.SPACE]]
    everything.remove("oxygen2")
    g = build(hands={0: ["oxygen2"], 1: everything})
    assert hand(g, 0) == ["oxygen2"]
    assert ("draw.none", {"player": 0}) in said(g)


def test_C5_two_seats_allow_one_action_card_per_turn() -> None:
    g = build(
        players=2,
        rows={1: 2},
        hands={
            0: ["laser_blast", "hole_in_suit", "oxygen2", "oxygen"],
            1: ["oxygen", "oxygen", "oxygen"],
        },
        draw=["rocket_booster"],
        discard=["oxygen", "oxygen"],
    )
    assert played_keys(g, 0) == {"laser_blast", "hole_in_suit", "rocket_booster"}
    do_play(g, 0, "laser_blast", 1)
    play(g, "accept")
    assert plays(g, 0) == []
    # Making change does not count (and is still allowed).
    assert {"do": "change", "card": card_id(g, 0, "oxygen2")} in g.legal(0)
    assert g.view(0)["actions_played"] == 1


def test_C5_two_seat_limit_ignores_the_opponents_reaction() -> None:
    g = build(
        players=2,
        rows={0: 2, 1: 2},
        hands={
            0: ["laser_blast", "oxygen", "oxygen", "oxygen"],
            1: ["shield", "laser_blast", "oxygen", "oxygen"],
        },
        draw=["oxygen", "oxygen"],
    )
    do_play(g, 0, "laser_blast", 1)
    play(g, {"do": "block", "card": card_id(g, 1, "shield")})
    play(g, "done", "stay")
    # Bob blocked with a Shield on Ann's turn; on his own turn he may still play one card.
    assert g.active == 1
    assert targets(g, 1, "laser_blast") == {0}
    do_play(g, 1, "laser_blast", 0)
    play(g, "accept")
    assert plays(g, 1) == []


def test_C5_two_seat_limit_is_space_only_shipwrecked_has_none() -> None:
    g = build(
        "shipwrecked",
        players=2,
        rows={1: 3},
        hands={0: [("rogue_wave", "N"), ("rogue_wave", "E"), ("food", "N")], 1: [("food", "N")]},
        draw=[("lost", "W")],
    )
    do_play(g, 0, "rogue_wave", 1)
    play(g, "accept")
    assert pos(g, 1) == (1, 2)
    assert played_keys(g, 0) == {"rogue_wave", "lost"}  # "any number" in Shipwrecked
    do_play(g, 0, "rogue_wave", 1)
    play(g, "accept")
    assert pos(g, 1) == (1, 1)


def test_C5_three_seats_allow_any_number_of_action_cards() -> None:
    g = build(
        rows={1: 3, 2: 3},
        hands={0: ["laser_blast", "laser_blast", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        draw=["laser_blast"],
    )
    for target in (1, 2, 1):
        do_play(g, 0, "laser_blast", target)
        play(g, "accept")
    assert s_of(g).rows == [0, 1, 2]
    assert g.view(0)["actions_played"] == 3


def test_C5_staying_pays_one_unit() -> None:
    g = build(hands={0: ["oxygen", "oxygen", "oxygen"]}, draw=["laser_blast"])
    play(g, "done", "stay")
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen"]
    assert pos(g, 0) == (0, 0)
    assert g.active == 1


def test_C5_moving_pays_two_units_and_moves_forward_one() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "oxygen"]}, draw=["laser_blast"], locations=["blank_space"]
    )
    play(g, "done", "move")
    assert hand(g, 0) == ["laser_blast", "oxygen"]
    assert pos(g, 0) == (0, 1)
    assert s_of(g).board[(0, 0)].key == "blank_space"


def test_C5_a_player_who_cannot_pay_two_must_stay() -> None:
    g = build(hands={0: ["oxygen", "tether", "shield"]}, draw=["laser_blast"])
    play(g, "done")
    assert all(c["do"] == "stay" for c in g.legal(0))
    assert {"do": "move"} not in g.legal(0)


def test_C5_no_move_from_the_goal_row() -> None:
    g = build(hands={0: ["oxygen2", "oxygen2"]}, draw=["oxygen"], rows={0: 6})
    play(g, "done")
    assert g.legal(0) == [{"do": "stay"}]


def test_C5_next_living_player_in_seat_order_plays_next() -> None:
    g = build(
        players=4,
        dead=[1],
        hands={0: ["oxygen"] * 3, 2: ["oxygen"] * 3, 3: ["oxygen"] * 3},
        draw=["oxygen"] * 4,
    )
    play(g, "done", "stay")
    assert g.active == 2 and g.pending_seats() == [2]
    play(g, "done", "stay", "done", "stay")
    assert g.active == 0
    assert ("turn", {"turn": 4, "player": 0}) in said(g)


# ------------------------------------------------------------------------- C6 paying


def test_C6_space_pays_two_with_a_double_when_held() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "oxygen2"]}, draw=["laser_blast"], locations=["blank_space"]
    )
    play(g, "done", "move")
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen"]


def test_C6_space_pays_two_with_two_singles_without_a_double() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "oxygen"]}, draw=["laser_blast"], locations=["blank_space"]
    )
    play(g, "done", "move")
    assert hand(g, 0) == ["laser_blast", "oxygen"]


def test_C6_space_pays_one_with_a_single_when_held() -> None:
    g = build(hands={0: ["oxygen2", "oxygen"]}, draw=["laser_blast"])
    play(g, "done", "stay")
    assert hand(g, 0) == ["laser_blast", "oxygen2"]


def test_C6_change_is_the_top_most_single_of_the_discard_pile() -> None:
    g = build(
        hands={0: ["oxygen2", "tether"]},
        draw=["laser_blast"],
        discard=["shield", "oxygen", "oxygen"],
    )
    top_single = s_of(g).discard[-2]
    under = s_of(g).discard[-3]
    assert top_single.key == under.key == "oxygen"
    play(g, "done", "stay")
    assert [c.id for c in s_of(g).hands[0] if c.key == "oxygen"] == [top_single.id]
    assert s_of(g).discard[-1].key == "oxygen2"
    assert under in s_of(g).discard
    assert ("change.taken", {"player": 0, "card": "oxygen"}) in said(g)
    assert s_of(g).alive[0]


def test_C6_change_comes_from_the_draw_pile_when_the_discard_has_no_single() -> None:
    g = build(
        hands={0: ["oxygen2", "tether"]},
        draw=["laser_blast", "oxygen", "shield"],
        discard=["shield"],
    )
    first_single = s_of(g).draw[-1]
    assert first_single.key == "oxygen"
    rest = [c.id for c in s_of(g).draw[:-1]]
    play(g, {"do": "done"}, {"do": "stay"})
    assert first_single in s_of(g).hands[0]
    # The draw pile was shuffled after the change was taken (then Bob drew his card).
    after = [c.id for c in s_of(g).draw]
    assert len(after) == len(rest) - 1
    assert after != rest[:-1]
    assert set(after) | {s_of(g).hands[1][-1].id} == set(rest)
    assert units(g, 0) == 1


def test_C6_with_no_single_anywhere_the_extra_unit_is_lost() -> None:
    g = build(hands={0: ["oxygen2"], 1: ["oxygen"] * 38}, draw=["laser_blast"])
    play(g, "done", "stay")
    assert ("change.none", {"player": 0}) in said(g)
    assert not s_of(g).alive[0]  # the lost unit was her last


def test_C6_a_payment_with_change_is_one_step() -> None:
    # Paying 1 with her only card (a double) leaves 0 until the change comes: no death between.
    g = build(hands={0: ["oxygen2"]}, draw=["laser_blast"], discard=["oxygen"])
    play(g, "done", "stay")
    assert s_of(g).alive[0]
    assert hand(g, 0) == ["laser_blast", "oxygen"]


def test_C6_paying_more_than_held_discards_every_resource() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "oxygen", "shield"]},
        draw=["laser_blast"],
        locations=["asteroid_field"],
    )
    play(g, "done", "move")
    assert Counter(discard_keys(g))["oxygen"] == 3
    assert not s_of(g).alive[0]


def _sw_payments(game: Game, seat: int) -> set[tuple[tuple[str, str | None], ...]]:
    deck = GAME_DECKS[Edition.SHIPWRECKED]
    return {
        tuple(sorted((deck[i].key, deck[i].dir) for i in c["cards"]))
        for c in game.legal(seat)
        if c["do"] == "pay"
    }


def test_C6_shipwrecked_payer_chooses_among_distinct_ways_by_direction() -> None:
    g = build(
        "shipwrecked",
        hands={0: [("food", "N"), ("food", "N"), ("food", "E"), ("food2", "S")]},
        draw=[("lost", "W")],
        locations=[("calm_waters", False)],
    )
    play(g, "done", "move")
    assert kinds(g) == ["pay"]
    assert _sw_payments(g, 0) == {
        (("food2", "S"),),
        (("food", "N"), ("food", "N")),
        (("food", "E"), ("food", "N")),
    }
    choice = next(
        c
        for c in g.legal(0)
        if c["do"] == "pay"
        and len(c["cards"]) == 2
        and {GAME_DECKS[Edition.SHIPWRECKED][i].dir for i in c["cards"]} == {"N", "E"}
    )
    play(g, choice)
    assert sorted((c.key, c.dir) for c in s_of(g).hands[0]) == [
        ("food", "N"),
        ("food2", "S"),
        ("lost", "W"),
    ]
    assert pos(g, 0) == (0, 1)


def test_C6_shipwrecked_staying_pays_a_chosen_single() -> None:
    g = build(
        "shipwrecked",
        hands={0: [("food", "N"), ("food", "W"), ("food2", "E")]},
        draw=[("lost", "W")],
    )
    play(g, "done", "stay")
    assert _sw_payments(g, 0) == {(("food", "N"),), (("food", "W"),)}
    play(g, {"do": "pay", "cards": [card_id(g, 0, "food", "W")]})
    assert sorted((c.key, c.dir) for c in s_of(g).hands[0]) == [
        ("food", "N"),
        ("food2", "E"),
        ("lost", "W"),
    ]


def test_C6_shipwrecked_single_way_is_not_asked() -> None:
    g = build("shipwrecked", hands={0: [("food", "N"), ("food", "N")]}, draw=[("lost", "W")])
    play(g, "done", "stay")
    assert g.active == 1
    assert sorted((c.key, c.dir) for c in s_of(g).hands[0]) == [("food", "N"), ("lost", "W")]


# ------------------------------------------------------------------------- C7 making change


def test_C7_change_swaps_a_double_for_the_top_most_singles_of_the_discard() -> None:
    g = build(
        hands={0: ["oxygen2", "oxygen"]},
        draw=["laser_blast"],
        discard=["oxygen", "shield", "oxygen", "oxygen"],
    )
    pile = s_of(g).discard
    wanted = {pile[-1].id, pile[-3].id}
    left = pile[-4]
    play(g, {"do": "change", "card": card_id(g, 0, "oxygen2")})
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen", "oxygen"]
    assert wanted <= {c.id for c in s_of(g).hands[0]}
    assert left in s_of(g).discard and s_of(g).discard[-1].key == "oxygen2"
    assert units(g, 0) == 3
    assert kinds(g) == ["actions"]  # still phase 2


def test_C7_change_completes_from_the_top_of_the_draw_pile() -> None:
    g = build(hands={0: ["oxygen2"]}, draw=["laser_blast", "shield", "oxygen"], discard=["oxygen"])
    from_discard = s_of(g).discard[-1]
    from_draw = next(c for c in reversed(s_of(g).draw) if c.key == "oxygen")
    play(g, {"do": "change", "card": card_id(g, 0, "oxygen2")})
    ids = {c.id for c in s_of(g).hands[0]}
    assert {from_discard.id, from_draw.id} <= ids
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen"]


def test_C7_change_needs_two_singles_in_the_piles() -> None:
    g = build(hands={0: ["oxygen2"], 1: ["oxygen"] * 37}, draw=["laser_blast"])
    assert not any(c["do"] == "change" for c in g.legal(0))
    g = build(hands={0: ["oxygen2"], 1: ["oxygen"] * 36}, draw=["laser_blast"])
    assert {"do": "change", "card": card_id(g, 0, "oxygen2")} in g.legal(0)


def test_C7_change_only_in_phase_2_and_only_for_a_double() -> None:
    g = build(hands={0: ["oxygen", "oxygen", "oxygen2"]}, draw=["laser_blast"])
    changes = [c for c in g.legal(0) if c["do"] == "change"]
    assert changes == [{"do": "change", "card": card_id(g, 0, "oxygen2")}]
    play(g, "done")
    assert not any(c["do"] == "change" for c in g.legal(0))
    g = build(hands={0: ["oxygen", "oxygen"]}, draw=["laser_blast"])
    assert not any(c["do"] == "change" for c in g.legal(0))


def test_C7_shipwrecked_change_is_offered_too() -> None:
    g = build("shipwrecked", hands={0: [("food2", "N")]}, draw=[("lost", "W")])
    play(g, {"do": "change", "card": card_id(g, 0, "food2")})
    assert sorted(c.key for c in s_of(g).hands[0]) == ["food", "food", "lost"]


# ------------------------------------------------------------------------- C8 stealing


def test_C8_steal_two_units_takes_a_double_first_in_space() -> None:
    g = build(
        hands={0: ["oxygen_siphon", "oxygen"], 1: ["oxygen", "oxygen2", "oxygen", "tether"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    assert hand(g, 0) == ["oxygen", "oxygen", "oxygen2"]
    assert hand(g, 1) == ["oxygen", "oxygen", "tether"]


def test_C8_steal_two_units_takes_two_singles_without_a_double() -> None:
    g = build(
        hands={0: ["oxygen_siphon", "oxygen"], 1: ["oxygen", "oxygen", "oxygen"]}, draw=["oxygen"]
    )
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    assert units(g, 0) == 4 and units(g, 1) == 1


def test_C8_a_victim_with_fewer_units_gives_all_they_have() -> None:
    g = build(hands={0: ["oxygen_siphon", "oxygen"], 1: ["oxygen", "tether"]}, draw=["oxygen"])
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    assert units(g, 0) == 3
    assert not s_of(g).alive[1]  # S3: at 0 oxygen
    assert "tether" in discard_keys(g)


def test_C8_shipwrecked_victim_chooses_what_is_stolen() -> None:
    g = build(
        "shipwrecked",
        rows={},
        hands={
            0: [("message_in_a_bottle", "N"), ("food", "N")],
            1: [("food", "N"), ("food", "E"), ("food2", "S"), ("dive", "N")],
        },
        draw=[("lost", "W")],
    )
    do_play(g, 0, "message_in_a_bottle", 1)
    play(g, "accept")
    assert g.pending_seats() == [1] and kinds(g) == ["give"]
    assert _sw_payments(g, 1) == {(("food2", "S"),), (("food", "E"), ("food", "N"))}
    play(g, {"do": "pay", "cards": [card_id(g, 1, "food2")]})
    assert sorted((c.key, c.dir) for c in s_of(g).hands[1]) == [
        ("dive", "N"),
        ("food", "E"),
        ("food", "N"),
    ]
    assert ("food2", "S") in [(c.key, c.dir) for c in s_of(g).hands[0]]
    assert g.pending_seats() == [0]


# ------------------------------------------------------------------------- C9 moving forward


def test_C9_forward_move_places_and_resolves_the_drawn_card() -> None:
    g = build(
        rows={0: 2},
        board={(0, 0): "blank_space", (0, 1): "blank_space"},
        hands={0: ["rocket_booster", "oxygen", "oxygen"]},
        draw=["oxygen", "laser_blast"],
        locations=["useful_junk"],
    )
    do_play(g, 0, "rocket_booster")
    assert pos(g, 0) == (0, 3)
    assert s_of(g).board[(0, 2)].key == "useful_junk"
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen", "oxygen"]  # drew 1, paid nothing


def test_C9_forward_only_cards_cannot_be_played_on_the_goal_row() -> None:
    g = build(rows={0: 6}, hands={0: ["rocket_booster", "oxygen", "oxygen"]}, draw=["oxygen"])
    assert plays(g, 0) == []


def test_C9_a_forward_move_on_the_goal_row_is_ignored() -> None:
    # Tether on the ship: the forward part is ignored (no card drawn), the knock-back happens.
    g = build(
        rows={0: 6, 1: 2}, hands={0: ["tether", "oxygen", "oxygen"], 1: ["oxygen"]}, draw=["oxygen"]
    )
    loc_before = len(s_of(g).loc_draw)
    do_play(g, 0, "tether")  # Bob, the only target, is chosen without asking
    play(g, "accept")
    assert pos(g, 0) == (0, 6)
    assert len(s_of(g).loc_draw) == loc_before
    assert pos(g, 1) == (1, 1)
    assert ("move.blocked", {"player": 0, "goal": "ship"}) in said(g)


def test_C9_targetless_tether_cannot_be_played_on_the_goal_row() -> None:
    # Its only effect would be a forward move (RULES C9, C12).
    g = build(rows={0: 6}, hands={0: ["tether", "oxygen", "oxygen"]}, draw=["oxygen"])
    assert plays(g, 0) == []


# ------------------------------------------------------------------------- C10 moving back


def test_C10_back_move_discards_the_card_entered_and_nothing_triggers() -> None:
    g = build(
        rows={1: 3},
        board={(1, 0): "blank_space", (1, 1): "useful_junk", (1, 2): "cosmic_radiation"},
        hands={0: ["laser_blast", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "laser_blast", 1)
    play(g, "accept")
    assert pos(g, 1) == (1, 2)
    assert (1, 2) not in s_of(g).board
    assert [loc.key for loc in s_of(g).loc_discard] == ["cosmic_radiation"]
    assert s_of(g).board[(1, 1)].key == "useful_junk"
    assert hand(g, 1) == ["oxygen"] and s_of(g).alive[1]


def test_C10_no_one_on_row_0_can_be_moved_back() -> None:
    g = build(
        rows={2: 1},
        hands={0: ["laser_blast", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
    )
    assert targets(g, 0, "laser_blast") == {2}
    g = build(hands={0: ["laser_blast", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]}, draw=["oxygen"])
    assert plays(g, 0) == []


# ------------------------------------------------------------------------- C11 swapping


def test_C11_swap_exchanges_cells_and_location_cards_stay() -> None:
    g = build(
        rows={0: 2, 1: 4},
        board={
            (0, 0): "blank_space",
            (0, 1): "useful_junk",
            (1, 0): "blank_space",
            (1, 1): "meteoroid",
            (1, 2): "solar_flare",
            (1, 3): "blank_space",
        },
        hands={0: ["oxygen"] * 4},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    before = dict(s_of(g).board)
    play(g, "done", "move", {"do": "swap", "target": 1})
    assert pos(g, 0) == (1, 4) and pos(g, 1) == (0, 3)
    after = s_of(g).board
    assert {cell: loc for cell, loc in after.items() if cell != (0, 2)} == before
    assert after[(0, 2)].key == "wormhole"


# ------------------------------------------------------------------------- C12 targets


def test_C12_only_living_opponents_are_targets() -> None:
    g = build(
        players=4,
        dead=[2],
        rows={1: 1, 2: 1, 3: 1},
        hands={
            0: ["laser_blast", "hole_in_suit", "tether", "oxygen_siphon", "oxygen"],
            1: ["oxygen"],
            3: ["oxygen"],
        },
        draw=["oxygen"],
        locations=["blank_space"],
    )
    for key in ("laser_blast", "hole_in_suit", "oxygen_siphon"):
        assert targets(g, 0, key) == {1, 3}, key
    do_play(g, 0, "tether")
    assert g.decision is not None and g.decision.kind == "target"
    assert [c["target"] for c in g.legal(0)] == [1, 3]


def test_C12_card_takers_need_a_target_holding_a_card() -> None:
    g = build(
        hands={0: ["tractor_beam", "hack_suit", "oxygen"], 1: [], 2: ["shield"]}, draw=["oxygen"]
    )
    assert targets(g, 0, "tractor_beam") == {2}
    assert targets(g, 0, "hack_suit") == {2}
    g = build(hands={0: ["tractor_beam", "hack_suit", "oxygen"]}, draw=["oxygen"])
    assert plays(g, 0) == []


def test_C12_tether_moves_first_then_chooses_a_target_off_row_0() -> None:
    g = build(
        players=4,
        rows={2: 3, 3: 2},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"], 2: ["oxygen"], 3: ["oxygen"]},
        draw=["oxygen"],
        locations=["useful_junk"],
    )
    assert targets(g, 0, "tether") == {None}  # played without a target
    do_play(g, 0, "tether")
    # The forward move and its card resolved first; then the choice among those off row 0.
    assert pos(g, 0) == (0, 1) and len(hand(g, 0)) == 3  # the Useful Junk card is drawn
    assert kinds(g) == ["target"]
    assert [c["target"] for c in g.legal(0)] == [2, 3]
    play(g, {"do": "target", "target": 3})
    assert kinds(g) == ["react"] and g.pending_seats() == [3]
    play(g, "accept")
    assert pos(g, 3) == (3, 1) and pos(g, 2) == (2, 3)


def test_C12_tether_target_may_come_off_row_0_during_the_move() -> None:
    # Nobody is off row 0 when Ann plays; her Wormhole swap puts Bob on row 1: he is then the
    # only target and is knocked back to row 0.
    g = build(
        hands={0: ["tether", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    do_play(g, 0, "tether")
    play(g, {"do": "swap", "target": 1})
    assert pos(g, 1) == (0, 1) and pos(g, 0) == (1, 0)
    assert kinds(g) == ["react"] and g.pending_seats() == [1]
    play(g, "accept")
    assert pos(g, 1) == (0, 0)
    assert ("target", {"player": 0, "card": "tether", "target": 1}) in said(g)


def test_C12_tether_without_a_target_is_played_for_the_forward_move() -> None:
    g = build(
        hands={0: ["tether", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
        locations=["blank_space"],
    )
    assert targets(g, 0, "tether") == {None}
    do_play(g, 0, "tether")
    assert pos(g, 0) == (0, 1)
    assert kinds(g) == ["actions"]  # nobody was asked to react


def test_C12_action_with_no_legal_target_cannot_be_played() -> None:
    g = build(
        dead=[1, 2],
        hands={0: ["laser_blast", "hole_in_suit", "oxygen_siphon", "tractor_beam", "oxygen"]},
        draw=["oxygen"],
    )
    assert plays(g, 0) == []


def test_C12_wormhole_is_mandatory_and_may_pick_a_corpse() -> None:
    g = build(
        dead=[2], rows={2: 3}, hands={0: ["oxygen"] * 4}, draw=["oxygen"], locations=["wormhole"]
    )
    play(g, "done", "move")
    assert kinds(g) == ["swap"]
    assert {c["target"] for c in g.legal(0)} == {1, 2}
    assert all(c["do"] == "swap" for c in g.legal(0))
    play(g, {"do": "swap", "target": 2})
    assert pos(g, 0) == (2, 3) and pos(g, 2) == (0, 1)


# ------------------------------------------------------------------------- C13 reactions


def test_C13_target_is_always_asked_even_without_shield() -> None:
    g = build(rows={1: 2}, hands={0: ["laser_blast", "oxygen"], 1: ["oxygen"]}, draw=["oxygen"])
    do_play(g, 0, "laser_blast", 1)
    assert g.pending_seats() == [1] and kinds(g) == ["react"]
    assert g.legal(1) == [{"do": "accept"}]
    assert pos(g, 1) == (1, 2)  # nothing has happened yet
    play(g, "accept")
    assert pos(g, 1) == (1, 1)


def test_C13_the_reaction_comes_before_any_effect() -> None:
    g = build(
        rows={1: 2},
        hands={0: ["hole_in_suit", "oxygen"], 1: ["shield", "oxygen"]},
        draw=["oxygen"],
        locations=["useful_junk"],
    )
    do_play(g, 0, "hole_in_suit", 1)
    assert kinds(g) == ["react"]
    assert units(g, 1) == 1 and len(hand(g, 0)) == 2
    assert g.legal(1) == [{"do": "accept"}, {"do": "block", "card": card_id(g, 1, "shield")}]


def test_C13_block_discards_both_cards_and_cancels_the_effect() -> None:
    g = build(
        rows={1: 2}, hands={0: ["laser_blast", "oxygen"], 1: ["shield", "oxygen"]}, draw=["oxygen"]
    )
    do_play(g, 0, "laser_blast", 1)
    play(g, {"do": "block", "card": card_id(g, 1, "shield")})
    assert pos(g, 1) == (1, 2)
    assert discard_keys(g)[-2:] == ["laser_blast", "shield"]
    assert hand(g, 1) == ["oxygen"]
    assert ("react.block", {"player": 1, "card": "shield"}) in said(g)


def test_C13_blocked_hole_in_suit_and_siphon_take_nothing() -> None:
    g = build(
        hands={
            0: ["hole_in_suit", "oxygen_siphon", "oxygen"],
            1: ["shield", "shield", "oxygen", "oxygen"],
        },
        draw=["oxygen"],
    )
    do_play(g, 0, "hole_in_suit", 1)
    play(g, {"do": "block", "card": card_id(g, 1, "shield")})
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, {"do": "block", "card": card_id(g, 1, "shield")})
    assert hand(g, 1) == ["oxygen", "oxygen"]
    assert hand(g, 0) == ["oxygen", "oxygen"]


def test_C13_blocked_tether_still_moves_its_user_forward() -> None:
    g = build(
        rows={1: 3},
        hands={0: ["tether", "oxygen"], 1: ["shield", "oxygen"]},
        draw=["oxygen", "laser_blast"],
        locations=["useful_junk"],
    )
    do_play(g, 0, "tether")
    play(g, {"do": "block", "card": card_id(g, 1, "shield")})
    assert pos(g, 0) == (0, 1)
    assert s_of(g).board[(0, 0)].key == "useful_junk"
    assert "laser_blast" in hand(g, 0)
    assert pos(g, 1) == (1, 3)
    assert discard_keys(g)[-2:] == ["tether", "shield"]


def test_C13_shield_is_never_played_as_an_action() -> None:
    g = build(
        rows={1: 2}, hands={0: ["shield", "shield", "oxygen"], 1: ["oxygen"]}, draw=["oxygen"]
    )
    assert plays(g, 0) == []


def test_C13_location_cards_cannot_be_blocked() -> None:
    g = build(
        hands={0: ["shield", "oxygen", "oxygen", "oxygen"]},
        draw=["oxygen"],
        locations=["cosmic_radiation"],
    )
    play(g, "done", "move")
    assert "react" not in kinds(g)
    assert hand(g, 0) == ["oxygen", "shield"]
    assert g.active == 1


def test_C13_shipwrecked_dive_blocks_a_rogue_wave() -> None:
    g = build(
        "shipwrecked",
        rows={1: 2},
        hands={0: [("rogue_wave", "N"), ("food", "N")], 1: [("dive", "E"), ("food", "N")]},
        draw=[("lost", "W")],
    )
    do_play(g, 0, "rogue_wave", 1)
    assert g.legal(1) == [{"do": "accept"}, {"do": "block", "card": card_id(g, 1, "dive")}]
    play(g, {"do": "block", "card": card_id(g, 1, "dive")})
    assert pos(g, 1) == (1, 2)
    assert [c.key for c in s_of(g).discard][-2:] == ["rogue_wave", "dive"]


# ------------------------------------------------------------------------- C14 dead players


def test_C14_the_dead_discard_their_hand_and_the_corpse_stays() -> None:
    g = build(
        rows={1: 3},
        hands={0: ["hole_in_suit", "oxygen"], 1: ["oxygen", "tether", "rocket_booster"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "hole_in_suit", 1)
    play(g, "accept")
    s = s_of(g)
    assert not s.alive[1]
    assert s.hands[1] == []
    assert {"tether", "rocket_booster", "oxygen"} <= set(discard_keys(g))
    assert pos(g, 1) == (1, 3)
    view = g.view(None)["players"][1]
    assert view["alive"] is False and view["hand_count"] == 0
    assert any(key == "death.oxygen" and args["player"] == 1 for key, args in said(g))


def test_C14_the_dead_take_no_turns_and_no_decisions() -> None:
    g = build(
        dead=[1],
        rows={1: 2},
        hands={0: ["laser_blast", "oxygen"] + ["oxygen"] * 2, 2: ["oxygen", "oxygen"]},
        draw=["oxygen"] * 3,
    )
    assert plays(g, 0) == []  # the corpse on row 2 is no target
    play(g, "done", "stay")
    assert g.active == 2
    play(g, "done", "stay")
    assert g.active == 0
    assert all(p["seat"] != 1 for p in g.view(None)["pending"])


# ------------------------------------------------------------------------- C15 location deck


def test_C15_an_empty_location_pile_is_the_shuffled_discard() -> None:
    g = build(hands={0: ["oxygen"] * 4}, draw=["oxygen"])
    s = s_of(g)
    s.loc_discard, s.loc_draw = s.loc_draw, []
    play(g, "done", "move")
    assert ("info.reshuffle_locations", {}) in said(g)
    assert len(s.loc_draw) == 41
    # The card drawn lies on the board (or was discarded by a Gravitational Anomaly).
    assert len(s.board) + len(s.loc_discard) == 1


# ------------------------------------------------------------------------- C16 determinism


@pytest.mark.parametrize(
    ("edition", "players", "seed"),
    [
        ("space", 2, 1),
        ("space", 4, 2),
        ("space", 5, 3),
        ("shipwrecked", 3, 4),
        ("shipwrecked", 5, 5),
    ],
)
def test_C16_replay_of_a_recorded_game_equals_the_original(
    edition: str, players: int, seed: int
) -> None:
    game = random_game(edition, players, seed)
    assert check_invariants(game) == []
    again = replay(edition, NAMES[:players], seed, game.decisions)
    assert again.snapshot() == game.snapshot()
    assert unredacted(again) == unredacted(game)
    assert again.view(0) == game.view(0)


def test_C16_replay_of_a_prefix_reaches_the_same_midgame_state() -> None:
    game = random_game("space", 3, 9, steps=40)
    again = replay("space", NAMES[:3], 9, game.decisions)
    assert again.snapshot() == game.snapshot()
    assert again.pending_seats() == game.pending_seats()
    assert all(again.legal(seat) == game.legal(seat) for seat in range(3))


# ------------------------------------------------------------------------- C17 resolution order


def test_C17_tether_cosmic_radiation_example() -> None:
    g = build(
        rows={1: 3},
        hands={0: ["tether", "oxygen", "laser_blast"], 1: ["oxygen"]},
        draw=["rocket_booster"],
        locations=["cosmic_radiation"],
    )
    do_play(g, 0, "tether")
    s = s_of(g)
    assert not s.alive[0]
    assert pos(g, 0) == (0, 1) and s.board[(0, 0)].key == "cosmic_radiation"
    # The dead choose nothing (C17): with the target chosen after the move (C12), a Tether
    # whose user died on the way has no target and knocks nobody back.
    assert pos(g, 1) == (1, 3)
    assert not any(key in ("target", "back", "back.discard") for key, _ in said(g))
    assert g.active == 1 and kinds(g) == ["actions"]  # her turn ended


def test_C17_a_drawn_card_resolves_fully_before_the_next_step() -> None:
    g = build(
        rows={1: 3},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen", "laser_blast", "shield"],
        locations=["hyperspace", "useful_junk"],
    )
    do_play(g, 0, "tether")
    play(g, "accept")
    assert pos(g, 0) == (0, 2) and pos(g, 1) == (1, 2)
    log = said(g, 0)
    junk = log.index(("location", {"player": 0, "location": "useful_junk"}))
    drew = log.index(("draw", {"player": 0, "card": "laser_blast"}))
    back = log.index(("back", {"player": 1, "row": 2}))
    assert junk < drew < back


def test_C17_a_win_cancels_everything_unresolved() -> None:
    g = build(
        rows={0: 5, 1: 4},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    do_play(g, 0, "tether")
    play(g, {"do": "swap", "target": 1})
    assert g.over and g.winner == 1
    assert pos(g, 1) == (0, 6)  # Bob was not knocked back: the win ended everything
    assert g.pending_seats() == []


def test_C17_active_player_death_ends_the_turn_after_the_effect() -> None:
    g = build(
        hands={0: ["rocket_booster", "oxygen", "rocket_booster"], 1: ["oxygen"] * 3},
        draw=["hole_in_suit"],
        locations=["cosmic_radiation"],
    )
    do_play(g, 0, "rocket_booster")
    assert not s_of(g).alive[0]
    assert g.active == 1 and g.pending_seats() == [1]
    assert not any(key.startswith("stay") and args["player"] == 0 for key, args in said(g))


def test_C17_a_dead_target_is_skipped() -> None:
    # Oxygen Siphon leaves Bob at 0: he dies at once; nothing more acts for him.
    g = build(
        rows={1: 2},
        hands={0: ["oxygen_siphon", "laser_blast", "oxygen"], 1: ["oxygen", "oxygen"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    assert not s_of(g).alive[1]
    assert plays(g, 0) == []  # no living target left for Laser Blast


# ------------------------------------------------------------------------- C18 fatal choices


def fatal(game: Game, seat: int) -> list[dict[str, Any]]:
    return [c for c in game.view(seat)["legal"] if c.get("fatal")]


def test_C18_staying_with_the_last_oxygen_is_marked_fatal() -> None:
    g = build(hands={0: ["oxygen", "tether", "shield"]}, draw=["laser_blast"])
    play(g, "done")
    legal = g.view(0)["legal"]
    plain = next(c for c in legal if c["do"] == "stay" and "discard" not in c)
    assert plain["fatal"] is True
    assert all(not c.get("fatal") for c in legal if "discard" in c)
    play(g, "stay")
    assert not s_of(g).alive[0]


def test_C18_safe_choices_are_not_marked() -> None:
    g = build(hands={0: ["oxygen", "oxygen", "oxygen"]}, draw=["laser_blast"])
    assert fatal(g, 0) == []
    play(g, "done")
    assert fatal(g, 0) == []
    assert not any("fatal" in c for c in g.view(0)["legal"])


def test_C18_staying_with_a_lone_double_and_no_change_is_fatal() -> None:
    g = build(hands={0: ["oxygen2", "tether"], 1: ["oxygen"] * 38}, draw=["laser_blast"])
    play(g, "done")
    assert [c["do"] for c in fatal(g, 0)] == ["stay"]
    g = build(hands={0: ["oxygen2", "tether"]}, draw=["laser_blast"])
    play(g, "done")
    assert fatal(g, 0) == []  # change will come back


def test_C18_accepting_a_fatal_attack_is_marked() -> None:
    g = build(
        hands={
            0: ["hole_in_suit", "oxygen_siphon", "oxygen"],
            1: ["oxygen", "oxygen", "shield"],
            2: ["oxygen"],
        },
        draw=["oxygen"],
    )
    do_play(g, 0, "hole_in_suit", 2)
    assert [c["do"] for c in fatal(g, 2)] == ["accept"]
    play(g, "accept")
    assert not s_of(g).alive[2]
    do_play(g, 0, "oxygen_siphon", 1)
    legal = g.view(1)["legal"]
    assert [c["do"] for c in legal if c.get("fatal")] == ["accept"]
    assert not any(c.get("fatal") for c in legal if c["do"] == "block")


def test_C18_accepting_a_survivable_attack_is_not_marked() -> None:
    g = build(hands={0: ["hole_in_suit", "oxygen"], 1: ["oxygen", "oxygen"]}, draw=["oxygen"])
    do_play(g, 0, "hole_in_suit", 1)
    assert fatal(g, 1) == []


def test_C18_meteoroid_discard_of_the_last_oxygen_is_marked() -> None:
    g = build(
        hands={0: ["oxygen2", "oxygen", "tether", "shield", "laser_blast", "tether"]},
        draw=["hack_suit"],
        locations=["meteoroid"],
    )
    play(g, "done", "move")
    assert kinds(g) == ["meteoroid"]
    legal = g.view(0)["legal"]
    deck = GAME_DECKS[Edition.SPACE]
    for choice in legal:
        oxygen_left = 1 - sum(deck[i].value for i in choice["cards"])
        assert bool(choice.get("fatal")) == (oxygen_left <= 0), choice
    assert any(c.get("fatal") for c in legal)


@pytest.mark.parametrize("key", ["tractor_beam", "hack_suit"])
def test_C18_losing_the_only_card_when_it_is_oxygen_is_marked(key: str) -> None:
    g = build(
        hands={0: [key, key, "oxygen"], 1: ["oxygen2"], 2: ["oxygen", "shield"]}, draw=["oxygen"]
    )
    do_play(g, 0, key, 1)
    assert [c["do"] for c in fatal(g, 1)] == ["accept"]
    play(g, "accept")
    assert not s_of(g).alive[1]
    do_play(g, 0, key, 2)  # two cards: losing one is not certain death
    assert fatal(g, 2) == []


def test_C6_shipwrecked_overpaying_with_a_double_gives_change() -> None:
    g = build(
        "shipwrecked",
        hands={0: [("food2", "N"), ("pirate", "E")]},
        draw=[("lost", "W")],
        discard=[("food", "S")],
    )
    play(g, "done", "stay")
    assert sorted((c.key, c.dir) for c in s_of(g).hands[0]) == [
        ("food", "S"),
        ("lost", "W"),
        ("pirate", "E"),
    ]
    assert s_of(g).alive[0]
