"""Snapshot tests of the key screens in Chinese at 80x24 and 120x40 (docs/i18n.md).

The same seeded games as test_snapshots.py, drawn with the client's language set to Chinese:
every word on these screens comes from the catalog, and the board, hand, prompt and status line
must still fit (a CJK character takes two cells). Look at them as PNGs (`rsvg-convert`, with
fonts-noto-cjk installed) before updating them with `--snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from selfish_tui import i18n
from server.engine import Game

from .fixtures import ROOM, find_game, offline_app, room_message
from .test_snapshots import PLAYING_ROOM, SIZES, WAITING_ROOM, Compare, deciding, fed


@pytest.fixture(autouse=True)
def chinese() -> Iterator[None]:
    """The whole test in Chinese; English again afterwards (the language is process-wide)."""
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("size", SIZES)
def test_lobby_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    app = offline_app()
    rooms: list[dict[str, Any]] = [
        WAITING_ROOM,
        # 16 cells in a 12-cell column
        dict(PLAYING_ROOM, host="小明小明小明小明", variants=["V1"]),
    ]

    async def run_before(pilot: Pilot[None]) -> None:
        status = i18n._("Connected to {where} as {name}.")
        app.lobby.set_status(status.format(where="selfish-server 0.1.0", name="Ann"))
        app.feed({"type": "rooms", "rooms": rooms})
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_waiting_room_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    app = offline_app()
    game = Game("shipwrecked", ["Ann", "小红", "Bot 1"], seed=1)

    async def run_before(pilot: Pilot[None]) -> None:
        app.feed(
            {"type": "joined", "room": ROOM, "role": "player", "seat": 0, "edition": "shipwrecked"}
        )
        info = room_message(game, 0, "waiting")
        info["seats"][1].update(kind="human", player="p1", level=None, connected=False)
        info["seats"].append(None)
        info["size"] = 4
        info["spectators"] = [{"name": "老王", "player": "p9"}]
        app.feed(info)
        app.feed(
            {
                "type": "chat",
                "room": ROOM,
                "player": "p9",
                "seat": 1,
                "name": "小红",
                "text": "大家好！",  # noqa: RUF001
            }
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_space_mid_game_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=10))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_shipwrecked_mid_game_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("shipwrecked", deciding("actions", "shipwrecked", min_turn=8, sharks=2))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_reaction_prompt_zh(
    snap_compare: Compare, size: tuple[int, int], frozen_clock: None
) -> None:
    game = find_game("shipwrecked", deciding("react", "shipwrecked", legal=2))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game, {0: 30.0}))


@pytest.mark.parametrize("size", SIZES)
def test_hack_suit_hand_view_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("take", "space"))
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_game_over_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("shipwrecked", None)
    assert snap_compare(offline_app(), terminal_size=size, run_before=fed(game))


@pytest.mark.parametrize("size", SIZES)
def test_help_zh(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = find_game("space", deciding("actions", "space", min_turn=3))
    assert snap_compare(
        offline_app(), terminal_size=size, run_before=fed(game, keys=("question_mark",))
    )


def test_the_table_after_switching_to_chinese_is_the_table_drawn_in_chinese(
    snap_compare: Compare,
) -> None:
    """F2 mid-game: the same picture as a client started in Chinese (the game kept)."""
    i18n.set_language("en")
    game = find_game("space", deciding("actions", "space", min_turn=10))
    assert snap_compare(
        offline_app(),
        terminal_size=(80, 24),
        run_before=fed(game, keys=("f2",)),
    )
