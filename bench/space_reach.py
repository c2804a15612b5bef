"""How likely a lone Space astronaut is to reach the ship: an exact model, solved.

Prints figures only (no assertions). A model of one astronaut nobody attacks or steals from
(and who steals from nobody), solved exactly by value iteration:

- each turn it draws a game card (oxygen, double oxygen, a free move — Rocket Booster or
  Tether —, or anything else, in the deck's proportions), plays its free moves at once, then
  stays (1 oxygen; the last one kills, S3) or travels (2 oxygen, one row, a space card: Cosmic
  Radiation and Asteroid Field cost oxygen, Useful Junk and Mysterious Nebula draw, Gravitational
  Anomaly moves back, Hyperspace moves on; the rest do nothing alone);
- it wins on reaching the ship with oxygen left (S4) and dies with none (S3).

It prints the chance to win from each oxygen count and row with the best stay-or-move policy,
where that policy moves, how the basic bot's thresholds (``server.bots.seen.PATIENT``) compare,
and a logistic fit of the chance, ``logit = a + b x oxygen + c x rows to go + d x free moves``,
which the expert uses to score a Space rollout's position (``server.bots.rollout.SPACE_REACH``).

    python bench/space_reach.py
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from functools import cache

from server.bots.seen import PATIENT
from server.engine.cards import Edition, game_deck, location_deck

MOST_OXYGEN = 16  # held oxygen is capped here (the chance is 1 well before)
MOST_FREE = 3
ROWS = 6

State = tuple[int, int, int]  # oxygen held, rows to go, free moves held
Outcome = tuple[float, State]
Policy = Callable[[int, int, float, float], float]  # (oxygen, rows to go, stay, move) -> value


def _draws() -> dict[str, float]:
    """What a game card drawn is, in the deck's proportions."""
    counts: Counter[str] = Counter()
    for card in game_deck(Edition.SPACE):
        if card.key in ("oxygen", "oxygen2"):
            counts[card.key] += 1
        elif card.key in ("rocket_booster", "tether"):
            counts["free"] += 1
        else:
            counts["other"] += 1
    total = sum(counts.values())
    return {kind: count / total for kind, count in counts.items()}


def _space_cards() -> dict[str, float]:
    counts = Counter(location.key for location in location_deck(Edition.SPACE))
    total = sum(counts.values())
    return {key: count / total for key, count in counts.items()}


DRAWS = _draws()
SPACE_CARDS = _space_cards()


def _take(oxygen: int, free: int, kind: str) -> tuple[int, int]:
    if kind == "oxygen":
        return min(oxygen + 1, MOST_OXYGEN), free
    if kind == "oxygen2":
        return min(oxygen + 2, MOST_OXYGEN), free
    if kind == "free":
        return oxygen, min(free + 1, MOST_FREE)
    return oxygen, free


@cache
def forward(oxygen: int, to_go: int, free: int) -> tuple[Outcome, ...]:
    """One row forward (already paid for) and the space card drawn: the states it may lead
    to, with their chances (oxygen may be 0 or less: settled by :func:`settle`)."""
    row = to_go - 1
    out: list[Outcome] = []
    for key, chance in SPACE_CARDS.items():
        if key == "cosmic_radiation":
            out.append((chance, (oxygen - 1, row, free)))
        elif key == "asteroid_field":
            out.append((chance, (oxygen - 2, row, free)))
        elif key in ("useful_junk", "mysterious_nebula"):
            hands = [(1.0, oxygen, free)]
            for _ in range(1 if key == "useful_junk" else 2):
                hands = [
                    (p * q, *_take(units, held, kind))
                    for p, units, held in hands
                    for kind, q in DRAWS.items()
                ]
            out.extend((chance * p, (units, row, held)) for p, units, held in hands)
        elif key == "gravitational_anomaly":
            out.append((chance, (oxygen, min(row + 1, ROWS), free)))
        elif key == "hyperspace" and row > 0:
            out.extend((chance * p, state) for p, state in forward(oxygen, row, free))
        else:
            out.append((chance, (oxygen, row, free)))
    return tuple(out)


def settle(state: State) -> str | State:
    """'dead', 'won', or the state itself once a move's space card is resolved."""
    oxygen, to_go, _ = state
    if oxygen <= 0:
        return "dead"
    if to_go <= 0:
        return "won"
    return state


class Model:
    """The chance to win from the start of a turn, for one stay-or-move policy."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy  # None: the best choice
        self.value = {
            (oxygen, to_go, free): 0.0
            for oxygen in range(MOST_OXYGEN + 1)
            for to_go in range(ROWS + 1)
            for free in range(MOST_FREE + 1)
        }
        self._after: dict[State, float] = {}

    def worth(self, outcome: str | State) -> float:
        """The chance to win from a settled outcome of a free move (the turn goes on)."""
        if isinstance(outcome, str):
            return 1.0 if outcome == "won" else 0.0
        return self.after_draw(outcome)

    def choices(self, oxygen: int, to_go: int, free: int) -> tuple[float, float | None]:
        """The chance to win after staying, and after moving (None: cannot pay for it)."""
        stay = 0.0 if oxygen <= 1 else self.value[oxygen - 1, to_go, free]
        if oxygen < 2:
            return stay, None
        move = 0.0
        for chance, state in forward(oxygen - 2, to_go, free):
            end = settle(state)
            if isinstance(end, tuple):
                move += chance * self.value[end]
            elif end == "won":
                move += chance
        return stay, move

    def after_draw(self, state: State) -> float:
        """The chance to win once the turn's card is drawn: free moves first, then stay or
        move."""
        if state in self._after:
            return self._after[state]
        oxygen, to_go, free = state
        if free and to_go:
            value = sum(
                chance * self.worth(settle(next_state))
                for chance, next_state in forward(oxygen, to_go, free - 1)
            )
        else:
            stay, move = self.choices(oxygen, to_go, free)
            if move is None:
                value = stay
            elif self.policy is None:
                value = max(stay, move)
            else:
                value = self.policy(oxygen, to_go, stay, move)
        self._after[state] = value
        return value

    def turn(self, state: State) -> float:
        """The chance to win from the start of a turn: the draw, then the rest of the turn."""
        oxygen, to_go, free = state
        if to_go == 0:
            return 1.0
        total = 0.0
        for kind, chance in DRAWS.items():
            units, held = _take(oxygen, free, kind)
            total += chance * self.after_draw((units, to_go, held))
        return total

    def solve(self) -> Model:
        """Value iteration until no chance moves by more than 1e-9."""
        for _ in range(1000):
            self._after = {}
            new = {state: self.turn(state) for state in self.value}
            change = max(abs(new[state] - self.value[state]) for state in new)
            self.value = new
            if change < 1e-9:
                break
        return self


def basic_policy(oxygen: int, to_go: int, stay: float, move: float) -> float:
    """The basic bot's thresholds: move holding 4 oxygen (3 for the last step)."""
    needed = PATIENT.space_last_step_at if to_go == 1 else PATIENT.space_move_at
    return move if oxygen >= needed else stay


def fit(value: dict[State, float]) -> list[float]:
    """Least squares of logit(chance) on (1, oxygen, rows to go, free moves), over the states
    with a chance between 2% and 98%."""
    rows = [
        ([1.0, float(oxygen), float(to_go), float(free)], math.log(chance / (1 - chance)))
        for (oxygen, to_go, free), chance in value.items()
        if to_go >= 1 and 1 <= oxygen <= 12 and free <= 1 and 0.02 < chance < 0.98
    ]
    size = 4
    matrix = [
        [sum(x[i] * x[j] for x, _ in rows) for j in range(size)] + [sum(x[i] * y for x, y in rows)]
        for i in range(size)
    ]
    for i in range(size):  # Gauss-Jordan on the normal equations
        pivot = matrix[i][i]
        matrix[i] = [entry / pivot for entry in matrix[i]]
        for k in range(size):
            if k != i:
                factor = matrix[k][i]
                matrix[k] = [a - factor * b for a, b in zip(matrix[k], matrix[i], strict=True)]
    return [matrix[i][size] for i in range(size)]


def main() -> None:
    """Solve the model for the best policy and for basic's, and print both."""
    best = Model().solve()
    basic = Model(basic_policy).solve()
    print("Chance to win (best policy) at the start of a turn, no free move held:")
    print("rows to go | oxygen " + " ".join(f"{oxygen:>4}" for oxygen in range(1, 13)))
    for to_go in range(ROWS, 0, -1):
        cells = " ".join(f"{best.value[oxygen, to_go, 0]:4.2f}" for oxygen in range(1, 13))
        print(f"{to_go:>10} |        {cells}")
    print()
    print("Where the best policy moves (M) or stays (s) after its draw, no free move held:")
    for to_go in range(ROWS, 0, -1):
        marks = []
        for oxygen in range(1, 13):
            stay, move = best.choices(oxygen, to_go, 0)
            marks.append("   M" if move is not None and move > stay else "   s")
        print(f"{to_go:>10} |        {' '.join(marks)}")
    print()
    for oxygen in (6, 8, 10):
        print(
            f"from row 0 with {oxygen} oxygen: best {best.value[oxygen, ROWS, 0]:.3f}, "
            f"basic's thresholds {basic.value[oxygen, ROWS, 0]:.3f}"
        )
    a, b, c, d = fit(best.value)
    print(f"logit(chance) = {a:.2f} + {b:.2f} x oxygen + {c:.2f} x rows to go + {d:.2f} x free")


if __name__ == "__main__":
    main()
