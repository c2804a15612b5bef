"""The export file: written, read back and replayed to the same final state; a file whose seed
or decisions were changed is refused with a clear error."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.records import SeatRecord
from protocol.replay_file import ReplayFile, ReplayFileError, read, write
from server.engine import RULES_VERSION, Game, RecordMismatch, digest, verify


def played(edition: str, seats: int, seed: int, moves: int) -> Game:
    """A whole game, each decision a random legal choice."""
    rng = random.Random(moves)
    game = Game(edition, [f"P{n}" for n in range(seats)], seed)
    while not game.over:
        seat = rng.choice(game.pending_seats())
        game.apply(seat, rng.choice(game.legal(seat)))
    return game


def exported(game: Game) -> ReplayFile:
    return ReplayFile(
        edition=game.edition.value,
        variants=list(game.variants),
        seed=game.seed,
        seats=[SeatRecord(name, "human", f"p{n:08x}") for n, name in enumerate(game.names)],
        decisions=[(seat, dict(choice)) for seat, choice in game.decisions],
        winner=game.winner,
        turns=game.turn,
        digest=digest(game),
        rules=RULES_VERSION,
    )


def check(record: ReplayFile) -> Game:
    return verify(
        record.edition,
        record.names,
        record.seed,
        record.decisions,
        record.variants,
        record.digest,
        record.rules,
    )


@settings(max_examples=30, deadline=None)
@given(
    edition=st.sampled_from(["space", "shipwrecked"]),
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**63 - 1),
    moves=st.integers(0, 2**32),
)
def test_exported_imported_replayed_gives_the_same_final_state(
    edition: str, seats: int, seed: int, moves: int
) -> None:
    game = played(edition, seats, seed, moves)
    back = read(write(exported(game)))
    again = check(back)
    assert again.snapshot() == game.snapshot()
    assert digest(again) == back.digest == digest(game)


GAME = played("space", 3, 11, 1)


def test_a_file_reads_back_as_it_was_written() -> None:
    record = exported(GAME)
    assert read(write(record)) == record
    assert read(write(record).encode()) == record


def test_renaming_the_seats_keeps_the_check() -> None:
    document = json.loads(write(exported(GAME)))
    document["seats"][0]["name"] = "Anonymous"
    assert check(read(json.dumps(document))).over


def test_a_changed_seed_is_refused() -> None:
    document = json.loads(write(exported(GAME)))
    document["seed"] += 1
    with pytest.raises(RecordMismatch, match=r"seed or (the )?decisions"):
        check(read(json.dumps(document)))


def test_a_changed_decision_is_refused() -> None:
    game = played("shipwrecked", 4, 3, 2)
    record = exported(game)
    decisions = list(record.decisions)
    replayed = Game("shipwrecked", game.names, game.seed)
    for n, (seat, choice) in enumerate(decisions):  # the first one that had another choice
        other = next((c for c in replayed.legal(seat) if c != choice), None)
        if other is not None:
            decisions[n] = (seat, other)
            break
        replayed.apply(seat, choice)
    tampered = ReplayFile(**{**record.__dict__, "decisions": decisions})
    with pytest.raises(RecordMismatch):
        check(read(write(tampered)))


def test_a_cut_short_record_is_refused() -> None:
    record = exported(GAME)
    short = ReplayFile(**{**record.__dict__, "decisions": record.decisions[:-1]})
    with pytest.raises(RecordMismatch, match="not over"):
        check(short)


def test_another_rules_version_is_refused() -> None:
    record = ReplayFile(**{**exported(GAME).__dict__, "rules": RULES_VERSION + 1})
    with pytest.raises(RecordMismatch, match="rules version"):
        check(record)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ("[]", "not a Selfish replay file"),
        ('{"format": "selfish-replay", "format_version": 9}', "version 9"),
        ('{"format": "selfish-replay", "format_version": 1, "edition": "moon"}', "edition"),
    ],
)
def test_a_file_that_is_no_replay_gets_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ReplayFileError, match=message):
        read(text)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("seed", "7", "'seed'"),
        ("seats", [], "'seats'"),
        ("decisions", [[9, {"do": "move"}]], "decision 1"),
        ("decisions", [[0, "move"]], "decision 1"),
        ("result", {"winner": 7, "turns": 3}, "winner 7"),
        ("digest", None, "'digest'"),
    ],
)
def test_a_malformed_field_gets_a_clear_error(key: str, value: object, message: str) -> None:
    document = json.loads(write(exported(GAME)))
    document[key] = value
    with pytest.raises(ReplayFileError, match=message):
        read(json.dumps(document))


def test_a_huge_file_is_refused_unread() -> None:
    with pytest.raises(ReplayFileError, match="larger"):
        read(" " * (5 * 1024 * 1024))
