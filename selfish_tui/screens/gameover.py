"""The end of a game: who won, after how many turns, what became of everyone; rematch or leave."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.view_types import View
from selfish_tui.controllers.controller import Controller
from selfish_tui.i18n import N_, _, ngettext, pgettext
from selfish_tui.model import goal_word, own_seat, player_name, seat_colour
from selfish_tui.state import RoomState
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


class GameOverScreen(ModalScreen[str]):
    """Dismisses with 'rematch', 'leave' or 'board' (close the dialog and look at the board)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('rematch')", N_("Rematch")),
        # q, as on the table (l is the log there): leave the room, or in local play quit
        # (there is no lobby).
        Binding("q", "choose('leave')", N_("Leave")),
        Binding("q", "quit_local", N_("Quit")),
        Binding("v", "choose('board')", N_("View board")),
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
            yield Static(self._summary(), id="gameover-text")
            yield Static(self._keys(), id="gameover-keys")
        # The dialog's own keys at the bottom, not the table's behind it (whose "l Log" would
        # say the opposite of what l does here: found playing in tmux).
        yield LocalisedFooter()  # its keys in the active language

    def on_mount(self) -> None:
        self.query_one("#gameover-box").border_title = _("Game over")

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
        text.append(after.format(turns=turns) + "\n\n", style="dim")
        for seat, fate in fates(view):
            mark = "★" if seat == winner else ("✝" if seat in dead else "·")
            text.append(f" {mark} ")
            text.append(player_name(view, seat), style=seat_colour(seat))
            if seat == own_seat(view):
                text.append(_(" (you)"))
            text.append(pgettext("separator", ": ") + fate + "\n")
        return text

    def _keys(self) -> Text:
        text = Text()
        if self.controller.can_rematch(self.room):
            text.append("r", style="bold reverse")
            text.append(" " + _("rematch") + "  ")
        text.append("v", style="bold reverse")
        text.append(" " + _("view the board") + "  ")
        text.append("q", style="bold reverse")
        text.append(" " + (_("leave the room") if self.controller.has_lobby else _("quit")))
        text.append("  ")
        text.append("?", style="bold reverse")
        text.append(" " + _("help"))
        return text

    def action_quit_local(self) -> None:
        """q in local play: quit (the game is over, nothing to ask)."""
        self.dismiss("leave")

    def action_choose(self, what: str) -> None:
        """Close the dialog with the player's choice."""
        if what == "rematch" and not self.controller.can_rematch(self.room):
            self.notify(_("Only the host can start a rematch."), severity="warning")
            return
        self.dismiss(what)
