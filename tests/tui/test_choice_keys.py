"""Keys that mean one thing. A card keeps its key while it is in the hand, a
player keeps theirs, Stay / Move / End actions / Do not block have fixed letters, so a key never
means two things in consecutive prompts; a key that comes too early, or means nothing, is
answered by a sign on the prompt."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.game_types import Choice
from protocol.view_types import View
from selfish_tui import clock
from selfish_tui.choice_keys import FIXED_KEYS, SEAT_KEYS, Identity, KeyRing
from selfish_tui.model import hand
from selfish_tui.widgets import menu
from selfish_tui.widgets import prompt as prompt_module
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.menu import Entry
from selfish_tui.widgets.prompt import PromptPanel
from server.engine import Game

from .fixtures import NAMES4, ROOM, feed_game, find_game, offline_app, typed
from .pilot import Clock, keys_for, press_choice, wait_for
from .test_snapshots import deciding

EDITIONS = [("space", ()), ("space", ("V1",)), ("shipwrecked", ())]


def prompt_identity(view: View) -> tuple[Any, ...]:
    """When the prompt on screen is a new one (as PromptPanel decides it)."""
    decision = view.own.decision if view.own is not None else None
    return (view.public.turn, repr(view.legal), repr(decision))


def check_menu(entries: list[Entry], view: View, ring: KeyRing, top: bool = True) -> None:
    """One prompt's keys: unique at each level, a submenu never reusing a key of the level that
    opened it for something else, every choice reachable, cards on their hand keys."""
    level: dict[str, Identity] = {}
    for entry in entries:
        for key, identity in [(entry.key, entry.identity), *entry.aliases]:
            if key:
                assert key not in level, f"{key!r} twice at one level: {entries}"
                level[key] = identity
    for key, identity in level.items():
        kind = identity[0]
        if kind == "card" and any(c.id == identity[1] for c in hand(view)):
            assert ring.card_key(identity[1]) == key  # the key the hand panel shows
        elif kind == "seat":
            assert key == SEAT_KEYS[identity[1]]
        elif kind == "fixed":
            assert key == FIXED_KEYS[identity[1]]
    for entry in entries:
        if entry.group:
            for key, identity in menu.bindings(entry.group):
                assert level.get(key, identity) == identity, (key, identity, level[key])
            check_menu(entry.group, view, ring, top=False)
    legal = view.legal
    assert not top or sorted(map(repr, menu.leaves(entries))) == sorted(map(repr, legal))


class Watcher:
    """Seat 0's screen as the client keeps it: its key ring told every view, a menu built for
    every new prompt; checks the key properties along the way."""

    def __init__(self) -> None:
        self.ring = KeyRing()
        self.card_keys: dict[int, str] = {}
        self.hand_at_prompt: dict[str, int] = {}  # key -> card, in the hand at the last prompt
        self.last_prompt: tuple[Any, ...] | None = None
        self.prompts = 0
        self.kinds: set[str] = set()

    def see(self, wire: dict[str, Any]) -> None:
        view = typed(wire)
        self.ring.saw(view)
        held = {c.id for c in hand(view)}
        for card in held:
            key = self.ring.card_key(card)
            if card in self.card_keys:
                assert key == self.card_keys[card], "a card in the hand changed its key"
        self.card_keys = {card: self.ring.card_key(card) for card in held}
        keys = [k for k in self.card_keys.values() if k]
        assert len(keys) == len(set(keys)), "two cards on one key"
        if not view.legal or prompt_identity(view) == self.last_prompt:
            return
        self.last_prompt = prompt_identity(view)
        # The hand panel too: a key shown for one card at the last prompt is no other card's now.
        for card, key in self.card_keys.items():
            assert self.hand_at_prompt.get(key, card) == card, (key, self.hand_at_prompt, card)
        self.hand_at_prompt = {key: card for card, key in self.card_keys.items() if key}
        entries = menu.build(view, self.ring)
        check_menu(entries, view, self.ring)
        before = self.ring.last
        for entry in entries:
            for key, identity in [(entry.key, entry.identity), *entry.aliases]:
                if key and key in before:
                    assert before[key] == {identity}, (
                        f"{key!r} meant {before[key]} in the last prompt, now {identity}"
                    )
        self.ring.shown(menu.bindings(entries))
        self.prompts += 1
        decision = view.own.decision if view.own is not None else None
        self.kinds.add(decision.kind if decision is not None else "")


def play_watched(edition: str, variants: tuple[str, ...], seed: int, players: int) -> Watcher:
    game = Game(edition, NAMES4[:players], seed=seed, variants=variants)
    rng = random.Random(seed)
    watcher = Watcher()
    watcher.see(game.view(0))
    for _step in range(4000):
        if game.over:
            break
        seat = rng.choice(game.pending_seats())
        game.apply(seat, rng.choice(game.view(seat)["legal"]))
        watcher.see(game.view(0))
    return watcher


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edition=st.sampled_from(EDITIONS),
    seed=st.integers(0, 10**6),
    players=st.integers(2, 4),
)
def test_a_key_never_means_two_things_in_consecutive_prompts(
    edition: tuple[str, tuple[str, ...]], seed: int, players: int
) -> None:
    """Whole engine games at random, seen from seat 0: at every decision point of every kind
    the key properties hold (Watcher)."""
    watcher = play_watched(edition[0], edition[1], seed, players)
    assert watcher.prompts > 0


def test_every_decision_kind_of_both_editions_is_keyed() -> None:
    """The same check over fixed seeds, until every kind of decision has been met."""
    seen: set[str] = set()
    for edition, variants in EDITIONS:
        for seed in range(40):
            seen |= play_watched(edition, variants, seed, 2 + seed % 3).kinds
    kinds = {"actions", "stay_or_move", "react", "target", "swap", "take", "meteoroid"}
    kinds |= {"pick", "hurricane", "pay", "shark_bait", "freeloader"}
    assert kinds <= seen, kinds - seen


def test_the_issues_example_play_tether_then_one_is_not_another_card() -> None:
    """'1 was Play Tether, after playing it 1 is Play Hack Suit': now the played card's key
    stands for nothing until a prompt has gone by, and the other cards keep theirs."""
    game = find_game("space", deciding("actions", "space", min_turn=3))
    ring = KeyRing()
    view = typed(game.view(0))
    ring.saw(view)
    entries = menu.build(view, ring)
    ring.shown(menu.bindings(entries))
    play = next(e for e in entries if e.choice is not None and e.choice.do == "play")
    assert play.choice is not None
    others = {c.id: ring.card_key(c.id) for c in hand(view) if c.id != play.choice.card}
    game.choose(0, view.legal.index(play.choice))
    while 0 not in game.pending_seats() and not game.over:
        seat = game.pending_seats()[0]
        game.apply(seat, game.view(seat)["legal"][0])
    after = typed(game.view(0))
    ring.saw(after)
    entries = menu.build(after, ring)
    assert menu.find(entries, play.key) is None
    for card, key in others.items():
        if any(c.id == card for c in hand(after)):
            assert ring.card_key(card) == key


@pytest.fixture
def manual_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    now = Clock()
    monkeypatch.setattr(clock, "now", now)
    monkeypatch.setattr(prompt_module, "SETTLE", 0.3)
    monkeypatch.setattr(prompt_module, "SIGN", 3600.0)
    return now


async def test_an_early_key_and_a_key_for_nothing_get_a_sign(manual_clock: Clock) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    sent: list[Choice] = []
    app.act = lambda room, version, choice: sent.append(choice) or True  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        prompt = app.screen.query_one(PromptPanel)
        assert not prompt.border_subtitle
        await pilot.press("e")  # too soon
        assert sent == []
        assert "e: too soon, press again" in str(prompt.border_subtitle)
        assert prompt.has_class("refused")
        manual_clock.t += 0.31
        await pilot.press("z")  # nobody sits in seat 4, and no action takes a player alone
        assert "z: no choice here" in str(prompt.border_subtitle) and sent == []
        await pilot.press("e")
        assert sent and sent[-1].do == "done"
        assert not prompt.border_subtitle and not prompt.has_class("refused")


@pytest.mark.parametrize(
    ("edition", "variants", "seed"), [("space", ("V1",), 3), ("shipwrecked", (), 4)]
)
async def test_consecutive_prompts_played_by_keys_keep_every_key(
    edition: str, variants: tuple[str, ...], seed: int
) -> None:
    """A real engine game against random seats, seat 0 played by the keys on screen: after
    every decision the hand panel shows each remaining card on the key it had, and no key
    shown in one prompt stands for something else in the next."""
    game = Game(edition, NAMES4, seed=seed, variants=variants)
    rng = random.Random(seed)
    app = offline_app()
    sent: list[Choice] = []
    app.act = lambda room, version, choice: sent.append(choice) or True  # type: ignore[method-assign]

    def others_until_ours() -> None:
        while not game.over and 0 not in game.pending_seats():
            seat = rng.choice(game.pending_seats())
            game.apply(seat, rng.choice(game.view(seat)["legal"]))

    others_until_ours()
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        version = len(game.decisions) + 1
        hand_keys: dict[int, str] = {}
        last: dict[str, set[Identity]] = {}
        for _decision in range(60):
            if game.over:
                break
            await wait_for(pilot, lambda: bool(app.screen.query(PromptPanel)))
            prompt = app.screen.query_one(PromptPanel)
            legal = list(typed(game.view(0)).legal)
            await wait_for(pilot, lambda p=prompt, legal=legal: p.choices == legal)
            hand = app.screen.query_one(HandPanel)
            shown = {
                card.id: hand.get_option_at_index(index).prompt.plain[0]
                for index, card in enumerate(hand.cards)
            }
            for card, key in hand_keys.items():
                if card in shown:
                    assert shown[card] == key, "a card changed its key in the hand panel"
            hand_keys = {card: key for card, key in shown.items() if key.strip()}
            for entry in prompt.entries:
                for key, identity in [(entry.key, entry.identity), *entry.aliases]:
                    assert last.get(key, {identity}) == {identity}, (key, last[key], identity)
            last = {}
            for key, identity in menu.bindings(prompt.entries):
                last.setdefault(key, set()).add(identity)
            choice = rng.choice(prompt.choices)
            if choice.fatal and len(prompt.choices) > 1:
                choice = next(c for c in prompt.choices if not c.fatal)
            assert keys_for(prompt, choice) is not None or len(prompt.choices) > 9
            before = len(sent)
            await press_choice(pilot, prompt, prompt.choices.index(choice))
            if choice.fatal:
                await pilot.press("y")
            await wait_for(pilot, lambda before=before: len(sent) > before)
            game.apply(0, sent[-1].to_wire())
            others_until_ours()
            version += 1
            app.feed({"type": "state", "room": ROOM, "version": version, "view": game.view(0)})
            await pilot.pause()


async def test_a_key_between_a_sent_choice_and_the_next_prompt_gets_a_sign(
    manual_clock: Clock,
) -> None:
    """The second press of a double tap arrives while the first one's choice is on its way:
    it is not taken, and the sign stays over the prompt that comes next."""
    game = find_game("space", deciding("actions", "space", min_turn=3))
    app = offline_app()
    sent: list[Choice] = []
    app.act = lambda room, version, choice: sent.append(choice) or True  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        manual_clock.t += 1
        prompt = app.screen.query_one(PromptPanel)
        await pilot.press("e", "e")
        assert len(sent) == 1 and prompt.choices == []
        assert "e: nothing to choose now" in str(prompt.border_subtitle)
        game.apply(0, sent[0].to_wire())
        app.feed(
            {
                "type": "state",
                "room": ROOM,
                "version": len(game.decisions) + 1,
                "view": game.view(0),
            }
        )
        await pilot.pause()
        assert prompt.choices and "e: nothing to choose now" in str(prompt.border_subtitle)
