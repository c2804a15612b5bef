"""The pure rules engine of Selfish (Space and Shipwrecked editions).

No I/O, no clock, no global random: a game is a function of (edition, names, seed, decisions).
See docs/engine-api.md for the contract.
"""

from .cards import CATALOGUE, Edition
from .digest import RULES_VERSION, RecordMismatch, digest, verify
from .errors import EngineError, GameOver, IllegalChoice, NotYourDecision
from .events import Event
from .game import Game, replay
from .invariants import check_invariants
from .variants import VARIANTS, check_variants

__all__ = [
    "CATALOGUE",
    "RULES_VERSION",
    "VARIANTS",
    "Edition",
    "EngineError",
    "Event",
    "Game",
    "GameOver",
    "IllegalChoice",
    "NotYourDecision",
    "RecordMismatch",
    "check_invariants",
    "check_variants",
    "digest",
    "replay",
    "verify",
]
