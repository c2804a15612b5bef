"""The end of a game: who won, after how many turns, what became of everyone; rematch or leave."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.errors import MalformedMessage
from protocol.records import RatingChange
from selfish_tui.event_text import card_display
from selfish_tui.i18n import N_, _, cell_width, ngettext, pgettext, word_cut
from selfish_tui.model import goal_word, player_name, seat_colour
from selfish_tui.plain import fit
from selfish_tui.replay import REVEALED
from selfish_tui.state import RoomState
from selfish_tui.summary import PlayerSummary, death_words, summarise, summary_line
from selfish_tui.widgets.footer import LocalisedFooter

if TYPE_CHECKING:
    from selfish_tui.app import SelfishApp


def fates(view: dict[str, Any]) -> list[tuple[int, str]]:
    """(seat, sentence) for every player: winner, reached the goal, alive at row r, or dead."""
    goal = int(view.get("goal_row", 6))
    where = goal_word(str(view.get("edition", "space")))
    out: list[tuple[int, str]] = []
    for p in sorted(view.get("players", []), key=lambda p: int(p["seat"])):
        seat = int(p["seat"])
        if seat == view.get("winner"):
            # Shipwrecked can also be won by outliving everyone (W4 a), anywhere on the board.
            fate = (
                _("won, aboard the {where}").format(where=where)
                if int(p.get("row", 0)) >= goal
                else _("won as the last one alive, on row {row}").format(row=p.get("row"))
            )
        elif not p.get("alive", True):
            fate = _("died on row {row}").format(row=p.get("row"))
        elif int(p.get("row", 0)) >= goal:
            fate = _("alive, on the {where}").format(where=where)
        else:
            fate = _("alive on row {row}").format(row=p.get("row"))
        out.append((seat, fate))
    return out


#: The cells a line of the dialog holds (its width less border and padding, app.tcss).
LINE_CELLS = 72
#: The cells a name takes where another player's line names it (who took what).
NAME_CELLS = 12


def hand_line(cards: list[dict[str, Any]] | None, count: int, width: int) -> str:
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


def summaries(room: RoomState) -> tuple[list[PlayerSummary], list[list[dict[str, Any]] | None]]:
    """Each seat's summary and hand at the end: from the game's re-played record when the
    client has it (every event whole, every hand), else from the client's own log and view
    (a hand it never saw is None)."""
    view = room.view or {}
    seats = int(view.get("seats", len(view.get("players") or [])))
    replay = room.replay
    if replay is not None and replay.record.game != (room.game_over or {}).get("game"):
        replay = None  # the record of the room's game before (a rematch has begun since)
    if replay is not None:
        events = replay.events(0, replay.frames, REVEALED)
        cards = replay.cards
        hands: list[list[dict[str, Any]] | None] = list(replay.hands(replay.last))
    else:
        events = [entry.event for entry in room.log if entry.event is not None]
        known = [*(view.get("hand") or []), *(view.get("discard") or [])]
        cards = {int(c["id"]): c for c in known if isinstance(c.get("id"), int)}
        hands = [None] * seats
        if isinstance(view.get("seat"), int) and view.get("hand") is not None:
            hands[int(view["seat"])] = list(view.get("hand") or [])
    return summarise(events, seats, cards), hands


def rating_moves(game_over: dict[str, Any]) -> dict[int, str]:
    """Each rated seat's rating before and after the game (``game_over.ratings``), as read:
    "1000? → 1012?"; a change the client cannot read is left out."""
    out: dict[int, str] = {}
    for entry in game_over.get("ratings") or []:
        try:
            change = RatingChange.from_wire(entry)
        except (MalformedMessage, TypeError, AttributeError):
            continue
        out[change.seat] = f"{change.before.shown()} → {change.after.shown()}"
    return out


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
            return self.selfish.local
        if action == "choose" and parameters == ("leave",):
            return not self.selfish.local
        return True

    def __init__(self, room: RoomState) -> None:
        super().__init__()
        self.room = room

    @property
    def selfish(self) -> SelfishApp:
        """The app, with its Selfish-specific methods."""
        return self.app  # type: ignore[return-value]

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
        view = self.room.view or {}
        result = self.room.game_over or {}
        winner = result.get("winner", view.get("winner"))
        turns = result.get("turns", view.get("turn", 0))
        text = Text()
        dead = {int(p["seat"]) for p in view.get("players", []) if not p.get("alive", True)}
        if winner is None:
            text.append(_("Nobody wins.") + "\n", style="bold")
        elif winner == view.get("seat"):
            text.append(_("You win!") + "\n", style="bold reverse bright_green")
        else:
            # The view's name: a server bot's is said in the client's language there.
            name = player_name(view, winner) if view.get("names") else result.get("winner_name")
            text.append(
                _("{name} wins.").format(name=name) + "\n", style=f"bold {seat_colour(winner)}"
            )
        after = ngettext("after {turns} turn", "after {turns} turns", int(turns or 0))
        text.append(after.format(turns=turns) + "\n", style="dim")
        numbers, hands = summaries(self.room)
        # Cut in the numbers' lines, which name the others: whole in each player's own line.
        names = [fit(player_name(view, seat), NAME_CELLS) for seat in range(len(numbers))]
        card_names = {k: str(c.get("name", k)) for k, c in self.room.catalogue.cards.items()}
        edition = str(view.get("edition", "space"))
        counts = {int(p["seat"]): int(p.get("hand_count", 0)) for p in view.get("players", [])}
        moves = rating_moves(result)
        for seat, fate in fates(view):
            mark = "★" if seat == winner else ("✝" if seat in dead else "·")
            text.append(f"{mark} ")
            text.append(player_name(view, seat), style=f"bold {seat_colour(seat)}")
            if seat == view.get("seat"):
                text.append(_(" (you)"))
            if seat < len(numbers) and numbers[seat].died is not None:
                fate = f"{fate} ({death_words(numbers[seat])})"
            text.append(pgettext("separator", ": ") + fate)
            if seat in moves:
                text.append("  " + _("rating {move}").format(move=moves[seat]), style="bold")
            text.append("\n")
            if seat < len(numbers):
                line = summary_line(numbers[seat], edition, names, card_names)
                text.append("  " + line + "\n", style="dim")
                shown = hands[seat] if seat < len(hands) else None
                text.append("  " + hand_line(shown, counts.get(seat, 0), LINE_CELLS - 2) + "\n")
        text.rstrip()
        return text

    def _keys(self) -> Text:
        text = Text()
        if self.selfish.can_rematch(self.room):
            text.append("r", style="bold reverse")
            text.append(" " + _("rematch") + "  ")
        text.append("w", style="bold reverse")
        text.append(" " + _("watch again") + "  ")
        text.append("t", style="bold reverse")
        text.append(" " + _("review together") + "  ")
        text.append("v", style="bold reverse")
        text.append(" " + _("board") + "  ")
        text.append("q", style="bold reverse")
        text.append(" " + (_("quit") if self.selfish.local else _("leave the room")))
        return text

    def action_players(self) -> None:
        """The room's players, to open one's profile."""
        self.selfish.replays.players(self.room)

    def action_quit_local(self) -> None:
        """q in local play: quit (the game is over, nothing to ask)."""
        self.dismiss("leave")

    def action_choose(self, what: str) -> None:
        """Close the dialog with the player's choice."""
        if what == "rematch" and not self.selfish.can_rematch(self.room):
            self.notify(_("Only the host can start a rematch."), severity="warning")
            return
        self.dismiss(what)
