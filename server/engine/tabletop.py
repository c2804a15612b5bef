"""The tabletop: a game's state and the plain moves on it, under the rules' flow (``rules.py``).

Events are said, decisions asked, and cards go in and out of hands and piles here; what a
turn is, and what a card or a move does, is the flow's (``rules.Rules``, which extends this).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from .actions import (
    ALWAYS_ASKED,
    Answer,
    Choice,
    Decision,
    DecisionKind,
    all_picks,
    one_choice,
)
from .cards import Card, Location
from .edition import Asking, EditionRules
from .events import Event
from .state import State, shuffle


class Ended(Exception):
    """Raised inside the flow when the game ends: a win cancels everything unresolved (C17)."""


class Tabletop:
    """A game's state, its log, and the moves every rule is made of."""

    def __init__(
        self, state: State, seed: int, variants: frozenset[str], edition_rules: EditionRules
    ) -> None:
        self.state = state
        self.seed = seed
        self.variants = variants
        self.edition_rules = edition_rules
        self.log: list[Event] = []

    # ----------------------------------------------------------------- events and decisions
    def say(
        self,
        kind: str,
        key: str,
        seat: int | None = None,
        to: tuple[int, ...] | None = None,
        secret: tuple[str, ...] = (),
        /,
        **args: Any,
    ) -> None:
        """Record an event: its family ``kind``, its ``key`` and arguments
        (protocol/vocabulary.py ``EVENTS``); ``to`` and ``secret`` as in ``Event``."""
        # The named parameters are positional-only (so are ask's, die's and choose_payment's):
        # CPython then puts each keyword straight into ``args``, where it would otherwise first
        # compare it with every parameter's name (a string comparison each, on every event).
        self.log.append(Event(kind, key, args, seat, to, secret))

    def ask(
        self,
        seat: int,
        kind: DecisionKind,
        options: list[Choice],
        /,
        reveal: list[Card] | None = None,
        **args: Any,
    ) -> Asking:
        """Open a one-seat decision; a single option is taken at once unless the kind is
        always asked. ``args``: the decision's (protocol/vocabulary.py ``DECISIONS``)."""
        if len(options) == 1 and kind not in ALWAYS_ASKED:
            return options[0]
        answer = yield Decision(
            kind, {seat: options}, args, {seat: reveal} if reveal is not None else {}
        )
        return one_choice(answer)

    def ask_all(
        self, kind: DecisionKind, options: dict[int, list[Choice]]
    ) -> Generator[Decision, Answer, dict[int, Choice]]:
        """Open a simultaneous decision; every seat named is asked (its timing reveals nothing)."""
        if not options:
            return {}
        answer = yield Decision(kind, options)
        return all_picks(answer)

    def card_in_hand(self, seat: int, card_id: int) -> Card:
        """The card with this id in a seat's hand (the id was validated with the choice)."""
        for card in self.state.hands[seat]:
            if card.id == card_id:
                return card
        raise LookupError(f"card {card_id} is not in seat {seat}'s hand")

    def flared(self, seat: int) -> bool:
        """S6 Solar Flare: whether the seat may play no action card now."""
        return self.edition_rules.flared(self.state, seat)

    # ----------------------------------------------------------------- cards in and out
    def draw_location(self) -> Location:
        """The top location card; an empty pile is the shuffled discard pile (C15)."""
        state = self.state
        if not state.loc_draw:
            state.loc_draw, state.loc_discard = state.loc_discard, []
            shuffle(state.rng, state.loc_draw)
            self.say("info", "info.reshuffle_locations")
        return state.loc_draw.pop()

    def draw_one(self) -> Card | None:
        """The top game card; an empty pile is replaced by the shuffled discard pile (C5)."""
        state = self.state
        if not state.draw:
            if not state.discard:
                return None
            state.draw, state.discard = state.discard, []
            shuffle(state.rng, state.draw)
            self.say("info", "info.reshuffle")
        return state.draw.pop()

    def draw(self, seat: int, count: int) -> None:
        """A seat draws ``count`` game cards (nothing for the dead, C17)."""
        state = self.state
        for _ in range(count):
            if not state.alive[seat]:
                return
            card = self.draw_one()
            if card is None:
                self.say("draw", "draw.none", seat, player=seat)
                return
            state.hands[seat].append(card)
            self.say("draw", "draw", seat, (seat,), ("card",), player=seat, card=card)

    def discard_cards(self, seat: int, cards: list[Card]) -> None:
        """Move cards from a hand to the discard pile."""
        hand = self.state.hands[seat]
        discard = self.state.discard
        for card in cards:
            hand.remove(card)
            discard.append(card)

    def singles_available(self, wanted: int) -> bool:
        """Whether the discard and draw piles together hold ``wanted`` single resources."""
        found = 0
        for pile in (self.state.discard, self.state.draw):
            for card in pile:
                if card.value == 1:
                    found += 1
                    if found >= wanted:
                        return True
        return False

    def take_singles(self, seat: int, count: int) -> tuple[list[Card], bool]:
        """Give a seat up to ``count`` singles (C6, C7): the top-most ones of the discard pile,
        then the first ones from the top of the draw pile, which is then shuffled. Also says
        whether any came from the draw pile."""
        state = self.state
        taken: list[Card] = []
        drawn = False
        for pile in (state.discard, state.draw):
            index = len(pile) - 1
            before = len(taken)
            while index >= 0 and len(taken) < count:
                if pile[index].value == 1:
                    taken.append(pile.pop(index))
                index -= 1
            if pile is state.draw and len(taken) > before:
                drawn = True
                shuffle(state.rng, state.draw)
        state.hands[seat].extend(taken)
        return taken, drawn

    def make_change(self, player: int, double: Card) -> None:
        """C7: swap a double in hand for two singles."""
        singles, drawn = self.take_singles(player, 2)
        self.discard_cards(player, [double])
        # A single from the draw pile was unseen by the others (C4: in Shipwrecked its
        # direction steers the sharks), so only the taker learns which cards they were.
        to, secret = ((player,), ("cards",)) if drawn else (None, ())
        self.say("change", "change", player, to, secret, player=player, card=double, cards=singles)

    def give_change(self, seat: int) -> None:
        """C6: after overpaying with a double, take one single back (or lose the unit)."""
        taken, drawn = self.take_singles(seat, 1)
        if taken:
            to, secret = ((seat,), ("card",)) if drawn else (None, ())
            self.say("change", "change.taken", seat, to, secret, player=seat, card=taken[0])
        else:
            self.say("change", "change.none", seat, player=seat)

    def choose_payment(
        self, seat: int, kind: DecisionKind, ways: list[list[Card]], /, **args: Any
    ) -> Generator[Decision, Answer, list[Card]]:
        """The way to pay (``kind`` PAY) or to give (GIVE) that a seat chooses among several."""
        options: list[Choice] = []
        for way in ways:  # of one or two cards (C6)
            ids = [way[0].id] if len(way) == 1 else [card.id for card in way]
            options.append({"do": "pay", "cards": ids})
        # Asked here rather than through ask(), which costs a generator: there are always
        # several ways. The answer is one of the options (the game takes no other), so its
        # position tells the way: list.index compares by value, and at once when the answer is
        # the option object itself, which is what the game sends.
        answer = yield Decision(kind, {seat: options}, args)
        return ways[options.index(one_choice(answer))]

    # ----------------------------------------------------------------- the end
    def win(self, seat: int, key: str) -> None:
        """End the game with a winner; ``key`` says how (``win.*``)."""
        self.state.winner = seat
        self.say("win", key, seat, player=seat)
        raise Ended
