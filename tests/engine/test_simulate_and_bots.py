"""The self-play command, the bots, and the engine's purity."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from server.bots.basic import choose_basic, in_harbour
from server.bots.levels import choose
from server.bots.seen import PATIENT, RACING, Seen, Style, seen_from_view
from server.bots.simulate import main
from server.engine import Edition
from tests.engine.scenario import build, card_id

REQUIRED = {
    "edition",
    "players",
    "games",
    "seed",
    "wins",
    "no_winner",
    "mean_turns",
    "max_turns",
    "games_per_second",
    "invariant_checks",
    "invariant_failures",
}


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
def test_simulate_json_summary(edition: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "--edition",
            edition,
            "--players",
            "3",
            "--games",
            "12",
            "--seed",
            "4",
            "--bots",
            "basic,random,random",
            "--json",
        ]
    )
    assert status == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(summary) >= REQUIRED
    assert summary["games"] == 12 and summary["players"] == 3 and summary["seed"] == 4
    assert sum(summary["wins"]) + summary["no_winner"] == 12
    assert summary["invariant_checks"] > 0 and summary["invariant_failures"] == 0


def test_simulate_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--edition", "space", "--players", "4", "--games", "6", "--seed", "9", "--json"]
    main(args)
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    main(args)
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in ("wins", "no_winner", "mean_turns", "max_turns", "invariant_checks"):
        assert first[key] == second[key]


def test_simulate_rejects_a_bad_bot_list() -> None:
    with pytest.raises(SystemExit):
        main(["--edition", "space", "--players", "3", "--games", "1", "--bots", "basic,genius"])


def test_engine_imports_no_io_or_ui_code() -> None:
    code = (
        "import sys, server.engine, server.bots.levels, server.bots.selfplay; "
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    # (``time`` itself is imported by the stdlib's ``random``; the engine never reads clocks.)
    for banned in ("asyncio", "socket", "selectors", "msgpack", "textual", "sqlite3"):
        assert banned not in out, f"server.engine imports {banned}"


def test_basic_bot_blocks_an_attack_it_can_block() -> None:
    game = build(
        "space",
        3,
        hands={0: ["laser_blast", "oxygen"], 1: ["shield", "oxygen"]},
        draw=["oxygen"],
        rows={1: 2},
    )
    game.apply(0, {"do": "play", "card": card_id(game, 0, "laser_blast"), "target": 1})
    assert choose("basic", game.view(1), random.Random(0))["do"] == "block"


def test_basic_bot_avoids_a_fatal_stay_when_it_can_discard_actions() -> None:
    game = build(
        "space",
        2,
        hands={0: ["oxygen", "laser_blast", "tractor_beam"], 1: ["oxygen"]},
        draw=["shield"],
        variants=["V1"],
    )
    game.apply(0, {"do": "done"})
    view = game.view(0)
    assert any(c.get("fatal") for c in view["legal"])
    pick = choose("basic", view, random.Random(0))
    assert pick["do"] == "stay" and "discard" in pick and not pick.get("fatal")


def test_basic_bot_steers_sharks_away_from_itself() -> None:
    # Ann moves from row 1 to row 2; the shark in the cell she leaves would follow her north.
    game = build(
        "shipwrecked",
        2,
        hands={0: [("food2", "N"), ("food", "N"), ("food", "S")], 1: ["food"]},
        rows={0: 1},
        sharks=[(0, 1)],
        locations=[("calm_waters", True)],
        draw=["lost"],
    )
    game.apply(0, {"do": "done"})
    game.apply(0, {"do": "move"})
    game.apply(0, {"do": "pay", "cards": [card_id(game, 0, "food2")]})
    assert game.decision is not None and game.decision.kind == "pick"
    view = game.view(0)
    pick = choose("basic", view, random.Random(0))
    card = next(c for c in view["hand"] if c["id"] == pick["card"])
    assert card["dir"] != "N"


def test_every_bot_choice_is_legal_in_whole_games() -> None:
    for edition in Edition:
        for level in ("random", "basic"):
            from server.bots.selfplay import play_game

            result = play_game(edition, [level] * 4, 11, check=True)
            assert result.invariant_failures == []


def test_V1_simulate_plays_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--edition", "space", "--players", "2", "--games", "30", "--seed", "2", "--json"]
    assert main([*argv, "--bots", "basic", "--variant", "V1"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["variants"] == ["V1"] and summary["invariant_failures"] == 0
    with pytest.raises(SystemExit):
        main(["--edition", "shipwrecked", "--players", "2", "--games", "1", "--variant", "V1"])
    assert "does not apply" in capsys.readouterr().err


def test_simulate_runs_experts_on_a_budget_of_rollouts(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--edition", "shipwrecked", "--players", "3", "--games", "2", "--seed", "5"]
    args += ["--bots", "expert,basic,random", "--rollouts", "6", "--seconds", "0", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    main(args)
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["bots"] == ["expert", "basic", "random"]
    assert first["invariant_failures"] == 0
    assert (first["wins"], first["mean_turns"]) == (again["wins"], again["mean_turns"])


@pytest.mark.parametrize("flags", [["--rollouts", "0"], ["--seconds", "-1"]])
def test_simulate_rejects_a_bad_budget(flags: list[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--edition", "space", "--players", "2", "--games", "1", "--bots", "expert", *flags])


def test_basic_bot_has_a_rule_for_every_decision_kind() -> None:
    from server.bots.basic import HANDLED_KINDS
    from server.engine.actions import DecisionKind

    assert {kind.value for kind in DecisionKind} == HANDLED_KINDS


def test_basic_bot_aims_a_tether_at_the_leader() -> None:
    # Ann's Tether moves her forward (a blank space); then she chooses whom to knock back:
    # Cid, furthest ahead, rather than Bob.
    game = build(
        "space",
        3,
        hands={0: ["tether", "oxygen", "oxygen"], 1: ["oxygen"], 2: ["oxygen"]},
        rows={1: 1, 2: 4},
        locations=["blank_space"],
        draw=["oxygen"],
    )
    game.apply(0, {"do": "play", "card": card_id(game, 0, "tether")})
    view = game.view(0)
    assert view["decision"]["kind"] == "target"
    assert {c["target"] for c in view["legal"]} == {1, 2}
    assert choose("basic", view, random.Random(0))["target"] == 2


def test_basic_bot_spends_a_free_move_and_moves_only_with_oxygen_to_spare() -> None:
    game = build(
        "space",
        2,
        hands={0: ["rocket_booster", "oxygen", "oxygen", "oxygen"], 1: ["oxygen"]},
        rows={0: 1},  # off the start row, where it would wait (next test)
        locations=["blank_space", "blank_space"],
        draw=["laser_blast"],
    )
    pick = choose("basic", game.view(0), random.Random(0))
    assert pick == {
        "do": "play",
        "card": card_id(game, 0, "rocket_booster"),
    }
    game.apply(0, pick)
    game.apply(0, {"do": "done"})
    # Three oxygen: a move would leave one, which the next breath takes (S3): stay.
    assert choose("basic", game.view(0), random.Random(0))["do"] == "stay"


@pytest.mark.parametrize(
    ("row", "turn", "discard", "away", "waits"),
    [
        (0, 1, [], {}, False),  # nobody has played a card that only harms
        (0, 1, ["laser_blast"], {}, True),  # the table harms
        (0, 12, ["laser_blast"], {1: 1}, True),  # up to the third round, one rival gone ahead
        (0, 13, ["laser_blast"], {}, False),  # and no longer: the table must go on
        (0, 5, ["hole_in_suit"], {1: 1, 2: 3}, False),  # two rivals draw the knock-backs now
        (1, 5, ["laser_blast"], {}, False),  # off the start row
    ],
)
def test_basic_astronaut_waits_on_the_start_row_while_the_table_harms_and_stays_there(
    row: int, turn: int, discard: list[str], away: dict[int, int], waits: bool
) -> None:
    game = build(
        "space",
        4,
        hands={
            0: ["rocket_booster", "oxygen2", "oxygen2", "oxygen2"],
            1: ["oxygen"],
            2: ["oxygen"],
            3: ["oxygen"],
        },
        rows={0: row, **away},
        discard=discard,
        locations=["blank_space", "blank_space"],
        draw=["oxygen"],
    )

    def seen(style: Style = PATIENT) -> Seen:
        return replace(seen_from_view(game.view(0), style), turn=turn)

    assert in_harbour(seen()) is waits
    booster = {"do": "play", "card": card_id(game, 0, "rocket_booster")}
    # The racing style, which the expert weighs against this one, never waits.
    assert {"do", "card"} <= choose_basic(seen(RACING), random.Random(0)).keys()
    pick = choose_basic(seen(), random.Random(0))
    if not waits:
        assert {key: pick.get(key) for key in booster} == booster
        return
    assert pick["do"] == "done"  # the booster is kept
    game.apply(0, pick)
    assert choose_basic(seen(), random.Random(0))["do"] == "stay"
    assert choose_basic(seen(RACING), random.Random(0))["do"] == "move"


def test_a_lone_basic_astronaut_does_not_wait_on_the_start_row() -> None:
    # Its rival's hand, Laser Blast included, went to the discard pile when it died (C14); a
    # lone survivor must still reach the ship (S4), and waiting would only drain it.
    game = build(
        "space",
        2,
        hands={0: ["oxygen2", "oxygen2", "oxygen2"]},
        discard=["laser_blast"],
        dead=[1],
        locations=["blank_space"],
        draw=["oxygen"],
    )
    seen = replace(seen_from_view(game.view(0)), turn=5)
    assert not in_harbour(seen)
    game.apply(0, choose_basic(seen, random.Random(0)))
    assert (
        choose_basic(replace(seen_from_view(game.view(0)), turn=5), random.Random(0))["do"]
        == "move"
    )


@pytest.mark.parametrize("cid_row", [2, 5])
def test_basic_astronaut_keeps_its_harming_cards_wherever_the_rivals_are(cid_row: int) -> None:
    # In Space a knock back or a hole in a rival's suit near the ship left tables of basic
    # bots without a winner (docs/bots.md): Ann keeps her Laser Blast and Hole in Suit even
    # with Cid one row from the ship.
    game = build(
        "space",
        3,
        hands={
            0: ["laser_blast", "hole_in_suit", "oxygen", "oxygen", "oxygen"],
            1: ["oxygen"],
            2: ["oxygen"],
        },
        rows={1: 2, 2: cid_row},
        draw=["oxygen"],
    )
    assert choose("basic", game.view(0), random.Random(0))["do"] == "done"


@pytest.mark.parametrize(("row", "sprints"), [(0, False), (5, True)])
def test_basic_castaway_keeps_its_free_move_and_stays_put_until_rich(
    row: int, sprints: bool
) -> None:
    # Six food is not rich (twelve is): Ann keeps her Freestyle Sprint and stays, outliving
    # the others (W4 a) -- except for the last step onto the raft.
    game = build(
        "shipwrecked",
        2,
        hands={0: ["freestyle_sprint", "food2", "food2", "food"], 1: ["food"]},
        rows={0: row},
        locations=["calm_waters"],
        draw=["food"],
    )
    pick = choose("basic", game.view(0), random.Random(0))
    if sprints:
        assert pick == {
            "do": "play",
            "card": card_id(game, 0, "freestyle_sprint"),
        }
        return
    assert pick["do"] == "done"
    game.apply(0, pick)
    assert choose("basic", game.view(0), random.Random(0))["do"] == "stay"


def test_the_racing_style_moves_whenever_a_move_does_not_kill() -> None:
    from tests.engine.scenario import castaway_with_three_food

    view = castaway_with_three_food().view(0)
    assert choose_basic(seen_from_view(view, PATIENT), random.Random(0))["do"] == "stay"
    assert choose_basic(seen_from_view(view, RACING), random.Random(0))["do"] == "move"


@pytest.mark.parametrize(("bob_row", "moves"), [(2, False), (3, True)])
def test_basic_castaway_keeps_up_with_a_rival_three_rows_ahead(bob_row: int, moves: bool) -> None:
    # Four food is far from rich, but a rival three rows ahead would reach the raft first.
    game = build(
        "shipwrecked",
        2,
        hands={0: ["food2", "food"], 1: ["food"]},
        rows={1: bob_row},
        locations=["calm_waters"],
        draw=["food"],
    )
    game.apply(0, {"do": "done"})
    assert choose("basic", game.view(0), random.Random(0))["do"] == ("move" if moves else "stay")


@pytest.mark.parametrize("knock", ["rogue_wave", "lost"])
def test_basic_castaway_harms_a_rival_two_rows_from_the_raft_only(knock: str) -> None:
    for distance in (2, 3):
        game = build(
            "shipwrecked",
            2,
            hands={0: [knock, "food", "food", "food"], 1: ["food"]},
            rows={1: 6 - distance},
            draw=["food"],
        )
        pick = choose("basic", game.view(0), random.Random(0))
        assert (pick["do"] == "play") == (distance == 2), distance
