"""Stacked-deck scenarios: a game set up with chosen hands, piles, board and positions.

Card specs are a key (``"laser_blast"``) or a (key, direction) pair (``("food", "N")``).
Piles are given top first: ``draw[0]`` is the card drawn in the first player's phase 1.
Every card not placed explicitly goes under the given draw cards (in deck order), so card
conservation holds and invariants can be checked on scenarios too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from server.engine import Edition, Event, Game, check_invariants
from server.engine.cards import GAME_DECKS, LOCATION_DECKS, Card, Location
from server.engine.state import State

Spec = str | tuple[str, str]
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]


class _Pool:
    def __init__(self, edition: Edition) -> None:
        self.cards: list[Card] = list(GAME_DECKS[edition])

    def take(self, spec: Spec) -> Card:
        key, direction = (spec, None) if isinstance(spec, str) else spec
        for index, card in enumerate(self.cards):
            if card.key == key and (direction is None or card.dir == direction):
                return self.cards.pop(index)
        raise LookupError(f"no {spec} left in the deck")


class _LocPool:
    def __init__(self, edition: Edition) -> None:
        self.cards: list[Location] = list(LOCATION_DECKS[edition])

    def take(self, spec: str | tuple[str, bool]) -> Location:
        key, shark = (spec, None) if isinstance(spec, str) else spec
        for index, loc in enumerate(self.cards):
            if loc.key == key and (shark is None or loc.shark == shark):
                return self.cards.pop(index)
        raise LookupError(f"no {spec} left in the location deck")


def build(
    edition: str = "space",
    players: int = 3,
    hands: dict[int, Sequence[Spec]] | None = None,
    draw: Sequence[Spec] = (),
    discard: Sequence[Spec] = (),
    locations: Sequence[str | tuple[str, bool]] = (),
    rows: dict[int, int] | None = None,
    cols: dict[int, int] | None = None,
    board: dict[tuple[int, int], str | tuple[str, bool]] | None = None,
    sharks: Iterable[tuple[int, int]] = (),
    goal_row: int = 6,
    first: int = 0,
    dead: Iterable[int] = (),
    empty_draw: bool = False,
    seed: int = 0,
    variants: Sequence[str] = (),
) -> Game:
    """A game whose first turn (``first``'s) starts from exactly the state described.

    Seats not in ``hands`` hold nothing. With ``empty_draw`` the unplaced cards go to the
    discard pile (under ``discard``) instead of the draw pile.
    """
    ed = Edition(edition)
    hands = hands or {}

    def arrange(s: State) -> None:
        pool = _Pool(ed)
        s.hands = [[pool.take(spec) for spec in hands.get(seat, ())] for seat in range(players)]
        top = [pool.take(spec) for spec in draw]
        shown = [pool.take(spec) for spec in discard]
        rest = pool.cards
        if empty_draw:
            s.draw = list(reversed(top))
            s.discard = rest + list(reversed(shown))
        else:
            s.draw = rest + list(reversed(top))
            s.discard = list(reversed(shown))
        locs = _LocPool(ed)
        s.board = {cell: locs.take(spec) for cell, spec in (board or {}).items()}
        loc_top = [locs.take(spec) for spec in locations]
        s.loc_draw = locs.cards + list(reversed(loc_top))
        s.loc_discard = []
        for seat, row in (rows or {}).items():
            s.rows[seat] = row
        for seat, col in (cols or {}).items():
            s.cols[seat] = col
        s.sharks = list(sharks)
        s.goal_row = goal_row
        for seat in dead:
            s.alive[seat] = False
        s.first = s.active = first

    return Game(ed, NAMES[:players], seed, arrange, variants)


def play(game: Game, *choices: dict[str, Any] | str, seat: int | None = None) -> None:
    """Apply choices in order, each by the (single) pending seat unless ``seat`` is given.

    A string is shorthand for ``{"do": <string>}``. Invariants are checked after each step.
    """
    for choice in choices:
        wanted = {"do": choice} if isinstance(choice, str) else choice
        who = seat if seat is not None else only_pending(game)
        game.apply(who, wanted)
        assert check_invariants(game) == []


def only_pending(game: Game) -> int:
    """The one seat that must decide now."""
    seats = game.pending_seats()
    assert len(seats) == 1, f"expected one pending seat, got {seats}"
    return seats[0]


def card_id(game: Game, seat: int, key: str, direction: str | None = None) -> int:
    """The id of a card of this key (and direction) in a seat's hand."""
    for card in game.rules.state.hands[seat]:
        if card.key == key and (direction is None or card.dir == direction):
            return card.id
    raise LookupError(f"seat {seat} holds no {key}")


def keys(cards: Iterable[Card]) -> list[str]:
    """Card keys, for readable assertions."""
    return [card.key for card in cards]


def hand(game: Game, seat: int) -> list[str]:
    """A seat's hand as sorted keys."""
    return sorted(keys(game.rules.state.hands[seat]))


def plain(value: Any) -> Any:
    """An event argument made easy to compare: a card as its key (with its direction, when it
    has one: ``"food:S"``), a location card as its key, cards as a list of those."""
    if isinstance(value, Card):
        return value.key if value.dir is None else f"{value.key}:{value.dir}"
    if isinstance(value, Location):
        return value.key
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


Said = tuple[str, dict[str, Any]]


def said(game: Game, seat: int | None = None) -> list[Said]:
    """The log as ``seat`` sees it (None: a spectator): each event's key and its visible args,
    made :func:`plain`."""
    return [
        (e.key, {name: plain(value) for name, value in e.visible_args(seat).items()})
        for e in game.log
    ]


def seen(event: Event, seat: int | None) -> dict[str, Any]:
    """One event's args as ``seat`` (None: a spectator) sees them, made :func:`plain`."""
    return {name: plain(value) for name, value in event.visible_args(seat).items()}


def mentions(game: Game, seat: int | None, card: str) -> bool:
    """Whether ``seat`` sees an event that shows ``card`` (a :func:`plain` card)."""
    for _, args in said(game, seat):
        for value in args.values():
            if value == card or (isinstance(value, list) and card in value):
                return True
    return False


def unredacted(game: Game) -> list[Said]:
    """The whole log, every arg of every event."""
    return [(e.key, {name: plain(value) for name, value in e.args.items()}) for e in game.log]


# ---------------------------------------------------------------------- reading a scenario
def s_of(game: Game) -> State:
    """The game's secret state (tests only)."""
    return game.rules.state


def pos(game: Game, seat: int) -> tuple[int, int]:
    """Where a seat's character stands."""
    return s_of(game).pos(seat)


def units(game: Game, seat: int) -> int:
    """A seat's resource units."""
    return s_of(game).units(seat)


def plays(game: Game, seat: int) -> list[dict[str, Any]]:
    """The seat's legal 'play' choices."""
    return [c for c in game.legal(seat) if c["do"] == "play"]


def do_play(game: Game, seat: int, key: str, target: int | None = None) -> None:
    """Play the seat's card of this key (on ``target``), checking invariants."""
    choice: dict[str, Any] = {"do": "play", "card": card_id(game, seat, key)}
    if target is not None:
        choice["target"] = target
    play(game, choice)


def kinds(game: Game) -> list[str]:
    """Pending decision kinds, as the public view shows them."""
    return [p["kind"] for p in game.view(None)["pending"]]


def discard_keys(game: Game) -> list[str]:
    """Keys of the game discard pile, bottom to top."""
    return [c.key for c in s_of(game).discard]


def castaway_with_three_food() -> Game:
    """Shipwrecked, two seats: Ann at stay-or-move on row 0 with three single food (two held,
    one drawn), where a patient castaway stays and a racing one moves."""
    game = build(
        "shipwrecked",
        2,
        hands={0: ["food", "food"], 1: ["food"]},
        locations=["calm_waters"],
        draw=["food"],
    )
    game.apply(0, {"do": "done"})
    return game
