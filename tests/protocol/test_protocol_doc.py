"""PROTOCOL.md stays true: its examples parse, and it covers every message type and error code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import CLIENT_TYPES, SERVER_TYPES, parse_client

DOC = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()


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


def test_every_client_example_is_valid() -> None:
    client = examples(section(4))
    assert {m["type"] for m in client} == CLIENT_TYPES
    for message in client:
        assert message["type"] == parse_client(message).TYPE


def test_every_server_type_has_an_example() -> None:
    server = examples(section(5))
    assert {m["type"] for m in server} <= SERVER_TYPES
    # joined and events examples contain "..." placeholders; check they are at least named.
    missing = SERVER_TYPES - {m["type"] for m in server}
    for kind in missing:
        assert f"### {kind}" in section(5)


def test_every_error_code_is_documented() -> None:
    table = set(re.findall(r"^\| `([a-z_]+)` \|", section(9), flags=re.M))
    assert table == {str(code) for code in ErrorCode}
