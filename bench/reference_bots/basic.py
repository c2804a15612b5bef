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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.engine import Edition, Game
from server.engine.cards import GAME_DECKS, Card
from server.engine.search import state_of

Choice = dict[str, Any]

STEPS = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}
FORWARD = frozenset({"rocket_booster", "freestyle_sprint"})
TETHERS = frozenset({"tether", "ride_the_wave"})
KNOCK_BACK = frozenset({"laser_blast", "rogue_wave"})
STEAL_TWO = frozenset({"oxygen_siphon", "message_in_a_bottle"})
LOOK_AND_TAKE = frozenset({"hack_suit", "pirate"})
BLOCKERS = frozenset({"shield", "dive"})
#: Cards that only harm an opponent: knock back (Laser Blast, Rogue Wave), lose a resource or a
#: card (Hole in Suit, Lost).
HARM = KNOCK_BACK | {"hole_in_suit", "lost"}
#: They are played on a rival this many rows from the goal, or nearer: two rows from the raft,
#: where a castaway who stays put must stop racers. In Space never: knocking back or holing a
#: rival one row from the ship won no more games against random seats, and at a table of basic
#: bots it left nobody alive to win three times as often (bench/bots.py; docs/bots.md).
HARM_FROM: dict[Edition, int | None] = {Edition.SPACE: None, Edition.SHIPWRECKED: 2}

#: How much holding a card is worth (what is given up first in payments and discards, what is
#: taken first): resources by their units, then what saves resources (a free move is worth the
#: 2 units a move costs), the reaction, and the attacks last.
WORTH = {
    "oxygen": 10,
    "food": 10,
    "oxygen2": 20,
    "food2": 20,
    "rocket_booster": 15,
    "freestyle_sprint": 15,
    "tether": 16,
    "ride_the_wave": 16,
    "oxygen_siphon": 14,
    "message_in_a_bottle": 14,
    "hack_suit": 12,
    "pirate": 12,
    "shield": 9,
    "dive": 9,
    "tractor_beam": 7,
    "laser_blast": 5,
    "rogue_wave": 5,
    "hole_in_suit": 4,
    "lost": 4,
}


@dataclass(frozen=True, slots=True)
class Style:
    """When the bot moves: how much oxygen / food it must hold before it pays for a move."""

    #: Space: oxygen held before paying the 2 for a move; the last step onto the ship needs
    #: only one to be left after it.
    space_move_at: int
    space_last_step_at: int
    #: Shipwrecked: food held before paying for a move (and before spending a free move), except
    #: for the last step onto the raft.
    ship_move_at: int
    #: Shipwrecked: with a rival this many rows ahead, food held before moving to keep up.
    ship_catch_up_gap: int
    ship_catch_up_at: int
    #: Space: wait on the start row while the table thins itself out (:func:`in_harbour`).
    space_harbour: bool


#: The basic bot's style. In Space it moves while the move leaves oxygen for the next breath (a
#: move that leaves a single oxygen dies on the next stay unless the next draw is oxygen, S3).
#: In Shipwrecked it stays put until rich and outlives the others (W4 a): against random bots
#: that wins more games than racing (bench/bots.py).
#: It keeps up with a rival three rows ahead (moving with four food), lest a racer reach the raft
#: first.
PATIENT = Style(
    space_move_at=4,
    space_last_step_at=3,
    ship_move_at=12,
    ship_catch_up_gap=3,
    ship_catch_up_at=4,
    space_harbour=True,
)
#: Moving whenever a move does not kill: what beats a table of patient castaways.
RACING = Style(
    space_move_at=3,
    space_last_step_at=3,
    ship_move_at=2,
    ship_catch_up_gap=1,
    ship_catch_up_at=2,
    space_harbour=False,
)


@dataclass(frozen=True, slots=True)
class Seen:
    """What a seat may see when it decides: enough for the basic bot's rules of thumb."""

    edition: Edition
    seat: int
    kind: str
    legal: Sequence[Choice]
    hand: Sequence[Card]
    reveal: Sequence[Card]  # the cards a decision shows (Hack Suit / Pirate)
    rows: Sequence[int]
    cols: Sequence[int]
    alive: Sequence[bool]
    hand_counts: Sequence[int]
    goal_row: int
    sharks: Sequence[tuple[int, int]]
    flared: bool
    fatal: Callable[[Choice], bool]
    turn: int
    discard: Sequence[Card]  # the game cards' discard pile, public (C4)
    style: Style = PATIENT

    @property
    def space(self) -> bool:
        """Whether this is the Space Edition."""
        return self.edition is Edition.SPACE

    @property
    def units(self) -> int:
        """Oxygen / food held."""
        return sum(card.value for card in self.hand)

    def card(self, card_id: int) -> Card:
        """A game card by id."""
        return GAME_DECKS[self.edition][card_id]

    def rivals(self) -> list[int]:
        """The living opponents."""
        return [o for o in range(len(self.rows)) if o != self.seat and self.alive[o]]


def _marked(choice: Choice) -> bool:
    return bool(choice.get("fatal"))


def seen_from_view(view: Mapping[str, Any], style: Style = PATIENT) -> Seen:
    """What the seat of ``view`` (a seat's view, with a decision) sees; ``style``: how it
    plays."""
    edition = Edition(view["edition"])
    deck = GAME_DECKS[edition]
    players = view["players"]
    decision = view["decision"] or {}
    return Seen(
        edition=edition,
        seat=view["seat"],
        kind=decision.get("kind", ""),
        legal=view["legal"],
        hand=[deck[card["id"]] for card in view["hand"] or []],
        reveal=[deck[card["id"]] for card in decision.get("reveal", [])],
        rows=[p["row"] for p in players],
        cols=[p["col"] for p in players],
        alive=[p["alive"] for p in players],
        hand_counts=[p["hand_count"] for p in players],
        goal_row=view["goal_row"],
        sharks=[(col, row) for col, row in view["sharks"]],
        flared=players[view["seat"]]["flared"],
        fatal=_marked,
        turn=view["turn"],
        discard=[deck[card_id] for card_id in view["discard"]],
        style=style,
    )


def seen_from_game(game: Game, seat: int, style: Style = PATIENT) -> Seen:
    """What ``seat`` sees in ``game`` (a search's simulated game), read without building a
    view: the same facts :func:`seen_from_view` reads, nothing of the other hands."""
    state = state_of(game)
    rules = game.rules
    decision = game.decision
    kind = "" if decision is None else str(decision.kind)
    attack = rules.attack

    def fatal(choice: Choice) -> bool:
        return rules.edition_rules.fatal(rules, seat, choice, attack)

    return Seen(
        edition=state.edition,
        seat=seat,
        kind=kind,
        legal=game.legal(seat),
        hand=state.hands[seat],
        reveal=decision.reveal.get(seat, []) if decision is not None else [],
        rows=state.rows,
        cols=state.cols,
        alive=state.alive,
        hand_counts=[len(hand) for hand in state.hands],
        goal_row=state.goal_row,
        sharks=state.sharks,
        flared=rules.flared(seat),
        fatal=fatal,
        turn=state.turn,
        discard=state.discard,
        style=style,
    )


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


def worth(card: Card) -> int:
    """How much the bot wants to keep ``card``."""
    return WORTH.get(card.key, 5)


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
        elif key in HARM and _near_goal(seen, target):
            # Anywhere else the card does more in hand: a random steal or discard may take it
            # instead of a resource, and in Shipwrecked it is a shark pick to give up.
            score = 4.0 + seen.rows[target] / 10
        if score > best[0]:
            best = (score, choice)
    return best[1]


def in_harbour(seen: Seen) -> bool:
    """Space: whether the astronaut waits on the start row, staying and keeping its free moves.
    There no Laser Blast or Tether can reach it (C10, C12). It waits in the first round and,
    after it, while a card that only harms lies in the discard pile, as long as no more than
    one rival has died (and one lives): a table that plays those cards thins itself out, and
    an astronaut who waits for that outlives it (docs/bots.md has the figures). Basic bots
    never play those cards in Space (:data:`HARM_FROM`), so at a table of four they wait the
    first round and seldom after it."""
    if not (seen.space and seen.style.space_harbour and seen.rows[seen.seat] == 0):
        return False
    living = len(seen.rivals())
    dead = len(seen.rows) - 1 - living
    if living == 0 or dead > 1:
        return False
    return seen.turn <= len(seen.rows) or any(card.key in HARM for card in seen.discard)


def _near_goal(seen: Seen, target: int) -> bool:
    """Whether a rival is near enough the goal to be harmed (:data:`HARM_FROM`)."""
    rows = HARM_FROM[seen.edition]
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
    "hurricane": _give_up,
    "swap": _swap,
    "freeloader": _advance,
    "shark_bait": _shark_bait,
    "pick": _pick,
}

#: The decision kinds the bot has a rule of thumb for (every kind of both editions).
HANDLED_KINDS = frozenset(_BY_KIND)
