"""What the other players did since your last turn, in a few short lines.

Three bots can take their turns in three seconds and scroll thirty log lines past a player
whose log shows eight. When a turn of ours begins, the table adds one line per player that did
something since our previous turn ended: the cards they played (on whom, blocked or not),
where they went, what they lost. It is made from the structured events (their ``key`` and
``args``, PROTOCOL.md §5) and the rows of the views before and after, never from the English
text, so it reads the same in every language.

:class:`SinceLastTurn` collects; :func:`summary_lines` words the lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from protocol.game_types import Card, Event
from protocol.view_types import View
from selfish_tui.event_text import goal_word
from selfish_tui.i18n import npgettext, pgettext
from selfish_tui.keyed_text import card_name

#: Events whose ``args.player`` loses cards that were not the price of staying or moving.
LOSING = ("discard.meteoroid", "discard.hurricane", "discard.lost")
ROUTINE_REASONS = ("stay", "travel")


@dataclass
class Story:
    """What one player did in the span."""

    plays: Counter[tuple[str, int | None, bool]] = field(default_factory=Counter)
    stayed: bool = False
    moved: bool = False
    lost: int = 0
    bitten: bool = False
    died: bool = False
    won: bool = False


def stories(events: Sequence[Event]) -> dict[int, Story]:
    """Each seat's :class:`Story` from a span of events."""
    told: dict[int, Story] = {}
    # The attack a blocking reaction answers, by its target: (attacker, card key).
    last_attack: dict[int, tuple[int, str]] = {}

    def story(seat: object) -> Story | None:
        return told.setdefault(seat, Story()) if isinstance(seat, int) else None

    def count(cards: object) -> int:
        return len(cards) if isinstance(cards, tuple) else 0

    for event in events:
        key = event.key
        args = event.args
        player = args.get("player")
        who = story(player)
        card = args.get("card")
        card_key = card.key if isinstance(card, Card) else ""
        if key in ("play", "play.on") and who is not None:
            target = args.get("target")
            target = target if isinstance(target, int) else None
            who.plays[(card_key, target, False)] += 1
            if target is not None and isinstance(player, int):
                last_attack[target] = (player, card_key)
        elif key == "react.block" and isinstance(player, int) and player in last_attack:
            attacker, attack = last_attack.pop(player)
            plays = told[attacker].plays
            plays[(attack, player, False)] -= 1
            if not plays[(attack, player, False)]:
                del plays[(attack, player, False)]
            plays[(attack, player, True)] += 1
        elif key == "stay" or key == "stay.discard":
            if who is not None:
                who.stayed = True
        elif key in ("move", "back", "back.discard", "swap", "move.freeloader"):
            if who is not None:
                who.moved = True
            other = story(args.get("other"))
            if other is not None:
                other.moved = True
        elif key == "pay" and who is not None and args.get("reason") not in ROUTINE_REASONS:
            who.lost += count(args.get("cards"))
        elif key in LOSING and who is not None:
            who.lost += count(args.get("cards")) or 1
        elif key in ("steal", "steal.card", "take"):
            victim = story(args.get("victim"))
            if victim is not None:
                victim.lost += count(args.get("cards")) or 1
        elif key == "bite" and who is not None:
            who.bitten = True
        elif key.startswith("death.") and who is not None:
            who.died = True
        elif key.startswith("win.") and who is not None:
            who.won = True
    return told


def summary_lines(
    events: Sequence[Event],
    view: View,
    rows_before: Mapping[int, int] | None,
) -> list[str]:
    """One line per player who did something in ``events``, in turn order after us, then
    ours ("You: …") if something happened to us; [] when nothing did. ``rows_before``: each
    seat's row when the span began (None: not known, then only the rows now are said)."""
    you = view.own.seat if view.own is not None else None
    names = view.public.names
    rows = {p.seat: p.row for p in view.public.players}
    told = stories(events)
    count = len(names)
    start = (you + 1) if isinstance(you, int) else 0
    order = [(start + step) % count for step in range(count)] if count else []
    lines = []
    for seat in order:
        story = told.get(seat)
        if story is None:
            continue
        phrases = [
            *_plays_named(story.plays, you, view),
            *_where(story, seat, rows, rows_before, view),
        ]
        if story.lost:
            phrases.append(
                npgettext("since", "lost {count} card", "lost {count} cards", story.lost).format(
                    count=story.lost
                )
            )
        if story.bitten:
            phrases.append(pgettext("since", "bitten by a shark"))
        if story.died:
            phrases.append(pgettext("since", "died"))
        if not phrases:
            continue
        who = pgettext("since", "You") if seat == you else str(names[seat])
        lines.append(
            pgettext("since", "{player}: {what}").format(
                player=who, what=pgettext("since", "; ").join(phrases)
            )
        )
    return lines


def _plays_named(
    plays: Counter[tuple[str, int | None, bool]],
    you: int | None,
    view: View,
) -> list[str]:
    """One phrase per card played, its targets together: "Oxygen Siphon on you, Bot 1
    (blocked)", "Tether ×2"."""  # noqa: RUF002
    names = view.public.names
    by_card: dict[str, list[str]] = {}
    alone: Counter[str] = Counter()
    for (key, target, blocked), count in plays.items():
        if target is None:
            alone[key] += count
            by_card.setdefault(key, [])
            continue
        text = pgettext("since", "you") if target == you else str(names[target])
        if count > 1:
            text = pgettext("since", "{play} ×{count}").format(play=text, count=count)  # noqa: RUF001
        if blocked:
            text = pgettext("since", "{play} (blocked)").format(play=text)
        by_card.setdefault(key, []).append(text)
    out = []
    for key, targets in by_card.items():
        name = card_name(key)
        if alone[key]:
            count = alone[key]
            out.append(
                name
                if count == 1
                else pgettext("since", "{play} ×{count}").format(play=name, count=count)  # noqa: RUF001
            )
        if targets:
            out.append(
                pgettext("since", "{card} on {targets}").format(
                    card=name, targets=pgettext("since", ", ").join(targets)
                )
            )
    return out


def _where(
    story: Story,
    seat: int,
    rows: Mapping[int, int],
    rows_before: Mapping[int, int] | None,
    view: View,
) -> list[str]:
    if story.won:
        return [pgettext("since", "reached {goal}").format(goal=goal_word(view.public.edition))]
    now = rows.get(seat)
    before = rows_before.get(seat) if rows_before is not None else None
    if now is None:
        return []
    if before is not None and before != now:
        return [pgettext("since", "row {before} → {after}").format(before=before, after=now)]
    if story.moved and before is not None:  # forward and back again, or swapped back
        return [pgettext("since", "still on row {row}").format(row=now)]
    if story.moved:
        return [pgettext("since", "now on row {row}").format(row=now)]
    if story.stayed:
        return [pgettext("since", "stayed on row {row}").format(row=now)]
    return []


@dataclass
class SinceLastTurn:
    """The events since our last turn ended, and the rows then; :meth:`take` words them.

    A span begins when a turn of ours ends (the first ``turn`` event of someone else after
    ours) and is worded when our next turn begins; a history replay (join, resume) starts a
    fresh span, since what happened before it is in the log already.
    """

    seat: int | None = None
    events: list[Event] = field(default_factory=list)
    rows_before: dict[int, int] | None = None
    _ours: bool = False  # the turn in progress is ours
    _ended: bool = False  # our turn ended: the next view's rows begin the span

    def restart(self) -> None:
        """Forget the span (a history replay)."""
        self.events = []
        self.rows_before = None
        self._ours = False
        self._ended = False

    def add(self, events: Sequence[Event]) -> None:
        """Events as they arrive."""
        for event in events:
            if event.key == "turn":
                ours = self.seat is not None and event.args.get("player") == self.seat
                if self._ours and not ours:
                    self.events = []
                    self._ended = True
                self._ours = ours
            self.events.append(event)

    def saw(self, view: View) -> None:
        """A new view: the first after our turn ended gives the rows the span begins with (so
        does the first of a game or after a replay: nobody has moved since)."""
        if self._ended or self.rows_before is None:
            self._ended = False
            self.rows_before = {p.seat: p.row for p in view.public.players}

    def take(self, view: View) -> list[str]:
        """The lines for the span up to our turn's start, and begin a new one; [] if there is
        nothing to say (our first turn, or nothing happened)."""
        upto = len(self.events)
        for index in range(len(self.events) - 1, -1, -1):
            event = self.events[index]
            if event.key == "turn":
                if event.args.get("player") == self.seat:
                    upto = index
                break
        lines = summary_lines(self.events[:upto], view, self.rows_before)
        self.events = self.events[upto:]
        return lines
