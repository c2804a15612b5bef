"""Requests about finished games: replays, records, ratings, shared review and "play this deal"
(their replies are typed in protocol.records). Registered with the others of
protocol.request_base, read by :func:`protocol.messages.parse_client`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from protocol.request_base import (
    BOT_LEVELS,
    EDITIONS,
    TIMERS,
    Request,
    read_bool,
    read_int,
    read_option,
    read_str,
    request,
    room_code,
)

MAX_PLAYER_ID = 64  # far above the server's ids ("p" and 8 hex digits; "bot:expert")
MAX_CURSOR = 128


def read_player(m: Mapping[str, Any], key: str) -> str | None:
    """An optional player id: a short string."""
    if m.get(key) is None:
        return None
    value = read_str(m, key)
    if not 1 <= len(value) <= MAX_PLAYER_ID:
        raise ProtocolError(ErrorCode.BAD_REQUEST, f"'{key}' must be a player id")
    return value


def read_limit(m: Mapping[str, Any]) -> int | None:
    limit = None if m.get("limit") is None else read_int(m, "limit")
    if limit is not None and limit < 1:
        raise ProtocolError(
            ErrorCode.BAD_OPTION, "'limit' must be at least 1", {"field": "limit", "low": 1}
        )
    return limit


# --------------------------------------------------------------------------- requests


@request("list_replays")
@dataclass(frozen=True, kw_only=True)
class ListReplays(Request):
    """A page of finished games, newest first, older than game ``before`` (the ``next`` of
    the page before), at most ``limit`` (the server caps it). Without ``player``: the public
    games and the private ones the requester held a seat in (``public``: the public ones only).
    With ``player``: the games that player held a seat in, as far as the requester may see them
    (another player's private games only if the requester held a seat in them too)."""

    before: int | None = None
    limit: int | None = None
    player: str | None = None
    public: bool | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        before = None if m.get("before") is None else read_int(m, "before")
        public = None if m.get("public") is None else read_bool(m, "public", False)
        return cls(
            id=rid,
            before=before,
            limit=read_limit(m),
            player=read_player(m, "player"),
            public=public,
        )


@request("get_replay")
@dataclass(frozen=True, kw_only=True)
class GetReplay(Request):
    """One finished game whole: its setup, decisions, result and final-state digest (what an
    export file holds)."""

    game: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, game=read_int(m, "game"))


@request("get_profile")
@dataclass(frozen=True, kw_only=True)
class GetProfile(Request):
    """A player's record and rating per edition (``player`` left out: the requester's own;
    a bot level's as ``bot:basic``)."""

    player: str | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, player=read_player(m, "player"))


@request("get_leaderboard")
@dataclass(frozen=True, kw_only=True)
class GetLeaderboard(Request):
    """One page of an edition's leaderboard, best first; ``after`` is the ``next`` of the page
    before."""

    edition: str
    after: str | None = None
    limit: int | None = None

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        edition = read_option(read_str(m, "edition"), EDITIONS, "edition")
        after = None if m.get("after") is None else read_str(m, "after")
        if after is not None and len(after) > MAX_CURSOR:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'after' must be a leaderboard's next")
        return cls(id=rid, edition=edition, after=after, limit=read_limit(m))


@request("play_deal")
@dataclass(frozen=True, kw_only=True)
class PlayDeal(Request):
    """Open a room (the requester its host in seat 0) to play finished game ``game``'s deal
    again: its edition, seat count, variants and seed, with other people. The room is unrated
    (its seed is known)."""

    game: int
    public: bool = True
    timer: int = 0
    bots: int = 0
    bot_level: str = "basic"

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        bots = read_int(m, "bots", 0)
        if bots < 0:
            raise ProtocolError(ErrorCode.BAD_OPTION, "'bots' must be at least 0")
        return cls(
            id=rid,
            game=read_int(m, "game"),
            public=read_bool(m, "public", True),
            timer=read_option(read_int(m, "timer", 0), TIMERS, "timer"),
            bots=bots,
            bot_level=read_option(read_str(m, "bot_level", "basic"), BOT_LEVELS, "bot_level"),
        )


@dataclass(frozen=True, kw_only=True)
class ReviewRequest(Request):
    """A request about the shared review of room ``room``'s finished game."""

    room: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m))


@request("review_join")
@dataclass(frozen=True, kw_only=True)
class ReviewJoin(ReviewRequest):
    """Enter the room's shared review of its finished game (open one if none is: the
    requester leads it). Players and spectators of the room may."""


@request("review_leave")
@dataclass(frozen=True, kw_only=True)
class ReviewLeave(ReviewRequest):
    """Leave the review (a leader who leaves hands the lead to the next who joined)."""


@request("review_step")
@dataclass(frozen=True, kw_only=True)
class ReviewStep(ReviewRequest):
    """Leader: show the board after ``step`` decisions (0 is the deal, the game's number of
    decisions its end)."""

    step: int

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        return cls(id=rid, room=room_code(m), step=read_int(m, "step"))


@request("review_lead")
@dataclass(frozen=True, kw_only=True)
class ReviewLead(ReviewRequest):
    """Leader: hand the lead on to ``player``, another member of the review."""

    player: str

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        player = read_player(m, "player")
        if player is None:
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'player' must be a player id")
        return cls(id=rid, room=room_code(m), player=player)


@request("review_follow")
@dataclass(frozen=True, kw_only=True)
class ReviewFollow(ReviewRequest):
    """Follow the leader's step (``follow`` true: rejoin it) or break away to step alone."""

    follow: bool

    @classmethod
    def from_wire(cls, m: Mapping[str, Any], rid: int | None) -> Request:
        if not isinstance(m.get("follow"), bool):
            raise ProtocolError(ErrorCode.BAD_REQUEST, "'follow' must be a boolean")
        return cls(id=rid, room=room_code(m), follow=bool(m["follow"]))
