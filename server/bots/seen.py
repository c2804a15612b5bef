"""What a bot sees when it decides (:class:`Seen`), and how it plays (:class:`Style`).

A :class:`Seen` holds the facts one seat may see: the public board, hand sizes, the discard pile
and its own hand. It is built from a seat's view (:func:`seen_from_view`, what the server's bots
get) or, inside a search's simulated game, straight from the game (:func:`seen_from_game`, which
reads the same facts without building a view): so the ``expert``'s rollouts play exactly the
``basic`` bot's rules, at a fraction of a view's cost.
"""

from __future__ import annotations

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
#: rival one row from the ship wins no more games against random seats, and at a table of basic
#: bots it leaves nobody alive to win three times as often (bench/bots.py; docs/bots.md).
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


#: Space: the most rounds the basic astronaut waits on the start row (:func:`in_harbour`), and
#: the most rivals that may have left it while it still waits. On the start row no Laser Blast
#: or Tether reaches it, and off it the astronaut shares the knock-backs with every other one off
#: it: waiting pays against a table that harms, but every point of win share it buys costs about
#: three points of turns spent on the start row (docs/bots.md has the figures).
HARBOUR_ROUNDS = 3
HARBOUR_AWAY = 1


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
    #: Space: wait on the start row while the table harms (:func:`in_harbour`), for at most
    #: this many rounds (0: never), while at most ``space_harbour_away`` rivals are off it.
    space_harbour_rounds: int
    space_harbour_away: int = HARBOUR_AWAY
    #: Space: harm (Laser Blast, Hole in Suit) a rival this many rows from the ship or nearer
    #: (None: never, as the basic bot; :data:`HARM_FROM`).
    space_harm_from: int | None = None
    #: Space: the seat it bears a grudge against, and harms wherever a card that only harms
    #: can reach it: answer harm with harm (the opponent model of a table that fights back).
    grudge: int | None = None


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
    space_harbour_rounds=HARBOUR_ROUNDS,
)
#: Moving whenever a move does not kill: what beats a table of patient castaways.
RACING = Style(
    space_move_at=3,
    space_last_step_at=3,
    ship_move_at=2,
    ship_catch_up_gap=1,
    ship_catch_up_at=2,
    space_harbour_rounds=0,
)


@dataclass(slots=True)
class Seen:
    """What a seat may see when it decides: enough for the basic bot's rules of thumb (treat
    as immutable; not frozen, as a frozen dataclass sets each field through
    ``object.__setattr__``, and a search's rollouts build one for nearly every decision)."""

    edition: Edition
    space: bool  # whether this is the Space Edition (read several times a decision)
    deck: Sequence[Card]  # the edition's game cards, by id
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
    fatal: Callable[[Choice], bool]
    turn: int
    discard: Sequence[Card]  # the game cards' discard pile, public (C4)
    style: Style = PATIENT

    @property
    def units(self) -> int:
        """Oxygen / food held."""
        return sum(card.value for card in self.hand)

    def card(self, card_id: int) -> Card:
        """A game card by id."""
        return self.deck[card_id]

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
        space=edition is Edition.SPACE,
        deck=deck,
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
        fatal=_marked,
        turn=view["turn"],
        discard=[deck[card_id] for card_id in view["discard"]],
        style=style,
    )


def seen_from_game(game: Game, seat: int, style: Style = PATIENT) -> Seen:
    """What ``seat`` sees in ``game`` (a search's simulated game), read without building a
    view: the same facts :func:`seen_from_view` reads, nothing of the other hands."""
    state = state_of(game)
    edition = state.edition
    rules = game.rules
    decision = game.decision
    kind = "" if decision is None else str(decision.kind)
    attack = rules.attack

    def fatal(choice: Choice) -> bool:
        return rules.edition_rules.fatal(rules, seat, choice, attack)

    return Seen(
        edition=edition,
        space=edition is Edition.SPACE,
        deck=GAME_DECKS[edition],
        seat=seat,
        kind=kind,
        legal=game.legal(seat),
        hand=state.hands[seat],
        reveal=decision.reveal.get(seat, []) if decision is not None else [],
        rows=state.rows,
        cols=state.cols,
        alive=state.alive,
        hand_counts=list(map(len, state.hands)),
        goal_row=state.goal_row,
        sharks=state.sharks,
        fatal=fatal,
        turn=state.turn,
        discard=state.discard,
        style=style,
    )


def worth(card: Card) -> int:
    """How much a bot wants to keep ``card``."""
    return WORTH.get(card.key, 5)
