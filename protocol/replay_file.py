"""The export file of a finished game: one JSON document (docs/records.md describes it),
written from a ``replay`` reply and read back with every field checked. Sans-IO: text in, text
out; the caller opens the file.

Reading checks the document's shape only. Whether its seed and decisions still make the game
it describes is the engine's to say: ``server.engine.verify`` replays it and compares the final
state with the file's ``digest``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import MalformedMessage
from protocol.messages import EDITIONS, MAX_SEATS, MAX_SEED, MIN_SEATS, PROTOCOL_VERSION
from protocol.records import SeatRecord
from protocol.server_messages import ReplayMessage

FORMAT = "selfish-replay"
FORMAT_VERSION = 1
#: A file larger than this is refused unread (a long game is some tens of kilobytes).
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DECISIONS = 100_000


class ReplayFileError(ValueError):
    """A file that is not a Selfish replay file (the message says what is wrong)."""


@dataclass(frozen=True)
class ReplayFile:
    """A finished game as a file holds it. ``server``, ``game`` and ``room`` say where it was
    played (None when unknown); the rest rebuilds and checks it."""

    edition: str
    variants: list[str]
    seed: int
    seats: list[SeatRecord]
    decisions: list[tuple[int, dict[str, Any]]]
    winner: int | None
    turns: int
    digest: str
    rules: int
    protocol: int = PROTOCOL_VERSION
    started: float | None = None
    ended: float | None = None
    public: bool = True
    rated: bool = False
    server: str | None = None
    game: int | None = None
    room: str | None = None

    @property
    def names(self) -> list[str]:
        """The seats' names in seat order."""
        return [seat.name for seat in self.seats]


def from_replay(replay: ReplayMessage, server: str | None = None) -> ReplayFile:
    """The file of a ``replay`` reply fetched from ``server`` (``HOST:PORT``)."""
    return ReplayFile(
        edition=replay.edition,
        variants=list(replay.variants),
        seed=replay.seed,
        seats=list(replay.seats),
        decisions=[(seat, choice.to_wire()) for seat, choice in replay.decisions],
        winner=replay.winner,
        turns=replay.turns,
        digest=replay.digest,
        rules=replay.rules,
        started=replay.started,
        ended=replay.ended,
        public=replay.public,
        rated=replay.rated,
        server=server,
        game=replay.game,
        room=replay.room,
    )


def write(record: ReplayFile) -> str:
    """The file's text: JSON, one decision a line, keys in a fixed order."""
    head = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "protocol": record.protocol,
        "rules": record.rules,
        "server": record.server,
        "game": record.game,
        "room": record.room,
        "edition": record.edition,
        "variants": record.variants,
        "seed": record.seed,
        "seats": [seat.to_wire() for seat in record.seats],
        "public": record.public,
        "rated": record.rated,
        "started": record.started,
        "ended": record.ended,
        "result": {"winner": record.winner, "turns": record.turns},
        "digest": record.digest,
    }
    lines = [
        f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},"
        for key, value in head.items()
    ]
    decisions = ",\n".join(
        f"    {json.dumps([seat, choice], ensure_ascii=False)}" for seat, choice in record.decisions
    )
    body = "\n".join(lines)
    return f'{{\n{body}\n  "decisions": [\n{decisions}\n  ]\n}}\n'


def read(text: str | bytes) -> ReplayFile:
    """A file's record, every field checked; raises :class:`ReplayFileError`."""
    if len(text) > MAX_FILE_BYTES:
        raise ReplayFileError(f"the file is larger than {MAX_FILE_BYTES // 1024 // 1024} MiB")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReplayFileError(f"not JSON: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ReplayFileError(f'not a Selfish replay file (no "format": "{FORMAT}")')
    if document.get("format_version") != FORMAT_VERSION:
        raise ReplayFileError(
            f"replay file version {document.get('format_version')!r}; "
            f"this program reads version {FORMAT_VERSION}"
        )
    try:
        return _record(document)
    except MalformedMessage as exc:
        raise ReplayFileError(exc.message) from exc


def _record(d: Mapping[str, Any]) -> ReplayFile:
    edition = _field(d, "edition", str)
    if edition not in EDITIONS:
        raise ReplayFileError(f"unknown edition {edition!r}")
    seats = d.get("seats")
    if not isinstance(seats, list) or not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise ReplayFileError(f"'seats' must list {MIN_SEATS} to {MAX_SEATS} seats")
    if not all(isinstance(seat, dict) for seat in seats):
        raise ReplayFileError("each seat must be a map")
    seed = _field(d, "seed", int)
    if not 0 <= seed <= MAX_SEED:
        raise ReplayFileError(f"'seed' must be 0 to {MAX_SEED}")
    variants = _field(d, "variants", list)
    if not all(isinstance(rule, str) for rule in variants):
        raise ReplayFileError("'variants' must be a list of rule ids")
    result = _field(d, "result", dict)
    winner = _field(result, "winner", int, type(None))
    if winner is not None and not 0 <= winner < len(seats):
        raise ReplayFileError(f"the winner {winner} is not a seat")
    return ReplayFile(
        edition=edition,
        variants=variants,
        seed=seed,
        seats=[SeatRecord.from_wire(seat, f"seats[{index}]") for index, seat in enumerate(seats)],
        decisions=_decisions(d, len(seats)),
        winner=winner,
        turns=_field(result, "turns", int),
        digest=_field(d, "digest", str),
        rules=_field(d, "rules", int),
        protocol=_field(d, "protocol", int),
        started=_number(d, "started"),
        ended=_number(d, "ended"),
        public=_field(d, "public", bool),
        rated=_field(d, "rated", bool),
        server=_field(d, "server", str, type(None)),
        game=_field(d, "game", int, type(None)),
        room=_field(d, "room", str, type(None)),
    )


def _decisions(d: Mapping[str, Any], seats: int) -> list[tuple[int, dict[str, Any]]]:
    pairs = _field(d, "decisions", list)
    if len(pairs) > MAX_DECISIONS:
        raise ReplayFileError(f"more than {MAX_DECISIONS} decisions")
    out = []
    for n, pair in enumerate(pairs, start=1):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or type(pair[0]) is not int
            or not 0 <= pair[0] < seats
            or not isinstance(pair[1], dict)
        ):
            raise ReplayFileError(f"decision {n} is not a [seat, choice] pair")
        out.append((pair[0], pair[1]))
    return out


def _field(d: Mapping[str, Any], key: str, *kinds: type) -> Any:
    value = d.get(key)
    if type(value) not in kinds:
        names = " or ".join("null" if kind is type(None) else kind.__name__ for kind in kinds)
        raise ReplayFileError(f"{key!r} is missing or not {names}")
    return value


def _number(d: Mapping[str, Any], key: str) -> float | None:
    value = _field(d, key, int, float, type(None))
    return None if value is None else float(value)
