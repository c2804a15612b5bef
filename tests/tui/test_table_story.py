"""Readable without colour, a status line that fits, toasts
that leave the status line alone, an unreachable server said so, and the small words."""

from __future__ import annotations

import socket

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Checkbox, Static
from textual.widgets._toast import Toast

from selfish_tui import cli
from selfish_tui.app import LocalPlan, SelfishApp
from selfish_tui.model import SEAT_COLOURS
from selfish_tui.screens.lobby import CreateRoomScreen
from selfish_tui.screens.table import TableScreen
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.status import StatusLine
from selfish_tui.widgets.strips import StripsBoard
from server.engine import Game

from .fixtures import NAMES4, ROOM, drive, feed_game, find_game, offline_app
from .pilot import wait_for
from .test_snapshots import deciding


def test_no_color_drops_the_seat_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    board = StripsBoard()

    def seat_coloured(text: Text) -> bool:
        return any(c in str(span.style) for span in text.spans for c in SEAT_COLOURS)

    assert seat_coloured(board._draw(game.view(0), 60))
    monkeypatch.setenv("NO_COLOR", "1")
    plain = board._draw(game.view(0), 60)
    # Textual turns colours into greys under NO_COLOR, and some seats' greys are unreadable on
    # black: names keep bold and reverse, never a seat colour.
    assert not seat_coloured(plain)
    assert any("reverse" in str(span.style) for span in plain.spans)


async def test_the_private_checkbox_says_its_state_in_words() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateRoomScreen))
        box = app.screen.query_one("#new-private", Checkbox)
        assert "Private: no" in str(box.label)
        off = box._button.plain
        box.toggle()
        await pilot.pause()
        assert "Private: yes" in str(box.label)
        # The mark itself differs, not only its colour: ✓ for yes, blank for no.
        assert box._button.plain != off and "✓" in box._button.plain and "✓" not in off


async def test_the_status_line_fits_80_columns_with_the_countdown_first() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        status = table.query_one(StatusLine)
        view = dict(game.view(0))
        view["active"], view["legal"], view["decision"] = 1, [], None
        view["phase"] = "actions"
        view["pending"] = [{"seat": 1, "kind": "actions", "done": False}]
        status.update_view(view, "ABCD", 25.0)
        line = status.summary().plain
        assert line.startswith("25s left · ")
        assert line.endswith("Bot 1's turn · play or pass")
        assert cell_len(line) <= 78  # 80 columns less the padding
        view["pending"] = [{"seat": 2, "kind": "react", "done": False}]
        status.update_view(view, "ABCD", 25.0)
        line = status.summary().plain
        assert line.endswith("Bot 1's turn · waiting for Bot 2 to react")
        assert cell_len(line) <= 78


async def test_toasts_never_cover_the_status_line_or_the_countdown() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        feed_game(app, game, 0, {0: 30.0})
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        for n in range(3):
            app.notify(f"Something happened, number {n}, with a long enough text to wrap.")
        await wait_for(pilot, lambda: len(table.query(Toast)) == 3)
        await pilot.pause()  # laid out
        toasts = list(table.query(Toast))
        status = table.query_one(StatusLine).region
        countdown = table.query_one("#prompt-question").region
        for toast in toasts:
            assert not toast.region.overlaps(status)
            assert not toast.region.overlaps(countdown)


async def test_an_unreachable_server_says_so_at_once_and_r_retries() -> None:
    """A refused address (real TCP: a closed port) is said on the first
    failure, and the client waits for r (or ctrl+q) instead of trying in silence."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    app = SelfishApp("127.0.0.1", port, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "refused" in app.lobby.status_text, timeout=10)
        status = app.lobby.status_text
        assert status == (
            f"cannot reach 127.0.0.1:{port}: connection refused — r tries again, ctrl+q quits"
        )
        hint = str(app.lobby.query_one("#lobby-hint").render())
        assert "No public rooms" not in hint and "r retries now" in hint
        assert app.client is not None
        await pilot.pause(1.0)  # longer than the first backoff: no attempt by itself
        assert app.client.attempts == 1 and app.lobby.status_text == status
        await pilot.press("r")  # the next attempt starts (and fails) at once
        await wait_for(pilot, lambda: app.client is not None and app.client.attempts == 2)
        await wait_for(pilot, lambda: app.lobby.status_text == status, timeout=5)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, timeout=5)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"selfish {cli.version()}")


async def test_local_play_footer_says_quit_and_one_card_is_singular() -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = SelfishApp(name="Ann", plan=LocalPlan())
    app.player_id = "p0"
    app._plan_done = True  # as once the embedded server has set the game up
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        bindings = {b.binding.description for k, b in app.active_bindings.items() if k == "q"}
        assert bindings == {"Quit"}
        view = dict(game.view(0))
        view["hand"] = view["hand"][:1]
        app.feed({"type": "state", "room": ROOM, "version": 77, "view": view})
        await pilot.pause()
        assert str(app.screen.query_one(HandPanel).border_subtitle).endswith("· 1 card")
    online = offline_app()
    async with online.run_test(size=(80, 24)) as pilot:
        feed_game(online, game, 0)
        await pilot.pause()
        bindings = {b.binding.description for k, b in online.active_bindings.items() if k == "q"}
        assert bindings == {"Leave"}


async def test_after_a_reconnect_chat_is_kept_and_the_log_shows_the_newest_line() -> None:
    """While we were away the game went on and our hand grew. The server
    replays the history, and the state comes after a refresh (another read): the taller hand
    takes rows from the log, which must still end on its newest line, with the chat line where
    it was said."""
    from selfish_tui.messages import ConnectionLost, Welcomed
    from selfish_tui.widgets.log import GameLog

    later = find_game("space", lambda g: len(g.view(0)["hand"]) >= 11 and 0 in g.pending_seats())
    earlier = drive(Game("space", NAMES4, seed=later.seed), lambda g: g.turn >= 3, seed=later.seed)
    assert len(earlier.view(0)["hand"]) <= 9 < len(earlier.log) < len(later.log)
    app = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        feed_game(app, earlier, 0)
        app.feed({"type": "chat", "room": ROOM, "seat": 1, "name": "Bot 1", "text": "gl hf"})
        await pilot.pause()
        table = app.screen
        log = table.query_one(GameLog)
        log.scroll_home(animate=False)  # the player reads back when the connection drops
        app.on_connection_lost(ConnectionLost("the server closed the connection", 0.5))
        await pilot.pause()
        app.on_welcomed(Welcomed("p0", "t", "Srv", resumed=True))
        history = [e for e in (e.as_dict(0) for e in later.log) if e is not None]
        app.feed({"type": "events", "room": ROOM, "history": True, "events": history})
        await pilot.pause()
        app.feed({"type": "state", "room": ROOM, "version": 99, "view": later.view(0)})
        await pilot.pause()
        assert app.screen is table
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
        shown = "".join(
            log.render_line(y).text for y in range(log.scrollable_content_region.height)
        )
        assert history[-1]["text"].replace(" ", "") in shown.replace(" ", "")
        # Every line once, the chat line after the line it followed when it was said.
        texts = log.lines_text
        said_after = [e for e in (e.as_dict(0) for e in earlier.log) if e is not None][-1]["text"]
        assert texts.count("» Bot 1: gl hf") == 1 and len(texts) == len(history) + 1
        assert texts[texts.index("» Bot 1: gl hf") - 1].endswith(said_after)


async def test_help_opens_from_the_game_over_dialog_and_is_kept() -> None:
    """Help opens from the game-over dialog, escape goes back to the dialog, and the help
    screen is built once and kept for the next press."""
    from selfish_tui.screens.gameover import GameOverScreen
    from selfish_tui.screens.help import HelpScreen

    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, find_game("space", None), 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        first = app.screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert app.screen is first  # built once, not again on every press


def test_chat_goes_back_after_the_line_it_followed_when_only_the_latest_lines_are_replayed() -> (
    None
):
    """The replay may start late (the server sends its latest lines) or be
    another game's (a rematch); chat is kept in both."""
    from selfish_tui.state import LogEntry, with_chat

    lines = [LogEntry("info", f"line {n}") for n in range(6)]
    hi, gg = LogEntry("chat", "hi", "Ann"), LogEntry("chat", "gg", "Bob")
    log = [lines[0], hi, *lines[1:4], gg, lines[4]]
    assert with_chat(log, lines) == [lines[0], hi, *lines[1:4], gg, *lines[4:]]
    # Only the latest lines: hi was said before them, gg after line 3.
    assert with_chat(log, lines[2:]) == [hi, lines[2], lines[3], gg, *lines[4:]]
    fresh = [LogEntry("info", "a new game")]
    assert with_chat(log, fresh) == [hi, gg, *fresh]
    assert with_chat([hi], []) == [hi]


@pytest.mark.parametrize("start", ["table", "game over"])
async def test_help_opens_without_rendering_the_rules_on_the_key_press(
    start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendering the rules took 0.2-0.3 s of CPU on every first ``?`` (and
    twice: to measure and to paint). They are rendered while the table shows, and the key only
    paints the lines in view. bench/help.py prints the time from key to frame."""
    from rich.markdown import Markdown

    from selfish_tui.screens import help as help_screen
    from selfish_tui.screens.gameover import GameOverScreen

    help_screen._render.cache_clear()
    game = find_game("space", None if start == "game over" else deciding("actions", "space"))
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: help_screen._render.cache_info().currsize == 1)
        if start == "game over":
            assert isinstance(app.screen, GameOverScreen)
        rendered: list[object] = []
        original = Markdown.__rich_console__

        def counted(self: Markdown, console: object, options: object) -> object:
            rendered.append(self)
            return original(self, console, options)  # type: ignore[arg-type]

        monkeypatch.setattr(Markdown, "__rich_console__", counted)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, help_screen.HelpScreen))
        await pilot.pause()
        assert rendered == []
        text = app.screen.query_one(help_screen.HelpText)
        assert "Selfish — help (Space Edition)" in text.render_line(0).text
        await pilot.press("end")  # the last lines are there too, drawn from the same lines
        await pilot.pause()
        assert text.scroll_y == text.max_scroll_y > 300
        assert rendered == []


async def test_a_sent_choice_is_not_left_under_your_move_new(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found playing in tmux: after a key, 'Your move · new' stayed over 'Sent. Waiting for the
    server…' for the rest of the mark's 1.5 s (the prompt says whom we wait
    for)."""
    from selfish_tui.widgets.prompt import PromptPanel

    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    monkeypatch.setattr(app, "act", lambda room, choice: True)
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        assert str(prompt.border_title).startswith("Your move")
        await pilot.press("e")
        await pilot.pause()
        assert str(prompt.border_title) == "Waiting"
        assert not prompt.has_class("fresh")


@pytest.mark.parametrize("local", [True, False])
async def test_the_game_over_dialog_shows_its_own_keys_in_the_footer(local: bool) -> None:
    """Found playing in tmux: over the result the footer still showed the table's keys, "l Log"
    among them. The dialog's leave key is q, as on the table (l means Log there), and in local
    play, where q quits, the footer says Quit once (^q), not twice."""
    from textual.widgets._footer import FooterKey

    from selfish_tui.screens.gameover import GameOverScreen

    if local:
        app = SelfishApp(name="Ann", plan=LocalPlan())
        app.player_id = "p0"
        app._plan_done = True
    else:
        app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, find_game("space", None), 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()
        keys = {(key.key_display, key.description) for key in app.screen.query(FooterKey)}
        if local:
            assert [key for key, description in keys if description == "Quit"] == ["q"]
        else:
            assert ("q", "Leave") in keys
        assert not any(key == "l" for key, _ in keys)
        assert ("?", "Help") in keys and ("v", "View board") in keys
        assert not any(description in ("Log", "Chat", "Prompt") for _, description in keys)
        assert "q " in str(app.screen.query_one("#gameover-keys", Static).render())
        await pilot.press("l")  # nothing: l is the log's key elsewhere
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("q")
        if local:
            await wait_for(pilot, lambda: not app.is_running, timeout=5)
        else:
            await wait_for(pilot, lambda: app.screen is app.lobby)


async def test_toasts_leave_the_lobbys_connection_status_readable() -> None:
    """ "cannot reach HOST:PORT…" is the lobby's top line; the toasts that
    come with it (cannot connect, not connected) must not cover it."""
    app = offline_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.lobby.set_status(
            "cannot reach 127.0.0.1:7619: connection refused; retrying in 2 s — r retries now"
        )
        for n in range(2):
            app.notify(f"Something happened, number {n}, with a long enough text to wrap.")
        await wait_for(pilot, lambda: len(app.lobby.query(Toast)) == 2)
        await pilot.pause()  # laid out
        status = app.lobby.query_one("#lobby-status").region
        for toast in app.lobby.query(Toast):
            assert not toast.region.overlaps(status)
