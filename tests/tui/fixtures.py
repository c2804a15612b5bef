"""Stable game fixtures for the client's tests: seeded engine games driven to a chosen moment,
and the messages a server would send for them (the tests may import ``server``; the client not).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from protocol.view_types import View
from selfish_tui.app import SelfishApp
from selfish_tui.controllers.local_game import LocalGame, LocalPlan
from server.engine import Game

NAMES4 = ["Ann", "Bot 1", "Bot 2", "Bot 3"]
ROOM = "TEST"

Stop = Callable[[Game], bool]


def lobby_room(**fields: Any) -> dict[str, Any]:
    """One entry of a ``rooms`` message: a Space room waiting with one person and one bot of
    four seats, changed by ``fields``."""
    room: dict[str, Any] = {
        "room": "ABCD",
        "edition": "space",
        "size": 4,
        "filled": 2,
        "humans": 1,
        "bots": 1,
        "status": "waiting",
        "timer": 0,
        "variants": [],
        "host": "Ann",
        "spectators": 0,
    }
    return {**room, **fields}


def drive(game: Game, stop: Stop, *, seed: int = 1, limit: int = 5000) -> Game:
    """Play every seat at random (seeded) until ``stop(game)`` holds (or the game ends). Not
    the bots: a fixture must not move when a bot level learns to play better."""
    rng = random.Random(seed)
    for _ in range(limit):
        if game.over or stop(game):
            return game
        seat = game.pending_seats()[0]
        game.apply(seat, rng.choice(game.view(seat)["legal"]))
    raise AssertionError("the fixture game never reached the wanted moment")


def find_game(
    edition: str,
    stop: Stop | None,
    names: list[str] | None = None,
    seeds: range = range(1, 400),
    variants: tuple[str, ...] = (),
) -> Game:
    """The first seeded game (by seed order, so stable) that reaches ``stop`` before it ends;
    with ``stop=None``, the first game played to its end. ``variants``: RULES V ids."""
    for seed in seeds:
        game = drive(
            Game(edition, names or NAMES4, seed=seed, variants=variants),
            stop or (lambda g: False),
            seed=seed,
        )
        if stop is None or not game.over or stop(game):
            return game
    raise AssertionError("no seed reached the wanted moment")


def room_message(game: Game, seat: int | None = 0, status: str = "playing") -> dict[str, Any]:
    """A ``room`` message for a game where seat 0 is the human host and the rest are bots."""
    names = game.view(None)["names"]
    seats = []
    for index, name in enumerate(names):
        human = index == 0
        seats.append(
            {
                "seat": index,
                "name": name,
                "kind": "human" if human else "bot",
                "player": "p0" if human else None,
                "level": None if human else "basic",
                # As the server names the bots it seats ("Bot N"); a bot seat named otherwise
                # plays on for a human who left.
                "bot_number": index if not human and name == f"Bot {index}" else None,
                "connected": True,
                "away": False,
                "left": False,
            }
        )
    return {
        "type": "room",
        "room": ROOM,
        "edition": game.view(None)["edition"],
        "size": len(names),
        "public": False,
        "timer": 0,
        "left_grace": 60,
        "idle_grace": 180,
        "autostart": True,
        "variants": list(game.view(None)["variants"]),
        "host": "p0",
        "status": status,
        "game": 1,
        "seats": seats,
        "spectators": [],
    }


def feed_game(
    app: SelfishApp, game: Game, seat: int | None = 0, timers: dict[int, float] | None = None
) -> None:
    """Give the app what joining this game mid-way would: joined, room, events, state, timer."""
    edition = game.view(None)["edition"]
    app.feed(
        {
            "type": "joined",
            "room": ROOM,
            "role": "player" if seat is not None else "spectator",
            "seat": seat,
            "edition": edition,
        }
    )
    app.feed(room_message(game, seat, "over" if game.over else "playing"))
    app.feed(
        {
            "type": "events",
            "room": ROOM,
            "history": True,
            "events": [e.to_wire(seat) for e in game.log],
        }
    )
    app.feed(
        {"type": "state", "room": ROOM, "version": len(game.decisions) + 1, "view": game.view(seat)}
    )
    if timers:
        app.feed(
            {
                "type": "timer",
                "room": ROOM,
                "version": len(game.decisions) + 1,
                "timers": [{"seat": s, "seconds": t, "away": False} for s, t in timers.items()],
                "grace": [],
            }
        )
    if game.over:
        app.feed(
            {
                "type": "game_over",
                "room": ROOM,
                "game": 1,
                "winner": game.winner,
                "winner_name": None
                if game.winner is None
                else game.view(None)["names"][game.winner],
                "turns": game.turn,
                "ratings": [],
            }
        )


def typed(view: dict[str, Any]) -> View:
    """An engine's view as the client reads it off the wire."""
    return View.from_wire(view)


def offline_app() -> SelfishApp:
    """An app with no connection, as the player named 'You' who hosts the room."""
    app = SelfishApp(name="Ann")
    app.player_id = "p0"
    return app


def offline_local_app(plan: LocalPlan | None = None) -> SelfishApp:
    """An app for a local game (``plan``) with no connection, as once the embedded server has
    set it up: the rooms fed to it are shown."""
    game = LocalGame(plan or LocalPlan())
    game.started = True
    app = SelfishApp(game, name="Ann")
    app.player_id = "p0"
    return app


# --- the hostile table: five seats, the longest names, the longest hand ----------------------

#: Five names of 24 characters (the most a name may have): wide Chinese ones (48 cells), one
#: long word, words that a cut could split, and a server bot (said in the client's language).
LONG_NAMES = [
    "Maximilian Bartholomew X",
    "欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜",
    "Bot 1",
    "Wolfeschlegelsteinhausen",
    "司马相如司马相如司马相如司马相如司马相如司马相如",
]
#: Which of LONG_NAMES the server seated as its bots (seat: N of "Bot N"); the others are humans.
LONG_BOTS = {2: 1}


def big_hand(cards: int = 8) -> Callable[[Any], None]:
    """An ``arrange`` giving seat 0 ``cards`` more action cards, each of another kind (or, in
    Shipwrecked, another compass point) while there are: a hand of 13 or more."""

    def arrange(state: Any) -> None:
        seen: set[str] = set()
        for card in list(reversed(state.draw)):
            if len(seen) >= cards:
                break
            if card.is_action and card.sig not in seen:
                seen.add(card.sig)
                state.draw.remove(card)
                state.hands[0].append(card)

    return arrange


def hostile_game(edition: str, stop: Stop | None, seeds: range = range(1, 400)) -> Game:
    """The first seeded five-seat game with :data:`LONG_NAMES` and a big hand for seat 0 that
    reaches ``stop`` (with None: played to its end)."""
    for seed in seeds:
        game = drive(
            Game(edition, LONG_NAMES, seed=seed, arrange=big_hand()),
            stop or (lambda g: False),
            seed=seed,
        )
        if stop is None or (not game.over and stop(game)):
            return game
    raise AssertionError("no seed reached the wanted moment")


def hostile_room(game: Game, status: str = "playing") -> dict[str, Any]:
    """The ``room`` message of a hostile game: seat 0 hosts, LONG_BOTS are server bots, the
    rest are humans (one of them away, one disconnected)."""
    info = room_message(game, 0, status)
    for entry in info["seats"]:
        seat = entry["seat"]
        bot = seat in LONG_BOTS
        entry.update(
            kind="bot" if bot else "human",
            player=None if bot else f"p{seat}",
            level="basic" if bot else None,
            bot_number=LONG_BOTS.get(seat),
        )
    info["seats"][3].update(away=True)
    info["seats"][4].update(connected=False)
    return info


def feed_hostile(app: SelfishApp, game: Game) -> None:
    """:func:`feed_game` for a hostile game, with its room message."""
    feed_game(app, game, 0)
    app.feed(hostile_room(game, "over" if game.over else "playing"))
