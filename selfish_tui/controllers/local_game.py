"""`selfish play`: one game against bots on the embedded server, set up as the command asked
(resumed, new, or the tutorial with its lessons); no lobby, so leaving the game quits."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.messages import IDLE_GRACES
from selfish_tui import tutorial
from selfish_tui.controllers.controller import Controller, Login
from selfish_tui.front_door import FrontDoor
from selfish_tui.i18n import _
from selfish_tui.screens.lesson import LessonScreen, TutorialOfferScreen
from selfish_tui.screens.resume import ResumeScreen
from selfish_tui.state import RoomState
from selfish_tui.tutorial import Lesson, Tutor


@dataclass
class LocalPlan:
    """What `selfish play` asks for once connected to its embedded server."""

    edition: str = "space"
    bots: int = 3
    seed: int | None = None
    resume: bool = False
    bot_level: str = "basic"
    variants: tuple[str, ...] = ()  # rule ids of RULES V (e.g. "V1")
    tutorial: bool = False  # the edition's tutorial game (selfish_tui/tutorial.py)
    offer_tutorial: bool = False  # a first run: ask whether to play the tutorial first


class LocalGame(Controller):
    """The game ``plan`` asks for, on the embedded server ``login`` names (None: no
    connection; tests feed the app messages). ``on_tutorial_answer`` remembers a first run's
    answer to the tutorial offer."""

    has_lobby = False

    def __init__(
        self,
        plan: LocalPlan,
        login: Login | None = None,
        *,
        on_tutorial_answer: Callable[[bool], None] | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.login = login
        self.on_tutorial_answer = on_tutorial_answer
        # The plan has been carried out: rooms the server says we are in are shown from now
        # on (before, the resumed ones wait for the plan to say which).
        self.started = False
        self.tutor: Tutor | None = None  # in a tutorial game: which lessons are due
        self._lessons: list[Lesson] = []  # due, not shown yet
        self._lesson: Lesson | None = None  # the one on screen

    @property
    def front_door(self) -> FrontDoor:
        return FrontDoor("local")

    def start(self) -> None:
        if self.login is not None:
            self.shell.open_connection(self.login)

    def keep_token(self, token: str) -> None:
        if self.login is not None and self.login.keep_token is not None:
            self.login.keep_token(token)

    def connecting_to(self, address: str) -> str:
        return _("the local game server")

    def welcome_status(self, server: str) -> str:
        return _("Setting up your game…")

    def shows_joined_rooms(self) -> bool:
        return self.started

    def rooms_handed_back(self, rejoined: set[str]) -> None:
        """Start the plan once: resume the unfinished game, or ask before replacing it."""
        if self.started:
            return
        self.started = True
        resumable = [r for r in self.shell.rooms.values() if r.in_progress()]
        if self.plan.resume and resumable:
            self.resume(resumable[-1])
            return
        if self.plan.resume:
            self.shell.notify(_("There is no unfinished local game; starting a new one."))
        elif resumable:
            # Starting the new game closes the unfinished one for good: ask first.
            self.shell.push_screen(
                ResumeScreen(resumable[-1], self.plan.edition),
                functools.partial(self._unfinished_answered, resumable[-1]),
            )
            return
        self.start_game()

    def resume(self, room: RoomState) -> None:
        """Go back to the unfinished game ``room``."""
        self.shell.current = room.code
        if self.plan.tutorial:
            # `selfish play --tutorial` again after quitting it: the lessons go on.
            self.tutor = Tutor(room.edition)
        self.shell.show_room(room)
        self.teach(room)

    def _unfinished_answered(self, room: RoomState, what: str | None) -> None:
        """The player's answer to the unfinished local game (:class:`ResumeScreen`)."""
        if what == "resume":
            self.resume(room)
        elif what == "new":
            self.start_game()
        else:  # cancel: nothing is closed, nothing is started
            self.shell.exit()

    def start_game(self) -> None:
        """Create the room the plan asks for, closing the local rooms left from before."""
        if self.plan.offer_tutorial:
            self.plan.offer_tutorial = False
            self.shell.push_screen(TutorialOfferScreen(), self._tutorial_answered)
            return
        for room in list(self.shell.rooms.values()):
            # A new local game replaces the old one: leaving lets the server close it (and
            # keeps us under the server's limit of rooms per player).
            self.shell.request({"type": "leave_room", "room": room.code})
            self.shell.rooms.pop(room.code, None)
        request: dict[str, Any] = {
            "type": "create_room",
            "edition": self.plan.edition,
            "seats": self.plan.bots + 1,
            "bots": self.plan.bots,
            "bot_level": self.plan.bot_level,
            "public": False,
            "timer": 0,
            # Nobody waits for a local player: the longest idle grace before the bot plays on.
            "idle_grace": IDLE_GRACES[1],
            "autostart": True,
        }
        if self.plan.seed is not None:
            request["seed"] = self.plan.seed
        if self.plan.variants:
            request["variants"] = list(self.plan.variants)
        if self.plan.tutorial:
            # The scripted game: its seed and bots (selfish_tui/tutorial.py), no variants.
            request.update(tutorial.room_settings(self.plan.edition))
            request.pop("variants", None)
            self.tutor = Tutor(self.plan.edition)
        self.shell.request(request)

    def _tutorial_answered(self, yes: bool | None) -> None:
        """The first run's answer: remembered, then the tutorial or the game asked for."""
        self.plan.tutorial = bool(yes)
        if self.on_tutorial_answer is not None:
            self.on_tutorial_answer(bool(yes))
        self.start_game()

    def saw_state(self, room: RoomState) -> None:
        self.teach(room)

    def teach(self, room: RoomState) -> None:
        """Open the lessons the tutorial game has just reached, one after another."""
        if self.tutor is None or room.view is None:
            return
        self._lessons.extend(self.tutor.due(room.view))
        self._next_lesson()

    def _next_lesson(self) -> None:
        if self._lesson is not None or not self._lessons or self.tutor is None:
            return
        lesson = self._lesson = self._lessons.pop(0)
        number = self.tutor.shown.index(lesson.key) + 1  # in the order they come

        def closed(_: None) -> None:
            self._lesson = None
            self._next_lesson()

        screen = LessonScreen(lesson, self.tutor.edition, number, len(self.tutor.lessons))
        self.shell.push_screen(screen, closed)

    def quit_question(self, room: RoomState | None) -> str | None:
        if room is None or not room.in_progress():
            return None
        return _("Quit this game? It is saved: `selfish play --resume` continues it.")

    def left_room(self) -> None:
        self.shell.exit()  # there is no lobby to go back to

    def game_asked_for(self) -> tuple[str | None, list[str]]:
        return self.plan.edition, list(self.plan.variants)

    def language_switched(self) -> None:
        if self._lesson is not None:  # the lesson being read, now in the other language
            self._lessons.insert(0, self._lesson)
            self._lesson = None
            self._next_lesson()
