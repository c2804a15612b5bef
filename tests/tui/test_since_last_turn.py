"""When our turn begins, what each other player did since our last one."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from protocol.game_types import Event
from protocol.view_types import View
from protocol.vocabulary import EVENTS
from selfish_tui.app import SelfishApp
from selfish_tui.since import SinceLastTurn, summary_lines
from selfish_tui.widgets.log import GameLog
from server.engine import Game
from server.engine.cards import CATALOGUE

from .fixtures import NAMES4, ROOM, feed_game, offline_app, typed
from .pilot import wait_for

NAMES = {
    edition: {k: str(v["name"]) for k, v in CATALOGUE[edition].items()} for edition in CATALOGUE
}


class Table:
    """An engine game told to the app message by message, as the server tells it."""

    def __init__(self, app: SelfishApp, game: Game) -> None:
        self.app = app
        self.game = game
        self.told = len(game.log)
        self.rng = random.Random(4)

    def step(self) -> None:
        """One decision by whoever must decide (seeded random for every seat: not the bots,
        whose play changes as they improve), then its events and the new state."""
        seat = self.game.pending_seats()[0]
        self.game.apply(seat, self.rng.choice(self.game.view(seat)["legal"]))
        events = [e.to_wire(0) for e in self.game.log[self.told :]]
        self.told = len(self.game.log)
        wire = [e for e in events if e is not None]
        if wire:
            self.app.feed({"type": "events", "room": ROOM, "history": False, "events": wire})
        version = len(self.game.decisions) + 1
        self.app.feed(
            {"type": "state", "room": ROOM, "version": version, "view": self.game.view(0)}
        )

    def until_our_turn(self) -> None:
        """Play on to the first decision of seat 0's next turn."""
        turn = self.game.turn
        while (
            self.game.turn == turn
            or self.game.pending_seats()[0] != 0
            or self.game.view(0)["active"] != 0
        ):
            self.step()


def at_our_first_turn(edition: str, seed: int, turns: int = 2) -> Game:
    """A game at its start, seat 0 (ours) to play first, that lasts ``turns`` more turns of
    ours when :class:`Table` plays it (found by playing it once without an app)."""
    for attempt in range(seed, seed + 200):
        game = Game(edition, NAMES4, seed=attempt)
        if game.view(0)["active"] != 0 or game.pending_seats() != [0]:
            continue
        rng = random.Random(4)
        ours = 0
        turn = game.turn
        while not game.over and ours < turns:
            seat = game.pending_seats()[0]
            game.apply(seat, rng.choice(game.view(seat)["legal"]))
            view = game.view(0)
            if not game.over and game.turn != turn and view["active"] == 0 and view["legal"]:
                ours, turn = ours + 1, game.turn
        if ours == turns:
            return Game(edition, NAMES4, seed=attempt)
    raise AssertionError("no game where seat 0 begins and plays on")


async def test_our_turn_begins_with_what_each_other_player_did() -> None:
    game = at_our_first_turn("space", 20)
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        table = Table(app, game)
        log = app.screen.query_one(GameLog)
        table.until_our_turn()  # our first turn, then three bots' turns: dozens of lines
        await pilot.pause()
        heading = "Since your last turn"
        assert heading in log.lines_text
        block = log.lines_text[log.lines_text.index(heading) + 1 :]
        assert [line.split(":")[0] for line in block][:3] == ["Bot 1", "Bot 2", "Bot 3"]
        for line in block:
            assert ": " in line and ("row" in line or "lost" in line or " on " in line)
        rows = {p["seat"]: p["row"] for p in game.view(0)["players"]}
        for seat, line in zip((1, 2, 3), block, strict=False):
            if "row" in line:  # where the bot went, from the row after our turn to now
                assert f"row {rows[seat]}" in line or f"→ {rows[seat]}" in line
        # The block's heading is in view (the log does not scroll it away), in reversed bold.
        await wait_for(
            pilot, lambda: heading in "".join(s.text for s in log.lines[: len(log.lines)])
        )
        top = int(log.scroll_y)
        shown = [log.lines[y].text for y in range(top, min(len(log.lines), top + log.size.height))]
        assert any(heading in line for line in shown)

        # The next turn of ours tells only what happened since this one.
        count = log.lines_text.count(heading)
        table.until_our_turn()
        await pilot.pause()
        assert log.lines_text.count(heading) == count + 1


def view_with(names: list[str], rows: list[int]) -> View:
    """A seat 0's view of a Space game whose players stand on ``rows``."""
    game = Game("space", names, seed=1)
    view = typed(game.view(0))
    players = tuple(replace(p, row=row) for p, row in zip(view.public.players, rows, strict=True))
    return replace(view, public=replace(view.public, players=players))


def event(key: str, **args: Any) -> Event:
    """An event as the wire has it."""
    return Event.from_wire({"kind": EVENTS[key].kind, "key": key, "seat": None, "args": args})


def test_plays_blocks_losses_and_rows_are_worded_per_player() -> None:
    view = view_with(["Ann", "Bot 1", "Bot 2", "Bot 3"], [3, 1, 2, 0])

    def card(key: str) -> dict[str, Any]:
        return {"id": 1, "key": key, "kind": "action", "value": 0, "dir": None}

    events: list[Event] = [
        event("turn", **{"turn": 5, "player": 1}),
        event("play.on", **{"player": 1, "card": card("laser_blast"), "target": 0}),
        event("react", **{"player": 0}),
        event("back", **{"player": 0, "row": 3}),
        event("play.on", **{"player": 1, "card": card("laser_blast"), "target": 0}),
        event("react", **{"player": 0}),
        event("play.on", **{"player": 1, "card": card("tractor_beam"), "target": 2}),
        event("react.block", **{"player": 2, "card": card("shield")}),
        event("move", **{"player": 1, "row": 1}),
        event("turn", **{"turn": 6, "player": 2}),
        event("play.on", **{"player": 2, "card": card("tractor_beam"), "target": 3}),
        event("react", **{"player": 3}),
        event("play", **{"player": 2, "card": card("tether")}),
        event("play.on", **{"player": 2, "card": card("tractor_beam"), "target": 0}),
        event("react.block", **{"player": 0, "card": card("shield")}),
        event("play", **{"player": 2, "card": card("tether")}),
        event("stay", **{"player": 2}),
        event("pay", **{"player": 2, "cards": [card("oxygen")], "reason": "stay"}),  # price
        event("turn", **{"turn": 7, "player": 3}),
        event("play.on", **{"player": 3, "card": card("hole_in_suit"), "target": 0}),
        event("pay", **{"player": 0, "cards": [card("oxygen")], "reason": "hole_in_suit"}),
        event("death.oxygen", **{"player": 3, "cards": []}),
    ]
    lines = summary_lines(events, view, {0: 5, 1: 0, 2: 2, 3: 0})
    assert lines == [
        "Bot 1: Laser Blast on you ×2; Tractor Beam on Bot 2 (blocked); row 0 → 1",  # noqa: RUF001
        "Bot 2: Tractor Beam on Bot 3, you (blocked); Tether ×2; stayed on row 2",  # noqa: RUF001
        "Bot 3: Hole in Suit on you; died",
        "You: row 5 → 3; lost 1 card",
    ]
    assert summary_lines(events[:1], view, None) == []


def test_the_span_runs_from_the_end_of_our_turn_to_the_start_of_the_next() -> None:
    since = SinceLastTurn(seat=0)
    view = view_with(["Ann", "Bot 1"], [1, 0])
    since.add([event("turn", **{"turn": 1, "player": 0}), event("stay", **{"player": 0})])
    since.add([event("turn", **{"turn": 2, "player": 1})])
    since.saw(view)  # the rows our turn ended with
    since.add([event("move", **{"player": 1, "row": 2})])
    since.add([event("turn", **{"turn": 3, "player": 0}), event("draw", **{"player": 0})])
    now = view_with(["Ann", "Bot 1"], [1, 2])
    assert since.take(now) == ["Bot 1: row 0 → 2"]  # not our own stay of turn 1
    assert since.take(now) == []
