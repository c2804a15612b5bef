"""The table: Strips, Hand and Log panels, the prompt, a detail line and the status line."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from protocol.game_types import Choice
from protocol.view_types import View
from selfish_tui.choice_keys import CHOICE_KEYS
from selfish_tui.controllers.controller import Controller
from selfish_tui.i18n import N_, _, pgettext, word_cut
from selfish_tui.model import catalogue_text_for_choice, choice_cards, choice_label, own_seat
from selfish_tui.screen_messages import (
    BellToggled,
    ChatSaid,
    ChoiceMade,
    DecisionDue,
    LeaveRoom,
    PlayersWanted,
    ResultWanted,
    TableSettled,
)
from selfish_tui.screens.confirm import ConfirmScreen
from selfish_tui.state import LogEntry, RoomState, room_players
from selfish_tui.widgets.footer import LocalisedFooter
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.prompt import PromptPanel
from selfish_tui.widgets.status import StatusLine
from selfish_tui.widgets.strips import LABEL_WIDTH, StripsBoard


class TableScreen(Screen[None]):
    """The game in progress (or finished, or watched as a spectator)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Every key that can stand for a choice: cards, players, Stay, Move, End actions,
        # "Do not block" (selfish_tui.choice_keys).
        *[Binding(key, f"choose('{key}')", show=False) for key in CHOICE_KEYS],
        Binding("p", "focus_panel('prompt-options')", N_("Prompt")),
        Binding("t", "focus_panel('strips')", N_("Strips")),
        Binding("h", "focus_panel('hand')", N_("Hand")),
        Binding("l", "focus_panel('log')", N_("Log")),
        Binding("c", "chat", N_("Chat")),
        Binding("q", "leave", N_("Leave")),
        # In local play there is no lobby to go back to: q quits, as ctrl+q does; the footer
        # lists that once ("^q Quit"), not twice.
        Binding("q", "quit_local", N_("Quit"), show=False),
        Binding("b", "toggle_bell", N_("Bell"), show=False),
        Binding("g", "show_result", N_("Result"), show=False),
        # i is a choice key here: the players' profiles are P (i in the waiting room and the
        # game-over dialog).
        Binding("P", "players", N_("Players"), show=False),
        Binding("escape", "back", N_("Back"), show=False),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        local = not self.controller.has_lobby
        if action == "leave":
            return not local
        if action == "quit_local":
            return local
        return True

    def __init__(self, room: RoomState, controller: Controller) -> None:
        super().__init__()
        self.room = room
        self.controller = controller
        self._had_decision = False
        self._summed_up: object = None  # the turn whose "since your last turn" is shown
        # Messages can arrive between push_screen and compose; until on_mount has drawn the
        # room (which includes them, since they are in RoomState) updates are skipped.
        self._ready = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield StripsBoard(id="strips")
            yield HandPanel(id="hand")
        with Horizontal(id="bottom"):
            yield GameLog(self.room, id="log")
            yield PromptPanel(id="prompt")
        yield Static("", id="detail")
        yield StatusLine(id="status")
        yield Input(
            placeholder=_("Say something (Enter sends, Esc closes)"),
            id="chat",
            max_length=300,
            compact=True,
        )
        yield LocalisedFooter()

    def on_mount(self) -> None:
        if not self.query("#strips"):
            return  # replaced by a newer screen before it mounted: its widgets are gone
        self.query_one("#strips").border_title = _("Strips")
        self.query_one("#hand").border_title = _("Hand")
        self.query_one("#log").border_title = _("Log")
        door = self.controller.front_door
        if door.resume_code and self.room.role == "player":
            # Shown for the whole game: the quit dialog says the command around it.
            self.query_one("#log").border_subtitle = Text(
                _("resume code {code}").format(code=door.resume_code)
            )
        self.query_one("#chat", Input).display = False
        self._ready = True
        self._tell_spectator()
        self.reset_log()
        self.show_view()
        self.query_one("#prompt-options", OptionList).focus()
        # Once the table has settled (nobody opens help in its first second): rendering the
        # rules takes the CPU for a moment, which the first frames of the table need more.
        self.set_timer(1.0, lambda: self.post_message(TableSettled()))

    def _tell_spectator(self) -> None:
        """Once per room, in the log where chat shows: a spectator's words wait for the end."""
        room = self.room
        if (
            room.role == "player"
            or room.spectator_told
            or (room.view is None or room.view.public.over)
        ):
            return
        room.spectator_told = True
        notice = _(
            "You are watching: your chat reaches the other spectators now and the players "
            "only after the game, so that nobody can help a player."
        )
        room.log.append(LogEntry("notice", notice))

    # --- updates from the app -------------------------------------------------------------

    def reset_log(self) -> None:
        """Redraw the whole log from the room's history (after a join, resume or rematch)."""
        if not self._ready:
            return
        log = self.query_one(GameLog)
        log.clear()
        for entry in self.room.log:
            log.add_entry(entry)
        # The newest line in view once the replay is drawn (it may be drawn after a layout).
        self.call_after_refresh(log.scroll_end, animate=False)

    def add_log(self, entry: LogEntry) -> None:
        """Append one line to the log."""
        if not self._ready:
            return
        self.query_one(GameLog).add_entry(entry)

    def show_view(self) -> None:
        """Redraw every panel from the room's latest view and timers."""
        if not self._ready:
            return
        view = self.room.view
        if view is None:
            return
        seat = own_seat(view)
        presence = self.room.presence()
        self.query_one(StripsBoard).update_view(view, presence)
        self.query_one(HandPanel).update_view(view, self.room.keys)
        self._fit_top()
        mine = self.room.seconds_left(seat) if view.legal else None
        self.query_one(PromptPanel).update_view(view, mine, self.room.keys)
        status = self.query_one(StatusLine)
        status.update_view(view, self.room.code, self._status_timer(view))
        status.set_away(seat is not None and presence.get(seat) == "away")
        status.set_takeovers(self.room.takeovers(), seat)
        deciding = bool(view.legal)
        if (
            not deciding
            and isinstance(self.focused, OptionList)
            and self.focused.id == "prompt-options"
        ):
            self._detail("")  # the described choice is gone
        if deciding and view.public.active == seat and view.public.turn != self._summed_up:
            # Our turn begins: what the others did since our last one, in a few lines.
            self._summed_up = view.public.turn
            lines = self.room.since.take(view)
            if lines:
                self.query_one(GameLog).add_summary(
                    pgettext("since", "Since your last turn"), lines
                )
        if deciding and not self._had_decision:
            self.post_message(DecisionDue())
            # Bring the keyboard back to the prompt unless the player is reading or chatting.
            focused = self.focused
            if focused is None or not isinstance(focused, Input | StripsBoard | GameLog):
                self.query_one("#prompt-options", OptionList).focus()
        self._had_decision = deciding

    def on_resize(self, event: events.Resize) -> None:
        if self._ready:
            self._fit_top(event.size.height, event.size.width)

    def _fit_top(self, screen_height: int | None = None, screen_width: int | None = None) -> None:
        """Give the hand room for every card when the terminal is tall enough.

        At 24 rows the top panels keep the board's 11 rows; taller terminals let a big hand
        grow the top (the board then sits in the middle of its panel), keeping 10 rows below.
        """
        height = screen_height if screen_height is not None else self.size.height
        # The hand's lines (identical copies share one), and its legend line if it has one.
        lines = self.query_one(HandPanel).option_count
        wanted = max(9, lines) + 2
        room_for = height - 3 - 10
        top = max(11, min(wanted, room_for))
        self.query_one("#top").styles.height = top
        # Strips get at least 10 cells each (a card's short name whole; five strips at 80
        # columns need more than their 3/5), the hand the rest.
        seats = self.room.view.public.seats if self.room.view is not None else 4
        board = LABEL_WIDTH + 2 + seats * 10
        width = screen_width if screen_width is not None else self.size.width
        wide = width * 3 // 5 >= board
        self.query_one(StripsBoard).styles.width = "3fr" if wide else board
        self.query_one(StripsBoard).styles.height = top
        self.query_one(HandPanel).styles.height = top

    def _status_timer(self, view: View) -> float | None:
        """Our own countdown if we decide, else the first running one among those we wait for."""
        if view.legal:
            return self.room.seconds_left(own_seat(view))
        for pending in view.public.pending:
            left = self.room.seconds_left(pending.seat)
            if left is not None:
                return left
        return None

    def refresh_presence(self) -> None:
        """The room's seat list changed (away, offline, left)."""
        if not self._ready:
            return
        presence = self.room.presence()
        self.query_one(StripsBoard).set_presence(presence)
        self.query_one(StatusLine).set_away(presence.get(self.room.seat or -1) == "away")

    def restore_prompt(self) -> None:
        """Show the choices again after the server refused our pick (e.g. a stale version)."""
        if not self._ready:
            return
        prompt = self.query_one(PromptPanel)
        prompt.clear()
        if self.room.view is not None:
            prompt.update_view(
                self.room.view, self.room.seconds_left(self.room.seat), self.room.keys
            )

    # --- the player's input ---------------------------------------------------------------

    def _prompt(self) -> PromptPanel | None:
        """The prompt, or None while the table is being taken down (a rematch, a language
        switch or the app's exit removes its widgets before the messages already on their way
        to the table, such as a key or a highlight, are handled)."""
        found = self.query(PromptPanel)
        return found.first() if found else None

    def action_choose(self, key: str) -> None:
        """A choice key (selfish_tui.choice_keys): pick or open the entry it stands for."""
        if (prompt := self._prompt()) is not None:
            prompt.press(key)

    def action_back(self) -> None:
        """Esc: close the chat input, else go back from a card's targets to the cards."""
        if self.query_one("#chat", Input).display:
            self.action_close_chat()
        elif (prompt := self._prompt()) is not None:
            prompt.back()

    def on_screen_resume(self) -> None:
        # Back from a dialog: the prompt may have changed behind it, and the key that closed
        # the dialog may be followed by one meant for it. Either way, let the prompt settle.
        if self._ready:
            self.query_one(PromptPanel).mark_new()

    def on_prompt_panel_chosen(self, message: PromptPanel.Chosen) -> None:
        message.stop()
        choice = message.choice
        if choice.fatal and self.room.view is not None:

            def answered(yes: bool | None) -> None:
                if yes:
                    self._send_choice(choice)

            self.app.push_screen(
                ConfirmScreen(
                    _("{label}: this certainly kills you. Do it anyway?").format(
                        label=choice_label(choice, self.room.view)
                    ),
                    yes=_("Do it"),
                    no=_("Choose again"),
                ),
                answered,
            )
            return
        self._send_choice(choice)

    def _send_choice(self, choice: Choice) -> None:
        # The prompt clears at once (a second key cannot pick again); the app puts the
        # choices back if the act cannot go out.
        if (prompt := self._prompt()) is not None:
            prompt.clear()
        self.post_message(ChoiceMade(self.room.code, self.room.version, choice))

    def on_hand_panel_card_chosen(self, message: HandPanel.CardChosen) -> None:
        message.stop()
        if (prompt := self._prompt()) is None:
            return
        # A line of identical copies: the choice may name any one of them.
        used = {card for choice in prompt.choices for card in choice_cards(choice)}
        wanted = [card for card in message.card_ids if card in used] or [message.card_id]
        prompt.highlight_card(wanted[0])

    def on_hand_panel_card_focused(self, message: HandPanel.CardFocused) -> None:
        message.stop()
        self._detail(message.text)

    def on_strips_board_cell_focused(self, message: StripsBoard.CellFocused) -> None:
        message.stop()
        self._detail(message.text)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        prompt = self._prompt()
        if prompt is None:
            return
        if event.option_list is prompt.options and 0 <= event.option_index < len(prompt.shown):
            view = self.room.view
            entry = prompt.shown[event.option_index]
            if entry.note:
                self._detail(entry.note)
            elif entry.detail is not None and view is not None:
                self._detail(catalogue_text_for_choice(entry.detail, view))

    def _detail(self, text: str) -> None:
        for detail in self.query("#detail").results(Static):  # none while taken down
            # One line: cut after a word, with an ellipsis, to the line's width.
            width = detail.content_size.width or self.size.width - 2
            detail.update(Text(word_cut(text, width) if width > 0 else text))

    def action_focus_panel(self, widget_id: str) -> None:
        """Move the keyboard to a panel."""
        self.query_one(f"#{widget_id}").focus()

    def action_chat(self) -> None:
        """Open the chat input."""
        chat = self.query_one("#chat", Input)
        if self.room.role != "player" and not (
            self.room.view is None or self.room.view.public.over
        ):
            # The server keeps spectators' words from the players until the game is over.
            chat.placeholder = _(
                "Say something to the other spectators (players read it after the game)"
            )
        else:
            chat.placeholder = _("Say something (Enter sends, Esc closes)")
        chat.display = True
        chat.focus()

    def action_close_chat(self) -> None:
        """Hide the chat input and return to the prompt."""
        chat = self.query_one("#chat", Input)
        if chat.display:
            chat.value = ""
            chat.display = False
            self.query_one("#prompt-options", OptionList).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.post_message(ChatSaid(self.room.code, text))
        self.action_close_chat()

    def action_toggle_bell(self) -> None:
        """Turn the bell for 'your turn' on or off."""
        self.post_message(BellToggled())

    async def action_quit_local(self) -> None:
        """q in local play: quit (asking first while the game runs)."""
        await self.app.action_quit()

    async def action_leave(self) -> None:
        """Back to the lobby (connected to a server), asking first while our game runs. In
        local play there is no lobby: it is the same as quitting."""
        if not self.controller.has_lobby:
            await self.app.action_quit()
            return
        room = self.room
        if not room.in_progress():
            self.post_message(LeaveRoom(room.code))
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.post_message(LeaveRoom(room.code))

        question = _(
            "Leave this game? A bot plays your seat to the end, and you cannot take it back."
        )
        self.app.push_screen(
            ConfirmScreen(question, yes=_("Leave"), no=_("Keep playing")), answered
        )

    def action_players(self) -> None:
        """The room's players, to open one's profile."""
        self.post_message(PlayersWanted(room_players(self.room)))

    def action_show_result(self) -> None:
        """Open the game-over dialog again after closing it to look at the board."""
        if self.room.game_over is not None or self.room.over:
            self.post_message(ResultWanted(self.room.code))
