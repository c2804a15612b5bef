"""One compass notation, the arrow and the letter ("Pirate ↑N"), for the same
card in the hand, the prompt, the choices and the log, in English and in Chinese."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from selfish_tui import i18n
from selfish_tui.event_text import ARROWS, direction_word, with_direction
from selfish_tui.keyed_text import card_name
from selfish_tui.widgets.hand import HandPanel
from selfish_tui.widgets.log import GameLog
from selfish_tui.widgets.prompt import PromptPanel
from server.engine.cards import CATALOGUE

from .fixtures import feed_game, find_game, offline_app
from .test_snapshots import deciding


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def notations(text: str, names: list[str]) -> list[tuple[str, str]]:
    """Every card name in ``text`` with what follows it when that is a compass point in any
    notation: "(N)", "（北）", "N", "↑N", "↑北"."""  # noqa: RUF002
    points = "NESW北东南西"
    found = re.finditer(
        rf"({'|'.join(map(re.escape, sorted(names, key=len, reverse=True)))})"
        rf"(\s?[（(]\s?[{points}]\s?[)）]|\s?[↑→↓←]?[{points}](?![A-Za-z]))",  # noqa: RUF001
        text,
    )
    return [(match.group(1), match.group(2)) for match in found]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("kind", ["pick", "react"])
async def test_hand_prompt_choices_and_log_write_a_cards_direction_alike(
    language: str, kind: str
) -> None:
    game = find_game(
        "shipwrecked", deciding(kind, "shipwrecked", legal=2 if kind == "react" else None)
    )
    i18n.set_language(language)
    keys = CATALOGUE["shipwrecked"]
    names = [card_name(key) for key, entry in keys.items()]
    right = {f" {ARROWS[d]}{direction_word(d)}" for d in ARROWS}
    app = offline_app()
    async with app.run_test(size=(120, 40)) as pilot:
        feed_game(app, game, 0)
        await pilot.pause()
        table = app.screen
        hand = table.query_one(HandPanel)
        prompt = table.query_one(PromptPanel)
        texts = {
            "hand": "\n".join(
                str(hand.get_option_at_index(i).prompt) for i in range(hand.option_count)
            ),
            "prompt": str(prompt.query_one("#prompt-question").render()),
            "choices": "\n".join(entry.label for entry in prompt.entries),
            "log": "\n".join(table.query_one(GameLog).lines_text),
        }
    for part, text in texts.items():
        seen = notations(text, names)
        # Each part names at least one card with its direction (the pick's question names none).
        assert seen or (part, kind) == ("prompt", "pick"), (part, text)
        wrong = [name + mark for name, mark in seen if mark not in right]
        assert not wrong, (part, wrong)
    # The same card reads the same in each: its name, a space, arrow and point.
    for card in game.view(0)["hand"]:
        if card.get("dir"):
            name = card_name(card["key"])
            if card["kind"] == "resource":  # the hand adds the value: "Food (1) ↑N"
                name += f" ({card['value']})"
            assert with_direction(name, card["dir"]) in texts["hand"]
