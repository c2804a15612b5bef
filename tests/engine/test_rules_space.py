"""Space Edition rules S1-S7 (RULES.md), checked on stacked-deck scenarios."""

from __future__ import annotations

from collections import Counter
from typing import Any

from server.engine import Edition, Game
from server.engine.cards import GAME_DECKS, LOCATION_DECKS
from tests.engine.scenario import (
    build,
    card_id,
    do_play,
    hand,
    kinds,
    play,
    plays,
    pos,
    s_of,
    said,
    units,
)


def alive(game: Game, seat: int) -> bool:
    return s_of(game).alive[seat]


# ------------------------------------------------------------------------- S1, S2 decks


def test_S1_space_game_cards() -> None:
    counts = Counter(c.key for c in GAME_DECKS[Edition.SPACE])
    assert counts == {
        "oxygen": 38,
        "oxygen2": 10,
        "rocket_booster": 4,
        "tractor_beam": 4,
        "laser_blast": 4,
        "hole_in_suit": 4,
        "tether": 4,
        "shield": 4,
        "hack_suit": 3,
        "oxygen_siphon": 3,
    }
    values = {c.key: c.value for c in GAME_DECKS[Edition.SPACE]}
    assert values["oxygen"] == 1 and values["oxygen2"] == 2 and values["tether"] == 0
    assert all(c.dir is None for c in GAME_DECKS[Edition.SPACE])


def test_S2_space_deck_of_42() -> None:
    counts = Counter(loc.key for loc in LOCATION_DECKS[Edition.SPACE])
    assert counts == {
        "blank_space": 9,
        "cosmic_radiation": 6,
        "useful_junk": 5,
        "solar_flare": 5,
        "meteoroid": 4,
        "gravitational_anomaly": 4,
        "wormhole": 4,
        "mysterious_nebula": 2,
        "asteroid_field": 2,
        "hyperspace": 1,
    }
    assert sum(counts.values()) == 42
    assert not any(loc.shark for loc in LOCATION_DECKS[Edition.SPACE])


# ------------------------------------------------------------------------- S3 death


def test_S3_zero_oxygen_kills_at_once() -> None:
    g = build(
        rows={1: 2},
        hands={0: ["hole_in_suit", "laser_blast", "oxygen"], 1: ["oxygen", "shield"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "hole_in_suit", 1)
    play(g, "accept")
    assert not alive(g, 1)
    assert hand(g, 1) == []
    # Dead at once: Bob is no longer a target for the Laser Blast in the same phase.
    assert plays(g, 0) == []


def test_S3_card_taken_with_the_last_oxygen_kills() -> None:
    g = build(hands={0: ["hack_suit", "oxygen"], 1: ["oxygen2", "tether"]}, draw=["oxygen"])
    do_play(g, 0, "hack_suit", 1)
    play(g, "accept", {"do": "take", "card": card_id(g, 1, "oxygen2")})
    assert not alive(g, 1)
    assert "tether" in [c.key for c in s_of(g).discard]


def test_S3_breathing_with_the_last_oxygen_kills() -> None:
    g = build(hands={0: ["oxygen", "tether"]}, draw=["laser_blast"])
    play(g, "done", "stay")
    assert not alive(g, 0)
    assert g.active == 1
    assert any(key == "death.oxygen" and args["player"] == 0 for key, args in said(g))


def test_S3_travelling_on_the_last_oxygen_dies_after_the_card() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "tether"]}, draw=["laser_blast"], locations=["blank_space"]
    )
    play(g, "done", "move")
    assert pos(g, 0) == (0, 1)
    assert s_of(g).board[(0, 0)].key == "blank_space"  # the card was drawn and resolved
    assert not alive(g, 0)
    log = said(g)
    assert log.index(("location", {"player": 0, "location": "blank_space"})) < next(
        i for i, (key, args) in enumerate(log) if key == "death.oxygen" and args["player"] == 0
    )


def test_S3_traveller_saved_by_the_oxygen_drawn() -> None:
    g = build(
        hands={0: ["oxygen2", "tether"]}, draw=["laser_blast", "oxygen"], locations=["useful_junk"]
    )
    play(g, "done", "move")
    assert alive(g, 0)
    assert hand(g, 0) == ["laser_blast", "oxygen", "tether"]


def test_S3_traveller_survives_everything_the_card_leads_to() -> None:
    # Hyperspace leads to another card; the oxygen comes from that second card.
    g = build(
        rows={0: 2},
        hands={0: ["oxygen", "oxygen"]},
        draw=["laser_blast", "oxygen2"],
        locations=["hyperspace", "useful_junk"],
    )
    play(g, "done", "move")
    assert pos(g, 0) == (0, 4)
    assert alive(g, 0) and units(g, 0) == 2


def test_S3_traveller_at_zero_still_chooses_the_wormhole_swap_then_dies() -> None:
    g = build(
        rows={2: 3}, hands={0: ["oxygen", "oxygen"]}, draw=["laser_blast"], locations=["wormhole"]
    )
    play(g, "done", "move")
    assert g.pending_seats() == [0] and kinds(g) == ["swap"]
    play(g, {"do": "swap", "target": 2})
    assert pos(g, 0) == (2, 3)
    assert not alive(g, 0)


def test_S3_traveller_with_oxygen_left_who_loses_it_on_the_card_dies() -> None:
    g = build(
        hands={0: ["oxygen", "oxygen", "oxygen"]},
        draw=["laser_blast"],
        locations=["cosmic_radiation"],
    )
    play(g, "done", "move")
    assert not alive(g, 0)


def test_S3_staying_costs_exactly_one_oxygen_without_variant_V1() -> None:
    g = build(hands={0: ["oxygen", "oxygen", "tether", "shield"]}, draw=["laser_blast"])
    play(g, "done")
    assert g.legal(0) == [{"do": "stay"}, {"do": "move"}]
    play(g, "stay")
    assert hand(g, 0) == ["laser_blast", "oxygen", "shield", "tether"]


def test_V1_stay_by_discarding_two_action_cards() -> None:
    g = build(hands={0: ["oxygen", "tether", "shield"]}, draw=["laser_blast"], variants=["V1"])
    play(g, "done")
    discards = [c for c in g.legal(0) if c["do"] == "stay" and "discard" in c]
    deck = GAME_DECKS[Edition.SPACE]
    pairs = {tuple(sorted(deck[i].key for i in c["discard"])) for c in discards}
    assert pairs == {("laser_blast", "tether"), ("laser_blast", "shield"), ("shield", "tether")}
    play(g, {"do": "stay", "discard": [card_id(g, 0, "tether"), card_id(g, 0, "laser_blast")]})
    assert alive(g, 0)
    assert hand(g, 0) == ["oxygen", "shield"]
    assert [c.key for c in s_of(g).discard][-2:] == ["tether", "laser_blast"]


def test_V1_stay_by_discarding_needs_two_action_cards() -> None:
    g = build(hands={0: ["oxygen", "oxygen2"]}, draw=["laser_blast"], variants=["V1"])
    play(g, "done")
    assert not any("discard" in c for c in g.legal(0))


# ------------------------------------------------------------------------- S4 win


def test_S4_travelling_onto_the_ship_with_oxygen_wins_at_once() -> None:
    g = build(rows={0: 5}, hands={0: ["oxygen"] * 3}, draw=["oxygen"], locations=["blank_space"])
    play(g, "done", "move")
    assert g.over and g.winner == 0
    assert g.view(1)["winner"] == 0 and g.view(None)["phase"] == "over"
    assert g.pending_seats() == [] and g.legal(0) == []
    assert said(g)[-1] == ("win.ship", {"player": 0})


def test_S4_rocket_booster_onto_the_ship_with_one_oxygen_wins_at_once() -> None:
    # One oxygen: staying would cost it. Reaching the ship wins before phase 3 is played.
    g = build(
        rows={0: 5},
        hands={0: ["rocket_booster", "oxygen"]},
        draw=["tether"],
        locations=["blank_space"],
    )
    do_play(g, 0, "rocket_booster")
    assert pos(g, 0) == (0, 6)
    assert g.over and g.winner == 0 and units(g, 0) == 1
    assert g.pending_seats() == []


def test_S4_win_comes_after_the_card_drawn_has_resolved() -> None:
    # Rocket Booster onto the ship draws Cosmic Radiation: Ann pays her last oxygen and dies.
    g = build(
        rows={0: 5},
        hands={0: ["rocket_booster", "oxygen"]},
        draw=["tether"],
        locations=["cosmic_radiation"],
    )
    do_play(g, 0, "rocket_booster")
    assert not alive(g, 0) and not g.over and g.winner is None and g.active == 1


def test_S4_travelling_onto_the_ship_on_the_last_oxygen_dies_without_a_win() -> None:
    g = build(rows={0: 5}, hands={0: ["oxygen2"]}, draw=["tether"], locations=["blank_space"])
    play(g, "done", "move")
    assert not alive(g, 0) and not g.over and g.active == 1


def test_S4_useful_junk_oxygen_saves_the_last_oxygen_traveller_who_wins() -> None:
    g = build(
        rows={0: 5}, hands={0: ["oxygen2"]}, draw=["tether", "oxygen"], locations=["useful_junk"]
    )
    play(g, "done", "move")
    assert g.over and g.winner == 0


def test_S4_tether_onto_the_ship_wins_before_the_knock_back() -> None:
    g = build(
        rows={0: 5, 1: 3},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["blank_space"],
    )
    do_play(g, 0, "tether")
    assert g.over and g.winner == 0 and pos(g, 1) == (1, 3)


def test_S4_hyperspace_onto_the_ship_wins_after_the_next_card() -> None:
    g = build(
        rows={0: 4},
        hands={0: ["rocket_booster", "oxygen"]},
        draw=["oxygen"],
        locations=["hyperspace", "mysterious_nebula"],
    )
    do_play(g, 0, "rocket_booster")
    assert pos(g, 0) == (0, 6) and g.over and g.winner == 0
    assert len(hand(g, 0)) == 4  # the Nebula's 2 cards were drawn first


def test_S4_wormhole_swap_onto_the_ship_wins_for_the_drawer() -> None:
    # Bob's corpse lies on the ship; Ann's Wormhole swap puts her there: she wins.
    g = build(
        rows={0: 2, 1: 6},
        dead=[1],
        hands={0: ["rocket_booster", "oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    do_play(g, 0, "rocket_booster")
    play(g, {"do": "swap", "target": 1})
    assert pos(g, 0) == (1, 6) and g.over and g.winner == 0


def test_S4_if_every_astronaut_dies_nobody_wins() -> None:
    g = build(players=2, dead=[1], hands={0: ["oxygen"]}, draw=["laser_blast"])
    play(g, "done", "stay")
    assert g.over and g.winner is None
    assert ("win.nobody", {}) in said(g)


def test_S4_a_lone_survivor_must_still_reach_the_ship() -> None:
    g = build(
        players=3,
        dead=[1, 2],
        hands={0: ["oxygen"] * 5},
        draw=["oxygen"] * 3,
        locations=["blank_space"],
    )
    play(g, "done", "stay")
    assert not g.over and g.active == 0 and g.turn == 2
    play(g, "done", "move")
    assert not g.over and g.active == 0 and pos(g, 0) == (0, 1)


# ------------------------------------------------------------------------- S5 action cards


def test_S5_tether_knocks_back_from_where_the_target_now_stands() -> None:
    # The Tether's forward move draws a Wormhole; Ann swaps with her target Bob, who is then
    # knocked back from Ann's old column.
    g = build(
        rows={0: 1, 1: 4},
        board={
            (0, 0): "blank_space",
            (1, 0): "blank_space",
            (1, 1): "blank_space",
            (1, 2): "useful_junk",
            (1, 3): "meteoroid",
        },
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    do_play(g, 0, "tether")
    play(g, {"do": "swap", "target": 1}, "accept")  # Bob, the only target, is not asked for
    assert pos(g, 0) == (1, 4)
    # Bob stood on (0, 2) after the swap: back to (0, 1), discarding the Wormhole there.
    assert pos(g, 1) == (0, 1)
    assert [loc.key for loc in s_of(g).loc_discard] == ["wormhole"]
    assert s_of(g).board[(1, 3)].key == "meteoroid"


def test_S5_tether_target_is_knocked_back_after_the_user_swapped_elsewhere() -> None:
    g = build(
        rows={0: 1, 1: 1},
        board={(0, 0): "blank_space"},
        hands={0: ["tether", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    do_play(g, 0, "tether")
    play(g, {"do": "swap", "target": 2})
    # Ann swapped with Cid, who came off row 0: both are targets now (C12).
    assert [c["target"] for c in g.legal(0)] == [1, 2]
    play(g, {"do": "target", "target": 1}, "accept")
    # Ann swapped with Cid (row 0); Bob is knocked back from row 1 to row 0.
    assert pos(g, 1) == (1, 0)
    assert pos(g, 0) == (2, 0) and pos(g, 2) == (0, 2)


def test_S5_rocket_booster_costs_no_oxygen() -> None:
    g = build(hands={0: ["rocket_booster", "oxygen"]}, draw=["oxygen"], locations=["blank_space"])
    do_play(g, 0, "rocket_booster")
    assert pos(g, 0) == (0, 1) and units(g, 0) == 2


# ------------------------------------------------------------------------- S6 Solar Flare


def flare_game(**extra: Any) -> Game:
    kwargs: dict[str, Any] = {
        "rows": {0: 2, 1: 2},
        "board": {
            (0, 0): "blank_space",
            (0, 1): "solar_flare",
            (1, 0): "blank_space",
            (1, 1): "blank_space",
        },
        "hands": {
            0: ["laser_blast", "rocket_booster", "oxygen2", "oxygen"],
            1: ["shield", "laser_blast", "oxygen", "oxygen"],
        },
        "draw": ["tether"],
        "discard": ["oxygen", "oxygen"],
    }
    kwargs.update(extra)
    return build(**kwargs)


def test_S6_solar_flare_stops_action_cards() -> None:
    g = flare_game()
    assert g.view(0)["players"][0]["flared"] is True
    assert g.view(0)["players"][1]["flared"] is False
    assert plays(g, 0) == []
    # Making change is no action card (C7).
    assert [c["do"] for c in g.legal(0)] == ["change", "done"]


def test_S6_solar_flare_stops_the_shield_too() -> None:
    g = flare_game(first=1, draw=["oxygen"])
    do_play(g, 1, "laser_blast", 0)
    assert g.pending_seats() == [0]
    assert g.legal(0) == [{"do": "accept"}]  # still asked (C13), but no block
    play(g, "accept")
    assert pos(g, 0) == (0, 1)
    # Knocked back onto the flare's cell: the flare is discarded, no longer below her.
    assert not g.view(0)["players"][0]["flared"]


def test_V1_solar_flare_still_allows_staying_by_discarding_actions() -> None:
    g = flare_game(variants=["V1"])
    play(g, "done")
    assert {
        "do": "stay",
        "discard": [card_id(g, 0, "laser_blast"), card_id(g, 0, "rocket_booster")],
    } in g.legal(0)
    play(
        g,
        {"do": "stay", "discard": [card_id(g, 0, "laser_blast"), card_id(g, 0, "rocket_booster")]},
    )
    assert alive(g, 0) and units(g, 0) == 3


def test_S6_solar_flare_just_drawn_flares_at_once() -> None:
    g = build(
        players=2,
        hands={0: ["oxygen"] * 4 + ["rocket_booster"], 1: ["oxygen"] * 2},
        draw=["oxygen"] * 3,
        locations=["solar_flare"],
    )
    assert plays(g, 0) != []
    play(g, "done", "move")
    assert g.view(None)["players"][0]["flared"] is True
    play(g, "done", "stay")  # Bob
    assert g.active == 0
    assert plays(g, 0) == []


def test_S6_solar_flare_ends_when_moving_on() -> None:
    g = flare_game(
        hands={0: ["oxygen"] * 4, 1: ["oxygen"] * 2}, draw=["oxygen"], locations=["blank_space"]
    )
    play(g, "done", "move")
    assert pos(g, 0) == (0, 3)
    assert not g.view(None)["players"][0]["flared"]


def test_S6_solar_flare_follows_the_column_not_the_astronaut() -> None:
    # Bob swaps into Ann's cell by a Wormhole: he is flared now, she is not.
    g = flare_game(
        first=1,
        rows={0: 2, 1: 1},
        board={(0, 0): "blank_space", (0, 1): "solar_flare", (1, 0): "blank_space"},
        hands={0: ["shield", "oxygen"], 1: ["oxygen"] * 4},
        draw=["laser_blast", "oxygen"],
        locations=["wormhole"],
    )
    assert not g.view(None)["players"][1]["flared"]
    play(g, "done", "move", {"do": "swap", "target": 0})
    assert pos(g, 1) == (0, 2) and pos(g, 0) == (1, 2)
    players = g.view(None)["players"]
    assert players[1]["flared"] is True and players[0]["flared"] is False


# ------------------------------------------------------------------------- S7 Wormhole at ship


def test_S7_wormhole_at_ship_hands_the_win() -> None:
    g = build(
        rows={0: 5, 1: 2, 2: 3},
        hands={0: ["oxygen"] * 4, 1: ["oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
        locations=["wormhole"],
    )
    play(g, "done", "move")
    assert kinds(g) == ["swap"]
    assert {c["target"] for c in g.legal(0)} == {1, 2}  # must still swap
    play(g, {"do": "swap", "target": 2})
    assert g.over and g.winner == 2
    assert pos(g, 2) == (0, 6) and pos(g, 0) == (2, 3)
    assert ("win.wormhole", {"player": 2}) in said(g)


def test_S7_wormhole_at_ship_with_a_corpse_goes_on() -> None:
    g = build(
        rows={0: 5, 2: 3},
        dead=[2],
        hands={0: ["oxygen"] * 4, 1: ["oxygen"] * 2},
        draw=["oxygen", "oxygen"],
        locations=["wormhole"],
    )
    play(g, "done", "move", {"do": "swap", "target": 2})
    assert not g.over
    assert pos(g, 2) == (0, 6) and pos(g, 0) == (2, 3)
    assert g.active == 1 and g.winner is None


def test_S7_a_living_astronaut_sent_to_the_ship_wins_even_if_the_drawer_dies() -> None:
    # Ann travels on her last oxygen: she still must swap, and Bob wins at once.
    g = build(
        players=2,
        rows={0: 5, 1: 1},
        hands={0: ["oxygen", "oxygen"], 1: ["oxygen"]},
        draw=["laser_blast"],
        locations=["wormhole"],
    )
    play(g, "done", "move")
    assert g.over and g.winner == 1
    assert pos(g, 1) == (0, 6)
