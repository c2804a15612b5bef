"""What each player did in a finished game, counted from its events: the game-over screen's lines.

Per seat: how many action cards it played, the oxygen or food it lost and to whom (a player who
took it or attacked, or the game itself: breathing, travelling, a location card, a shark), and
how its game ended (won, died and why, or alive where it stood). The events are typed
(protocol.game_types.Event): read from a re-played record they are whole; read from the player's
own log a stolen card may be hidden (``cards`` left out), and is then counted as a card of
unknown value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from protocol.game_types import Arg, Card, Event
from selfish_tui.event_text import resource_word
from selfish_tui.i18n import _, ngettext, pgettext
from selfish_tui.keyed_text import card_name

#: Causes of a loss that are the game's, not a player's (the ``reason`` of a ``pay`` event).
GAME_CAUSES = ("stay", "travel", "bite")


@dataclass
class PlayerSummary:
    """One seat's game in numbers. ``lost`` maps a cause (a seat, or a reason: ``stay``,
    ``travel``, ``bite``, a card key) to the units lost to it; ``unknown`` counts cards lost whose
    value the reader may not see."""

    seat: int
    played: int = 0
    lost: dict[int | str, int] = field(default_factory=dict)
    unknown: int = 0
    died: str | None = None  # the death event's key (death.oxygen, death.no_food, death.eaten)
    died_turn: int | None = None
    reason: str | None = None  # why a Shipwrecked castaway had no food
    won: str | None = None  # the win event's key

    def lose(self, cause: int | str, units: int) -> None:
        """Count ``units`` lost to ``cause``."""
        if units:
            self.lost[cause] = self.lost.get(cause, 0) + units


def summarise(
    events: Iterable[Event], seats: int, cards: Mapping[int, Card]
) -> list[PlayerSummary]:
    """Every seat's summary from a game's events in order. ``cards`` gives a card's ``value``
    and ``kind`` by id (a card not in it counts by its own)."""
    out = [PlayerSummary(seat) for seat in range(seats)]
    attacker: dict[int, int] = {}  # target -> the seat whose card aims at it now
    turn = 0

    def units(listed: Arg | None) -> int | None:
        if isinstance(listed, Card):
            listed = (listed,)
        if not isinstance(listed, tuple):
            return None
        return sum(_value(card, cards) for card in listed if isinstance(card, Card))

    def seat(value: Arg | None) -> int | None:
        return value if isinstance(value, int) and 0 <= value < seats else None

    for event in events:
        key = event.key
        args = event.args
        player = seat(args.get("player"))
        if key == "turn":
            number = args.get("turn")
            turn = number if isinstance(number, int) else 0
            attacker.clear()  # an attack is resolved within its turn
        elif key in ("play", "play.on") and player is not None:
            out[player].played += 1
            target = seat(args.get("target"))
            if target is not None:
                attacker[target] = player
        elif key == "target" and player is not None:
            target = seat(args.get("target"))
            if target is not None:
                attacker[target] = player
        elif key == "pay" and player is not None:
            reason = str(args.get("reason", ""))
            cause: int | str = reason
            if reason not in GAME_CAUSES and player in attacker and _is_action(reason, cards):
                cause = attacker[player]
            lost = units(args.get("cards"))
            out[player].lose(cause, lost or 0)
        elif key in ("steal", "steal.card", "take"):
            victim = seat(args.get("victim"))
            thief = seat(args.get("thief", args.get("looker")))
            if victim is None or thief is None:
                continue
            lost = units(args.get("cards", args.get("card")))
            if lost is None:
                out[victim].unknown += 1
            else:
                out[victim].lose(thief, lost)
        elif (
            key in ("discard.meteoroid", "discard.hurricane", "discard.lost") and player is not None
        ):
            cause = attacker.get(player, key) if key == "discard.lost" else key
            out[player].lose(cause, units(args.get("cards", args.get("card"))) or 0)
        elif key.startswith("death.") and player is not None:
            out[player].died = key
            out[player].died_turn = turn
            out[player].reason = str(args["reason"]) if "reason" in args else None
        elif key.startswith("win.") and player is not None:
            out[player].won = key
    return out


def _value(card: Card, cards: Mapping[int, Card]) -> int:
    """The oxygen or food units of a card (0 for an action card)."""
    known = cards.get(card.id, card)
    return known.value if known.kind == "resource" else 0


def _is_action(key: str, cards: Mapping[int, Card]) -> bool:
    """Whether ``key`` names an action card (a player's attack), not a location card."""
    return any(card.key == key and card.kind == "action" for card in cards.values())


def cause_words(cause: int | str, edition: str, names: list[str]) -> str:
    """Who or what a loss went to, in words: a seat's name, or the game's part in it."""
    if isinstance(cause, int):
        return names[cause] if 0 <= cause < len(names) else "?"
    shipwrecked = edition == "shipwrecked"
    words = {
        "stay": pgettext("lost to", "floating")
        if shipwrecked
        else pgettext("lost to", "breathing"),
        "travel": pgettext("lost to", "swimming")
        if shipwrecked
        else pgettext("lost to", "travelling"),
        "bite": pgettext("lost to", "sharks"),
        "discard.meteoroid": card_name("meteoroid"),
        "discard.hurricane": card_name("hurricane"),
        "discard.lost": card_name("lost"),
    }
    return words.get(cause) or card_name(cause)


def summary_line(summary: PlayerSummary, edition: str, names: list[str]) -> str:
    """One seat's numbers in a line: cards played, what it lost and to whom."""
    played = ngettext("played {count} card", "played {count} cards", summary.played).format(
        count=summary.played
    )
    total = sum(summary.lost.values())
    if not total and not summary.unknown:
        return played + pgettext("summary", ", lost no {resource}").format(
            resource=resource_word(edition)
        )
    order = sorted(summary.lost.items(), key=lambda item: (-item[1], str(item[0])))
    parts = [
        (
            pgettext("summary", "{count} to {whom}")
            if isinstance(cause, int)
            else pgettext("summary", "{count} {what}")
        ).format(
            count=count,
            whom=cause_words(cause, edition, names),
            what=cause_words(cause, edition, names),
        )
        for cause, count in order
    ]
    if summary.unknown:
        parts.append(
            ngettext("{count} unseen card", "{count} unseen cards", summary.unknown).format(
                count=summary.unknown
            )
        )
    lost = pgettext("summary", ", lost {count} {resource} ({parts})").format(
        count=total, resource=resource_word(edition), parts=pgettext("list", ", ").join(parts)
    )
    return played + lost


def death_words(summary: PlayerSummary) -> str:
    """How a seat died, in a few words ('' if it did not)."""
    if summary.died is None:
        return ""
    if summary.died == "death.eaten":
        how = _("eaten by a shark")
    elif summary.died == "death.no_food":
        how = _("no food left")
    else:
        how = _("out of oxygen")
    return _("{how}, turn {turn}").format(how=how, turn=summary.died_turn or "?")
