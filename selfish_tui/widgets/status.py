"""The status line: edition, turn, whose turn, phase, what we wait for, the timer countdown, and
the countdown before a bot takes a missing player's seat."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from protocol.view_types import View
from selfish_tui import clock
from selfish_tui.event_text import card_list
from selfish_tui.i18n import _, pgettext, word_cut
from selfish_tui.model import own_seat, player_name, seat_colour
from selfish_tui.plain import fit

# A name in the takeover countdown is cut to this many cells, so that the countdown itself (at
# the end of the sentence) always fits in 80 columns.
TAKEOVER_NAME_CELLS = 16


def phases() -> dict[str, str]:
    """The phase names of the status line, in the active language."""
    return {
        "actions": pgettext("phase", "actions"),
        "stay_or_move": pgettext("phase", "stay or move"),
        "resolving": pgettext("phase", "resolving"),
        "over": pgettext("phase", "game over"),
    }


def clock_text(seconds: float) -> str:
    """Seconds as m:ss, rounded up (a countdown reads 0:45 until 45 s are really gone)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}"


def takeover_text(reason: str, name: str, seconds: float, mine: bool) -> str:
    """The countdown before a bot takes a seat, in the active language: ``reason`` ``left``
    (its player is not connected) or ``idle`` (connected, not deciding)."""
    time = clock_text(seconds)
    if mine:
        return _("You are idle — a bot plays for you in {time}").format(time=time)
    name = fit(name, TAKEOVER_NAME_CELLS)
    if reason == "left":
        return _("{name} left — a bot plays for {name} in {time}").format(name=name, time=time)
    return _("{name} is idle — a bot plays for {name} in {time}").format(name=name, time=time)


def kind_words() -> dict[str, str]:
    """What a seat is deciding, by decision kind, in the active language ("to react")."""
    return {
        "actions": _("to play or pass"),
        "stay_or_move": _("to stay or move"),
        "pay": _("to pay"),
        "react": _("to react"),
        "take": _("to take a card"),
        "meteoroid": _("to discard 2"),
        "swap": _("to choose a swap"),
        "shark_bait": _("to move a shark"),
        "freeloader": _("to choose who advances"),
        "hurricane": _("to discard"),
        "pick": _("to pick for the sharks"),
    }


class StatusLine(Static):
    """One line summarising the game. The countdown ticks locally from the server's deadline."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.view_data: View | None = None
        self.room = ""
        self.deadline: float | None = None
        self.connection_note = ""
        self.away = False
        self.me: int | None = None  # our seat (None: watching)
        self.takeovers: list[tuple[int, str, float]] = []  # (seat, reason, deadline), soonest first

    def on_mount(self) -> None:
        self.set_interval(0.5, self._tick)

    def update_view(self, view: View, room: str = "", seconds_left: float | None = None) -> None:
        """Show a new view; ``seconds_left`` starts a countdown (None: no timer running)."""
        self.view_data = view
        self.room = room or self.room
        self.deadline = None if seconds_left is None else clock.now() + seconds_left
        self._redraw()

    def set_connection_note(self, note: str) -> None:
        """Show a connection problem ('reconnecting in 2 s…') until cleared with ''."""
        self.connection_note = note
        self._redraw()

    def set_away(self, away: bool) -> None:
        """Say that the server marked our seat away (its bot plays until we act)."""
        if away != self.away:
            self.away = away
            self._redraw()

    def set_takeovers(self, takeovers: list[tuple[int, str, float]], me: int | None) -> None:
        """Count down the seats a bot is about to take: (seat, reason, seconds left)."""
        now = clock.now()
        self.takeovers = [(seat, reason, now + left) for seat, reason, left in takeovers]
        self.me = me
        self._redraw()

    def seconds_left(self) -> int | None:
        """Whole seconds until the current deadline, or None."""
        if self.deadline is None:
            return None
        return max(0, int(self.deadline - clock.now() + 0.999))

    def _tick(self) -> None:
        if self.deadline is not None or self.takeovers:
            self._redraw()

    def _redraw(self) -> None:
        self.update(self.summary())

    def on_resize(self) -> None:
        self._redraw()

    def summary(self) -> Text:
        """The status line's content: whole parts only, the least needed left out first when
        the line is wider than the widget (never a part cut in the middle)."""
        parts = self._parts()
        width = self.content_size.width or 78
        kept = list(parts)
        while len(kept) > 1 and sum(part.cell_len for _rank, part in kept) > width:
            kept.remove(max(kept, key=lambda item: item[0]))
        excess = sum(part.cell_len for _rank, part in kept) - width
        if excess > 0:
            # One part is too long on its own (five long names): cut it at a word.
            rank, last = kept[-1]
            short = word_cut(last.plain, max(1, last.cell_len - excess))
            kept[-1] = (rank, Text(short, style=last.style))
        line = Text(no_wrap=True, overflow="ellipsis")
        for _rank, part in kept:
            line.append_text(part)
        if len(kept) < len(parts) and line.cell_len < width:
            line.append("…", style="dim")  # something was left out
        return line

    def _parts(self) -> list[tuple[int, Text]]:
        """(rank, part) in the order shown; the highest rank is left out first."""
        parts: list[tuple[int, Text]] = []

        def add(rank: int, text: str, style: str = "") -> None:
            parts.append((rank, Text(text, style=style)))

        if self.connection_note:
            add(0, f" {self.connection_note} ", "bold reverse bright_red")
            add(0, " ")
        view = self.view_data
        if view is not None and self.takeovers and not view.public.over:
            # First after connection trouble: everyone at the table must see it, in 80 columns.
            seat, reason, deadline = self.takeovers[0]
            text = takeover_text(
                reason, player_name(view, seat), deadline - clock.now(), seat == self.me
            )
            add(0, f" {text} ", "bold reverse yellow")
            if len(self.takeovers) > 1:
                add(0, f" +{len(self.takeovers) - 1}", "bold")
            add(0, " ")
        if self.away:
            add(1, _(" away: a bot plays for you until you choose "), "bold reverse")
            add(1, " ")
        if view is None:
            add(2, _("Not in a game."))
            return parts
        left = self.seconds_left()
        if left is not None and not view.public.over:
            # First, so that a long line never cuts the countdown off.
            add(0, _("{left}s left").format(left=left), "bold reverse" if left <= 5 else "bold")
            add(0, " · ")
        public = view.public
        edition = _("Shipwrecked") if public.edition == "shipwrecked" else _("Space")
        add(6, edition, "bold")
        if self.room:
            add(7, f" {self.room}", "dim")
        add(5, _(" · turn {turn} · ").format(turn=public.turn))
        if public.over:
            winner = public.winner
            add(2, _("game over: "), "bold")
            add(
                2,
                _("{name} wins").format(name=player_name(view, winner))
                if winner is not None
                else _("nobody wins"),
            )
            return parts
        active = public.active
        me = own_seat(view)
        if active == me and me is not None:
            add(2, _("your turn"), "bold reverse bright_green")
        else:
            add(2, _("{name}'s turn").format(name=player_name(view, active)), seat_colour(active))
        waiting = [p for p in public.pending if not p.done]
        if view.legal:
            phase = public.phase
            add(4, f" · {phases().get(phase, phase)}")
            add(3, " · ")
            add(3, _("you decide"), "bold reverse")
        elif [p.seat for p in waiting] == [active]:
            # Only the player whose turn it is: the phase says what they are doing.
            kind = kind_words().get(waiting[0].kind, "")
            add(4, f" · {kind.removeprefix('to ')}".rstrip(" ·"))
        elif waiting:
            names = card_list([player_name(view, p.seat) for p in waiting])
            kind = kind_words().get(waiting[0].kind, "")
            add(3, _(" · waiting for {names} {kind}").format(names=names, kind=kind).rstrip())
        return parts
