"""The replay viewer: a finished game re-played by the engine, read from any seat's view or with
everything revealed, stepped by key, refused with a sentence when its record was changed; the
game-over screen's hands and numbers; `selfish replay FILE` offline."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static

from protocol import replay_file
from protocol.game_types import Card
from protocol.server_messages import GameOverMessage, read_server
from protocol.view_types import View
from selfish_tui import cli, i18n
from selfish_tui.event_text import card_display
from selfish_tui.plain import clean
from selfish_tui.replay import REVEALED, BadRecord, Replay, open_replay, read_file
from selfish_tui.replay_app import ReplayApp
from selfish_tui.replay_desk import export_here
from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.replay import ReplayScreen
from selfish_tui.summary import summarise
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.timeline import TurnTimeline, turn_marks
from server.engine import Game, replay
from tests.protocol.test_replay_file import exported, played

from .fixtures import ROOM, feed_game, find_game, offline_app
from .pilot import wait_for
from .records import file_text, record_of, replay_message

#: A name that would be markup and a colour change if it were not drawn as plain text (the
#: escape is cleaned away where the record is read; the brackets must show as they are).
HOSTILE = "[b]Bob[/b]\x1b[31m"
SHOWN = "[b]Bob[/b]"
NAMES = [HOSTILE, "Ann", "Bot 1"]


@pytest.fixture(scope="module")
def game() -> Game:
    return find_game("space", None, names=NAMES)


@pytest.fixture(scope="module")
def shipwrecked() -> Game:
    return find_game("shipwrecked", None, names=NAMES)


def watched(game: Game) -> Replay:
    return open_replay(record_of(game))


def rebuilt(game: Game, decisions: int) -> Game:
    """The game after ``decisions`` decisions, its names as the record is read (cleaned)."""
    names = [clean(name) for name in game.names]
    return replay(game.edition, names, game.seed, game.decisions[:decisions], game.variants)


# --- the model --------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["space", "shipwrecked"])
def test_each_frame_is_the_board_after_that_many_decisions(edition: str) -> None:
    game = find_game(edition, None, names=NAMES)
    seen = watched(game)
    assert seen.frames == len(game.decisions) + 1
    for index in (0, 1, len(game.decisions) // 2, len(game.decisions)):
        then = rebuilt(game, index)
        for seat in range(3):
            view = seen.view(index, seat)
            expected = View.from_wire(then.view(seat))
            assert view.own == expected.own
            assert view.public.players == expected.public.players
        revealed = seen.view(index, REVEALED)
        snapshot = then.snapshot()
        assert [[c.id for c in hand] for hand in seen.hands(index)] == snapshot["hands"]
        # The draw pile in the order it is drawn: the engine keeps its top last.
        assert [c.id for c in seen.draw_order(index)] == snapshot["draw"][::-1]
        assert revealed.own is None


def test_a_seat_reads_the_log_as_it_was_told(game: Game) -> None:
    seen = watched(game)
    mine = seen.events(0, seen.frames, 0)
    told = [(e.key, sorted(e.visible_args(0))) for e in game.log]
    assert [(e.key, sorted(e.args)) for e in mine] == told
    everything = seen.events(0, seen.frames, REVEALED)
    assert len(everything) == len(game.log)
    # Another seat's draws are whole only with everything revealed.
    other = [e for e in everything if e.key == "draw" and e.args["player"] == 1]
    assert other and all("card" in e.args for e in other)
    assert all("card" not in e.args for e in mine if e.key == "draw" and e.seat == 1)


def test_a_server_bots_name_is_said_in_the_clients_language(game: Game) -> None:
    """As the live game says it: "Bot 1" held by the server's bot is 电脑 1 in Chinese, in the
    names, the board and the log; a person's seat keeps its name, whatever it is."""
    seen = watched(game)
    person = open_replay(
        dataclasses.replace(
            seen.record,
            seats=[dataclasses.replace(seat, kind="human") for seat in seen.record.seats],
        )
    )
    i18n.set_language("zh")
    try:
        assert seen.names == [SHOWN, "Ann", "电脑 1"]
        assert seen.view(0, 0).public.names == (SHOWN, "Ann", "电脑 1")
        assert seen.view(0, REVEALED).public.players[2].name == "电脑 1"
        assert person.names == [SHOWN, "Ann", "Bot 1"]
    finally:
        i18n.set_language("en")
    assert seen.names == [SHOWN, "Ann", "Bot 1"]


def test_turns_begin_where_the_engine_began_them(game: Game) -> None:
    seen = watched(game)
    for turn, frame in seen.turn_starts.items():
        assert rebuilt(game, frame).turn == turn
        if frame:
            assert rebuilt(game, frame - 1).turn == turn - 1
    assert seen.frame_of_turn(10_000) == seen.turn_starts[max(seen.turn_starts)]


# --- a changed record is refused --------------------------------------------------------------


def changed(game: Game, **fields: Any) -> str:
    document = json.loads(file_text(game))
    document.update(fields)
    return json.dumps(document)


def test_a_changed_decision_is_refused_with_its_number(game: Game) -> None:
    document = json.loads(file_text(game))
    document["decisions"][3][1] = {"do": "play", "card": 999}
    with pytest.raises(BadRecord, match="decision 4"):
        open_replay(read_file(json.dumps(document)))


def test_a_changed_seed_is_refused(game: Game) -> None:
    with pytest.raises(BadRecord):
        open_replay(read_file(changed(game, seed=game.seed + 1)))


def test_a_changed_digest_is_refused(game: Game) -> None:
    with pytest.raises(BadRecord, match="changed"):
        open_replay(read_file(changed(game, digest="0" * 64)))


def test_a_record_cut_short_is_refused(game: Game) -> None:
    document = json.loads(file_text(game))
    document["decisions"] = document["decisions"][:-2]
    with pytest.raises(BadRecord, match="before the end"):
        open_replay(read_file(json.dumps(document)))


def test_a_changed_winner_is_refused(game: Game) -> None:
    others = [seat for seat in range(3) if seat != game.winner]
    with pytest.raises(BadRecord, match="winner"):
        open_replay(read_file(changed(game, result={"winner": others[0], "turns": game.turn})))


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "other"}', "\x00" * 10])
def test_what_is_not_a_replay_file_is_refused(text: str) -> None:
    with pytest.raises(BadRecord):
        read_file(text)


def test_names_are_cleaned_where_a_file_is_read(game: Game) -> None:
    record = read_file(file_text(game))
    assert record.names[0] == SHOWN


# --- the viewer by key -----------------------------------------------------------------------


def screen_text(app: Any) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def open_viewer(pilot: Any) -> ReplayScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


async def test_keys_step_turns_and_jump(game: Game) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_viewer(pilot)
        assert screen.index == 0 and screen.perspective == 0
        await pilot.press("right", "right")
        assert screen.index == 2
        await pilot.press("left")
        assert screen.index == 1
        await pilot.press("right_square_bracket")
        assert screen.index == seen.turn_starts[2]
        await pilot.press("right_square_bracket", "left_square_bracket")
        assert screen.index == seen.turn_starts[2]
        await pilot.press("end")
        assert screen.index == seen.last
        assert "wins" in str(screen.query_one("#replay-detail", Static).render()) or (
            "nobody" in str(screen.query_one("#replay-detail", Static).render())
        )
        await pilot.press("right")
        assert screen.index == seen.last  # the end stays the end
        await pilot.press("home")
        assert screen.index == 0
        await pilot.press("g")
        goto = screen.query_one("#replay-goto", Input)
        assert goto.display and goto.has_focus
        await pilot.press("5", "enter")
        assert screen.index == seen.turn_starts[5]
        assert not goto.display
        await pilot.press("g", "x", "escape")  # not a number: nothing moves
        assert screen.index == seen.turn_starts[5] and not goto.display


async def test_the_log_is_the_readers_up_to_the_frame(game: Game) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_viewer(pilot)
        log = screen.query_one("#replay-log", GameLog)
        for _ in range(12):
            await pilot.press("right")
        stepped = list(log.lines_text)
        assert len(stepped) == len(seen.events(0, 13, 0))
        await pilot.press("left", "right")  # drawn again from the start: the same lines
        assert log.lines_text == stepped
        assert any(SHOWN in line for line in stepped)
        assert SHOWN in screen_text(app)


async def test_views_change_by_key_and_reveal_all_is_one_key(game: Game) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=1)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_viewer(pilot)
        assert screen.perspective == 1  # the viewer's own seat first
        await pilot.press("a")
        assert screen.perspective is REVEALED
        text = screen_text(app)
        assert "Next to draw" in text
        await pilot.press("a")
        assert screen.perspective == 1
        await pilot.press("v")
        assert screen.perspective == 2
        await pilot.press("v")
        assert screen.perspective is REVEALED
        await pilot.press("v")
        assert screen.perspective == 0
        await pilot.press("3")
        assert screen.perspective == 2
        await pilot.press("5")  # no fifth seat: nothing changes
        assert screen.perspective == 2


async def test_the_timeline_gives_nothing_away_before_reveal(game: Game) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_viewer(pilot)
        timeline = screen.query_one("#replay-timeline", TurnTimeline)

        def lines() -> list[str]:
            return [
                str(timeline.get_option_at_index(i).prompt) for i in range(timeline.option_count)
            ]

        assert not any(mark in "".join(lines()) for mark in "✝★")
        await pilot.press("a")
        assert any("✝" in line or "★" in line for line in lines())
        await pilot.press("a", "end")
        assert any("✝" in line or "★" in line for line in lines())


async def test_the_timelines_marks_come_with_what_has_happened(game: Game) -> None:
    """From a seat's view a turn's line shows its marks only once they have happened: the
    turns before the one on the board whole, that one as far as the frame shown (a death or a
    swap still to come in it is not given away); stepping back takes them away again."""
    seen = watched(game)
    marks = {turn: found for turn, _, _, found in ReplayScreen(seen)._turns}
    marked = [turn for turn, found in marks.items() if found]
    assert marked, "the game's deaths or win mark some turn"
    app = ReplayApp(seen, seat=0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_viewer(pilot)
        timeline = screen.query_one("#replay-timeline", TurnTimeline)
        order = sorted(seen.turn_starts)

        def shown(turn: int) -> str:
            line = str(timeline.get_option_at_index(order.index(turn)).prompt)
            return "".join(mark for mark in "✝★▲⇄" if mark in line)

        target = marked[0]
        screen.go(seen.turn_starts[target])
        ends = [seen.turn_starts[t] for t in order if t > target] or [seen.last + 1]
        for index in range(seen.turn_starts[target], ends[0]):
            screen.go(index)
            await pilot.pause()
            assert all(shown(t) == marks[t] for t in order if t < target)
            assert all(shown(t) == "" for t in order if t > target)
            told = seen.events(seen.turn_starts[target], index + 1, REVEALED)
            assert shown(target) == turn_marks(told[[e.key for e in told].index("turn") :])
        screen.go(ends[0])  # the next turn's first frame: the last decision's marks too
        await pilot.pause()
        assert shown(target) == marks[target]
        screen.go(0)
        await pilot.pause()
        assert all(shown(t) == "" for t in order if t > seen.turn_of[0])


async def test_a_bot_seat_is_named_with_its_level(game: Game) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_viewer(pilot)
        assert "Bot 1  bot (basic)" in screen_text(app)  # the hand's heading, its seat's view
        await pilot.press("a")
        assert "Ann  bot (basic)" in screen_text(app)  # every bot seat, all revealed


async def test_export_key_writes_a_file_that_reads_back(game: Game, tmp_path: Path) -> None:
    seen = watched(game)
    app = ReplayApp(seen, seat=0, on_export=lambda r: export_here(r, tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_viewer(pilot)
        await pilot.press("e")
        await pilot.pause()
    written = tmp_path / "selfish-game-12.json"
    again = open_replay(read_file(written.read_text(encoding="utf-8")))
    assert again.final == seen.final
    assert again.record.names == seen.record.names


async def test_without_an_export_place_the_key_says_how(game: Game) -> None:
    app = ReplayApp(watched(game), seat=0, on_export=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_viewer(pilot)
        await pilot.press("e")
        await pilot.pause()
        # The command to type, with this game's number, whole on the screen (a toast cut it
        # where it wrapped).
        assert any("selfish export 12 --server" in note.message for note in app._notifications)
        await pilot.pause(0.1)
        shown = screen_text(app)
        assert "selfish export 12 --server" in shown and "HOST[:PORT]" in shown


async def test_closing_the_viewer_quits_its_app(game: Game) -> None:
    app = ReplayApp(watched(game), seat=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_viewer(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


# --- the game-over screen ---------------------------------------------------------------------


def test_summary_counts_every_loss_and_its_cause(game: Game) -> None:
    seen = watched(game)
    events = seen.events(0, seen.frames, REVEALED)
    numbers = summarise(events, 3, seen.cards)
    for seat, summary in enumerate(numbers):
        played = [e for e in events if e.key in ("play", "play.on") and e.args["player"] == seat]
        assert summary.played == len(played)

        def value(card: object) -> int:
            assert isinstance(card, Card)
            return seen.cards[card.id].value

        paid = sum(
            value(c)
            for e in events
            if e.key == "pay" and e.args["player"] == seat
            for c in e.args["cards"]  # type: ignore[union-attr]
        )
        stolen = sum(
            value(c)
            for e in events
            if e.key == "steal" and e.args["victim"] == seat
            for c in e.args["cards"]  # type: ignore[union-attr]
        )
        assert sum(summary.lost.values()) >= paid + stolen
        dead = [e for e in events if e.key.startswith("death.") and e.args["player"] == seat]
        assert (summary.died is not None) == bool(dead)
    assert numbers[game.winner].won if game.winner is not None else True


async def test_game_over_shows_every_hand_once_the_record_arrives(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()
        over = app.screen
        before = str(over.query_one("#gameover-text", Static).render())
        assert "unseen" in before  # the others' hands are not known yet
        app.feed(replay_message(game, number=1))
        await pilot.pause()
        after = str(over.query_one("#gameover-text", Static).render())
        assert "unseen" not in after
        assert SHOWN in after
        hands = app.rooms[ROOM].replay.hands(app.rooms[ROOM].replay.last)
        named = [card for hand in hands for card in hand]
        assert all(card_display(card) in after or "more" in after for card in named[:2])
        await pilot.press("w")
        screen = await open_viewer(pilot)
        assert screen.perspective == 0 and screen.index == 0


async def test_a_tampered_record_from_the_server_is_said_not_shown(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        message = replay_message(game, number=1)
        message["seed"] += 1
        app.replays.fetch(1, "watch", ROOM)
        app.feed(message)
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        assert app.rooms[ROOM].replay is None
        assert any("Cannot show that game" in note.message for note in app._notifications)


# --- selfish replay FILE ----------------------------------------------------------------------


def test_replay_file_that_was_changed_exits_with_the_reason(
    game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(changed(game, digest="f" * 64), encoding="utf-8")
    assert cli.main(["replay", str(path)]) == 1
    assert "changed" in capsys.readouterr().err


def test_replay_of_a_missing_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["replay", str(tmp_path / "none.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_replay_file_opens_the_viewer_at_the_turn_asked(
    game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    path.write_text(file_text(game), encoding="utf-8")
    opened: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(self))
    assert cli.main(["replay", str(path), "--turn", "4", "--seat", "2"]) == 0
    (app,) = opened
    assert app.turn == 4 and app.seat == 1
    assert app.replay.record.names[0] == SHOWN
    assert cli.main(["replay", str(path), "--seat", "4"]) == 2  # three seats only


@settings(max_examples=15, deadline=None)
@given(
    edition=st.sampled_from(["space", "shipwrecked"]),
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**63 - 1),
    moves=st.integers(0, 2**32),
)
def test_a_file_exported_and_opened_by_the_client_replays_to_the_same_end(
    edition: str, seats: int, seed: int, moves: int
) -> None:
    """What `selfish replay FILE` does with any finished game's export: the client reads the
    file, re-plays it (checked against its digest) and ends in the game's own final state."""
    game = played(edition, seats, seed, moves)
    seen = open_replay(read_file(replay_file.write(exported(game))))
    assert seen.final == game.snapshot()
    assert (seen.winner, seen.frames) == (game.winner, len(game.decisions) + 1)


def test_export_file_is_the_documented_format(game: Game) -> None:
    record = record_of(game)
    document = json.loads(replay_file.write(record))
    assert document["format"] == "selfish-replay"
    assert [s["name"] for s in document["seats"]] == [SHOWN, "Ann", "Bot 1"]
    assert dataclasses.replace(read_file(json.dumps(document)), server=record.server) == record


async def test_game_over_shows_each_rated_seats_move(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        before = {"rating": 1000, "mu": 25.0, "sigma": 8.3, "provisional": True}
        after = {"rating": 1012, "mu": 25.3, "sigma": 7.9, "provisional": True}
        ratings = [{"seat": 0, "player": "p0", "rank": 2, "before": before, "after": after}]
        over = app.rooms[ROOM].game_over
        assert over is not None
        wire = {**over.to_wire(), "ratings": ratings}
        typed = read_server(wire)
        assert isinstance(typed, GameOverMessage)
        app.rooms[ROOM].game_over = typed
        await pilot.pause()
        app.screen.refresh_summary()
        await pilot.pause()
        text = str(app.screen.query_one("#gameover-text", Static).render())
        # On a line of its own, whole (at the end of the fate's it wrapped at 80 columns).
        assert "\n  rating 1000? → 1012?\n" in text
        # The bots as the waiting room names them: their name and level.
        assert "Bot 1 bot (basic)" in text and "Ann bot (basic)" in text
        assert f"{SHOWN} bot" not in text  # the human seat is no bot


async def test_closing_the_viewer_opened_from_the_game_over_gives_the_dialog_back(
    game: Game,
) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        app.feed(replay_message(game, number=1))
        await pilot.pause()
        await pilot.press("w")
        await open_viewer(pilot)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        assert app.screen.room is app.rooms[ROOM]
