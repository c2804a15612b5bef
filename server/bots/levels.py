"""Bots: they choose among a seat's legal choices using only that seat's view.

``random`` picks uniformly. ``basic`` plays sensibly: it moves when it can afford to and keeps a
reserve, blocks every attack, aims its attacks at the leader, steers sharks away from itself and
gives up its least useful cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from server.bots.expert import DEFAULT_BUDGET, Budget, choose_expert

BOT_LEVELS = ("random", "basic", "expert")

View = dict[str, Any]
Choice = dict[str, Any]

STEPS = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}
FORWARD = {"rocket_booster", "freestyle_sprint", "tether", "ride_the_wave"}
BLOCKERS = {"shield", "dive"}
KNOCK_BACK = {"laser_blast", "rogue_wave"}
STEALS = {"tractor_beam", "hack_suit", "pirate", "oxygen_siphon", "message_in_a_bottle"}
# How much playing each card is worth to the basic bot (0: keep it).
GAINS = {
    "oxygen_siphon": 6.0,
    "message_in_a_bottle": 6.0,
    "hack_suit": 5.0,
    "pirate": 5.0,
    "tractor_beam": 4.0,
    "rocket_booster": 4.5,
    "freestyle_sprint": 4.5,
    "tether": 4.6,
    "ride_the_wave": 4.6,
    "lost": 2.0,
    "hole_in_suit": 1.0,
}


def choose(level: str, view: View, rng: random.Random, budget: Budget | None = None) -> Choice:
    """The bot's choice: one of ``view["legal"]`` (never empty when asked). ``budget`` bounds
    the ``expert``'s search (its default budget when None)."""
    legal: list[Choice] = view["legal"]
    if level == "random" or len(legal) == 1:
        return rng.choice(legal)
    if level == "expert":
        return choose_expert(view, rng, budget or DEFAULT_BUDGET, _basic)
    if level != "basic":
        raise ValueError(f"unknown bot level {level!r}")
    return _basic(view, rng)


def _basic(view: View, rng: random.Random) -> Choice:
    legal: list[Choice] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    decision = view["decision"]
    kind = decision["kind"] if decision else ""
    pick = _BASIC.get(kind)
    return pick(view, legal, rng) if pick else _safe(legal, rng)


def _safe(legal: list[Choice], rng: random.Random) -> Choice:
    safe = [c for c in legal if not c.get("fatal")]
    return rng.choice(safe or legal)


def _cards(view: View) -> dict[int, dict[str, Any]]:
    known = {c["id"]: c for c in view["hand"] or []}
    decision = view["decision"] or {}
    known.update({c["id"]: c for c in decision.get("reveal", [])})
    return known


def _me(view: View) -> dict[str, Any]:
    players: list[dict[str, Any]] = view["players"]
    return players[view["seat"]]


def _leader_rank(view: View, seat: int) -> tuple[int, int]:
    player = view["players"][seat]
    return (player["row"], player["hand_count"])


def _card_worth(card: dict[str, Any]) -> int:
    """How much the bot wants to keep a card."""
    if card["kind"] == "resource":
        return 10 * int(card["value"])
    if card["key"] in BLOCKERS:
        return 9
    if card["key"] in FORWARD:
        return 8
    return 5


def _actions(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    """Play what gains oxygen/food or ground; knock back only players level or ahead;
    keep the rest of the action cards: two of them pay for staying in Space (S3)."""
    cards = _cards(view)
    me = _me(view)
    best: tuple[float, Choice] = (0.0, legal[-1])
    for choice in legal:
        if choice["do"] != "play":
            continue
        key = cards[choice["card"]]["key"]
        target = choice.get("target")
        score = GAINS.get(key, 0.0)
        if target is not None:
            row, count = _leader_rank(view, target)
            if key in KNOCK_BACK:
                score = 3.0 if row >= me["row"] else 0.0
            if key in STEALS:  # the fuller hand is likelier to hold what is worth taking
                score += count / 10 + row / 100
            else:
                score += row / 10 + count / 100
        if score > best[0]:
            best = (score, choice)
    return best[1]


def _stay_or_move(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    units = view["resources"] or 0
    me = _me(view)
    moves = [c for c in legal if c["do"] == "move"]
    final_step = me["row"] == view["goal_row"] - 1
    # Keep a reserve: 1 oxygen in Space; in Shipwrecked 3 food against sharks and sea
    # monsters (outliving the others wins most games, W4 a), but none for the last step to
    # the raft.
    space = view["edition"] == "space"
    if moves and (units >= (3 if space else 5) or (final_step and not space)):
        return moves[0]
    cards = _cards(view)
    discards = [c for c in legal if c["do"] == "stay" and "discard" in c]
    if discards and units <= 3:
        return min(discards, key=lambda c: sum(_card_worth(cards[i]) for i in c["discard"]))
    stays = [c for c in legal if c["do"] == "stay" and not c.get("fatal")]
    if stays:
        return stays[0]
    return moves[0] if moves else legal[0]


def _react(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    blocks = [c for c in legal if c["do"] == "block"]
    return blocks[0] if blocks else legal[0]


def _least_worth(view: View, legal: list[Choice], key: str) -> Choice:
    cards = _cards(view)

    def cost(choice: Choice) -> int:
        ids = choice[key] if isinstance(choice[key], list) else [choice[key]]
        return sum(_card_worth(cards[i]) for i in ids)

    return min(legal, key=cost)


def _take(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    cards = _cards(view)
    return max(legal, key=lambda c: _card_worth(cards[c["card"]]))


def _discard(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    return _least_worth(view, legal, "cards")


def _pay(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    return _least_worth(view, legal, "cards")


def _swap(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    me = _me(view)
    players = view["players"]
    on_goal = me["row"] >= view["goal_row"]

    def score(choice: Choice) -> tuple[int, int]:
        other = players[choice["target"]]
        if on_goal:  # S7: never hand the goal to a living rival
            return (0 if other["alive"] else 1, -other["row"])
        return (other["row"] - me["row"], 0 if other["alive"] else 1)

    return max(legal, key=score)


def _advance(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    mine = [c for c in legal if c["target"] == view["seat"]]
    return mine[0] if mine else legal[0]


def _shark_bait(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    players = view["players"]
    me = _me(view)
    leader = max(
        (p for p in players if p["alive"] and p["seat"] != me["seat"]),
        key=lambda p: (p["row"], p["hand_count"]),
    )

    def score(choice: Choice) -> int:
        col, row = choice["cell"]
        near_leader = abs(col - leader["col"]) + abs(row - leader["row"]) == 1
        near_me = abs(col - me["col"]) + abs(row - me["row"]) <= 1
        return (2 if near_leader else 0) - (3 if near_me else 0)

    return max(legal, key=score)


def _pick(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    cards = _cards(view)
    me = _me(view)
    others = {
        (p["col"], p["row"]) for p in view["players"] if p["alive"] and p["seat"] != me["seat"]
    }
    mine = (me["col"], me["row"])
    water_rows = view["goal_row"]

    def score(choice: Choice) -> int:
        card = cards[choice["card"]]
        dc, dr = STEPS[card["dir"]]
        value = -_card_worth(card)
        for col, row in view["sharks"]:
            cell = (col + dc, row + dr)
            if not (0 <= cell[0] < view["seats"] and 0 <= cell[1] < water_rows):
                continue
            if cell == mine:
                value -= 40
            elif cell in others:
                value += 15
        return value

    return max(legal, key=score)


def _hurricane(view: View, legal: list[Choice], rng: random.Random) -> Choice:
    return _least_worth(view, legal, "cards")


_BASIC: dict[str, Callable[[View, list[Choice], random.Random], Choice]] = {
    "actions": _actions,
    "stay_or_move": _stay_or_move,
    "react": _react,
    "take": _take,
    "meteoroid": _discard,
    "pay": _pay,
    "swap": _swap,
    "freeloader": _advance,
    "shark_bait": _shark_bait,
    "pick": _pick,
    "hurricane": _hurricane,
}
