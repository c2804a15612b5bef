"""The one catalogue per language has words for everything the engine sends.

Seeded games of both editions (every table size, with and without the variants) are played in
process; every event as each of its recipients gets it, every decision's prompt and every legal
choice are rendered from their keys and args alone in English and in Chinese, through the strict
renderers, which raise where the catalogue has no entry or a template names an arg that is not
there (the renderers the client uses then show a line that names the unknown key).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from protocol.game_types import Choice, Decision, Event
from protocol.view_types import View
from selfish_tui import i18n
from selfish_tui.event_text import (
    CHOICE_KEYS,
    EVENT_KEYS,
    PROMPT_KEYS,
    PUBLIC_EVENT_KEYS,
    strict_choice_label,
    strict_event_line,
    strict_prompt,
    view_cards,
)
from selfish_tui.keyed_text import CARD_KEYS, card_name
from server.bots.levels import choose
from server.engine.game import Game

CHINESE = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_CARD_NAMES = {card_name(key) for cards in CARD_KEYS.values() for key in cards}
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]


@dataclass
class Sent:
    """What the engine sent in the games played, read as a client reads it: events (as their
    recipients got them, with the table's names), and decisions and choices with their view."""

    events: list[tuple[Event, tuple[str, ...]]] = field(default_factory=list)
    decisions: list[tuple[Decision, tuple[str, ...]]] = field(default_factory=list)
    choices: list[tuple[Choice, View]] = field(default_factory=list)


def played(games: int = 40) -> Sent:
    """``games`` seeded games of each edition (and of Space with its variant), every table
    size, the seats playing at random in half of them and as basic bots in the others."""
    sent = Sent()
    shapes: set[tuple[str, tuple[str, ...]]] = set()
    for edition, variants in (("space", ()), ("space", ("V1",)), ("shipwrecked", ())):
        for seed in range(games):
            game = Game(edition, NAMES[: 2 + seed % 4], seed, variants=variants)
            chooser = random.Random(seed)
            level = "basic" if seed % 2 else "random"
            while not game.over:
                seat = next(s for s in range(len(game.names)) if game.legal(s))
                wire = game.view(seat)
                view = View.from_wire(wire)
                assert view.own is not None and view.own.decision is not None
                sent.decisions.append((view.own.decision, view.public.names))
                for choice in view.legal:
                    shape = (choice.do, tuple(sorted(choice.to_wire())))
                    if shape not in shapes or choice.do in ("play", "take", "pick"):
                        shapes.add(shape)
                        sent.choices.append((choice, view))
                game.apply(seat, choose(level, wire, chooser))
            names = tuple(game.names)
            for event in game.log:
                for recipient in {None, *(event.to or ())}:
                    sent.events.append((Event.from_wire(event.to_wire(recipient)), names))
    return sent


@pytest.fixture(scope="module")
def sent() -> Sent:
    return played()


@pytest.fixture(params=i18n.LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


def check_words(text: str, language: str) -> None:
    """A rendered line: no placeholder left, Chinese in Chinese, no English card name there."""
    assert "{" not in text, text
    if language == "zh":
        assert CHINESE.search(text), text
        assert not [name for name in ENGLISH_CARD_NAMES if name in text], text


def test_every_event_renders_from_its_key_and_args(sent: Sent, language: str) -> None:
    keys = set()
    for event, names in sent.events:
        keys.add(event.key)
        check_words(strict_event_line(event, names), language)
    assert keys <= set(EVENT_KEYS)
    assert len(keys) > 40  # the games went through most of the rules


def test_every_prompt_renders_from_its_key_and_args(sent: Sent, language: str) -> None:
    keys = set()
    for decision, names in sent.decisions:
        keys.add(decision.kind)
        check_words(strict_prompt(decision, names), language)
    assert keys <= set(PROMPT_KEYS)
    assert {"actions", "pay", "give", "react", "take", "pick", "shark_bait"} <= keys


def test_every_choice_renders_from_its_typed_values(sent: Sent, language: str) -> None:
    kinds = set()
    for choice, view in sent.choices:
        kinds.add(choice.do)
        names, edition = view.public.names, view.public.edition
        check_words(strict_choice_label(choice, names, edition, view_cards(view)), language)
    assert kinds <= set(CHOICE_KEYS)
    assert set(CHOICE_KEYS) - {"play.on", "stay.discarding"} == kinds


def test_the_rooms_events_render_with_a_bots_choice(sent: Sent, language: str) -> None:
    """The room's own events (a seat's person and bot), with every shape of choice a bot may
    make for the seat: its own reader sees the choice, the others that the bot decided."""
    names = NAMES[:2]
    for key in ("away.left", "away.back", "away.idle", "away.gone"):
        check_words(strict_event_line(Event("away", key, 1, {"player": 1}), names), language)
    for choice, view in sent.choices:
        names, edition, cards = view.public.names, view.public.edition, view_cards(view)
        for key in ("bot", "timeout"):
            whole = Event(key, key, 0, {"player": 0, "choice": choice})
            line = strict_event_line(whole, names, edition, cards)
            check_words(line, language)
            hidden = strict_event_line(Event(key, key, 0, {"player": 0}), names)
            check_words(hidden, language)
            assert hidden != line


def test_every_catalogue_has_every_key(language: str) -> None:
    """Both catalogues hold every keyed entry: no key renders as itself."""
    from protocol.errors import ErrorCode
    from selfish_tui.event_text import KEYED_CONTEXTS
    from selfish_tui.i18n import keyed
    from selfish_tui.keyed_text import CONTEXTS

    missing = [
        f"{context}|{key}"
        for context, keys in KEYED_CONTEXTS.items()
        for key in keys
        if keyed(context, key) is None
    ]
    missing += [
        f"{context}|{key}"
        for keys in CARD_KEYS.values()
        for key in keys
        for context in CONTEXTS
        if keyed(context, key) is None
    ]
    missing += [f"error|{code}" for code in ErrorCode if keyed("error", code.value) is None]
    assert not missing
    assert set(PUBLIC_EVENT_KEYS) <= set(EVENT_KEYS)
