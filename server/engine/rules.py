"""The common rules (RULES C1-C18) as a resumable flow.

The flow of a game is one generator: it runs the rules until a seat must decide, yields a
``Decision`` and is resumed with the choice. Board, hands and piles live in plain data
(``State``); the generator only holds where the resolution stands. Because the engine is
deterministic (C16), a game is persisted and copied as (edition, names, seed, decisions).
Edition-specific cards live in ``space.py`` and ``shipwrecked.py``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import cast

from . import action_cards, shipwrecked, space
from .action_cards import FORWARD_ONLY, KNOCK_BACK, TETHERS
from .actions import (
    ALWAYS_ASK,
    Choice,
    Decision,
    distinct,
    distinct_pairs,
    first_payment,
    payment_ways,
)
from .cards import (
    BLOCKER,
    GOAL_WORD,
    RESOURCE_WORD,
    Card,
    Edition,
    Location,
    card_list,
)
from .events import Event
from .state import State, new_state, remove_card

Flow = Generator[Decision, object, None]
Asking = Generator[Decision, object, Choice]

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


class Ended(Exception):
    """Raised inside the flow when the game ends: a win cancels everything unresolved (C17)."""


class Rules:
    """A game's state and the flow that applies the rules to it."""

    def __init__(
        self, edition: Edition, names: list[str], seed: int, variants: frozenset[str] = frozenset()
    ) -> None:
        self.s: State = new_state(edition, names, seed)
        self.seed = seed
        self.variants = variants
        self.log: list[Event] = []
        self.space = edition is Edition.SPACE
        self.res = RESOURCE_WORD[edition]
        self.blocker = BLOCKER[edition]
        # The seat that paid its last oxygen to travel survives until its card resolves (S3).
        self.travelling: int | None = None
        self.last_moved: int | None = None
        # The action card a target is deciding whether to block (for C18 fatal marks).
        self.attack: str | None = None

    # ----------------------------------------------------------------- small helpers
    def say(
        self,
        kind: str,
        text: str,
        seat: int | None = None,
        to: tuple[int, ...] | None = None,
        public: str | None = None,
    ) -> None:
        """Append an event to the log."""
        self.log.append(Event(kind, text, to, public, seat))

    def name(self, seat: int) -> str:
        """A seat's player name."""
        return self.s.names[seat]

    def ask(
        self,
        seat: int,
        kind: str,
        options: list[Choice],
        prompt: str,
        reveal: list[Card] | None = None,
    ) -> Asking:
        """Open a one-seat decision; a single option is taken at once unless it must be asked."""
        if len(options) == 1 and kind not in ALWAYS_ASK:
            return options[0]
        answer = yield Decision(
            kind, {seat: options}, prompt, {seat: reveal} if reveal is not None else {}
        )
        return cast(Choice, answer)

    def ask_all(
        self, kind: str, options: dict[int, list[Choice]], prompt: str
    ) -> Generator[Decision, object, dict[int, Choice]]:
        """Open a simultaneous decision; every seat named is asked (its timing reveals nothing)."""
        if not options:
            return {}
        answer = yield Decision(kind, options, prompt)
        return cast(dict[int, Choice], answer)

    def card_in_hand(self, seat: int, card_id: object) -> Card:
        """The card with this id in a seat's hand (the id was validated with the choice)."""
        for card in self.s.hands[seat]:
            if card.id == card_id:
                return card
        raise LookupError(f"card {card_id} is not in seat {seat}'s hand")

    def flared(self, seat: int) -> bool:
        """S6 Solar Flare: the card just below a Space astronaut is a Solar Flare."""
        if not self.space:
            return False
        s = self.s
        card = s.board.get((s.cols[seat], s.rows[seat] - 1))
        return card is not None and card.key == "solar_flare"

    # ----------------------------------------------------------------- the game's flow
    def run(self) -> Flow:
        """The whole game: turns in seat order until it ends."""
        s = self.s
        self.say("setup", f"{self.name(s.first)} is chosen to go first.", s.first)
        try:
            seat = s.first
            while True:
                yield from self.turn(seat)
                seat = self.next_living(seat)
        except Ended:
            s.phase = "over"
            s.over = True

    def next_living(self, seat: int) -> int:
        """The next living seat after ``seat`` (the game has ended if there is none)."""
        s = self.s
        for step in range(1, s.seats + 1):
            candidate = (seat + step) % s.seats
            if s.alive[candidate]:
                return candidate
        raise Ended

    def turn(self, p: int) -> Flow:
        """One turn (C5): draw, actions, stay or move."""
        s = self.s
        s.turn += 1
        s.active = p
        s.actions_played = 0
        self.say("turn", f"Turn {s.turn}: {s.names[p]}.", p)
        s.phase = "draw"
        self.draw(p, 1)
        s.phase = "actions"
        while s.alive[p]:
            # Always asked (ALWAYS_ASK): yielded here rather than through ask(), which costs a
            # generator per decision on the path that nearly every decision takes.
            answer = yield Decision(
                "actions",
                {p: self.action_options(p)},
                "Play an action card, make change, or go on.",
                {},
            )
            choice = cast(Choice, answer)
            do = choice["do"]
            if do == "done":
                break
            card = self.card_in_hand(p, choice["card"])
            if do == "change":
                self.make_change(p, card)
                continue
            target = choice.get("target")
            yield from self.play(p, card, cast("int | None", target))
        if not s.alive[p]:
            return
        s.phase = "stay_or_move"
        answer = yield Decision(
            "stay_or_move", {p: self.stay_or_move_options(p)}, "Stay or move?", {}
        )
        choice = cast(Choice, answer)
        if choice["do"] == "move":
            yield from self.travel(p)
        elif "discard" in choice:
            ids = cast(list[int], choice["discard"])
            cards = [self.card_in_hand(p, card_id) for card_id in ids]
            self.discard_cards(p, cards)
            self.say("stay", f"{self.name(p)} stays, discarding {card_list(cards)}.", p)
        else:
            self.say("stay", f"{self.name(p)} stays.", p)
            yield from self.breathe(p)

    # ----------------------------------------------------------------- options
    def action_options(self, p: int) -> list[Choice]:
        """Phase 2 choices: each playable action card with each legal target, change, done."""
        # Built at nearly every decision: one pass over the hand, and plain loops rather than
        # comprehensions, which cost a function call each (before Python 3.12).
        s = self.s
        rows, alive, hands, seats, goal_row = s.rows, s.alive, s.hands, s.seats, s.goal_row
        options: list[Choice] = []
        may_play = not (self.space and seats == 2 and s.actions_played >= 1) and not self.flared(p)
        doubles: list[Card] = []
        opponents: list[int] = []  # made when first needed
        seen: set[str] = set()  # one choice per distinct card (actions.distinct)
        for card in hands[p]:
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
                if rows[p] < goal_row:
                    options.append({"do": "play", "card": card_id})
                continue
            if not opponents:
                for o in range(seats):
                    if o != p and alive[o]:
                        opponents.append(o)
            if how == TETHER:
                # The target is chosen after the forward move (C12); on the goal row that move
                # is ignored, so the card is worth playing there only with a target in sight.
                if rows[p] < goal_row or any(rows[o] > 0 for o in opponents):
                    options.append({"do": "play", "card": card_id})
                continue
            for o in opponents:
                if how == ANY_OPPONENT:
                    legal = True
                elif how == HOLDING_OPPONENT:
                    legal = bool(hands[o])
                else:  # a knock-back: not one on row 0 (C10)
                    legal = rows[o] > 0
                if legal:
                    options.append({"do": "play", "card": card_id, "target": o})
        if doubles and self.singles_available(2):
            for card in doubles:
                options.append({"do": "change", "card": card.id})
        options.append({"do": "done"})
        return options

    def stay_or_move_options(self, p: int) -> list[Choice]:
        """Phase 3 choices (C5, S3)."""
        s = self.s
        options: list[Choice] = [{"do": "stay"}]
        if "V1" in self.variants:
            actions = [c for c in s.hands[p] if c.is_action]
            if len(actions) >= 2:
                options.extend(
                    [{"do": "stay", "discard": [a.id, b.id]} for a, b in distinct_pairs(actions)]
                )
        if s.rows[p] < s.goal_row and s.units(p) >= 2:
            options.append({"do": "move"})
        return options

    # ----------------------------------------------------------------- cards in and out
    def draw_one(self) -> Card | None:
        """The top game card; an empty pile is replaced by the shuffled discard pile (C5)."""
        s = self.s
        if not s.draw:
            if not s.discard:
                return None
            s.draw, s.discard = s.discard, []
            s.rng.shuffle(s.draw)
            self.say("info", "The discard pile is shuffled to form a new draw pile.")
        return s.draw.pop()

    def draw(self, seat: int, count: int) -> None:
        """A seat draws ``count`` game cards (nothing for the dead, C17)."""
        s = self.s
        who = s.names[seat]
        for _ in range(count):
            if not s.alive[seat]:
                return
            card = self.draw_one()
            if card is None:
                self.say("draw", f"{who} has nothing to draw.", seat)
                return
            s.hands[seat].append(card)
            self.say("draw", f"{who} draws {card.display}.", seat, (seat,), f"{who} draws a card.")

    def discard_cards(self, seat: int, cards: list[Card]) -> None:
        """Move cards from a hand to the discard pile."""
        hand = self.s.hands[seat]
        discard = self.s.discard
        for card in cards:
            remove_card(hand, card)
            discard.append(card)

    def singles_available(self, wanted: int) -> bool:
        """Whether the discard and draw piles together hold ``wanted`` single resources."""
        found = 0
        for pile in (self.s.discard, self.s.draw):
            for card in pile:
                if card.value == 1:
                    found += 1
                    if found >= wanted:
                        return True
        return False

    def take_singles(self, seat: int, count: int) -> list[Card]:
        """Give a seat up to ``count`` singles (C6, C7): the top-most ones of the discard pile,
        then the first ones from the top of the draw pile, which is then shuffled."""
        s = self.s
        taken: list[Card] = []
        for pile in (s.discard, s.draw):
            index = len(pile) - 1
            before = len(taken)
            while index >= 0 and len(taken) < count:
                if pile[index].value == 1:
                    taken.append(pile.pop(index))
                index -= 1
            if pile is s.draw and len(taken) > before:
                s.rng.shuffle(s.draw)
        s.hands[seat].extend(taken)
        return taken

    def make_change(self, p: int, double: Card) -> None:
        """C7: swap a double in hand for two singles."""
        singles = self.take_singles(p, 2)
        self.discard_cards(p, [double])
        self.say(
            "change",
            f"{self.s.names[p]} makes change: {double.display} for {card_list(singles)}.",
            p,
        )

    def give_change(self, seat: int) -> None:
        """C6: after overpaying with a double, take one single back (or lose the unit)."""
        taken = self.take_singles(seat, 1)
        who = self.s.names[seat]
        if taken:
            self.say("change", f"{who} takes {taken[0].display} as change.", seat)
        else:
            self.say("change", f"{who} gets no change: no single is left.", seat)

    # ----------------------------------------------------------------- paying and dying
    def ways_to_pay(self, seat: int, units: int) -> list[list[Card]]:
        """The ways a seat may give up ``units`` (C6): Space pays the first way without asking,
        Shipwrecked chooses among the distinct ways."""
        hand = self.s.hands[seat]
        if self.space:
            return [first_payment(hand, units)]
        return payment_ways(hand, units)

    def choose_payment(
        self, seat: int, ways: list[list[Card]], prompt: str
    ) -> Generator[Decision, object, list[Card]]:
        """The way to pay that a seat chooses among several (so it is always asked)."""
        options: list[Choice] = []
        for way in ways:  # of one or two cards (C6)
            ids = [way[0].id] if len(way) == 1 else [card.id for card in way]
            options.append({"do": "pay", "cards": ids})
        answer = yield Decision("pay", {seat: options}, prompt, {})
        ids = cast(list[int], cast(Choice, answer)["cards"])
        return [self.card_in_hand(seat, card_id) for card_id in ids]

    def pay(self, seat: int, units: int, why: str) -> Flow:
        """Discard resource cards worth ``units`` (C6), taking change after overpaying."""
        s = self.s
        if not s.alive[seat]:
            return
        ways = self.ways_to_pay(seat, units)
        if len(ways) == 1:
            cards = ways[0]
        else:
            cards = yield from self.choose_payment(
                seat, ways, f"Choose the {self.res} to discard ({units}) for {why}."
            )
        self.discard_cards(seat, cards)
        paid = 0
        for card in cards:
            paid += card.value
        self.say("pay", f"{s.names[seat]} discards {card_list(cards)} ({why}).", seat)
        if paid > units:
            self.give_change(seat)

    def steal_units(self, thief: int, victim: int, units: int) -> Flow:
        """C8: move resource cards worth ``units`` from victim to thief."""
        s = self.s
        if not (s.alive[victim] and s.alive[thief]):
            return
        ways = self.ways_to_pay(victim, units)
        if len(ways) == 1:
            cards = ways[0]
        else:
            cards = yield from self.choose_payment(
                victim, ways, f"Choose the {self.res} {self.name(thief)} takes ({units})."
            )
        for card in cards:
            remove_card(s.hands[victim], card)
            s.hands[thief].append(card)
        taken = sum(c.value for c in cards)
        a, b = self.name(thief), self.name(victim)
        # The amount stays secret: it could tell that the victim is now empty-handed (C4).
        self.say(
            "steal",
            f"{a} takes {card_list(cards)} from {b}.",
            thief,
            (thief, victim),
            f"{a} takes {self.res} from {b}.",
        )
        if taken > units:
            self.give_change(victim)
        self.check_oxygen(victim)

    def breathe(self, p: int) -> Flow:
        """Staying costs 1 resource (C5); in Shipwrecked, none to pay means death (W3)."""
        # The edition's flow itself, not a generator delegating to it: one layer less to
        # resume on every decision taken while paying.
        if self.space:
            return self.lose_oxygen(p, 1, "staying")
        return self.food_or_die(p, "staying")

    def lose_oxygen(self, seat: int, units: int, why: str) -> Flow:
        """Space: discard oxygen (C6); whoever reaches 0 dies (S3)."""
        yield from self.pay(seat, units, why)
        self.check_oxygen(seat)

    def food_or_die(self, seat: int, why: str) -> Flow:
        """Shipwrecked: discard 1 food, or die holding none (W3)."""
        if not self.s.alive[seat]:
            return
        if self.s.units(seat) == 0:
            self.die([seat], f"has no food for {why}")
            return
        yield from self.pay(seat, 1, why)

    def check_oxygen(self, seat: int) -> None:
        """S3: an astronaut at 0 oxygen dies at once, unless protected while travelling."""
        s = self.s
        if self.space and s.alive[seat] and seat != self.travelling and s.units(seat) == 0:
            self.die([seat], "runs out of oxygen")

    def die(self, seats: list[int], why: str) -> None:
        """C14: the seats die together; then the game may end (S4, W4 a)."""
        s = self.s
        for seat in seats:
            if not s.alive[seat]:
                continue
            s.alive[seat] = False
            hand = s.hands[seat]
            s.discard.extend(hand)
            self.say(
                "death", f"{self.name(seat)} {why} and dies, discarding {card_list(hand)}.", seat
            )
            s.hands[seat] = []
        living = s.living()
        if not living:
            self.say("win", "Nobody is left alive: nobody wins.")
            raise Ended
        if not self.space and len(living) == 1:
            self.win(living[0], f"{self.name(living[0])} is the last castaway alive")

    def win(self, seat: int, why: str) -> None:
        """End the game with a winner."""
        self.s.winner = seat
        self.say("win", f"{why}: {self.name(seat)} wins!", seat)
        raise Ended

    # ----------------------------------------------------------------- moving
    def travel(self, p: int) -> Flow:
        """Phase 3 move: pay 2, then move forward (C5, C9)."""
        self.say("move", f"{self.s.names[p]} moves.", p)
        if self.space:
            self.travelling = p
            try:
                yield from self.pay(p, 2, "travelling")
                yield from self.forward(p)
            finally:
                self.travelling = None
            self.check_oxygen(p)
        else:
            yield from self.pay(p, 2, "travelling")
            yield from self.forward(p)

    def forward(self, seat: int) -> Flow:
        """C9: move forward 1, then draw, place and resolve a location card."""
        s = self.s
        if not s.alive[seat]:
            return
        col = s.cols[seat]
        row = s.rows[seat]
        who = s.names[seat]
        if row >= s.goal_row:
            self.say("move", f"{who} is at {GOAL_WORD[s.edition]} and cannot move forward.", seat)
            return
        s.rows[seat] = row + 1
        self.last_moved = seat
        self.say("move", f"{who} moves forward to row {row + 1}.", seat)
        if not self.space and s.sharks:  # W7: no shark, no bite
            yield from shipwrecked.entered(self, [seat])
            if not s.alive[seat]:
                return
        loc = self.draw_location()
        cell = (col, row)
        s.board[cell] = loc
        self.say(
            "location", f"{who} draws {loc.type.name}{' (shark icon)' if loc.shark else ''}.", seat
        )
        # Resolving the card with everything it leads to (C17) is the edition's business.
        if self.space:
            yield from space.resolve_location(self, seat, loc, cell)
            space.arrival(self, seat)
        else:
            yield from shipwrecked.resolve_location(self, seat, loc, cell)

    def draw_location(self) -> Location:
        """The top location card; an empty pile is the shuffled discard pile (C15)."""
        s = self.s
        if not s.loc_draw:
            s.loc_draw, s.loc_discard = s.loc_discard, []
            s.rng.shuffle(s.loc_draw)
            self.say("info", "The location discard pile is shuffled to form a new pile.")
        return s.loc_draw.pop()

    def back(self, seat: int) -> Flow:
        """C10: move back 1, discarding the location card on the cell entered."""
        s = self.s
        if not s.alive[seat] or s.rows[seat] == 0:
            return
        col, row = s.pos(seat)
        s.rows[seat] = row - 1
        self.last_moved = seat
        card = s.board.pop((col, row - 1), None)
        if card is not None:
            s.loc_discard.append(card)
        gone = f", discarding {card.type.name}" if card else ""
        self.say("back", f"{self.name(seat)} moves back to row {row - 1}{gone}.", seat)
        if not self.space and s.sharks:  # W7: no shark, no bite
            yield from shipwrecked.entered(self, [seat])

    def swap(self, a: int, b: int) -> Flow:
        """C11: two characters exchange cells; location cards stay."""
        s = self.s
        s.cols[a], s.cols[b] = s.cols[b], s.cols[a]
        s.rows[a], s.rows[b] = s.rows[b], s.rows[a]
        self.last_moved = a
        self.say("swap", f"{self.name(a)} and {self.name(b)} swap places.", a)
        if not self.space and s.sharks:  # W7: no shark, no bite
            yield from shipwrecked.entered(self, [a, b])

    # ----------------------------------------------------------------- action cards
    def play(self, p: int, card: Card, target: int | None) -> Flow:
        """Play an action card: it is discarded, the target may react (C13), then it resolves."""
        s = self.s
        remove_card(s.hands[p], card)
        s.discard.append(card)
        s.actions_played += 1
        on = f" on {s.names[target]}" if target is not None else ""
        self.say("play", f"{s.names[p]} plays {card.display}{on}.", p)
        blocked = False
        if target is not None:
            blocked = yield from self.react(p, target, card)
        yield from action_cards.resolve_action(self, p, card, target, blocked)
        if not self.space:
            shipwrecked.raft_check(self)

    def react(self, attacker: int, target: int, card: Card) -> Generator[Decision, object, bool]:
        """C13: the target always decides, block or accept; True when blocked."""
        s = self.s
        options: list[Choice] = [{"do": "accept"}]
        if not self.flared(target):
            blocker = self.blocker
            blocks = [c for c in s.hands[target] if c.key == blocker]
            if blocks:
                options.extend([{"do": "block", "card": c.id} for c in distinct(blocks)])
        self.attack = card.key
        # Always asked (ALWAYS_ASK), so yielded here without the generator of ask().
        answer = yield Decision(
            "react", {target: options}, f"{s.names[attacker]} plays {card.display} on you.", {}
        )
        choice = cast(Choice, answer)
        self.attack = None
        if choice["do"] == "block":
            shield = self.card_in_hand(target, choice["card"])
            self.discard_cards(target, [shield])
            self.say("react", f"{s.names[target]} blocks it with {shield.display}.", target)
            return True
        self.say("react", f"{s.names[target]} does not block.", target)
        return False
