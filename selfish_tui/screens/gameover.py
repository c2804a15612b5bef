"""The end of a game: who won, after how many turns, what became of everyone (their hands at
the end, their numbers, their ratings); rematch, watch again, review together or leave."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.game_types import Card
from protocol.server_messages import GameOverMessage
from protocol.view_types import View
from selfish_tui.controllers.controller import Controller
from selfish_tui.event_text import card_display
from selfish_tui.i18n import N_, _, cell_width, ngettext, pgettext, word_cut
from selfish_tui.model import goal_word, own_seat, player_name, seat_colour
from selfish_tui.plain import fit
from selfish_tui.replay import REVEALED
from selfish_tui.screen_messages import PlayersWanted
from selfish_tui.screens.room_words import bot_level_name
from selfish_tui.state import RoomState, room_players
from selfish_tui.summary import PlayerSummary, death_words, summarise, summary_line
from selfish_tui.widgets.footer import LocalisedFooter


def fates(view: View) -> list[tuple[int, str]]:
    """(seat, sentence) for every player: winner, reached the goal, alive at row r, or dead."""
    public = view.public
    goal = public.goal_row
    where = goal_word(public.edition)
    out: list[tuple[int, str]] = []
    for p in sorted(public.players, key=lambda p: p.seat):
        seat = p.seat
        if seat == public.winner:
            # Shipwrecked can also be won by outliving everyone (W4 a), anywhere on the board.
            fate = (
                _("won, aboard the {where}").format(where=where)
                if p.row >= goal
                else _("won as the last one alive, on row {row}").format(row=p.row)
            )
        elif not p.alive:
            fate = _("died on row {row}").format(row=p.row)
        elif p.row >= goal:
            fate = _("alive, on the {where}").format(where=where)
        else:
            fate = _("alive on row {row}").format(row=p.row)
        out.append((seat, fate))
    return out


#: The cells a line of the dialog holds (its width less border and padding, app.tcss).
LINE_CELLS = 72
#: The cells a name takes where another player's line names it (who took what).
NAME_CELLS = 12


def hand_line(cards: Sequence[Card] | None, count: int, width: int) -> str:
    """A hand at the end in one line of ``width`` cells: its cards, "+N more" when they do
    not all fit; a hand nobody has shown us is its size alone."""
    head = pgettext("summary", "hand: ")
    if cards is None and count:
        return head + ngettext("{count} card, unseen", "{count} cards, unseen", count).format(
            count=count
        )
    if not cards:  # an empty hand (a dead player's) is no secret
        return head + pgettext("hand", "(none)")
    names = [card_display(card) for card in cards]
    comma = pgettext("list", ", ")
    for shown in range(len(names), 0, -1):
        more = len(names) - shown
        line = head + comma.join(names[:shown])
        if more:
            line += comma + _("+{count} more").format(count=more)
        if cell_width(line) <= width or shown == 1:
            return word_cut(line, width)
    return word_cut(head, width)


def summaries(
    room: RoomState, view: View
) -> tuple[list[PlayerSummary], list[Sequence[Card] | None]]:
    """Each seat's summary and hand at the end: from the game's re-played record when the
    client has it (every event whole, every hand), else from the client's own log and view
    (a hand it never saw is None)."""
    seats = view.public.seats
    replay = room.replay
    game = room.game_over.game if room.game_over is not None else None
    if replay is not None and replay.record.game != game:
        replay = None  # the record of the room's game before (a rematch has begun since)
    if replay is not None:
        events = replay.events(0, replay.frames, REVEALED)
        cards = replay.cards
        hands: list[Sequence[Card] | None] = list(replay.hands(replay.last))
    else:
        events = [entry.event for entry in room.log if entry.event is not None]
        cards = dict(room.cards_seen)
        hands = [None] * seats
        if view.own is not None:
            hands[view.own.seat] = view.own.hand
    return summarise(events, seats, cards), hands


def bot_levels(room: RoomState) -> dict[int, str]:
    """The level of each seat a server bot holds (the room's seat list), by seat."""
    seats = room.info.seats if room.info is not None else ()
    return {
        entry.seat: entry.level
        for entry in seats
        if entry is not None and entry.kind == "bot" and entry.level is not None
    }


def rating_moves(game_over: GameOverMessage | None) -> dict[int, str]:
    """Each rated seat's rating before and after the game (``game_over.ratings``), as read:
    "1000? → 1012?"."""
    if game_over is None:
        return {}
    return {
        change.seat: f"{change.before.shown()} → {change.after.shown()}"
        for change in game_over.ratings
    }


class GameOverScreen(ModalScreen[str]):
    """Dismisses with 'rematch', 'leave', 'watch' (the replay viewer), 'review' (the room's
    shared review) or 'board' (close the dialog and look at the board)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('rematch')", N_("Rematch")),
        # q, as on the table (l is the log there): leave the room, or in local play quit
        # (there is no lobby).
        Binding("q", "choose('leave')", N_("Leave")),
        Binding("q", "quit_local", N_("Quit")),
        Binding("v", "choose('board')", N_("View board")),
        Binding("w", "choose('watch')", N_("Watch again")),
        Binding("t", "choose('review')", N_("Review together")),
        Binding("i", "players", N_("Players"), show=False),
        Binding("escape", "choose('board')", N_("View board"), show=False),
        Binding("question_mark", "app.help", N_("Help")),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_local":
            return not self.controller.has_lobby
        if action == "choose" and parameters == ("leave",):
            return self.controller.has_lobby
        return True

    def __init__(self, room: RoomState, controller: Controller) -> None:
        super().__init__()
        self.room = room
        self.controller = controller

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover-box"):
            with VerticalScroll(id="gameover-scroll"):
                yield Static(self._summary(), id="gameover-text")
            yield Static(self._keys(), id="gameover-keys")
        # The dialog's own keys at the bottom, not the table's behind it (whose "l Log" would
        # say the opposite of what l does here: found playing in tmux).
        yield LocalisedFooter()  # its keys in the active language

    def on_mount(self) -> None:
        self.query_one("#gameover-box").border_title = _("Game over")

    def refresh_summary(self) -> None:
        """Draw the players' lines again (the game's record has arrived: every hand, every
        event whole). Before the dialog is composed there is nothing to draw again: it composes
        with the record."""
        for text in self.query("#gameover-text").results(Static):
            text.update(self._summary())

    def _summary(self) -> Text:
        view = self.room.view
        result = self.room.game_over
        if view is None:
            return Text()
        winner = result.winner if result is not None else view.public.winner
        turns = result.turns if result is not None else view.public.turn
        text = Text()
        dead = {p.seat for p in view.public.players if not p.alive}
        if winner is None:
            text.append(_("Nobody wins.") + "\n", style="bold")
        elif winner == own_seat(view):
            text.append(_("You win!") + "\n", style="bold reverse bright_green")
        else:
            # The view's name: a server bot's is said in the client's language there.
            name = player_name(view, winner)
            text.append(
                _("{name} wins.").format(name=name) + "\n", style=f"bold {seat_colour(winner)}"
            )
        after = ngettext("after {turns} turn", "after {turns} turns", turns)
        text.append(after.format(turns=turns) + "\n", style="dim")
        numbers, hands = summaries(self.room, view)
        # Cut in the numbers' lines, which name the others: whole in each player's own line.
        names = [fit(player_name(view, seat), NAME_CELLS) for seat in range(len(numbers))]
        edition = view.public.edition
        counts = {p.seat: p.hand_count for p in view.public.players}
        moves = rating_moves(result)
        levels = bot_levels(self.room)
        for seat, fate in fates(view):
            mark = "★" if seat == winner else ("✝" if seat in dead else "·")
            text.append(f"{mark} ")
            text.append(player_name(view, seat), style=f"bold {seat_colour(seat)}")
            if seat == own_seat(view):
                text.append(_(" (you)"))
            if seat in levels:  # as the waiting room says it
                level = bot_level_name(levels[seat])
                text.append(" " + _("bot ({level})").format(level=level), style="dim")
            if seat < len(numbers) and numbers[seat].died is not None:
                fate = f"{fate} ({death_words(numbers[seat])})"
            text.append(pgettext("separator", ": ") + fate + "\n")
            if seat in moves:
                # A line of its own: at the end of the fate's it wrapped between its numbers.
                text.append("  " + _("rating {move}").format(move=moves[seat]) + "\n", style="bold")
            if seat < len(numbers):
                line = summary_line(numbers[seat], edition, names)
                text.append("  " + line + "\n", style="dim")
                shown = hands[seat] if seat < len(hands) else None
                text.append("  " + hand_line(shown, counts.get(seat, 0), LINE_CELLS - 2) + "\n")
        text.rstrip()
        return text

    def _keys(self) -> Text:
        text = Text()
        if self.controller.can_rematch(self.room):
            text.append("r", style="bold reverse")
            text.append(" " + _("rematch") + "  ")
        text.append("w", style="bold reverse")
        text.append(" " + _("watch again") + "  ")
        text.append("t", style="bold reverse")
        text.append(" " + _("review together") + "  ")
        text.append("v", style="bold reverse")
        text.append(" " + _("board") + "  ")
        text.append("q", style="bold reverse")
        text.append(" " + (_("leave the room") if self.controller.has_lobby else _("quit")))
        return text

    def action_players(self) -> None:
        """The room's players, to open one's profile."""
        self.post_message(PlayersWanted(room_players(self.room)))

    def action_quit_local(self) -> None:
        """q in local play: quit (the game is over, nothing to ask)."""
        self.dismiss("leave")

    def action_choose(self, what: str) -> None:
        """Close the dialog with the player's choice."""
        if what == "rematch" and not self.controller.can_rematch(self.room):
            self.notify(_("Only the host can start a rematch."), severity="warning")
            return
        self.dismiss(what)
