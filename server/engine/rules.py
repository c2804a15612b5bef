"""The common rules (RULES C1-C18) as a resumable flow.

The flow of a game is one generator: it runs the rules until a seat must decide, yields a
``Decision`` and is resumed with the answer. Board, hands and piles live in plain data
(``State``); the generator only holds where the resolution stands. Because the engine is
deterministic (C16), a game is persisted and copied as (edition, names, seed, decisions).
Whatever differs between editions is asked of the edition's rules (``edition.EditionRules``,
one module per edition: ``space.py``, ``shipwrecked.py``); the plain moves every rule is made of
(events, decisions, cards in and out of hands and piles) are the ``tabletop.Tabletop`` this
extends.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from .action_cards import FORWARD_ONLY, KNOCK_BACK, TETHERS, resolve_action
from .actions import (
    Answer,
    Choice,
    Decision,
    DecisionKind,
    distinct_pairs,
    int_of,
    ints_of,
    one_choice,
)
from .cards import Card, Edition
from .edition import EditionRules, Flow
from .shipwrecked import SHIPWRECKED
from .space import SPACE
from .state import new_state
from .tabletop import Ended, Tabletop

#: Each edition's rules, by edition.
EDITION_RULES: dict[Edition, EditionRules] = {
    SPACE.edition: SPACE,
    SHIPWRECKED.edition: SHIPWRECKED,
}

# Action cards by how they choose a target (C12), looked up once per card in hand; the
# reactions (Shield, Dive) are missing: they are never played as actions.
FORWARD, TETHER, ANY_OPPONENT, HOLDING_OPPONENT, KNOCKED_BACK = range(5)
TARGETING: dict[str, int] = {
    **dict.fromkeys(FORWARD_ONLY, FORWARD),
    **dict.fromkeys(TETHERS, TETHER),
    **dict.fromkeys(("hole_in_suit", "oxygen_siphon", "message_in_a_bottle"), ANY_OPPONENT),
    **dict.fromkeys(("tractor_beam", "hack_suit", "pirate", "lost"), HOLDING_OPPONENT),
    **dict.fromkeys(KNOCK_BACK, KNOCKED_BACK),
}

# The kinds of decision asked several times a turn, read once: a member read through its enum
# class takes the slow attribute path of a class whose metaclass defines __getattr__ (EnumType).
ACTIONS, STAY_OR_MOVE, PAY, GIVE, REACT = (
    DecisionKind.ACTIONS,
    DecisionKind.STAY_OR_MOVE,
    DecisionKind.PAY,
    DecisionKind.GIVE,
    DecisionKind.REACT,
)


class Rules(Tabletop):
    """A game's state and the flow that applies the rules to it (an ``edition.Table``)."""

    def __init__(
        self, edition: Edition, names: list[str], seed: int, variants: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(new_state(edition, names, seed), seed, variants, EDITION_RULES[edition])
        # The seat that paid its last oxygen to travel survives until its card resolves (S3).
        self.travelling: int | None = None
        self.last_moved: int | None = None
        # The action card a target is deciding whether to block (for C18 fatal marks).
        self.attack: str | None = None

    # ----------------------------------------------------------------- the game's flow
    def run(self) -> Flow:
        """The whole game: turns in seat order until it ends."""
        state = self.state
        self.say("setup", "setup", state.first, player=state.first)
        try:
            seat = state.first
            while True:
                yield from self.turn(seat)
                seat = self.next_living(seat)
        except Ended:
            state.phase = "over"
            state.over = True

    def next_living(self, seat: int) -> int:
        """The next living seat after ``seat`` (the game has ended if there is none)."""
        state = self.state
        for step in range(1, state.seats + 1):
            candidate = (seat + step) % state.seats
            if state.alive[candidate]:
                return candidate
        raise Ended

    def turn(self, player: int) -> Flow:
        """One turn (C5): draw, actions, stay or move."""
        state = self.state
        state.turn += 1
        state.active = player
        state.actions_played = 0
        self.say("turn", "turn", player, turn=state.turn, player=player)
        state.phase = "draw"
        self.draw(player, 1)
        state.phase = "actions"
        while state.alive[player]:
            # Always asked: yielded here rather than through ask(), which costs a generator per
            # decision on the path that nearly every decision takes.
            choice = one_choice((yield Decision(ACTIONS, {player: self.action_options(player)})))
            do = choice["do"]
            if do == "done":
                break
            card = self.card_in_hand(player, int_of(choice, "card"))
            if do == "change":
                self.make_change(player, card)
                continue
            target = choice.get("target")
            yield from self.play(player, card, target if isinstance(target, int) else None)
        if not state.alive[player]:
            return
        state.phase = "stay_or_move"
        choice = one_choice(
            (yield Decision(STAY_OR_MOVE, {player: self.stay_or_move_options(player)}))
        )
        if choice["do"] == "move":
            self.say("move", "move.travel", player, player=player)
            yield from self.edition_rules.travel(self, player)
        elif "discard" in choice:
            cards = [self.card_in_hand(player, card_id) for card_id in ints_of(choice, "discard")]
            self.discard_cards(player, cards)
            self.say("stay", "stay.discard", player, player=player, cards=cards)
        else:
            self.say("stay", "stay", player, player=player)
            yield from self.edition_rules.lose(self, player, 1, "stay")

    # ----------------------------------------------------------------- options
    def action_options(self, player: int) -> list[Choice]:
        """Phase 2 choices: each playable action card with each legal target, change, done."""
        # Built at nearly every decision: one pass over the hand, and plain loops rather than
        # comprehensions, which cost a function call each (before Python 3.12).
        state = self.state
        rows, alive, hands, seats, goal_row = (
            state.rows,
            state.alive,
            state.hands,
            state.seats,
            state.goal_row,
        )
        options: list[Choice] = []
        rules = self.edition_rules
        may_play = not (
            state.actions_played >= 1 and rules.one_action_only(seats)
        ) and not rules.flared(state, player)
        doubles: list[Card] = []
        opponents: list[int] = []  # made when first needed
        seen: set[str] = set()  # one choice per distinct card (actions.distinct)
        for card in hands[player]:
            if not card.is_action:
                if card.value == 2 and card.sig not in seen:
                    seen.add(card.sig)
                    doubles.append(card)
                continue
            if not may_play or card.sig in seen:
                continue
            seen.add(card.sig)
            how = TARGETING.get(card.key)
            if how is None:  # Shield / Dive: reactions only
                continue
            card_id = card.id
            if how == FORWARD:
                if rows[player] < goal_row:
                    options.append({"do": "play", "card": card_id})
                continue
            if not opponents:
                for other in range(seats):
                    if other != player and alive[other]:
                        opponents.append(other)
            if how == TETHER:
                # The target is chosen after the forward move (C12); on the goal row that move
                # is ignored, so the card is worth playing there only with a target in sight.
                if rows[player] < goal_row or any(rows[other] > 0 for other in opponents):
                    options.append({"do": "play", "card": card_id})
                continue
            for other in opponents:
                if how == ANY_OPPONENT:
                    legal = True
                elif how == HOLDING_OPPONENT:
                    legal = bool(hands[other])
                else:  # a knock-back: not one on row 0 (C10)
                    legal = rows[other] > 0
                if legal:
                    options.append({"do": "play", "card": card_id, "target": other})
        if doubles and self.singles_available(2):
            for card in doubles:
                options.append({"do": "change", "card": card.id})
        options.append({"do": "done"})
        return options

    def stay_or_move_options(self, player: int) -> list[Choice]:
        """Phase 3 choices (C5, S3, V1)."""
        state = self.state
        options: list[Choice] = [{"do": "stay"}]
        if "V1" in self.variants:
            actions = [card for card in state.hands[player] if card.is_action]
            if len(actions) >= 2:
                options.extend(
                    [{"do": "stay", "discard": [a.id, b.id]} for a, b in distinct_pairs(actions)]
                )
        if state.rows[player] < state.goal_row and state.has_units(player, 2):
            options.append({"do": "move"})
        return options

    # ----------------------------------------------------------------- paying and dying
    def pay(self, seat: int, units: int, reason: str) -> Flow:
        """Discard resource cards worth ``units`` (C6), taking change after overpaying."""
        state = self.state
        if not state.alive[seat]:
            return
        ways = self.edition_rules.ways_to_pay(state.hands[seat], units)
        if len(ways) == 1:
            cards = ways[0]
        else:
            resource = self.edition_rules.resource
            cards = yield from self.choose_payment(
                seat, PAY, ways, resource=resource, units=units, reason=reason
            )
        self.discard_cards(seat, cards)
        paid = 0
        for card in cards:
            paid += card.value
        self.say("pay", "pay", seat, player=seat, cards=cards, reason=reason)
        if paid > units:
            self.give_change(seat)

    def steal_units(self, thief: int, victim: int, units: int) -> Flow:
        """C8: move resource cards worth ``units`` from victim to thief."""
        state = self.state
        if not (state.alive[victim] and state.alive[thief]):
            return
        rules = self.edition_rules
        ways = rules.ways_to_pay(state.hands[victim], units)
        if len(ways) == 1:
            cards = ways[0]
        else:
            cards = yield from self.choose_payment(
                victim, GIVE, ways, resource=rules.resource, units=units, thief=thief
            )
        for card in cards:
            state.hands[victim].remove(card)
            state.hands[thief].append(card)
        taken = sum(card.value for card in cards)
        # The amount stays secret: it could tell that the victim is now empty-handed (C4).
        self.say(
            "steal",
            "steal",
            thief,
            (thief, victim),
            ("cards",),
            thief=thief,
            victim=victim,
            cards=cards,
            resource=rules.resource,
        )
        if taken > units:
            self.give_change(victim)
        rules.check_resources(self, victim)

    def lose(self, seat: int, units: int, reason: str) -> Flow:
        """The edition's loss of ``units`` resources (a card's or staying's; may kill)."""
        return self.edition_rules.lose(self, seat, units, reason)

    def check_resources(self, seat: int) -> None:
        """The edition's death check after resources left ``seat``'s hand (S3)."""
        self.edition_rules.check_resources(self, seat)

    def die(self, seats: list[int], key: str, /, **args: Any) -> None:
        """C14: the seats die together; then the game may end (S4, W4 a)."""
        state = self.state
        for seat in seats:
            if not state.alive[seat]:
                continue
            state.alive[seat] = False
            hand = state.hands[seat]
            state.discard.extend(hand)
            self.say("death", key, seat, player=seat, cards=hand, **args)
            state.hands[seat] = []
        living = state.living()
        if not living:
            self.say("win", "win.nobody")
            raise Ended
        self.edition_rules.after_deaths(self, living)

    # ----------------------------------------------------------------- moving
    def forward(self, seat: int) -> Flow:
        """C9: move forward 1, then draw, place and resolve a location card."""
        state = self.state
        if not state.alive[seat]:
            return
        col = state.cols[seat]
        row = state.rows[seat]
        rules = self.edition_rules
        if row >= state.goal_row:
            self.say("move", "move.blocked", seat, player=seat, goal=rules.goal)
            return
        state.rows[seat] = row + 1
        self.last_moved = seat
        self.say("move", "move", seat, player=seat, row=row + 1)
        if state.sharks:  # entering a cell does something only with sharks about (W7)
            yield from rules.entered(self, [seat])
            if not state.alive[seat]:
                return
        loc = self.draw_location()
        cell = (col, row)
        state.board[cell] = loc
        key = "location.shark" if loc.shark else "location"
        self.say("location", key, seat, player=seat, location=loc)
        # Resolving the card with everything it leads to (C17) is the edition's business.
        yield from rules.resolve_location(self, seat, loc, cell)
        rules.arrived(self, seat)

    def back(self, seat: int) -> Flow:
        """C10: move back 1, discarding the location card on the cell entered."""
        state = self.state
        if not state.alive[seat] or state.rows[seat] == 0:
            return
        col, row = state.pos(seat)
        state.rows[seat] = row - 1
        self.last_moved = seat
        card = state.board.pop((col, row - 1), None)
        if card is not None:
            state.loc_discard.append(card)
            self.say("back", "back.discard", seat, player=seat, row=row - 1, location=card)
        else:
            self.say("back", "back", seat, player=seat, row=row - 1)
        if state.sharks:
            yield from self.edition_rules.entered(self, [seat])

    def swap(self, a: int, b: int) -> Flow:
        """C11: two characters exchange cells; location cards stay."""
        state = self.state
        state.cols[a], state.cols[b] = state.cols[b], state.cols[a]
        state.rows[a], state.rows[b] = state.rows[b], state.rows[a]
        self.last_moved = a
        self.say("swap", "swap", a, player=a, other=b)
        if state.sharks:
            yield from self.edition_rules.entered(self, [a, b])

    # ----------------------------------------------------------------- action cards
    def play(self, player: int, card: Card, target: int | None) -> Flow:
        """Play an action card: it is discarded, the target may react (C13), then it resolves."""
        state = self.state
        state.hands[player].remove(card)
        state.discard.append(card)
        state.actions_played += 1
        if target is None:
            self.say("play", "play", player, player=player, card=card)
        else:
            self.say("play", "play.on", player, player=player, card=card, target=target)
        blocked = False
        if target is not None:
            blocked = yield from self.react(player, target, card)
        yield from resolve_action(self, player, card, target, blocked)
        self.edition_rules.after_action(self)

    def react(self, attacker: int, target: int, card: Card) -> Generator[Decision, Answer, bool]:
        """C13: the target always decides, block or accept; True when blocked."""
        state = self.state
        options: list[Choice] = [{"do": "accept"}]
        rules = self.edition_rules
        if not rules.flared(state, target):
            blocker = rules.blocker
            seen: set[str] = set()  # one choice per distinct card (actions.distinct)
            for held in state.hands[target]:
                if held.key == blocker and held.sig not in seen:
                    seen.add(held.sig)
                    options.append({"do": "block", "card": held.id})
        self.attack = card.key
        # Always asked (C13): yielded here rather than through ask(), which costs a generator.
        args = {"player": attacker, "card": card}
        choice = one_choice((yield Decision(REACT, {target: options}, args)))
        self.attack = None
        if choice["do"] == "block":
            shield = self.card_in_hand(target, int_of(choice, "card"))
            self.discard_cards(target, [shield])
            self.say("react", "react.block", target, player=target, card=shield)
            return True
        self.say("react", "react", target, player=target)
        return False
