"""The replay viewer: a finished game, step by step, from any seat's view or with all revealed.

The board (the table's Strips), the hand (of the seat whose view is shown, or every hand and the
draw pile), the log as that reader read it, and the turns' timeline; a line saying which
decision comes next and a status line. The viewer opens spoiler-free: at the start, in the
viewing player's own seat, the timeline's marks (deaths, the win) only up to the turn shown.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from protocol.game_types import Event
from protocol.view_types import View
from selfish_tui.event_text import render_event
from selfish_tui.i18n import N_, _, word_cut
from selfish_tui.model import choice_label, player_name, seat_colour
from selfish_tui.replay import REVEALED, Perspective, Replay
from selfish_tui.review import SharedReview
from selfish_tui.widgets.footer import LocalisedFooter
from selfish_tui.widgets.hands_shown import HandsShown
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.status import kind_words
from selfish_tui.widgets.strips import LABEL_WIDTH, StripsBoard
from selfish_tui.widgets.timeline import WIDTH as TIMELINE_WIDTH
from selfish_tui.widgets.timeline import TurnTimeline, turn_marks

#: Keys that move through the game: given up while the turn-number input is open.
MOVES = frozenset({"step", "turn", "start", "end"})


class ReplayScreen(Screen[None]):
    """Step through ``replay``. ``seat``: the viewer's own seat (its view is the one shown
    first; None opens seat 0's). ``turn``: open at that turn's start. ``on_export``: what the
    export key does (None: the key says where to export from instead); ``title`` names the
    game in the status line."""

    DEFAULT_CSS = """
    ReplayScreen #replay-top { height: 11; }
    ReplayScreen #replay-bottom { height: 1fr; }
    ReplayScreen #replay-strips, ReplayScreen #replay-hands, ReplayScreen #replay-log,
    ReplayScreen #replay-timeline {
        border: round $primary-muted;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 0;
    }
    ReplayScreen #replay-strips:focus, ReplayScreen #replay-hands:focus,
    ReplayScreen #replay-log:focus, ReplayScreen #replay-timeline:focus {
        border: round $accent;
    }
    ReplayScreen #replay-strips { width: 3fr; height: 11; content-align-vertical: middle; }
    ReplayScreen #replay-hands { width: 2fr; height: 11; scrollbar-size-vertical: 1; }
    ReplayScreen #replay-log { width: 1fr; scrollbar-size-vertical: 1; }
    ReplayScreen #replay-timeline { scrollbar-size-vertical: 1; }
    ReplayScreen #replay-detail { height: 1; padding: 0 1; }
    ReplayScreen #replay-status { height: 1; padding: 0 1; background: $panel; }
    ReplayScreen #replay-goto { height: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", N_("Step"), key_display="←→", priority=True),
        Binding("left", "step(-1)", N_("Step back"), show=False, priority=True),
        Binding("right_square_bracket", "turn(1)", N_("Turn"), key_display="[]", priority=True),
        Binding("left_square_bracket", "turn(-1)", N_("Turn back"), show=False, priority=True),
        Binding("pagedown", "turn(1)", N_("Turn"), show=False, priority=True),
        Binding("pageup", "turn(-1)", N_("Turn back"), show=False, priority=True),
        Binding("home", "start", N_("Start"), show=False, priority=True),
        Binding("end", "end", N_("End"), show=False, priority=True),
        # Not in the footer, which has no room left at 80 columns: the Turns panel says it.
        Binding("g", "goto", N_("Turn #"), show=False),
        Binding("v", "next_view", N_("View")),
        *[Binding(str(n), f"seat({n - 1})", show=False) for n in range(1, 6)],
        Binding("a", "reveal", N_("Reveal")),
        Binding("e", "export", N_("Export")),
        Binding("d", "play_deal", N_("Play this deal"), show=False),
        Binding("f", "follow", N_("Follow"), show=False),
        Binding("L", "hand_on", N_("Hand on the lead"), show=False),
        Binding("escape", "back", N_("Close"), show=False),
        Binding("q", "close", N_("Close")),
    ]

    def __init__(
        self,
        replay: Replay,
        seat: int | None = None,
        *,
        turn: int | None = None,
        on_export: Callable[[Replay], str] | None = None,
        on_play_deal: Callable[[Replay], None] | None = None,
        review: SharedReview | None = None,
        title: str = "",
    ) -> None:
        super().__init__()
        self.on_play_deal = on_play_deal
        self.review = review
        self.replay = replay
        own = seat if seat is not None and 0 <= seat < replay.seats else 0
        self.perspective: Perspective = own
        self._last_seat = own
        self.index = replay.frame_of_turn(turn) if turn is not None else 0
        self.on_export = on_export
        self.title_text = title
        self._drawn: tuple[int, Perspective] | None = None  # what the log holds
        # A review's step can arrive before the screen is composed: until on_mount has drawn
        # the frame chosen, drawing waits.
        self._ready = False
        self._timeline_for: tuple[Perspective, int, str] | None = None
        starts = [replay.turn_starts[t] for t in sorted(replay.turn_starts)]
        marks = replay.turn_events(REVEALED)
        self._turns: list[tuple[int, int, str, str]] = []
        for turn_number in sorted(replay.turn_starts):
            active = replay.view(replay.turn_starts[turn_number], REVEALED).public.active
            self._turns.append(
                (
                    turn_number,
                    active,
                    replay.names[active],
                    turn_marks(marks.get(turn_number, [])),
                )
            )
        self._starts = starts

    # --- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="replay-top"):
            yield StripsBoard(id="replay-strips")
            with VerticalScroll(id="replay-hands"):
                yield HandsShown(id="replay-hands-text")
        with Horizontal(id="replay-bottom"):
            yield GameLog(id="replay-log")
            yield TurnTimeline(id="replay-timeline")
        yield Static("", id="replay-detail")
        yield Static("", id="replay-status")
        yield Input(
            placeholder=_("Turn number (Enter goes there, Esc closes)"),
            id="replay-goto",
            type="integer",
            compact=True,
        )
        yield LocalisedFooter()

    def on_mount(self) -> None:
        self.query_one("#replay-strips").border_title = _("Strips")
        self.query_one("#replay-log").border_title = _("Log")
        self.query_one("#replay-timeline").border_title = _("Turns")
        self.query_one("#replay-timeline").border_subtitle = _("g: turn #")
        self.query_one("#replay-goto", Input).display = False
        timeline = self.query_one("#replay-timeline", TurnTimeline)
        timeline.can_focus = False
        timeline.styles.width = TIMELINE_WIDTH
        self.query_one("#replay-log").focus()
        self._fit_width(self.size.width)
        self._ready = True
        self.show()
        # The re-played game's frames are many small objects that live as long as the viewer:
        # kept out of the collector's full passes, which would otherwise scan them all every
        # few dozen steps and stall that step (bench/replay_viewer.py).
        gc.freeze()

    def on_unmount(self) -> None:
        gc.unfreeze()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width(event.size.width)

    def _fit_width(self, width: int) -> None:
        """The board keeps 10 cells a strip (as the table's does), the hands the rest."""
        board = LABEL_WIDTH + 2 + self.replay.seats * 10
        strips = self.query_one("#replay-strips", StripsBoard)
        strips.styles.width = "3fr" if width * 3 // 5 >= board else board

    # --- drawing ------------------------------------------------------------------------------

    @property
    def turn(self) -> int:
        """The turn the board stands in."""
        return self.replay.turn_of[self.index]

    def show(self) -> None:
        """Draw every panel for the frame and perspective chosen."""
        if not self._ready:
            return
        replay = self.replay
        view = replay.view(self.index, self.perspective)
        self.query_one("#replay-strips", StripsBoard).update_view(view, {})
        shown = self.query_one("#replay-hands-text", HandsShown)
        if self.perspective is REVEALED:
            hands, draw = replay.hands(self.index), replay.draw_order(self.index)
            shown.show(view, hands, draw, bots=replay.bot_levels)
        else:
            shown.show(view, bots=replay.bot_levels)
        hands = self.query_one("#replay-hands")
        title = self._hands_title(view)
        if hands.border_title != title:
            hands.border_title = title
        self._draw_log(view)
        self._draw_timeline()
        self._say(view)

    def _hands_title(self, view: View) -> str:
        return _("All hands") if self.perspective is REVEALED else _("Hand")

    def _draw_log(self, view: View) -> None:
        log = self.query_one("#replay-log", GameLog)
        drawn = self._drawn
        if drawn is not None and drawn[1] == self.perspective and drawn[0] == self.index - 1:
            events_ = self.replay.events(self.index, self.index + 1, self.perspective)
        else:
            log.clear()
            events_ = self.replay.events(0, self.index + 1, self.perspective)
        names, edition, cards = self.replay.names, view.public.edition, self.replay.cards
        log.add_many(
            [(event.kind, render_event(event, names, edition, cards)) for event in events_]
        )
        self._drawn = (self.index, self.perspective)

    def _draw_timeline(self) -> None:
        timeline = self.query_one("#replay-timeline", TurnTimeline)
        turn, rows, so_far = self.turn, self._turns, ""
        if self.perspective is not REVEALED:
            # The turn on the board shows the marks of what has happened in it so far, not
            # of how it ends (a swap still to come is not given away).
            so_far = turn_marks(self._turn_so_far())
            rows = [(t, seat, name, so_far if t == turn else m) for t, seat, name, m in rows]
        upto = None if self.perspective is REVEALED else turn
        wanted = (self.perspective, upto if upto is not None else -1, so_far)
        if self._timeline_for != wanted:
            self._timeline_for = wanted
            timeline.show(rows, turn, upto)
        else:
            timeline.at(turn)

    def _turn_so_far(self) -> list[Event]:
        """The events of the turn on the board up to the frame shown, everything revealed."""
        start = self.replay.turn_starts.get(self.turn, 0)
        events_ = self.replay.events(start, self.index + 1, REVEALED)
        begun = [i for i, event in enumerate(events_) if event.key == "turn"]
        return events_[begun[-1] :] if begun else events_

    def _say(self, view: View) -> None:
        """The next decision's line and the status line."""
        if not self._ready:
            return
        replay = self.replay
        detail = self.query_one("#replay-detail", Static)
        status = self.query_one("#replay-status", Static)
        width = max(10, (detail.content_size.width or self.size.width - 2))
        # One line each, always: a new text never changes the layout.
        detail.update(Text(word_cut(self._next_text(), width)), layout=False)
        line = Text()
        if self.title_text:
            line.append(self.title_text + "  ", style="bold")
        line.append(
            _("decision {number}/{total} · turn {turn}").format(
                number=self.index, total=replay.last, turn=self.turn
            )
        )
        line.append("  ")
        if self.review is not None:
            line.append(self.review.status() + "  ", style="bold")
        if self.perspective is REVEALED:
            line.append(_("everything revealed"), style="bold reverse")
        else:
            name = player_name(view, self.perspective)
            line.append(
                _("{name}'s view").format(name=name), style=f"bold {seat_colour(self.perspective)}"
            )
        status.update(
            Text(word_cut(line.plain, width)) if line.cell_len > width else line, layout=False
        )

    def _next_text(self) -> str:
        replay = self.replay
        decision = replay.decision(self.index)
        if decision is None:
            winner = replay.winner
            if winner is None:
                return _("The end: nobody wins.")
            return _("The end: {name} wins.").format(name=replay.names[winner])
        seat = decision[0]
        name = replay.names[seat]
        typed = replay.choice(self.index)
        if typed is not None and (self.perspective is REVEALED or self.perspective == seat):
            label = choice_label(typed[1], replay.view(self.index, seat))
            return _("Next: {name}: {choice}").format(name=name, choice=label)
        public = replay.view(self.index, REVEALED).public
        kinds = {p.seat: p.kind for p in public.pending}
        what = kind_words().get(kinds.get(seat, ""), "")
        return _("Next: {name} decides {what}").format(name=name, what=what).strip()

    # --- moving -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the turn number is typed, the arrows and Home/End edit it.
        if action in MOVES and self.query_one("#replay-goto", Input).display:
            return False
        if action in ("follow", "hand_on"):
            return self.review is not None and self.review.open
        if action == "play_deal":
            return self.on_play_deal is not None
        return True

    def go(self, index: int, *, reviewed: bool = False) -> None:
        """Show frame ``index`` (kept within the game). In a shared review our own move is
        the leader's step for everyone, or (following) breaks away; ``reviewed``: the move is
        the leader's, which we follow."""
        index = max(0, min(self.replay.last, index))
        moved = index != self.index
        if moved:
            self.index = index
            self.show()
        if self.review is not None and not reviewed:
            self.review.moved(index)
            self._say(self.replay.view(self.index, self.perspective))

    def follow_review(self) -> None:
        """The review changed: be at the leader's step if we follow, and say who leads."""
        if self.review is None:
            return
        if self.review.following and not self.review.leading:
            self.go(self.review.step, reviewed=True)
        self.refresh_bindings()
        self._say(self.replay.view(self.index, self.perspective))

    def action_follow(self) -> None:
        """Follow the review's leader again, at its step."""
        if self.review is not None:
            self.review.rejoin()
            self._say(self.replay.view(self.index, self.perspective))

    def action_hand_on(self) -> None:
        """Give the review's lead to the next member."""
        if self.review is None:
            return
        if not self.review.leading:
            self.notify(_("Only the leader can hand on the lead."), severity="warning")
            return
        name = self.review.hand_on()
        if name is None:
            self.notify(_("Nobody else is in the review."), severity="warning")
        else:
            self.notify(_("The lead goes to {name}.").format(name=name))

    def action_play_deal(self) -> None:
        """A new room with this game's deal, for another group to try."""
        if self.on_play_deal is not None:
            self.on_play_deal(self.replay)

    def action_step(self, by: int) -> None:
        """One decision forward or back."""
        self.go(self.index + by)

    def action_turn(self, by: int) -> None:
        """To the start of the next turn, or back to the start of this one (of the one
        before when already there)."""
        starts = self._starts
        if by > 0:
            later = [s for s in starts if s > self.index]
            self.go(later[0] if later else self.replay.last)
        else:
            earlier = [s for s in starts if s < self.index]
            self.go(earlier[-1] if earlier else 0)

    def action_start(self) -> None:
        """To the start of the game."""
        self.go(0)

    def action_end(self) -> None:
        """To the end of the game."""
        self.go(self.replay.last)

    def action_goto(self) -> None:
        """Open the turn-number input."""
        goto = self.query_one("#replay-goto", Input)
        goto.value = ""
        goto.display = True
        goto.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self._close_goto()
        if text.isdigit():
            self.go(self.replay.frame_of_turn(int(text)))

    def _close_goto(self) -> None:
        goto = self.query_one("#replay-goto", Input)
        goto.display = False
        goto.value = ""
        self.query_one("#replay-log").focus()

    def on_turn_timeline_turn_chosen(self, message: TurnTimeline.TurnChosen) -> None:
        message.stop()
        self.go(self.replay.frame_of_turn(message.turn))

    # --- perspective --------------------------------------------------------------------------

    def view_from(self, perspective: Perspective) -> None:
        """Show the game from ``perspective`` (a seat, or :data:`REVEALED`)."""
        if perspective is not None:
            self._last_seat = perspective
        if perspective != self.perspective:
            self.perspective = perspective
            self.show()

    def action_next_view(self) -> None:
        """The next seat's view (after the last seat: everything revealed, then seat 1)."""
        if self.perspective is REVEALED:
            self.view_from(0)
        elif self.perspective + 1 < self.replay.seats:
            self.view_from(self.perspective + 1)
        else:
            self.view_from(REVEALED)

    def action_seat(self, seat: int) -> None:
        """Seat ``seat``'s view (keys 1-5)."""
        if 0 <= seat < self.replay.seats:
            self.view_from(seat)

    def action_reveal(self) -> None:
        """Everything revealed, or back to the seat's view shown before."""
        self.view_from(self._last_seat if self.perspective is REVEALED else REVEALED)

    # --- leaving and keeping ------------------------------------------------------------------

    def action_export(self) -> None:
        """Write the game to a file (where the opener says), or say how to get one."""
        if self.on_export is None:
            game = self.replay.record.game
            # The command as it is to be typed: this game's number (the server's address is
            # the player's to know: the front door's may not be the one their terminal reaches).
            self.notify(
                _(
                    "Export from your own terminal: selfish export {game} --server HOST[:PORT]"
                ).format(game="GAME" if game is None else game),
                severity="warning",
            )
            return
        try:
            where = self.on_export(self.replay)
        except OSError as exc:
            self.notify(
                _("Could not write the file: {error}").format(error=exc.strerror or exc),
                severity="error",
            )
            return
        self.notify(_("Saved the game to {path}").format(path=where))

    def action_back(self) -> None:
        """Esc: close the turn-number input, else the viewer."""
        if self.query_one("#replay-goto", Input).display:
            self._close_goto()
        else:
            self.action_close()

    def action_close(self) -> None:
        """Leave the viewer (and the shared review, if it is one)."""
        if self.review is not None:
            self.review.leave()
        self.dismiss(None)
