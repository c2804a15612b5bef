"""One test (at least) per Space Edition card: the action cards of S5 and the space cards of S6."""

from __future__ import annotations

from typing import Any

from server.engine import Edition, Game
from server.engine.cards import GAME_DECKS
from tests.engine.scenario import (
    build,
    card_id,
    discard_keys,
    do_play,
    hand,
    kinds,
    play,
    pos,
    s_of,
    said,
    units,
)


def move_onto(location: str, **extra: Any) -> Game:
    """Ann (seat 0, 3 players) ends her actions and moves onto ``location``."""
    kwargs: dict[str, Any] = {
        "hands": {0: ["oxygen"] * 4, 1: ["oxygen"] * 2, 2: ["oxygen"] * 2},
        "draw": ["tether", "laser_blast", "shield", "hack_suit"],
        "locations": [location, "blank_space"],
    }
    kwargs.update(extra)
    g = build(**kwargs)
    play(g, "done", "move")
    return g


# ------------------------------------------------------------------------- S5 action cards


def test_S5_rocket_booster_moves_forward_free() -> None:
    g = build(
        rows={0: 1},
        board={(0, 0): "blank_space"},
        hands={0: ["rocket_booster", "oxygen", "oxygen"]},
        draw=["oxygen"],
        locations=["useful_junk"],
    )
    do_play(g, 0, "rocket_booster")
    assert pos(g, 0) == (0, 2)
    assert s_of(g).board[(0, 1)].key == "useful_junk"  # C9: drawn, placed, resolved
    assert units(g, 0) == 3 and len(hand(g, 0)) == 4
    assert discard_keys(g) == ["rocket_booster"]
    assert kinds(g) == ["actions"]


def test_S5_tractor_beam_steals_one_random_card() -> None:
    g = build(
        hands={0: ["tractor_beam", "oxygen"], 1: ["shield", "laser_blast", "oxygen"]},
        draw=["oxygen"],
    )
    victim = {c.id for c in s_of(g).hands[1]}
    do_play(g, 0, "tractor_beam", 1)
    play(g, "accept")
    taken = [c for c in s_of(g).hands[0] if c.id in victim]
    assert len(taken) == 1
    assert len(s_of(g).hands[1]) == 2
    assert {c.id for c in s_of(g).hands[1]} == victim - {taken[0].id}
    # Seeded: the same scenario steals the same card.
    g2 = build(
        hands={0: ["tractor_beam", "oxygen"], 1: ["shield", "laser_blast", "oxygen"]},
        draw=["oxygen"],
    )
    do_play(g2, 0, "tractor_beam", 1)
    play(g2, "accept")
    assert hand(g2, 0) == hand(g, 0)


def test_S5_laser_blast_moves_an_opponent_back() -> None:
    g = build(
        rows={2: 2},
        board={(2, 0): "blank_space", (2, 1): "meteoroid"},
        hands={0: ["laser_blast", "oxygen"], 2: ["oxygen"]},
        draw=["oxygen"],
    )
    assert {c.get("target") for c in g.legal(0) if c["do"] == "play"} == {2}
    do_play(g, 0, "laser_blast", 2)
    play(g, "accept")
    assert pos(g, 2) == (2, 1)
    assert [loc.key for loc in s_of(g).loc_discard] == ["meteoroid"]


def test_S5_hole_in_suit_makes_an_opponent_discard_one_oxygen() -> None:
    g = build(
        hands={0: ["hole_in_suit", "oxygen"], 1: ["oxygen2", "oxygen", "tether"]}, draw=["oxygen"]
    )
    do_play(g, 0, "hole_in_suit", 1)
    play(g, "accept")
    assert hand(g, 1) == ["oxygen2", "tether"]  # a single, if held (C6)
    assert discard_keys(g) == ["hole_in_suit", "oxygen"]
    assert units(g, 0) == 2


def test_S5_hole_in_suit_on_a_lone_double_gives_change() -> None:
    g = build(
        hands={0: ["hole_in_suit", "oxygen"], 1: ["oxygen2"]}, draw=["oxygen"], discard=["oxygen"]
    )
    do_play(g, 0, "hole_in_suit", 1)
    play(g, "accept")
    assert hand(g, 1) == ["oxygen"] and s_of(g).alive[1]


def test_S5_tether_moves_forward_then_knocks_the_target_back() -> None:
    g = build(
        rows={0: 1, 1: 3},
        board={
            (0, 0): "blank_space",
            (1, 0): "blank_space",
            (1, 1): "blank_space",
            (1, 2): "solar_flare",
        },
        hands={0: ["tether", "oxygen"], 1: ["oxygen"]},
        draw=["oxygen"],
        locations=["blank_space"],
    )
    do_play(g, 0, "tether")
    assert kinds(g) == ["react"]  # after the forward move; Bob is the only target (C12)
    play(g, "accept")
    assert pos(g, 0) == (0, 2) and pos(g, 1) == (1, 2)
    assert [loc.key for loc in s_of(g).loc_discard] == ["solar_flare"]
    log = said(g)
    back = log.index(("back.discard", {"player": 1, "row": 2, "location": "solar_flare"}))
    assert log.index(("move", {"player": 0, "row": 2})) < back
    assert units(g, 0) == 2  # no oxygen paid


def test_S5_shield_blocks_an_action_card() -> None:
    g = build(
        hands={0: ["oxygen_siphon", "oxygen"], 1: ["shield", "oxygen", "oxygen"]}, draw=["oxygen"]
    )
    do_play(g, 0, "oxygen_siphon", 1)
    shield = card_id(g, 1, "shield")
    assert {"do": "block", "card": shield} in g.legal(1)
    play(g, {"do": "block", "card": shield})
    assert hand(g, 1) == ["oxygen", "oxygen"]
    assert units(g, 0) == 2
    assert discard_keys(g) == ["oxygen_siphon", "shield"]
    # Shield is never an action of its own.
    g = build(rows={1: 2}, hands={0: ["shield", "oxygen"], 1: ["oxygen"]}, draw=["oxygen"])
    assert not any(c["do"] == "play" for c in g.legal(0))


def test_S5_hack_suit_looks_and_takes_the_chosen_card() -> None:
    g = build(
        hands={0: ["hack_suit", "oxygen"], 1: ["shield", "rocket_booster", "oxygen2"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "hack_suit", 1)
    play(g, "accept")
    assert kinds(g) == ["take"] and g.pending_seats() == [0]
    deck = GAME_DECKS[Edition.SPACE]
    assert sorted(deck[c["card"]].key for c in g.legal(0)) == [
        "oxygen2",
        "rocket_booster",
        "shield",
    ]
    play(g, {"do": "take", "card": card_id(g, 1, "shield")})
    assert hand(g, 0) == ["oxygen", "oxygen", "shield"]
    assert hand(g, 1) == ["oxygen2", "rocket_booster"]
    assert kinds(g) == ["actions"]


def test_S5_oxygen_siphon_steals_two_oxygen() -> None:
    g = build(
        hands={0: ["oxygen_siphon", "oxygen"], 1: ["oxygen", "oxygen", "oxygen", "shield"]},
        draw=["oxygen"],
    )
    do_play(g, 0, "oxygen_siphon", 1)
    play(g, "accept")
    assert hand(g, 0) == ["oxygen"] * 4
    assert hand(g, 1) == ["oxygen", "shield"]


# ------------------------------------------------------------------------- S6 space cards


def test_S6_blank_space_does_nothing() -> None:
    g = move_onto("blank_space")
    assert pos(g, 0) == (0, 1) and s_of(g).board[(0, 0)].key == "blank_space"
    assert hand(g, 0) == ["oxygen", "oxygen", "tether"]
    assert g.active == 1


def test_S6_cosmic_radiation_discards_one_oxygen() -> None:
    g = move_onto("cosmic_radiation")
    assert hand(g, 0) == ["oxygen", "tether"]
    assert s_of(g).board[(0, 0)].key == "cosmic_radiation"


def test_S6_useful_junk_draws_one_card() -> None:
    g = move_onto("useful_junk")
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen", "tether"]


def test_S6_mysterious_nebula_draws_two_cards() -> None:
    g = move_onto("mysterious_nebula")
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen", "shield", "tether"]


def test_S6_solar_flare_blocks_action_cards_while_below() -> None:
    g = build(
        players=2,
        hands={
            0: ["oxygen"] * 4 + ["rocket_booster", "shield"],
            1: ["oxygen"] * 3 + ["laser_blast"],
        },
        draw=["oxygen", "oxygen"],
        locations=["solar_flare"],
    )
    play(g, "done", "move")
    assert s_of(g).board[(0, 0)].key == "solar_flare"
    assert g.view(1)["players"][0]["flared"] is True
    do_play(g, 1, "laser_blast", 0)
    assert g.legal(0) == [{"do": "accept"}]  # her Shield cannot be played under the flare
    play(g, "accept")
    assert pos(g, 0) == (0, 0)
    assert "shield" in hand(g, 0)


def test_S6_meteoroid_discards_two_chosen_cards_from_six() -> None:
    g = build(
        hands={0: ["oxygen2", "oxygen", "oxygen", "tether", "shield", "laser_blast"]},
        draw=["hack_suit"],
        locations=["meteoroid"],
    )
    play(g, "done", "move")
    assert kinds(g) == ["meteoroid"] and len(hand(g, 0)) == 6
    play(g, {"do": "discard", "cards": [card_id(g, 0, "tether"), card_id(g, 0, "shield")]})
    assert hand(g, 0) == ["hack_suit", "laser_blast", "oxygen", "oxygen"]
    assert discard_keys(g)[-2:] == ["tether", "shield"]


def test_S6_meteoroid_spares_a_hand_under_six() -> None:
    g = build(
        hands={0: ["oxygen2", "oxygen", "oxygen", "tether", "shield"]},
        draw=["hack_suit"],
        locations=["meteoroid"],
    )
    play(g, "done", "move")
    assert g.active == 1
    assert len(hand(g, 0)) == 5


def test_S6_gravitational_anomaly_discards_itself_and_moves_back() -> None:
    g = move_onto(
        "gravitational_anomaly", rows={0: 2}, board={(0, 0): "blank_space", (0, 1): "useful_junk"}
    )
    assert pos(g, 0) == (0, 2)
    assert (0, 2) not in s_of(g).board
    assert [loc.key for loc in s_of(g).loc_discard] == ["gravitational_anomaly"]
    assert s_of(g).board[(0, 1)].key == "useful_junk"
    assert hand(g, 0) == ["oxygen", "oxygen", "tether"]  # the Useful Junk did not trigger


def test_S6_wormhole_swaps_with_a_chosen_astronaut() -> None:
    g = move_onto("wormhole", rows={1: 4, 2: 2})
    assert kinds(g) == ["swap"]
    assert g.legal(0) == [{"do": "swap", "target": 1}, {"do": "swap", "target": 2}]
    play(g, {"do": "swap", "target": 1})
    assert pos(g, 0) == (1, 4) and pos(g, 1) == (0, 1)
    assert s_of(g).board[(0, 0)].key == "wormhole"


def test_S6_asteroid_field_discards_two_oxygen() -> None:
    g = move_onto("asteroid_field", hands={0: ["oxygen"] * 5})
    assert hand(g, 0) == ["oxygen", "tether"]
    assert s_of(g).alive[0]


def test_S6_hyperspace_moves_forward_again() -> None:
    g = move_onto("hyperspace", locations=["hyperspace", "useful_junk"])
    assert pos(g, 0) == (0, 2)
    assert s_of(g).board[(0, 0)].key == "hyperspace"
    assert s_of(g).board[(0, 1)].key == "useful_junk"
    assert hand(g, 0) == ["laser_blast", "oxygen", "oxygen", "tether"]


def test_S6_hyperspace_is_ignored_on_the_ship() -> None:
    g = move_onto("hyperspace", rows={0: 5}, locations=["hyperspace", "useful_junk"])
    assert pos(g, 0) == (0, 6)
    assert g.winner == 0
    assert len(s_of(g).board) == 1


def test_S5_tractor_beam_taking_the_last_oxygen_kills() -> None:
    g = build(hands={0: ["tractor_beam", "oxygen"], 1: ["oxygen2"]}, draw=["oxygen"])
    do_play(g, 0, "tractor_beam", 1)
    play(g, "accept")
    assert hand(g, 0) == ["oxygen", "oxygen", "oxygen2"]
    assert not s_of(g).alive[1]
