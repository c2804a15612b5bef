"""Finished games, records, ratings, the leaderboard, "play this deal" and shared review over
real TCP: what each request answers, and what a requester may not see; on SQLite, and on
PostgreSQL (``server``), where the reads run in the store's thread for reads."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import pytest_asyncio

from protocol.server_messages import (
    LeaderboardMessage,
    ProfileMessage,
    ReplayMessage,
    ReplaysMessage,
    ReviewMessage,
    read_server,
)
from server.engine import verify
from server.net.tcp import RunningServer
from server.store.store import Store
from tests.server.conftest import Client, ClientFactory, ServerFactory, drive, duel

Message = dict[str, Any]
T = TypeVar("T")


@pytest_asyncio.fixture
async def server(make_server: ServerFactory, store_url: str) -> RunningServer:
    """A server on SQLite, and one on PostgreSQL (a node of a cluster), whose reads of
    finished games, records and ratings run off the event loop."""
    return await make_server(db=store_url)


def typed(kind: type[T], message: Message) -> T:
    """The message read as the client library reads it."""
    read = read_server(message)
    assert isinstance(read, kind), read
    return read


async def solo(client: Client, public: bool = True, edition: str = "space") -> Message:
    """A game of ``client`` against one basic bot, played to its end: its game_over."""
    joined = await client.request(
        {
            "type": "create_room",
            "edition": edition,
            "seats": 2,
            "bots": 1,
            "autostart": True,
            "public": public,
        }
    )
    return await drive(client, joined["room"])


async def test_a_finished_game_is_listed_fetched_and_checks(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    over = await solo(ann)
    [change] = over["ratings"]
    assert change["player"] == ann.player and change["after"]["provisional"]
    listed = typed(
        ReplaysMessage, await ann.request({"type": "list_replays", "player": ann.player})
    )
    [game] = listed.games
    assert (game.game, game.seat, game.rated, game.public) == (over["game"], 0, True, True)
    assert [seat.kind for seat in game.seats] == ["human", "bot"]
    replay = typed(ReplayMessage, await ann.request({"type": "get_replay", "game": over["game"]}))
    assert replay.rated and [c.player for c in replay.ratings] == [ann.player]
    pairs = [(seat, choice.to_wire()) for seat, choice in replay.decisions]
    final = verify(replay.edition, replay.names, replay.seed, pairs, replay.variants, replay.digest)
    assert final.winner == replay.winner


async def test_a_profile_shows_the_record_and_the_rating(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    over = await solo(ann)
    profile = typed(ProfileMessage, await ann.request({"type": "get_profile"}))
    [space] = profile.editions
    assert (profile.name, profile.bot, space.games, space.rated_games) == ("Ann", False, 1, 1)
    assert space.wins == (over["winner"] == 0)
    assert space.rating is not None and space.rating.provisional
    assert space.rating.shown().endswith("?")
    bob = await connect(server.port, "Bob")
    seen = typed(ProfileMessage, await bob.request({"type": "get_profile", "player": ann.player}))
    assert seen.editions == profile.editions
    basic = typed(ProfileMessage, await bob.request({"type": "get_profile", "player": "bot:basic"}))
    assert basic.bot and basic.editions[0].games == 1 and basic.name == "basic"
    assert await bob.error({"type": "get_profile", "player": "p00000000"}) == "no_such_player"
    assert await bob.error({"type": "get_profile", "player": 7}) == "bad_request"


async def test_a_private_game_is_its_players_only(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    public = await solo(ann)
    private = await solo(ann, public=False)
    bob = await connect(server.port, "Bob")
    assert await bob.error({"type": "get_replay", "game": private["game"]}) == "no_such_game"
    assert await bob.error({"type": "play_deal", "game": private["game"]}) == "no_such_game"
    theirs = await bob.request({"type": "list_replays", "player": ann.player})
    assert [g["game"] for g in theirs["games"]] == [public["game"]]
    everyone = await bob.request({"type": "list_replays"})
    assert [g["game"] for g in everyone["games"]] == [public["game"]]
    mine = await ann.request({"type": "list_replays", "player": ann.player})
    assert [g["game"] for g in mine["games"]] == [private["game"], public["game"]]
    only_public = await ann.request({"type": "list_replays", "public": True})
    assert [g["game"] for g in only_public["games"]] == [public["game"]]
    assert (await ann.request({"type": "get_replay", "game": private["game"]}))["type"] == "replay"
    assert not (await ann.request({"type": "get_replay", "game": private["game"]}))["rated"]


async def test_a_players_games_come_in_pages(server: RunningServer, connect: ClientFactory) -> None:
    ann = await connect(server.port, "Ann")
    games = [(await solo(ann))["game"] for _ in range(3)]
    first = await ann.request({"type": "list_replays", "player": ann.player, "limit": 2})
    assert [g["game"] for g in first["games"]] == games[:0:-1]
    rest = await ann.request(
        {"type": "list_replays", "player": ann.player, "limit": 2, "before": first["next"]}
    )
    assert [g["game"] for g in rest["games"]] == [games[0]] and rest["next"] is None


async def test_a_guest_keeps_no_record(server: RunningServer, connect: ClientFactory) -> None:
    guest = await connect(server.port)
    welcome = await guest.request(
        {"type": "hello", "protocol": 2, "name": "Guest 1", "guest": True}
    )
    assert welcome["player"].startswith("g")
    over = await solo(guest)
    assert over["ratings"] == []
    profile = await guest.request({"type": "get_profile"})
    assert profile["editions"] == []
    replay = await guest.request({"type": "get_replay", "game": over["game"]})
    assert not replay["rated"]


async def test_the_leaderboard_pages_settled_players(
    server: RunningServer, connect: ClientFactory
) -> None:
    from tests.server.test_standings import bot, human, play

    # a cluster's node writes only the games it holds the lease of: there, another writer
    store = server.lobby.store if server.lobby.cluster is None else Store(server.config.db)
    for n in range(30):
        play(store, [human("Ann", "pa"), human("Bob", "pb"), human("Cy", "pc"), bot("B")], n % 3)
    store.commit()
    if store is not server.lobby.store:
        store.close()
    dan = await connect(server.port, "Dan")
    first = typed(
        LeaderboardMessage,
        await dan.request({"type": "get_leaderboard", "edition": "space", "limit": 2}),
    )
    assert [e.rank for e in first.entries] == [1, 2] and first.next is not None
    rest = typed(
        LeaderboardMessage,
        await dan.request(
            {"type": "get_leaderboard", "edition": "space", "limit": 2, "after": first.next}
        ),
    )
    assert [e.rank for e in rest.entries] == [3] and rest.next is None
    players = [e.player for e in first.entries + rest.entries]
    assert sorted(players) == ["pa", "pb", "pc"]
    ratings = [e.rating.mu for e in first.entries + rest.entries]
    assert ratings == sorted(ratings, reverse=True)
    assert not any(e.rating.provisional for e in first.entries)
    empty = await dan.request({"type": "get_leaderboard", "edition": "shipwrecked"})
    assert empty["entries"] == [] and empty["next"] is None
    assert await dan.error({"type": "get_leaderboard", "edition": "moon"}) == "bad_option"
    assert (
        await dan.error({"type": "get_leaderboard", "edition": "space", "after": "nonsense"})
        == "bad_request"
    )


async def test_play_this_deal_opens_an_unrated_room_with_the_same_shuffle(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    over = await solo(ann, edition="shipwrecked")
    original = await ann.request({"type": "get_replay", "game": over["game"]})
    bob = await connect(server.port, "Bob")
    joined = await bob.request({"type": "play_deal", "game": over["game"], "bots": 1})
    assert joined["type"] == "joined" and joined["edition"] == "shipwrecked"
    code = joined["room"]
    await bob.request({"type": "start", "room": code})
    assert server.lobby.rooms[code].game.seed == original["seed"]  # type: ignore[union-attr]
    again = await drive(bob, code)
    replay = await bob.request({"type": "get_replay", "game": again["game"]})
    assert replay["seed"] == original["seed"] and not replay["rated"]
    assert await bob.error({"type": "play_deal", "game": over["game"], "bots": 2}) == "bad_option"
    assert await bob.error({"type": "play_deal", "game": 999}) == "no_such_game"


async def test_shared_review_follows_its_leader(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, bob, code = await duel(server, connect)
    await asyncio.gather(drive(ann, code), drive(bob, code))
    assert await bob.error({"type": "review_step", "room": code, "step": 1}) == "not_in_review"
    opened = typed(ReviewMessage, await ann.request({"type": "review_join", "room": code}))
    assert (opened.leader, opened.step, opened.open) == (ann.player, 0, True)
    joined = typed(ReviewMessage, await bob.request({"type": "review_join", "room": code}))
    assert [m.player for m in joined.members] == [ann.player, bob.player]
    await ann.expect("review", room=code)
    assert await bob.error({"type": "review_step", "room": code, "step": 3}) == "not_leader"
    assert (await ann.request({"type": "review_step", "room": code, "step": 3}))["type"] == "ok"
    assert (await bob.expect("review", room=code))["step"] == 3
    steps = opened.steps
    assert await ann.error({"type": "review_step", "room": code, "step": steps + 1}) == "bad_option"
    await bob.request({"type": "review_follow", "room": code, "follow": False})
    broke = await ann.expect("review", room=code)
    assert [m["following"] for m in broke["members"]] == [True, False]
    await ann.request({"type": "review_lead", "room": code, "player": bob.player})
    assert (await ann.expect("review", room=code))["leader"] == bob.player
    assert await ann.error({"type": "review_step", "room": code, "step": 1}) == "not_leader"
    await ann.request({"type": "review_leave", "room": code})
    assert (await ann.expect("review", room=code))["open"] is False
    alone = [{"player": bob.player, "name": "Bob", "following": True}]
    assert (await bob.expect("review", room=code, members=alone))["leader"] == bob.player
    await ann.request({"type": "review_join", "room": code})
    await ann.request({"type": "rematch", "room": code})
    assert (await bob.expect("review", room=code, open=False))["open"] is False


async def test_review_needs_a_finished_game_of_a_room_you_are_in(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann, _, code = await duel(server, connect)
    assert await ann.error({"type": "review_join", "room": code}) == "not_over"
    cy = await connect(server.port, "Cy")
    assert await cy.error({"type": "review_join", "room": code}) == "no_such_room"


async def test_records_requests_have_their_own_rate(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(replays_burst=3, replays_per_second=0.001)
    ann = await connect(server.port, "Ann")
    kinds = ["list_replays", "get_profile", "get_leaderboard", "list_replays"]
    codes = []
    for kind in kinds:
        reply = await ann.request({"type": kind, "edition": "space"})
        codes.append(reply.get("code", reply["type"]))
    assert codes == ["replays", "profile", "leaderboard", "rate_limited"]


async def test_review_steps_have_their_own_rate(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(review_burst=2, review_per_second=0.001)
    ann, bob, code = await duel(server, connect)
    await asyncio.gather(drive(ann, code), drive(bob, code))
    await ann.request({"type": "review_join", "room": code})
    await ann.request({"type": "review_step", "room": code, "step": 1})
    assert await ann.error({"type": "review_step", "room": code, "step": 2}) == "rate_limited"


async def test_a_player_who_leaves_before_the_end_ranks_last(
    server: RunningServer, connect: ClientFactory
) -> None:
    ann = await connect(server.port, "Ann")
    code = (
        await ann.request(
            {"type": "create_room", "edition": "space", "seats": 3, "bots": 1, "autostart": True}
        )
    )["room"]
    bob = await connect(server.port, "Bob")
    await bob.request({"type": "join_room", "room": code})
    await bob.expect("state", room=code)
    await bob.request({"type": "leave_room", "room": code})
    over = await drive(ann, code)
    ranks = {change["player"]: change["rank"] for change in over["ratings"]}
    assert ranks[bob.player] == max(ranks.values()) > ranks[ann.player]
    replay = await ann.request({"type": "get_replay", "game": over["game"]})
    assert [seat["left"] for seat in replay["seats"]] == [False, False, True]
