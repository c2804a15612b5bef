"""The tutorial (`selfish play --tutorial`): a short scripted game that explains each step of
play the first time the game reaches it.

"Scripted" means a fixed game, not a fixed story: the room is made with a seed found by search
(``bench/tutorial_seed.py``: with it, two basic bots and a newcomer reach every lesson early
whatever the newcomer chooses) and seeded bots of known behaviour (the server seeds their
choices from the room's seed). The engine is untouched: a seed is all a room is made from.
The lessons are detected on the client from the views the server sends, like everything the
table shows; :class:`Tutor` remembers which have been shown so each appears once.

The Space tutorial teaches drawing, actions, stay or move and reactions; the Shipwrecked one
adds the compass arrows (↑N …) and the shark picks, which exist only there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.view_types import View
from selfish_tui.i18n import N_, _

#: The seed of each edition's tutorial game (found by bench/tutorial_seed.py).
SEEDS = {"space": 273, "shipwrecked": 70}
#: Two bot opponents: short rounds, and still someone to aim an action card at you.
BOTS = 2
LEVEL = "basic"


def room_settings(edition: str) -> dict[str, Any]:
    """What the tutorial's ``create_room`` sets: its seed, seats and bots."""
    return {"seed": SEEDS[edition], "seats": BOTS + 1, "bots": BOTS, "bot_level": LEVEL}


def my_decision(view: View) -> str | None:
    """The kind of the decision this seat must make now, or None."""
    decision = view.own.decision if view.own is not None else None
    return decision.kind if decision is not None and view.legal else None


def _my_turn(view: View) -> bool:
    seat = view.own.seat if view.own is not None else None
    return view.public.active == seat and my_decision(view) in (
        "actions",
        "stay_or_move",
    )


@dataclass(frozen=True)
class Lesson:
    """One explanation: shown the first time ``reached(view)`` holds for our seat's view."""

    key: str
    title: str  # msgids (N_): translated when shown, so F2 shows them in the other language
    texts: dict[str, str]  # edition -> msgid
    reached: Callable[[View], bool]
    editions: tuple[str, ...] = ("space", "shipwrecked")

    def text(self, edition: str) -> str:
        """The explanation in the active language."""
        return _(self.texts[edition])


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "welcome",
        N_("Welcome"),
        {
            "space": N_(
                "You are an astronaut. Be the first to reach the ship (★, the top row) holding "
                "at least one oxygen card, and stay alive: the others want the same.\n\n"
                "The strips show one column per player, row 0 at the bottom; your hand is on "
                "the right; the log and your choices are below.\n\n"
                "This game stops to explain each step the first time it matters. ? shows the "
                "keys and the full rules at any time."
            ),
            "shipwrecked": N_(
                "You are a castaway. Be the first to reach the raft (★, the top row), or the "
                "last castaway alive: the others want the same, and so do the sharks (▲).\n\n"
                "The strips show one column per player, row 0 at the bottom; your hand is on "
                "the right; the log and your choices are below.\n\n"
                "This game stops to explain each step the first time it matters. ? shows the "
                "keys and the full rules at any time."
            ),
        },
        lambda view: True,
    ),
    Lesson(
        "draw",
        N_("Step 1: draw"),
        {
            "space": N_(
                "Your turn has begun with its first step: you drew the top card of the game "
                "deck into your hand (the log says which). Oxygen cards show how much oxygen "
                "they are worth; action cards show what they do."
            ),
            "shipwrecked": N_(
                "Your turn has begun with its first step: you drew the top card of the game "
                "deck into your hand (the log says which). Food cards show how much food they "
                "are worth; action cards show what they do."
            ),
        },
        _my_turn,
    ),
    Lesson(
        "actions",
        N_("Step 2: actions"),
        {
            "space": N_(
                "Now play as many action cards as you like, one at a time, or none. ● in your "
                "hand marks the cards you may play now; a card aimed at a player asks for its "
                "target next. A double oxygen can be changed for two singles here too.\n\n"
                "e ends your actions."
            ),
            "shipwrecked": N_(
                "Now play as many action cards as you like, one at a time, or none. ● in your "
                "hand marks the cards you may play now; a card aimed at a player asks for its "
                "target next. A double food can be changed for two singles here too.\n\n"
                "e ends your actions."
            ),
        },
        lambda view: my_decision(view) == "actions",
    ),
    Lesson(
        "stay_or_move",
        N_("Step 3: stay or move"),
        {
            "space": N_(
                "Every turn ends here. Stay (s): breathe, paying 1 oxygen. Move (m): travel, "
                "paying 2 oxygen, one row up; you draw a space card, lay it on the cell you "
                "left and it takes effect.\n\n"
                "An astronaut whose oxygen runs out dies. A choice that would certainly kill "
                "you is marked ☠ and asks you first."
            ),
            "shipwrecked": N_(
                "Every turn ends here. Stay (s): float, paying 1 food. Move (m): swim, paying "
                "2 food, one row up; you draw an ocean card, lay it on the cell you left and "
                "it takes effect.\n\n"
                "A castaway who must pay food and has none dies. Ocean cards in italics bear "
                "a shark icon: they bring the sharks or move them."
            ),
        },
        lambda view: my_decision(view) == "stay_or_move",
    ),
    Lesson(
        "reaction",
        N_("Reaction"),
        {
            "space": N_(
                "An opponent has played an action card on you. If you hold a Shield you may "
                "block it: both cards are discarded and it does nothing to you (not under a "
                "Solar Flare). Or let it happen.\n\n"
                "This prompt looks the same whether you can block or not, so nobody learns "
                "your hand from it."
            ),
            "shipwrecked": N_(
                "An opponent has played an action card on you. If you hold a Dive you may "
                "block it: both cards are discarded and it does nothing to you. Dive blocks "
                "game cards only, never ocean cards. Or let it happen.\n\n"
                "This prompt looks the same whether you can block or not, so nobody learns "
                "your hand from it."
            ),
        },
        lambda view: my_decision(view) == "react",
    ),
    Lesson(
        "compass",
        N_("The arrows"),
        {
            "shipwrecked": N_(
                "Every Shipwrecked card shows a compass point: ↑N north (toward the raft), "
                "→E east (one strip right), ↓S south (toward the beach), ←W west (one strip "
                "left).\n\n"
                "The arrows steer the sharks (▲) when they move. When you pay food you choose "
                "which cards go, so you choose which arrows you keep."
            ),
        },
        lambda view: bool(view.public.sharks) or my_decision(view) in ("pay", "pick"),
        editions=("shipwrecked",),
    ),
    Lesson(
        "shark_pick",
        N_("Shark pick"),
        {
            "shipwrecked": N_(
                "A shark-icon card moves the sharks. Everyone holding a card picks one, face "
                "down and all at once; the picks are revealed one by one from the player who "
                "drew, and each moves every shark one cell its arrow's way.\n\n"
                "A shark entering your cell bites: pay 1 food or be eaten, and the movement "
                "ends. Pick the arrow that takes the sharks away from you."
            ),
        },
        lambda view: my_decision(view) == "pick",
        editions=("shipwrecked",),
    ),
)


def lessons(edition: str) -> list[Lesson]:
    """The lessons of an edition's tutorial, in teaching order."""
    return [lesson for lesson in LESSONS if edition in lesson.editions]


class Tutor:
    """Which lessons of one tutorial game are due: each once, the first time its situation
    comes, several at one moment in teaching order."""

    def __init__(self, edition: str) -> None:
        self.edition = edition
        self.lessons = lessons(edition)
        self.shown: list[str] = []

    def due(self, view: View) -> list[Lesson]:
        """The lessons ``view`` reaches for the first time; they count as shown from now on."""
        if view.public.over or view.own is None:
            return []
        fresh = [
            lesson
            for lesson in self.lessons
            if lesson.key not in self.shown and lesson.reached(view)
        ]
        self.shown.extend(lesson.key for lesson in fresh)
        return fresh

    @property
    def finished(self) -> bool:
        """Every lesson has been shown."""
        return len(self.shown) == len(self.lessons)
