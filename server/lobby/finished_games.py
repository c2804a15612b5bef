"""What the server does with the requests about finished games: replays, players' records and
ratings, the leaderboard, shared review and "play this deal" (PROTOCOL.md §4, §12).

Each handler registers itself in ``server.lobby.handlers.HANDLERS`` (the lobby imports this
module for it). Reads of the database share one rate per identity and per address
(``replays_per_second``) and pages are capped (``replays_page``); on PostgreSQL they run off
the event loop (``_read``: in the store's thread for reads), on SQLite at once (a local file).
Review requests have a rate of their own, per identity. What a requester
may see is decided here: a private game only by those who held a seat in it (anyone else gets
``no_such_game``, as for a game that does not exist).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from protocol.errors import ErrorCode, ProtocolError
from protocol.game_types import Choice
from protocol.messages import (
    CreateRoom,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    ListReplays,
    PlayDeal,
    ReviewFollow,
    ReviewJoin,
    ReviewLead,
    ReviewLeave,
    ReviewStep,
)
from protocol.records import (
    BOT_PLAYERS,
    EditionRecord,
    GameSummary,
    LeaderboardEntry,
    SeatRecord,
)
from protocol.server_messages import (
    LeaderboardMessage,
    OkMessage,
    ProfileMessage,
    ReplayMessage,
    ReplaysMessage,
)
from server.engine import RULES_VERSION, digest, replay
from server.lobby.handlers import Lobby, _member, handles, open_room
from server.lobby.players import Connection, Player
from server.rooms.review import SharedReview, broadcast_review, leave_review
from server.rooms.room import Status
from server.store.game_reads import GameReads
from server.store.records import StoredGame
from server.store.standings import ACTIVE_DAYS
from server.store.tally import Change, Standing, rating

_DAY = 86_400.0
T = TypeVar("T")


def _check_rate(lobby: Lobby, conn: Connection, player: Player) -> None:
    """Reads of the database: a rate of their own, per identity and per address, far below
    the message rate."""
    limits = lobby.limits
    if not limits.replays.allow(player.id) or not limits.replays.allow(conn.address):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED, "you are asking for finished games too fast; wait a little"
        )


def _page(lobby: Lobby, limit: int | None) -> int:
    cap = lobby.config.replays_page
    return cap if limit is None else min(limit, cap)


def seat_records(game: StoredGame) -> list[SeatRecord]:
    """The seats of a stored game as the protocol shows them."""
    out = []
    for index, name in enumerate(game.names):
        seat: dict[str, Any] = game.seats[index] if index < len(game.seats) else {}
        bot = seat.get("kind") == "bot"
        player = seat.get("player")
        out.append(
            SeatRecord(
                name=name,
                kind="bot" if bot else "human",
                player=player if isinstance(player, str) and not bot else None,
                level=str(seat.get("level", "basic")) if bot else None,
                left=bool(seat.get("left")) and not bot,
            )
        )
    return out


def _public(game: StoredGame) -> bool:
    return game.settings.get("public", True) is not False


def _summary(game: StoredGame, seat: int | None = None) -> GameSummary:
    return GameSummary(
        game=game.id,
        room=game.room,
        edition=game.edition,
        variants=tuple(game.variants),
        seats=tuple(seat_records(game)),
        winner=game.winner,
        turns=game.turns or 0,
        ended=game.ended or 0.0,
        public=_public(game),
        rated=game.rated,
        seat=seat,
    )


def _read(
    lobby: Lobby, conn: Connection, fetch: Callable[[GameReads], T], then: Callable[[T], None]
) -> None:
    """Call ``then`` with what ``fetch`` reads of the store: on PostgreSQL in the store's
    thread for reads, after this node's writes so far are committed (the event loop goes on
    meanwhile; ``conn``'s next requests wait for it: ``Connection.after``), on SQLite here
    (``Store.reads_later``). ``fetch`` runs in that thread: it reads, and makes plain values
    of the rows, touching nothing of the lobby's."""
    later = lobby.store.reads_later(fetch)
    if later is None:
        then(fetch(lobby.store))
    else:
        conn.after(later, then)


def visible(game: StoredGame | None, player: Player, number: int) -> StoredGame:
    """Finished game ``number`` (``game``, as read: None if not found) if ``player`` may see
    it: a public one, or a private one they held a seat in; else ``no_such_game``."""
    if (
        game is None
        or game.status != "over"
        or not (_public(game) or _seated(game.seats, player.id))
    ):
        # a private game's replay (names, seed, decisions) is its players' only
        raise ProtocolError(ErrorCode.NO_SUCH_GAME, f"no finished game {number}")
    return game


def _seated(seats: list[dict[str, Any]], player: str) -> bool:
    """Whether ``player`` held one of the stored ``seats``."""
    return any(isinstance(seat, dict) and seat.get("player") == player for seat in seats)


@handles(ListReplays)
def list_replays(lobby: Lobby, conn: Connection, player: Player, req: ListReplays) -> None:
    """A page of finished games, newest first: all the requester may see, the public ones,
    or one player's."""
    _check_rate(lobby, conn, player)
    size, viewer = _page(lobby, req.limit), player.id

    def fetch(reads: GameReads) -> tuple[list[GameSummary], int | None]:
        if req.player is None:
            page, after = reads.replay_page(size, None if req.public else viewer, req.before)
            return [_summary(game) for game in page], after
        held = reads.standings.games_of(req.player, viewer, size + 1, req.before)
        after = held[size - 1][0] if len(held) > size else None
        seats = dict(held[:size])
        return [_summary(game, seats[game.id]) for game in reads.games_by_id(list(seats))], after

    _read(
        lobby,
        conn,
        fetch,
        lambda found: conn.send(ReplaysMessage(id=req.id, games=tuple(found[0]), next=found[1])),
    )


@handles(GetReplay)
def get_replay(lobby: Lobby, conn: Connection, player: Player, req: GetReplay) -> None:
    """One finished game whole, with its final-state check and rating changes."""
    _check_rate(lobby, conn, player)
    number = req.game

    def fetch(reads: GameReads) -> tuple[StoredGame | None, list[Change]]:
        game = reads.game(number)
        over = game is not None and game.status == "over"
        return game, reads.standings.changes(number) if over else []

    _read(lobby, conn, fetch, lambda found: _send_replay(conn, player, req, *found))


def _send_replay(
    conn: Connection, player: Player, req: GetReplay, read: StoredGame | None, changes: list[Change]
) -> None:
    """:func:`get_replay`'s answer, once the game and its rating changes are read."""
    game = visible(read, player, req.game)
    check = game.digest
    if check is None:  # ended before digests were kept: the engine replays it
        check = digest(replay(game.edition, game.names, game.seed, game.decisions, game.variants))
    message = ReplayMessage(
        game=game.id,
        room=game.room,
        edition=game.edition,
        variants=tuple(game.variants),
        seats=tuple(seat_records(game)),
        seed=game.seed,
        decisions=tuple((seat, Choice.from_wire(choice)) for seat, choice in game.decisions),
        winner=game.winner,
        turns=game.turns or 0,
        started=game.started,
        ended=game.ended or 0.0,
        public=_public(game),
        rated=game.rated,
        digest=check,
        rules=RULES_VERSION,
        ratings=tuple(change.to_wire() for change in changes),
        id=req.id,
    )
    conn.send(message)


def _edition_record(standing: Standing) -> EditionRecord:
    skill = standing.skill
    return EditionRecord(
        edition=standing.edition,
        games=standing.games,
        wins=standing.wins,
        no_winner=standing.no_winner,
        streak=standing.streak,
        best_streak=standing.best_streak,
        last_played=standing.last_played,
        rated_games=standing.rated_games,
        rating=None if skill is None else rating(skill),
    )


@handles(GetProfile)
def get_profile(lobby: Lobby, conn: Connection, player: Player, req: GetProfile) -> None:
    """A player's (or a bot level's) record and rating per edition."""
    _check_rate(lobby, conn, player)
    target = req.player or player.id
    _read(
        lobby,
        conn,
        lambda reads: reads.standings.of(target),
        lambda standings: _send_profile(lobby, conn, req, target, standings),
    )


def _send_profile(
    lobby: Lobby, conn: Connection, req: GetProfile, target: str, standings: list[Standing]
) -> None:
    """:func:`get_profile`'s answer, once ``target``'s standings are read."""
    bot = target in BOT_PLAYERS.values()
    known = lobby.players.get(target)
    if known is not None:
        name = known.name
    elif bot:
        name = target.removeprefix("bot:")
    elif standings:  # an identity the server forgot (retention) keeps its record
        name = standings[-1].name
    else:
        raise ProtocolError(ErrorCode.NO_SUCH_PLAYER, f"no player {target!r}")
    editions = [_edition_record(standing) for standing in standings]
    conn.send(
        ProfileMessage(id=req.id, player=target, name=name, bot=bot, editions=tuple(editions))
    )


def _cursor(after: str | None) -> tuple[int, tuple[float, str] | None]:
    """(rank of the page's last entry, (its mu, its id)) from a ``next``; ``bad_request``
    for anything else."""
    if after is None:
        return 0, None
    try:
        mu, rank, pid = after.split(":", 2)
        return int(rank), (float(mu), pid)
    except ValueError:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST, "'after' must be the next of a leaderboard page"
        ) from None


@handles(GetLeaderboard)
def get_leaderboard(lobby: Lobby, conn: Connection, player: Player, req: GetLeaderboard) -> None:
    """A page of an edition's leaderboard: settled ratings of people active lately."""
    _check_rate(lobby, conn, player)
    size = _page(lobby, req.limit)
    rank, after = _cursor(req.after)
    since = time.time() - ACTIVE_DAYS * _DAY
    _read(
        lobby,
        conn,
        lambda reads: reads.standings.board(req.edition, size + 1, after, since),
        lambda rows: _send_board(lobby, conn, req, size, rank, rows),
    )


def _send_board(
    lobby: Lobby, conn: Connection, req: GetLeaderboard, size: int, rank: int, rows: list[Standing]
) -> None:
    """:func:`get_leaderboard`'s answer, once its page (and one more row) is read: ``rank``
    is that of the last entry of the page before."""
    entries = []
    for standing in rows[:size]:
        rank += 1
        skill = standing.skill
        assert skill is not None  # ranked rows have a rating
        known = lobby.players.get(standing.player)
        entries.append(
            LeaderboardEntry(
                rank=rank,
                player=standing.player,
                name=standing.name if known is None else known.name,
                rating=rating(skill),
                games=standing.games,
                wins=standing.wins,
                last_played=standing.last_played,
            )
        )
    following = None
    if len(rows) > size:
        last = rows[size - 1]
        following = f"{last.mu!r}:{rank}:{last.player}"
    conn.send(
        LeaderboardMessage(id=req.id, edition=req.edition, entries=tuple(entries), next=following)
    )


@handles(PlayDeal)
def play_deal(lobby: Lobby, conn: Connection, player: Player, req: PlayDeal) -> None:
    """A new room with a finished game's edition, seats, variants and seed."""
    _check_rate(lobby, conn, player)
    number = req.game
    _read(
        lobby,
        conn,
        lambda reads: reads.game(number),
        lambda game: _open_deal(lobby, conn, player, req, game),
    )


def _open_deal(
    lobby: Lobby, conn: Connection, player: Player, req: PlayDeal, read: StoredGame | None
) -> None:
    """:func:`play_deal`, once the game is read."""
    game = visible(read, player, req.game)
    seats = len(game.names)
    if not 0 <= req.bots < seats:
        raise ProtocolError(ErrorCode.BAD_OPTION, f"'bots' must be 0..{seats - 1}")
    deal = CreateRoom(
        id=req.id,
        edition=game.edition,
        seats=seats,
        public=req.public,
        timer=req.timer,
        bots=req.bots,
        bot_level=req.bot_level,
        seed=game.seed,
        variants=tuple(game.variants),
    )
    open_room(lobby, conn, player, deal, seeded=True)


# --------------------------------------------------------------------------- shared review


def _check_review_rate(lobby: Lobby, player: Player) -> None:
    if not lobby.limits.reviews.allow(player.id):
        raise ProtocolError(ErrorCode.RATE_LIMITED, "you are stepping too fast; wait a little")


def _review(lobby: Lobby, code: str, player: Player) -> SharedReview:
    """The room's review that ``player`` is in (``no_such_room``, ``not_in_review``)."""
    room = _member(lobby, code, player)
    review = lobby.reviews.get(room.code)
    if review is None or review.game != room.game_id or room.status is not Status.OVER:
        raise ProtocolError(ErrorCode.NOT_IN_REVIEW, f"you are not in room {code}'s review")
    review.require(player.id)
    return review


@handles(ReviewJoin)
def review_join(lobby: Lobby, conn: Connection, player: Player, req: ReviewJoin) -> None:
    """Enter (or open, and lead) the room's review of its finished game."""
    _check_review_rate(lobby, player)
    room = _member(lobby, req.room, player)
    if room.status is not Status.OVER or room.game is None or room.game_id is None:
        raise ProtocolError(ErrorCode.NOT_OVER, f"room {room.code} has no finished game")
    review = lobby.reviews.get(room.code)
    if review is None or review.game != room.game_id:
        review = SharedReview(room.code, room.game_id, len(room.game.decisions), player.id)
        lobby.reviews[room.code] = review
    else:
        review.join(player.id)
    conn.send(review.message(lobby.player_name, req.id))
    others = review.message(lobby.player_name)
    for member in review.members:
        if member != player.id:
            lobby.send(member, others)


@handles(ReviewLeave)
def review_leave(lobby: Lobby, conn: Connection, player: Player, req: ReviewLeave) -> None:
    """Leave the review (the lead passes on)."""
    _check_review_rate(lobby, player)
    review = _review(lobby, req.room, player)
    conn.send(OkMessage(id=req.id))
    conn.send(review.closed())
    leave_review(lobby, review.room, player.id)


@handles(ReviewStep)
def review_step(lobby: Lobby, conn: Connection, player: Player, req: ReviewStep) -> None:
    """The leader steps; everyone following sees it."""
    _check_review_rate(lobby, player)
    review = _review(lobby, req.room, player)
    review.step_to(player.id, req.step)
    conn.send(OkMessage(id=req.id))
    broadcast_review(lobby, review)


@handles(ReviewLead)
def review_lead(lobby: Lobby, conn: Connection, player: Player, req: ReviewLead) -> None:
    """The leader hands the lead on."""
    _check_review_rate(lobby, player)
    review = _review(lobby, req.room, player)
    review.hand_on(player.id, req.player)
    conn.send(OkMessage(id=req.id))
    broadcast_review(lobby, review)


@handles(ReviewFollow)
def review_follow(lobby: Lobby, conn: Connection, player: Player, req: ReviewFollow) -> None:
    """A member breaks away from the leader's step, or follows it again."""
    _check_review_rate(lobby, player)
    review = _review(lobby, req.room, player)
    review.follow(player.id, req.follow)
    conn.send(OkMessage(id=req.id))
    broadcast_review(lobby, review)
