"""Typed errors of the rules engine. All subclass ValueError, like python-chess's."""


class EngineError(ValueError):
    """Base class: a request the engine refuses. The game is left unchanged."""

    code = "engine_error"


class NotYourDecision(EngineError):
    """The seat has no pending decision (or has already made its simultaneous pick)."""

    code = "not_your_turn"


class IllegalChoice(EngineError):
    """The choice is not one of the seat's legal choices."""

    code = "illegal_choice"


class GameOver(EngineError):
    """The game has ended; no more decisions are taken."""

    code = "game_over"
