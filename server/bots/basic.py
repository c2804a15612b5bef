"""The ``basic`` bot: rules of thumb that play every decision kind of both editions.

It decides from what one seat may see (:class:`Seen`): the public board, hand sizes and its own
hand. A :class:`Seen` is built from a seat's view (:func:`seen_from_view`, what the server's bots
get) or, inside a search's simulated game, straight from the game (:func:`seen_from_game`, which
reads the same facts without building a view): so the ``expert``'s rollouts play exactly this
bot, at a fraction of a view's cost.

The thinking, in short: never take a choice that certainly kills (C18) while another exists;
move as its :class:`Style` says (Space: while one oxygen is left after the next breath;
Shipwrecked: only when rich, outliving the others); steal at once; spend free moves at once in
Space, for the last step in Shipwrecked; keep the cards that only harm (in Shipwrecked until a
rival is near the raft); block every attack; keep oxygen/food and free moves, give up the rest
first; steer sharks away.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from server.bots.seen import (
    FORWARD,
    HARM,
    HARM_FROM,
    LOOK_AND_TAKE,
    STEAL_TWO,
    STEPS,
    TETHERS,
    Seen,
    worth,
)

Choice = dict[str, Any]


def choose_basic(seen: Seen, rng: random.Random) -> Choice:
    """The basic bot's choice: one of ``seen.legal`` (never empty), never a fatal one while
    another exists. (Fatal marks are looked at only for the choice the rules of thumb make:
    the rollouts of a search ask this bot for every decision.)"""
    legal = list(seen.legal)
    if len(legal) == 1:
        return legal[0]
    pick = _BY_KIND.get(seen.kind, _any)
    choice = pick(seen, legal, rng)
    if seen.fatal(choice):
        safe = [c for c in legal if not seen.fatal(c)]
        if safe:
            choice = safe[0] if len(safe) == 1 else pick(seen, safe, rng)
    return choice


def _any(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    return rng.choice(legal)


def _cards_worth(seen: Seen, ids: Sequence[int]) -> int:
    return sum(worth(seen.card(card_id)) for card_id in ids)


def _lead(seen: Seen, other: int) -> float:
    """How far ahead an opponent is (row first, then hand size): whom to hold back."""
    return seen.rows[other] + seen.hand_counts[other] / 100


def _actions(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """Steal, move for free when it pays, and hold back whoever is about to win; keep every
    other card: a held card is worth more than its play (below)."""
    me = seen.seat
    row = seen.rows[me]
    best: tuple[float, Choice] = (0.0, legal[-1])
    for choice in legal:
        if choice["do"] != "play":
            continue
        key = seen.card(choice["card"]).key
        target = choice.get("target")
        score = 0.0
        if key in FORWARD or key in TETHERS:
            score = _free_move(seen, key, row)
        elif target is None:
            continue
        elif key in STEAL_TWO:
            score = 8.0 + seen.hand_counts[target] / 10
        elif key in LOOK_AND_TAKE:
            score = 7.0 + seen.hand_counts[target] / 10
        elif key == "tractor_beam":
            score = 6.0 + seen.hand_counts[target] / 10
        elif key in HARM and _may_harm(seen, target):
            # Anywhere else the card does more in hand: a random steal or discard may take it
            # instead of a resource, and in Shipwrecked it is a shark pick to give up.
            score = 4.0 + seen.rows[target] / 10
        if score > best[0]:
            best = (score, choice)
    return best[1]


def in_harbour(seen: Seen) -> bool:
    """Space: whether the astronaut waits on the start row, staying and keeping its free moves.
    There no Laser Blast or Tether can reach it (C10, C12), while off it the astronaut shares
    the knock-backs with every other astronaut off it: the first to leave draws them all. So it
    waits while a card that only harms lies in the discard pile (the table plays them; they
    reach the pile in payments too, where they are the first given up), while at most its
    style's ``space_harbour_away`` living rivals are off the start row, for at most its style's
    ``space_harbour_rounds`` rounds. Never alone: a lone survivor must still reach the ship.
    Waiting longer wins more games against reckless seats, but the table must go on
    (docs/bots.md has the figures)."""
    style = seen.style
    if not (seen.space and style.space_harbour_rounds and seen.rows[seen.seat] == 0):
        return False
    rivals = seen.rivals()
    away = sum(1 for rival in rivals if seen.rows[rival] > 0)
    if not rivals or away > style.space_harbour_away:
        return False
    if seen.turn > style.space_harbour_rounds * len(seen.rows):
        return False
    return any(card.key in HARM for card in seen.discard)


def _may_harm(seen: Seen, target: int) -> bool:
    """Whether a rival is to be harmed: near enough the goal (:data:`HARM_FROM`; in Space the
    style's ``space_harm_from``), or, in Space, the seat its style bears a grudge against."""
    if seen.space and target == seen.style.grudge:
        return True
    rows = seen.style.space_harm_from if seen.space else HARM_FROM[seen.edition]
    return rows is not None and seen.rows[target] >= seen.goal_row - rows


def _free_move(seen: Seen, key: str, row: int) -> float:
    """How much a free move (Rocket Booster / Freestyle Sprint, Tether / Ride the Wave) is worth
    playing now. In Space at once: it saves the two oxygen a move costs, and oxygen runs out.
    In Shipwrecked, where outliving the others wins most games (W4 a), only for the last step
    onto the raft, or when rich enough to move anyway; otherwise it is kept in hand."""
    on_goal = row >= seen.goal_row
    if seen.space:
        if in_harbour(seen):
            return 0.0
        if key in TETHERS:
            return 9.5 if not on_goal else 2.0  # on the ship only the knock is left
        return 0.0 if on_goal else 9.0
    if on_goal:
        return 0.0
    if row >= seen.goal_row - 1 or seen.units >= seen.style.ship_move_at:
        return 9.5 if key in TETHERS else 9.0
    return 0.0


def _stay_or_move(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    units = seen.units
    moves = [c for c in legal if c["do"] == "move"]
    stays = [c for c in legal if c["do"] == "stay"]
    last_step = seen.rows[seen.seat] == seen.goal_row - 1
    style = seen.style
    plain = [c for c in stays if "discard" not in c]
    if seen.space:
        if plain and in_harbour(seen):
            return plain[0]
        enough = units >= (style.space_last_step_at if last_step else style.space_move_at)
    else:
        ahead = max((seen.rows[o] for o in seen.rivals()), default=0) - seen.rows[seen.seat]
        catch_up = ahead >= style.ship_catch_up_gap and units >= style.ship_catch_up_at
        enough = units >= style.ship_move_at or last_step or catch_up
    if moves and (enough or not stays):
        return moves[0]
    discards = [c for c in stays if "discard" in c]
    if discards and (seen.space or units <= 3):
        return min(discards, key=lambda c: _cards_worth(seen, c["discard"]))
    return plain[0] if plain else legal[0]


def _react(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    blocks = [c for c in legal if c["do"] == "block"]
    return blocks[0] if blocks else legal[0]


def _target(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """Tether / Ride the Wave: knock back the leader."""
    return max(legal, key=lambda c: _lead(seen, c["target"]))


def _least_worth(seen: Seen, legal: list[Choice], key: str = "cards") -> Choice:
    def cost(choice: Choice) -> int:
        ids = choice[key]
        return _cards_worth(seen, ids if isinstance(ids, list) else [ids])

    return min(legal, key=cost)


def _give_up(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """Payments, Meteoroid and Hurricane discards: the cards least worth keeping."""
    return _least_worth(seen, legal)


def _take(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    return max(legal, key=lambda c: worth(seen.card(c["card"])))


def _swap(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """Wormhole / Whirlpool: swap forward, onto a rival if possible; on the goal never hand it
    to a living rival (S7); never onto a shark without food to pay its bite."""
    me = seen.seat
    on_goal = seen.rows[me] >= seen.goal_row

    def score(choice: Choice) -> tuple[int, int]:
        other: int = choice["target"]
        alive = 1 if seen.alive[other] else 0
        if on_goal:
            return (1 - alive, -seen.rows[other])
        gain = seen.rows[other] - seen.rows[me]
        if (seen.cols[other], seen.rows[other]) in seen.sharks:
            gain -= 2
        return (gain, alive)

    return max(legal, key=score)


def _advance(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    mine = [c for c in legal if c["target"] == seen.seat]
    return mine[0] if mine else legal[0]


def _shark_bait(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """Put a shark next to the leader, away from oneself."""
    me = seen.seat
    rivals = seen.rivals()
    leader = max(rivals, key=lambda o: _lead(seen, o)) if rivals else me

    def score(choice: Choice) -> int:
        col, row = choice["cell"]
        near_leader = abs(col - seen.cols[leader]) + abs(row - seen.rows[leader]) == 1
        near_me = abs(col - seen.cols[me]) + abs(row - seen.rows[me]) <= 1
        return (2 if near_leader else 0) - (3 if near_me else 0)

    return max(legal, key=score)


def _pick(seen: Seen, legal: list[Choice], rng: random.Random) -> Choice:
    """A shark pick: a direction that keeps the sharks off oneself and sends them at others,
    given up from the cards least worth keeping."""
    me = seen.seat
    mine = (seen.cols[me], seen.rows[me])
    others = {(seen.cols[o], seen.rows[o]) for o in seen.rivals()}
    seats = len(seen.rows)

    def score(choice: Choice) -> int:
        card = seen.card(choice["card"])
        value = -worth(card)
        if card.dir is None:
            return value
        dc, dr = STEPS[card.dir]
        for col, row in seen.sharks:
            cell = (col + dc, row + dr)
            if not (0 <= cell[0] < seats and 0 <= cell[1] < seen.goal_row):
                continue
            if cell == mine:
                value -= 40
            elif cell in others:
                value += 15
        return value

    return max(legal, key=score)


_BY_KIND: dict[str, Callable[[Seen, list[Choice], random.Random], Choice]] = {
    "actions": _actions,
    "stay_or_move": _stay_or_move,
    "react": _react,
    "target": _target,
    "take": _take,
    "meteoroid": _give_up,
    "pay": _give_up,
    "give": _give_up,
    "hurricane": _give_up,
    "swap": _swap,
    "freeloader": _advance,
    "shark_bait": _shark_bait,
    "pick": _pick,
}

#: The decision kinds the bot has a rule of thumb for (every kind of both editions).
HANDLED_KINDS = frozenset(_BY_KIND)
