"""What a search needs from the engine: games rebuilt from one seat's view with a chosen (or
sampled) arrangement of the hidden cards, and cheap copies of a game.

A game's flow is a generator, which cannot be copied; a copy is rebuilt instead from a copy of the
plain state (``State``) and a fresh flow that stands where the original's stood. That is possible
at a *turn point*: the active seat's own decision of the actions phase or of stay-or-move, where
nothing is half resolved (see :data:`TURN_POINTS`). Every game built here starts at one; from
there it is an ordinary :class:`Game` (``legal``, ``apply``, ``view``) that plays to the end.

This is the only module outside the rules that rebuilds a game's internals (the rules object, its
flow, the state); a bot or a benchmark goes through the functions below, and only reads the
state (:func:`state_of`) and, for a simulated seat's fatal marks, the rules object
(``server.bots.seen.seen_from_game``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, TypeVar

from .cards import GAME_DECKS, LOCATION_DECKS, Edition
from .game import Game
from .state import State

_T = TypeVar("_T")

#: The decision kinds at which a game can be copied or rebuilt (a turn point).
TURN_POINTS = ("actions", "stay_or_move")


@dataclass(frozen=True)
class Hidden:
    """What one seat's view leaves unknown: the ids of the game cards it has not seen (in the
    other hands and the draw pile), how many of them each seat holds, and the ids of the location
    cards it has not seen (the location draw pile)."""

    cards: tuple[int, ...]
    hand_counts: dict[int, int]
    draw_count: int
    locations: tuple[int, ...]


def decision_kind(game: Game) -> str | None:
    """The kind of the open decision (None once the game is over)."""
    decision = game.decision
    return None if decision is None else str(decision.kind)


@cache
def card_keys(edition: Edition) -> tuple[str, ...]:
    """Every game card's key, indexed by card id (choices name cards by id)."""
    return tuple(card.key for card in GAME_DECKS[edition])


def state_of(game: Game) -> State:
    """The game's complete state (secrets included): for a search's own simulated games only."""
    return game.rules.state


def at_turn_point(game: Game) -> bool:
    """Whether ``game`` can be copied or rebuilt now (see :data:`TURN_POINTS`)."""
    state = game.rules.state
    return (
        not state.over
        and decision_kind(game) in TURN_POINTS
        and game.pending_seats() == [state.active]
        and not state.held
    )


def hidden(view: Mapping[str, Any]) -> Hidden:
    """The hidden part of a seat's view (``game.view(seat)`` of a seat, not a spectator)."""
    edition = Edition(view["edition"])
    seat = view["seat"]
    if seat is None:
        raise ValueError("a spectator's view has no seat to search for")
    seen = {card["id"] for card in view["hand"]}
    seen.update(view["discard"])
    cards = tuple(card.id for card in GAME_DECKS[edition] if card.id not in seen)
    counts = {
        player["seat"]: player["hand_count"]
        for player in view["players"]
        if player["seat"] != seat and player["hand_count"]
    }
    on_table = {entry["card"]["id"] for entry in view["board"]}
    on_table.update(view["loc_discard"])
    locations = tuple(loc.id for loc in LOCATION_DECKS[edition] if loc.id not in on_table)
    return Hidden(cards, counts, view["draw_count"], locations)


def arrange(
    view: Mapping[str, Any],
    hands: Mapping[int, Sequence[int]],
    draw: Sequence[int],
    loc_draw: Sequence[int],
    rng: random.Random,
) -> Game:
    """The game that ``view`` shows, with the hidden cards where the caller puts them: the other
    seats' ``hands`` (card ids in hand order), the game ``draw`` pile and the location draw pile
    ``loc_draw`` (both bottom to top, top last). Together they must hold exactly the cards of
    :func:`hidden` in its counts. The view must be taken at a turn point of its own seat.

    ``rng`` becomes the game's random source (reshuffles, random steals): a search passes its own
    so that its simulated games cost no seeding and it stays deterministic given its seed.
    The game's ``view(seat)`` equals ``view``; its ``decisions`` start empty and its ``log`` holds
    only what happens from now on.
    """
    secret = hidden(view)
    _check_turn_point(view)
    placed = [card for hand in hands.values() for card in hand]
    placed.extend(draw)
    counts = {o: len(cards) for o, cards in hands.items() if cards}
    if (
        sorted(placed) != sorted(secret.cards)
        or counts != secret.hand_counts
        or len(draw) != secret.draw_count
        or sorted(loc_draw) != sorted(secret.locations)
    ):
        raise ValueError("the arrangement does not hold exactly the hidden cards of the view")
    return _arranged(view, hands, draw, loc_draw, rng)


def _check_turn_point(view: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``view`` is taken at a turn point of its own seat."""
    if (view["decision"] or {}).get("kind") not in TURN_POINTS or view["active"] != view["seat"]:
        raise ValueError("a game can be rebuilt only at its seat's own turn point")


def _arranged(
    view: Mapping[str, Any],
    hands: Mapping[int, Sequence[int]],
    draw: Sequence[int],
    loc_draw: Sequence[int],
    rng: random.Random,
) -> Game:
    """:func:`arrange` of an arrangement known to hold exactly the hidden cards of ``view``
    (one :func:`sample` dealt), without checking it."""
    seat = view["seat"]
    edition = Edition(view["edition"])
    deck = GAME_DECKS[edition]
    places = LOCATION_DECKS[edition]
    players = view["players"]
    seats = view["seats"]
    own = [deck[card["id"]] for card in view["hand"]]
    state = State(
        edition=edition,
        names=list(view["names"]),
        rng=rng,
        draw=[deck[card_id] for card_id in draw],
        discard=[deck[card_id] for card_id in view["discard"]],
        hands=[
            own if o == seat else [deck[card_id] for card_id in hands.get(o, ())]
            for o in range(seats)
        ],
        cols=[player["col"] for player in players],
        rows=[player["row"] for player in players],
        alive=[player["alive"] for player in players],
        loc_draw=[places[loc_id] for loc_id in loc_draw],
        loc_discard=[places[loc_id] for loc_id in view["loc_discard"]],
        board={
            (entry["col"], entry["row"]): places[entry["card"]["id"]] for entry in view["board"]
        },
        goal_row=view["goal_row"],
        sharks=[(col, row) for col, row in view["sharks"]],
        active=view["active"],
        turn=view["turn"],
        phase=view["phase"],
        actions_played=view["actions_played"],
    )
    variants = tuple(view["variants"])
    return _resume(_template(edition, tuple(state.names), variants), state, view["last_moved"])


def sample(view: Mapping[str, Any], rng: random.Random) -> Game:
    """A random arrangement of the hidden cards consistent with ``view`` (see :func:`arrange`):
    the unseen cards dealt uniformly to the other hands and the draw pile, except that in Space a
    living astronaut always holds oxygen (one who held none would have died, S3)."""
    secret = hidden(view)
    _check_turn_point(view)
    cards = list(secret.cards)
    rng.shuffle(cards)
    hands: dict[int, list[int]] = {}
    start = 0
    for o, count in secret.hand_counts.items():
        hands[o] = cards[start : start + count]
        start += count
    draw = cards[start:]
    if view["edition"] == Edition.SPACE.value:
        _give_oxygen(view, hands, draw, rng)
    locations = list(secret.locations)
    rng.shuffle(locations)
    return _arranged(view, hands, draw, locations, rng)


def _give_oxygen(
    view: Mapping[str, Any], hands: dict[int, list[int]], draw: list[int], rng: random.Random
) -> None:
    """Swap an oxygen card from the draw pile (else another hand) into each living hand that
    was dealt none."""
    deck = GAME_DECKS[Edition.SPACE]
    alive = [player["alive"] for player in view["players"]]
    for o, hand in hands.items():
        if not alive[o] or any(deck[card_id].value for card_id in hand):
            continue
        donors = [draw] + [other for p, other in hands.items() if p != o and len(other) > 1]
        for pile in donors:
            spare = [i for i, card_id in enumerate(pile) if deck[card_id].value]
            if pile is not draw:  # a donor hand keeps one oxygen for itself
                spare = spare[1:]
            if spare:
                index = spare[rng.randrange(len(spare))]
                mine = rng.randrange(len(hand))
                hand[mine], pile[index] = pile[index], hand[mine]
                break


def copy_game(game: Game, rng: random.Random | None = None) -> Game:
    """An independent copy of a game at a turn point (:func:`at_turn_point`): same state, same
    decision. With ``rng`` the copy draws its randomness from it (cheaper, for a search);
    without, from a copy of the game's own, so that it plays on exactly as the original would.
    The copy's ``decisions`` and ``log`` start empty."""
    if not at_turn_point(game):
        raise ValueError("a game can be copied only at a turn point")
    source = game.rules.state
    if rng is None:
        rng = random.Random.__new__(random.Random)
        rng.setstate(source.rng.getstate())
    state = _clone(source)
    state.rng = rng
    state.draw = source.draw[:]
    state.discard = source.discard[:]
    state.hands = [hand[:] for hand in source.hands]
    state.cols = source.cols[:]
    state.rows = source.rows[:]
    state.alive = source.alive[:]
    state.loc_draw = source.loc_draw[:]
    state.loc_discard = source.loc_discard[:]
    state.board = source.board.copy()
    state.sharks = source.sharks[:]
    state.held = source.held.copy()
    state.names = source.names[:]
    return _resume(game, state, game.rules.last_moved)


def _clone(thing: _T) -> _T:
    """A shallow copy of a plain object (what ``copy.copy`` does, without its protocol)."""
    twin: _T = object.__new__(type(thing))
    twin.__dict__.update(thing.__dict__)
    return twin


@lru_cache(maxsize=32)
def _template(edition: Edition, names: tuple[str, ...], variants: tuple[str, ...]) -> Game:
    """A game whose attributes a rebuilt game copies before replacing its state and flow: the
    view's edition, names and room variants (RULES V), so that it offers the same choices."""
    return Game(edition, list(names), 0, variants=variants)


def _resume(template: Game, state: State, last_moved: int | None) -> Game:
    """A game like ``template`` playing ``state`` from its turn point.

    The flow is the engine's own ``run``, entered at the top of the active seat's turn with
    empty piles, so that the turn's draw (already made) finds nothing; the piles, counters and
    the open decision's options are then put back as they were.
    """
    game = _clone(template)
    rules = _clone(template.rules)
    rules.state = state
    rules.log = []
    rules.travelling = None
    rules.attack = None
    rules.last_moved = last_moved
    player = state.active
    phase = state.phase
    turn, played, first = state.turn, state.actions_played, state.first
    draw, discard = state.draw, state.discard
    state.draw, state.discard = [], []
    state.turn, state.first = turn - 1, player
    flow = rules.run()
    decision = next(flow)
    state.draw, state.discard = draw, discard
    state.actions_played, state.first = played, first
    if phase == "stay_or_move":
        decision = flow.send({"do": "done"})
    else:
        decision.options[player] = rules.action_options(player)
    rules.log.clear()
    game.rules = rules
    game.decisions = []
    game._flow = flow
    game.picked = {}
    game.decision = decision
    return game
