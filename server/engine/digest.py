"""The check of a finished game's final state: a digest that a record and an export file carry,
so that a record whose seed or decisions were changed is refused when it is played again.

Pure: the digest is a function of the replayed game's complete state (its snapshot), never of
the names its seats had (a file may be anonymised and still check).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from .errors import EngineError
from .game import Game

#: The version of the rules the engine plays. Raised whenever a change of the rules makes a
#: stored decision list play differently, so an old record says why it no longer checks.
RULES_VERSION = 1


class RecordMismatch(EngineError):
    """A record that does not replay to the game it describes (changed seed or decisions,
    or recorded under other rules)."""


def digest(game: Game) -> str:
    """The final-state check of ``game``: SHA-256 (hex) of its snapshot without the names."""
    state = {key: value for key, value in game.snapshot().items() if key != "names"}
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def verify(
    edition: str,
    names: Sequence[str],
    seed: int,
    decisions: Sequence[tuple[int, dict[str, Any]] | Sequence[Any]],
    variants: Iterable[str],
    expected: str,
    rules: int = RULES_VERSION,
) -> Game:
    """Replay a record and check it; the finished game. Raises :class:`RecordMismatch`
    saying what is wrong: a decision the rules refuse, a game that does not end with the
    last decision, or a final state whose digest is not ``expected``."""
    if rules != RULES_VERSION:
        raise RecordMismatch(
            f"recorded under rules version {rules}; this engine plays version {RULES_VERSION}"
        )
    game = Game(edition, names, seed, variants=variants)
    for n, (seat, choice) in enumerate(decisions):
        if game.over:
            raise RecordMismatch(f"decision {n + 1} comes after the end of the game")
        try:
            game.apply(seat, choice)
        except (EngineError, TypeError) as exc:
            raise RecordMismatch(
                f"decision {n + 1} of {len(decisions)} is not legal here "
                f"(the seed or the decisions were changed): {exc}"
            ) from exc
    if not game.over:
        raise RecordMismatch(f"the game is not over after its {len(decisions)} decisions")
    if digest(game) != expected:
        raise RecordMismatch(
            "the final state does not match the record's check: its seed or decisions were changed"
        )
    return game
