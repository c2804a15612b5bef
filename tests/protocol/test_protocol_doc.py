"""PROTOCOL.md stays true: its examples parse, its tables of fields, event keys, decision
kinds, choices and argument types are those of the code, and it covers every error code."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from protocol import game_types, records, server_messages, view_types
from protocol.errors import ErrorCode
from protocol.messages import CLIENT_TYPES, parse_client
from protocol.server_messages import SERVER_MESSAGES, SERVER_TYPES, read_server
from protocol.vocabulary import ARG_TYPES, CHOICES, DECISIONS, EVENTS
from server.config import ServerConfig

DOC = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()

#: The parts PROTOCOL.md has a field table for, by the name the table uses.
PARTS: dict[str, type] = {
    "RoomSummary": server_messages.RoomSummary,
    "Seat": server_messages.SeatInfo,
    "Spectator": server_messages.Spectator,
    "TurnTimer": server_messages.TurnTimer,
    "GraceCountdown": server_messages.GraceCountdown,
    "GameSummary": records.GameSummary,
    "SeatRecord": records.SeatRecord,
    "Rating": records.Rating,
    "RatingChange": records.RatingChange,
    "EditionRecord": records.EditionRecord,
    "LeaderboardEntry": records.LeaderboardEntry,
    "ReviewMember": records.ReviewMember,
    "PublicView": view_types.PublicView,
    "SeatPart": view_types.SeatPart,
    "Player": view_types.Player,
    "Placed": view_types.Placed,
    "Pending": view_types.Pending,
    "Card": game_types.Card,
    "Location": game_types.Location,
    "Decision": game_types.Decision,
    "Choice": game_types.Choice,
    "Event": game_types.Event,
}


def section(number: int) -> str:
    start = DOC.index(f"\n## {number}. ")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end]


def examples(text: str) -> list[dict[str, Any]]:
    """Every JSON example map in the code blocks of ``text`` (maps may span lines)."""
    found = []
    for block in re.findall(r"```\n(.*?)```", text, flags=re.S):
        if "..." in block:
            continue
        buffer = ""
        for line in block.splitlines():
            if line.startswith("{"):
                buffer = ""
            buffer += line + "\n"
            try:
                found.append(json.loads(buffer))
                buffer = ""
            except json.JSONDecodeError:
                continue
    return found


def tables(head: str) -> dict[str, list[list[str]]]:
    """Every table whose header row begins ``| <head> <name> |``: its rows' cells, by name."""
    found: dict[str, list[list[str]]] = {}
    pattern = rf"^\| {re.escape(head)} ?(\S*) \|.*\n\|[-|]+\|\n((?:\|.*\n)*)"
    for match in re.finditer(pattern, DOC, flags=re.M):
        rows = [
            [cell.strip() for cell in row.strip("|").split("|")] for row in match[2].splitlines()
        ]
        found[match[1]] = rows
    return found


def names(cell: str) -> list[str]:
    """The backticked names of a table cell."""
    return re.findall(r"`([^`]+)`", cell)


def test_every_client_example_is_valid() -> None:
    client = examples(section(4))
    assert {m["type"] for m in client} == CLIENT_TYPES
    for message in client:
        assert message["type"] == parse_client(message).TYPE


def test_every_server_example_is_exactly_a_message_the_client_reads() -> None:
    server = examples(section(5))
    assert {m["type"] for m in server} == SERVER_TYPES - {"state"}  # state: its view is §6's
    for message in server:
        assert read_server(message).to_wire() == message


def test_every_server_message_and_part_has_a_table_of_exactly_its_fields() -> None:
    documented = tables("field of")
    for name, cls in [*SERVER_MESSAGES.items(), *PARTS.items()]:
        assert name in documented, name
        fields = {f.name for f in dataclasses.fields(cls)}
        if name in SERVER_MESSAGES:
            fields.discard("id")  # every reply's, described in §2
        assert {names(row[0])[0] for row in documented[name]} == fields, name
    assert set(documented) == set(SERVER_MESSAGES) | set(PARTS)


def test_the_event_table_is_the_vocabulary() -> None:
    rows = next(iter(tables("key | kind").values()))
    table = {names(row[0])[0]: (names(row[1]), names(row[2]), names(row[3])) for row in rows}
    assert table == {
        key: ([known.kind], list(known.args), list(known.secret)) for key, known in EVENTS.items()
    }


def test_the_decision_table_is_the_vocabulary() -> None:
    rows = next(iter(tables("kind | args").values()))
    assert {names(row[0])[0]: tuple(names(row[1])) for row in rows} == DECISIONS


def test_the_choice_table_is_the_vocabulary() -> None:
    rows = next(iter(tables("do | required").values()))
    table = {names(row[0])[0]: (tuple(names(row[1])), tuple(names(row[2]))) for row in rows}
    assert table == {do: (shape.required, shape.optional) for do, shape in CHOICES.items()}


def test_the_argument_table_is_the_vocabulary() -> None:
    rows = next(iter(tables("arg | type").values()))
    assert {names(row[0])[0]: row[1] for row in rows} == {
        name: str(kind) for name, kind in ARG_TYPES.items()
    }


def test_every_error_code_is_documented() -> None:
    table = set(re.findall(r"^\| `([a-z_]+)` \|", section(9), flags=re.M))
    assert table == {str(code) for code in ErrorCode}


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("(`history_events`) | {:,} |", "history_events"),
        ("arrived | {:g} s |", "frame_timeout"),
        ("(`bot_delay`, default {:g} s", "bot_delay"),
        ("left unfinished for {:g} s", "frame_timeout"),
        ("one `room` per\n{:g} s per room", "room_broadcast_interval"),
    ],
)
def test_the_documented_settings_are_the_servers_defaults(text: str, setting: str) -> None:
    value = getattr(ServerConfig(), setting)
    assert text.format(value) in DOC, setting
