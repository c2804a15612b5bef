"""The screens of finished games, records and ratings, fed the server's replies: the Replays list,
a profile, the leaderboard, a game's players, review together and play this deal. Names are
hostile (markup that must show as it is)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable

from selfish_tui.screens.gameover import GameOverScreen
from selfish_tui.screens.leaderboard import LeaderboardScreen
from selfish_tui.screens.profile import PlayersScreen, ProfileScreen
from selfish_tui.screens.replay import ReplayScreen
from selfish_tui.screens.replays import ReplaysScreen
from server.engine import Game

from .fixtures import ROOM, feed_game, find_game, offline_app
from .pilot import wait_for
from .records import replay_message
from .test_replay_viewer import NAMES, SHOWN, screen_text

RATING = {"rating": 1040, "mu": 26.0, "sigma": 6.1, "provisional": True}
SETTLED = {"rating": 1187, "mu": 29.7, "sigma": 2.0, "provisional": False}


@pytest.fixture(scope="module")
def game() -> Game:
    return find_game("space", None, names=NAMES)


def recording(app: Any) -> list[dict[str, Any]]:
    """The requests the app sends, kept instead of sent."""
    sent: list[dict[str, Any]] = []

    def request(message: dict[str, Any]) -> int:
        sent.append(message)
        return len(sent)

    app.request = request
    return sent


def summary(game: Game, number: int) -> dict[str, Any]:
    message = replay_message(game, number)
    keep = ("game", "room", "edition", "variants", "seats", "winner", "turns", "ended")
    return {**{k: message[k] for k in keep}, "public": True, "rated": False, "seat": 0}


def cells(table: DataTable[Any]) -> str:
    return " ".join(str(cell) for row in range(table.row_count) for cell in table.get_row_at(row))


async def test_replays_lists_my_games_and_watches_one(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
        await pilot.pause()
        # Without a player the server lists the asker's own games.
        assert sent[-1] == {"type": "list_replays", "limit": 20}
        app.feed({"type": "replays", "games": [summary(game, 12), summary(game, 9)], "next": 9})
        await pilot.pause()
        table = app.screen.query_one("#replays-table", DataTable)
        assert table.row_count == 2
        assert SHOWN in cells(table) and "#12" in cells(table)
        await pilot.press("n")
        assert sent[-1]["before"] == 9
        await pilot.press("p")
        assert "before" not in sent[-1]
        await pilot.press("tab")
        assert sent[-1] == {"type": "list_replays", "limit": 20, "public": True}
        app.feed({"type": "replays", "games": [summary(game, 12)], "next": None})
        await pilot.pause()
        await pilot.press("enter")
        assert sent[-1] == {"type": "get_replay", "game": 12}
        app.feed(replay_message(game, 12))
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.pause()
        assert app.screen.perspective == 0  # our seat in that game, by our player id
        await pilot.press("d")
        assert sent[-1] == {"type": "play_deal", "game": 12}


async def test_a_games_players_open_their_profiles(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        app.push_screen(ReplaysScreen())
        await pilot.pause()
        app.feed({"type": "replays", "games": [summary(game, 12)], "next": None})
        await pilot.pause()
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayersScreen))
        await pilot.pause()
        await pilot.press("down", "enter")  # seat 2: a bot, whose level has a profile
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "get_profile", "player": "bot:basic"}


async def test_profile_shows_the_record_with_a_provisional_mark() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "get_profile"}
        record = {
            "games": 14,
            "wins": 5,
            "no_winner": 1,
            "streak": 2,
            "best_streak": 3,
            "last_played": 1795860000.5,
            "rated_games": 12,
        }
        app.feed(
            {
                "type": "profile",
                "player": "p0",
                "name": SHOWN,
                "bot": False,
                "editions": [
                    {"edition": "space", **record, "rating": RATING},
                    {"edition": "shipwrecked", **record, "rating": SETTLED},
                ],
            }
        )
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#profile-table", DataTable)
        assert "1040?" in cells(table) and "1187" in cells(table) and "1187?" not in cells(table)
        assert f"Profile: {SHOWN}" in screen_text(app)
        assert "g lists your games" in screen_text(app)  # one's own profile
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "list_replays", "limit": 20, "player": "p0"}


async def test_leaderboard_pages_and_opens_a_profile() -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "get_leaderboard", "edition": "space", "limit": 20}
        entry = {"games": 14, "wins": 5, "last_played": 1795860000.5, "rating": SETTLED}
        app.feed(
            {
                "type": "leaderboard",
                "edition": "space",
                "entries": [
                    {"rank": 1, "player": "p7", "name": SHOWN, **entry},
                    {"rank": 2, "player": "p8", "name": "Ann", **entry},
                ],
                "next": "1187.0:2:p8",
            }
        )
        await pilot.pause()
        table = app.screen.query_one("#leaderboard-table", DataTable)
        assert SHOWN in cells(table) and "1187" in cells(table)
        await pilot.press("n")
        assert sent[-1]["after"] == "1187.0:2:p8"
        await pilot.press("tab")
        assert sent[-1] == {"type": "get_leaderboard", "edition": "shipwrecked", "limit": 20}
        app.feed({"type": "leaderboard", "edition": "space", "entries": [], "next": None})
        await pilot.pause()
        assert table.row_count == 2  # another edition's page is not this board's
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "get_profile", "player": "p7"}


def review(step: int, leader: str, following: bool = True, open_: bool = True) -> dict[str, Any]:
    return {
        "type": "review",
        "room": ROOM,
        "game": 1,
        "step": step,
        "steps": 40,
        "leader": leader,
        "members": [
            {"player": "p0", "name": SHOWN, "following": following},
            {"player": "p9", "name": "Ann", "following": True},
        ],
        "open": open_,
    }


async def test_review_together_leads_follows_breaks_away_and_rejoins(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert {"type": "review_join", "room": ROOM} in sent
        assert {"type": "get_replay", "game": 1} in sent
        app.feed(replay_message(game, 1))
        app.feed(review(0, "p0"))
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.review is not None
        await pilot.press("right")
        assert sent[-1] == {"type": "review_step", "room": ROOM, "step": 1}
        await pilot.press("L")
        assert sent[-1] == {"type": "review_lead", "room": ROOM, "player": "p9"}
        app.feed(review(5, "p9"))  # Ann leads now, at step 5: we follow
        await pilot.pause()
        assert screen.index == 5
        await pilot.press("right")  # our own step: we break away
        assert sent[-1] == {"type": "review_follow", "room": ROOM, "follow": False}
        app.feed(review(7, "p9", following=False))
        await pilot.pause()
        assert screen.index == 6  # on our own: the leader's steps do not move us
        await pilot.press("f")
        assert sent[-1] == {"type": "review_follow", "room": ROOM, "follow": True}
        app.feed(review(7, "p9", following=True))
        await pilot.pause()
        assert screen.index == 7
        app.feed(review(7, "p9", open_=False))
        await pilot.pause()
        assert screen.review is None
        await pilot.press("right")  # the viewer is ours alone: nothing is sent
        assert sent[-1]["type"] == "review_follow" and screen.index == 8


async def test_a_rooms_players_open_their_profiles_from_the_game_over(game: Game) -> None:
    app = offline_app()
    async with app.run_test(size=(80, 24)) as pilot:
        sent = recording(app)
        await pilot.pause()
        feed_game(app, game, 0)
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause()
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PlayersScreen))
        await pilot.pause()
        assert SHOWN in screen_text(app)
        await pilot.press("enter")  # seat 0: the human host, by their player id
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await pilot.pause()
        assert sent[-1] == {"type": "get_profile", "player": "p0"}


def test_a_rematchs_end_fetches_its_own_record(game: Game) -> None:
    from selfish_tui.replay import open_replay
    from selfish_tui.state import RoomState

    from .records import record_of

    app = offline_app()
    sent = recording(app)
    room = RoomState(ROOM)
    app.replays.after_game(room, 12)
    assert sent == [{"type": "get_replay", "game": 12}]
    room.replay = open_replay(record_of(game))  # game 12's record
    app.replays.after_game(room, 12)
    assert len(sent) == 1  # kept: the same game
    app.replays.after_game(room, 13)
    assert room.replay is None and sent[-1] == {"type": "get_replay", "game": 13}
