"""The public face of the engine: a game as a decision machine."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .actions import SIMULTANEOUS, Answer, Choice, Decision, Picks, exact, strip
from .cards import Edition
from .errors import GameOver, IllegalChoice, NotYourDecision
from .events import Event
from .rules import Rules
from .state import State
from .variants import check_variants
from .views import build_view, public_view, seat_view, snapshot


class Game:
    """A game of Selfish: (edition, names, seed) plus the decisions applied so far.

    At every moment until the end some seat(s) must decide; ``legal(seat)`` lists that seat's
    choices and ``apply(seat, choice)`` takes one. Illegal requests raise a subclass of
    ``EngineError`` and change nothing.
    """

    def __init__(
        self,
        edition: Edition | str,
        names: Sequence[str],
        seed: int,
        arrange: Callable[[State], None] | None = None,
        variants: Iterable[str] = (),
    ) -> None:
        """Set up a game. ``arrange`` (tests only) may rearrange the dealt state before the
        first turn, e.g. to stack decks; such a game replays only with the same ``arrange``.
        ``variants`` are rule ids of RULES.md section V (ValueError for one that is unknown or
        does not apply to the edition)."""
        self.edition = Edition(edition)
        self.names = list(names)
        self.seed = seed
        self.variants = check_variants(self.edition, variants)
        self.rules = Rules(self.edition, self.names, seed, frozenset(self.variants))
        if arrange is not None:
            arrange(self.rules.state)
        self.decisions: list[tuple[int, Choice]] = []
        self._flow = self.rules.run()
        self.picked: dict[int, Choice] = {}  # the picks made so far of a simultaneous decision
        # The open decision (None once the game is over); read it, never set it. A plain
        # attribute, not a property: it is read several times per decision.
        self.decision: Decision | None = None
        self._resume(None)

    # ------------------------------------------------------------------ reading
    @property
    def over(self) -> bool:
        """True once the game has ended (with or without a winner)."""
        return self.rules.state.over

    @property
    def winner(self) -> int | None:
        """The winning seat, or None (game running, or nobody won)."""
        return self.rules.state.winner

    @property
    def turn(self) -> int:
        """Turns begun so far."""
        return self.rules.state.turn

    @property
    def active(self) -> int:
        """The seat whose turn it is."""
        return self.rules.state.active

    @property
    def log(self) -> list[Event]:
        """Every event so far, unredacted: redact with ``Event.to_wire``."""
        return self.rules.log

    def pending_seats(self) -> list[int]:
        """Seats that must decide now (a simultaneous pick already made is not pending)."""
        decision = self.decision
        if decision is None:
            return []
        picked = self.picked
        if not picked:
            return [*decision.options]
        return [seat for seat in decision.options if seat not in picked]

    def legal(self, seat: int) -> list[Choice]:
        """That seat's legal choices now; empty when it has nothing to decide."""
        decision = self.decision
        if decision is None or seat in self.picked:
            return []
        return decision.options.get(seat, [])

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (C4), with its legal choices; ``None`` is a spectator."""
        return build_view(self, seat)

    def public_view(self) -> dict[str, Any]:
        """The spectator view, which every seat's view extends (same as ``view(None)``)."""
        return public_view(self)

    def seat_view(self, seat: int, shared: bool = False) -> dict[str, Any]:
        """What ``view(seat)`` adds to :meth:`public_view` (the keys in ``views.SEAT_KEYS``);
        ``shared`` as in ``views.seat_view``."""
        return seat_view(self, seat, shared)

    def snapshot(self) -> dict[str, Any]:
        """The complete state, secrets included: for comparisons and debugging only."""
        return snapshot(self)

    # ------------------------------------------------------------------ deciding
    def apply(self, seat: int, choice: Choice) -> list[Event]:
        """Take ``seat``'s choice (one of ``legal(seat)``, types included, with or without the
        view's ``fatal`` mark); return the new events."""
        options = self._options(seat)
        wanted = strip(choice)
        option = _matching(options, wanted)
        if option is None:
            raise IllegalChoice(f"not a legal choice for seat {seat}: {wanted!r}")
        return self._take(seat, option)

    def choose(self, seat: int, index: int) -> list[Event]:
        """Take choice number ``index`` of ``legal(seat)`` (what a client's ``act`` sends);
        return the new events."""
        options = self._options(seat)
        if not 0 <= index < len(options):
            raise IllegalChoice(f"seat {seat} has {len(options)} choices, not a number {index}")
        return self._take(seat, options[index])

    def _options(self, seat: int) -> list[Choice]:
        """``legal(seat)``, or the reason it may not decide."""
        decision = self.decision
        if decision is None:
            raise GameOver("the game is over")
        options = decision.options.get(seat)
        if options is None or seat in self.picked:
            raise NotYourDecision(f"seat {seat} has nothing to decide now")
        return options

    def _take(self, seat: int, option: Choice) -> list[Event]:
        """Apply ``option``, one of the seat's legal choices."""
        decision = self.decision
        assert decision is not None
        log = self.rules.log
        start = len(log)
        self.decisions.append((seat, option))
        if decision.kind in SIMULTANEOUS:
            self.picked[seat] = option
            self.rules.say("pick", "pick", seat, player=seat)
            if len(self.picked) < len(decision.options):
                return log[start:]
            answer: Answer = Picks(self.picked)
            self.picked = {}
        else:
            answer = option
        try:  # _resume(answer), written out: this is every decision's path
            self.decision = self._flow.send(answer)
        except StopIteration:
            self.decision = None
        return log[start:]

    def _resume(self, answer: Answer) -> None:
        try:
            self.decision = self._flow.send(answer)
        except StopIteration:
            self.decision = None


def _matching(options: list[Choice], wanted: Choice) -> Choice | None:
    """The option ``wanted`` is, types included (``{"card": 48.0}`` is not ``{"card": 48}``):
    Python's ``==`` (in C) finds the one candidate, as no two options are equal, and
    :func:`actions.exact` checks its types (unless it is the option itself, as a bot's is)."""
    try:
        option = options[options.index(wanted)]
    except ValueError:
        return None
    return option if option is wanted or exact(option, wanted) else None


def replay(
    edition: Edition | str,
    names: Sequence[str],
    seed: int,
    decisions: Sequence[tuple[int, Choice] | Sequence[Any]],
    variants: Iterable[str] = (),
) -> Game:
    """Rebuild a game from its setup, variants and decision list (C16)."""
    game = Game(edition, names, seed, variants=variants)
    for seat, choice in decisions:
        if not isinstance(seat, int) or not isinstance(choice, dict):
            raise TypeError(f"a decision is a (seat, choice) pair, not {(seat, choice)!r}")
        game.apply(seat, choice)
    return game
