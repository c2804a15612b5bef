"""What `selfish bot` and `selfish simulate` print for a person, in the active language.

The server's headless client and self-play report structured results (a finished game, a
summary of many); these functions word them, from the same catalogue as the interface, and
selfish_tui/local.py hands them to the server's commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from selfish_tui.i18n import _, ngettext


class FinishedGame(Protocol):
    """A game the headless client saw end (server/bots/client.py ``GameResult``)."""

    room: str
    winner_name: str | None
    turns: int


def game_line(result: FinishedGame) -> str:
    """The line `selfish bot` prints after each game: the room, the winner and the turns."""
    winner = result.winner_name if result.winner_name is not None else _("nobody")
    return ngettext(
        "game {room} finished: winner {winner} after {turns} turn",
        "game {room} finished: winner {winner} after {turns} turns",
        result.turns,
    ).format(room=result.room, winner=winner, turns=result.turns)


def simulation_lines(summary: Mapping[str, Any]) -> list[str]:
    """The summary `selfish simulate` prints (its ``simulate`` summary): the games, every
    seat's wins, the games nobody won or the cap ended, the turns, the invariant checks."""
    games = int(summary["games"])
    levels = [str(level) for level in summary["bots"]]
    variants = " ".join(str(v) for v in summary["variants"])
    head = _("{games} {edition} games, {seats} seats ({bots}), seed {seed}").format(
        games=games,
        edition=summary["edition"],
        seats=summary["players"],
        bots=", ".join(levels),
        seed=summary["seed"],
    )
    if variants:
        head += _(", variants {variants}").format(variants=variants)
    lines = [head]
    for seat, count in enumerate(summary["wins"]):
        lines.append(
            _("  seat {seat} ({level}): {count} wins ({share:.1f}%)").format(
                seat=seat + 1, level=levels[seat], count=count, share=100 * count / games
            )
        )
    lines.append(
        _("  no winner: {none}  capped: {capped}").format(
            none=summary["no_winner"], capped=summary["capped"]
        )
    )
    lines.append(
        _("  turns: mean {mean}, max {most}; {speed} games/s").format(
            mean=summary["mean_turns"], most=summary["max_turns"], speed=summary["games_per_second"]
        )
    )
    lines.append(
        _("  invariants: {checks} checks, {failures} failures").format(
            checks=summary["invariant_checks"], failures=summary["invariant_failures"]
        )
    )
    lines.extend(_("  FAILED {failure}").format(failure=f) for f in summary["failures"])
    return lines
