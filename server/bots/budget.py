"""How much search one expert decision may take (:class:`Budget`), and the default's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How much search one decision may take: ``rollouts`` playouts for every decision it
    searches, up to ``close`` in all for a close one (where the best challenger's lead over the
    incumbent is within a standard error of the bar it must clear), and, when ``seconds`` is
    set, no longer than that (wall clock). A budget of rollouts alone (no ``seconds``) makes the
    search deterministic given its random source."""

    rollouts: int
    seconds: float | None = None
    close: int = 0

    def __post_init__(self) -> None:
        if self.rollouts < 1:
            raise ValueError("a budget needs at least one rollout")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("a time budget must be positive")
        if self.close and self.close < self.rollouts:
            raise ValueError("a close decision's rollouts cannot be fewer than any decision's")

    @property
    def most(self) -> int:
        """The most rollouts any one decision may take."""
        return max(self.rollouts, self.close)


#: 128 rollouts for every searched decision and up to 384 for a close one; the clock stops the
#: search at 0.4 s on a busy machine, within the half second a decision may take.
DEFAULT_BUDGET = Budget(rollouts=128, seconds=0.4, close=384)
